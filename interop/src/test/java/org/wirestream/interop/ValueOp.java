package org.wirestream.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.IOException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;
import org.elasticsearch.core.TimeValue;

/**
 * One typed write of a value vector: its type (the names of runner/values.cc), the Java value
 * ES writes, and the same value in the runner's JSON form. write and read call ES's own
 * StreamOutput and StreamInput methods of that type.
 */
final class ValueOp {
  static final JsonNodeFactory J = JsonNodeFactory.instance;
  static final String[] TYPES = {
    "byte", "short", "int", "long", "vint", "vlong", "zlong", "float", "double", "bool",
    "optbool", "optint", "optlong", "optvint", "optvlong", "optfloat", "optdouble", "string",
    "optstring", "bytearray", "stringarray", "vintarray", "vlongarray", "intarray", "longarray",
    "floatarray", "doublearray", "timevalue", "opttimevalue", "instant", "optinstant", "generic"
  };

  final String type;
  final Object value;
  final JsonNode json;
  /** A string with a lone surrogate: JSON cannot carry it, so json is null (see ValueVectors). */
  final boolean lone;

  ValueOp(String type, Object value, JsonNode json, boolean lone) {
    this.type = type;
    this.value = value;
    this.json = json;
    this.lone = lone;
  }

  static ValueOp random(Random rnd) {
    // Strings and generic values are where the cases are: a third of the ops each.
    int pick = rnd.nextInt(3);
    String t = pick == 0 ? "generic" : pick == 1 ? (rnd.nextBoolean() ? "string" : "optstring")
        : TYPES[rnd.nextInt(TYPES.length)];
    boolean isNull = t.startsWith("opt") && rnd.nextInt(4) == 0;
    if (isNull) return new ValueOp(t, null, J.nullNode(), false);
    switch (t) {
      case "byte": {
        byte b = (byte) rnd.nextInt();
        return new ValueOp(t, b, J.numberNode(b), false);
      }
      case "short": {
        short s = (short) rnd.nextInt();
        return new ValueOp(t, s, J.numberNode(s), false);
      }
      case "int": case "optint": case "vint": case "optvint": {
        int i = Values.randomInt(rnd);
        return new ValueOp(t, i, J.numberNode(i), false);
      }
      case "long": case "optlong": case "zlong": {
        long l = Values.randomLong(rnd);
        return new ValueOp(t, l, J.numberNode(l), false);
      }
      case "vlong": case "optvlong": {
        long l = Values.randomLong(rnd) & Long.MAX_VALUE;  // ES refuses a negative VLong
        return new ValueOp(t, l, J.numberNode(l), false);
      }
      case "float": case "optfloat": {
        float f = Values.randomFloat(rnd);
        return new ValueOp(t, f, Values.floatJson(f), false);
      }
      case "double": case "optdouble": {
        double d = Values.randomDouble(rnd);
        return new ValueOp(t, d, Values.doubleJson(d), false);
      }
      case "bool": case "optbool": {
        boolean b = rnd.nextBoolean();
        return new ValueOp(t, b, J.booleanNode(b), false);
      }
      case "string": case "optstring": {
        String s = Strings.random(rnd);
        return new ValueOp(t, s, J.textNode(s), false);
      }
      case "bytearray": {
        byte[] b = new byte[Values.randomLength(rnd)];
        rnd.nextBytes(b);
        return new ValueOp(t, b, J.textNode(HexFormat.of().formatHex(b)), false);
      }
      case "stringarray": {
        String[] a = new String[rnd.nextInt(5)];
        ArrayNode j = J.arrayNode();
        for (int i = 0; i < a.length; i++) j.add(a[i] = Strings.random(rnd));
        return new ValueOp(t, a, j, false);
      }
      case "vintarray": case "intarray": {
        int[] a = new int[rnd.nextInt(6)];
        ArrayNode j = J.arrayNode();
        for (int i = 0; i < a.length; i++) j.add(a[i] = Values.randomInt(rnd));
        return new ValueOp(t, a, j, false);
      }
      case "vlongarray": case "longarray": {
        long[] a = new long[rnd.nextInt(6)];
        ArrayNode j = J.arrayNode();
        for (int i = 0; i < a.length; i++) {
          a[i] = Values.randomLong(rnd);
          if (t.equals("vlongarray")) a[i] &= Long.MAX_VALUE;
          j.add(a[i]);
        }
        return new ValueOp(t, a, j, false);
      }
      case "floatarray": {
        float[] a = new float[rnd.nextInt(6)];
        ArrayNode j = J.arrayNode();
        for (int i = 0; i < a.length; i++) j.add(Values.floatJson(a[i] = Values.randomFloat(rnd)));
        return new ValueOp(t, a, j, false);
      }
      case "doublearray": {
        double[] a = new double[rnd.nextInt(6)];
        ArrayNode j = J.arrayNode();
        for (int i = 0; i < a.length; i++) {
          j.add(Values.doubleJson(a[i] = Values.randomDouble(rnd)));
        }
        return new ValueOp(t, a, j, false);
      }
      case "timevalue": case "opttimevalue": {
        TimeUnit unit = TimeUnit.values()[rnd.nextInt(TimeUnit.values().length)];
        long d = rnd.nextInt(4) == 0 ? -1 : rnd.nextInt(3) == 0 ? rnd.nextInt(100) : rnd.nextInt();
        d = Math.abs(d) == 1 ? d : Math.abs(d);  // -1 is ES's "unset"; other negatives it refuses
        return new ValueOp(t, new TimeValue(d, unit), J.arrayNode().add(d).add(unit.ordinal()), false);
      }
      case "instant": case "optinstant": {
        long s = rnd.nextInt(3) == 0 ? rnd.nextLong() % 31556889864403199L : rnd.nextInt();
        int nanos = rnd.nextBoolean() ? 0 : rnd.nextInt(1_000_000_000);
        Instant i = Instant.ofEpochSecond(s, nanos);
        return new ValueOp(t, i, J.arrayNode().add(i.getEpochSecond()).add(i.getNano()), false);
      }
      default: {
        Values.Generic g = Values.randomGeneric(rnd, 0);
        return new ValueOp("generic", g.value(), g.json(), false);
      }
    }
  }

  static ValueOp loneSurrogate(Random rnd) {
    StringBuilder b = new StringBuilder(Strings.random(rnd));
    char unit = (char) (rnd.nextBoolean() ? 0xD800 + rnd.nextInt(0x400) : 0xDC00 + rnd.nextInt(0x400));
    b.insert(rnd.nextInt(b.length() + 1), unit);
    // A high surrogate directly followed by a low one would make a pair: keep it alone.
    String s = b.toString();
    for (int i = 0; i + 1 < s.length(); i++) {
      if (Character.isSurrogatePair(s.charAt(i), s.charAt(i + 1))) return loneSurrogate(rnd);
    }
    return new ValueOp("string", s, J.nullNode(), true);
  }

  void write(StreamOutput out) throws IOException {
    switch (type) {
      case "byte" -> out.writeByte((Byte) value);
      case "short" -> out.writeShort((Short) value);
      case "int" -> out.writeInt((Integer) value);
      case "long" -> out.writeLong((Long) value);
      case "vint" -> out.writeVInt((Integer) value);
      case "vlong" -> out.writeVLong((Long) value);
      case "zlong" -> out.writeZLong((Long) value);
      case "float" -> out.writeFloat((Float) value);
      case "double" -> out.writeDouble((Double) value);
      case "bool" -> out.writeBoolean((Boolean) value);
      case "optbool" -> out.writeOptionalBoolean((Boolean) value);
      case "optint" -> out.writeOptionalInt((Integer) value);
      case "optlong" -> out.writeOptionalLong((Long) value);
      case "optvint" -> out.writeOptionalVInt((Integer) value);
      case "optvlong" -> out.writeOptionalVLong((Long) value);
      case "optfloat" -> out.writeOptionalFloat((Float) value);
      case "optdouble" -> out.writeOptionalDouble((Double) value);
      case "string" -> out.writeString((String) value);
      case "optstring" -> out.writeOptionalString((String) value);
      case "bytearray" -> out.writeByteArray((byte[]) value);
      case "stringarray" -> out.writeStringArray((String[]) value);
      case "vintarray" -> out.writeVIntArray((int[]) value);
      case "vlongarray" -> out.writeVLongArray((long[]) value);
      case "intarray" -> out.writeIntArray((int[]) value);
      case "longarray" -> out.writeLongArray((long[]) value);
      case "floatarray" -> out.writeFloatArray((float[]) value);
      case "doublearray" -> out.writeDoubleArray((double[]) value);
      case "timevalue" -> out.writeTimeValue((TimeValue) value);
      case "opttimevalue" -> out.writeOptionalTimeValue((TimeValue) value);
      case "instant" -> out.writeInstant((Instant) value);
      case "optinstant" -> out.writeOptionalInstant((Instant) value);
      case "generic" -> out.writeGenericValue(value);
      default -> throw new IllegalStateException(type);
    }
  }

  Object read(StreamInput in) throws IOException {
    return switch (type) {
      case "byte" -> in.readByte();
      case "short" -> in.readShort();
      case "int" -> in.readInt();
      case "long" -> in.readLong();
      case "vint" -> in.readVInt();
      case "vlong" -> in.readVLong();
      case "zlong" -> in.readZLong();
      case "float" -> in.readFloat();
      case "double" -> in.readDouble();
      case "bool" -> in.readBoolean();
      case "optbool" -> in.readOptionalBoolean();
      case "optint" -> in.readOptionalInt();
      case "optlong" -> in.readOptionalLong();
      case "optvint" -> in.readOptionalVInt();
      case "optvlong" -> in.readOptionalVLong();
      case "optfloat" -> in.readOptionalFloat();
      case "optdouble" -> in.readOptionalDouble();
      case "string" -> in.readString();
      case "optstring" -> in.readOptionalString();
      case "bytearray" -> in.readByteArray();
      case "stringarray" -> in.readStringArray();
      case "vintarray" -> in.readVIntArray();
      case "vlongarray" -> in.readVLongArray();
      case "intarray" -> in.readIntArray();
      case "longarray" -> in.readLongArray();
      case "floatarray" -> in.readFloatArray();
      case "doublearray" -> in.readDoubleArray();
      case "timevalue" -> in.readTimeValue();
      case "opttimevalue" -> in.readOptionalTimeValue();
      case "instant" -> in.readInstant();
      case "optinstant" -> in.readOptionalInstant();
      case "generic" -> in.readGenericValue();
      default -> throw new IllegalStateException(type);
    };
  }
}
