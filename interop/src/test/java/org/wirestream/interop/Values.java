package org.wirestream.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.Period;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.lucene.util.BytesRef;
import org.elasticsearch.common.bytes.BytesArray;
import org.elasticsearch.common.geo.GeoPoint;
import org.wirestream.interop.compat.Es;

/**
 * Random values at their edges, their JSON forms for the runner (generic values in the tagged
 * form of docs/cli.md), and equality of what ES reads back (arrays by content, anywhere).
 */
final class Values {
  static final JsonNodeFactory J = JsonNodeFactory.instance;

  private Values() {}

  record Generic(Object value, JsonNode json) {}

  static final int[] INT_EDGES = {
    0, 1, -1, 127, 128, 16383, 16384, 2097151, 2097152, 268435455, 268435456,
    Integer.MAX_VALUE, Integer.MIN_VALUE
  };
  static final String[] ZONES = {
    "UTC", "Z", "Europe/Paris", "America/New_York", "Asia/Kathmandu", "+05:30", "-08:00",
    "Etc/GMT+5", "GMT", "Australia/Lord_Howe"
  };

  static int randomInt(Random rnd) {
    return switch (rnd.nextInt(3)) {
      case 0 -> INT_EDGES[rnd.nextInt(INT_EDGES.length)] + rnd.nextInt(3) - 1;
      case 1 -> rnd.nextInt(300) - 150;
      default -> rnd.nextInt();
    };
  }

  static long randomLong(Random rnd) {
    return switch (rnd.nextInt(4)) {
      case 0 -> (1L << rnd.nextInt(64)) + rnd.nextInt(3) - 1;  // every VLong length
      case 1 -> rnd.nextBoolean() ? Long.MAX_VALUE : Long.MIN_VALUE;
      case 2 -> randomInt(rnd);
      default -> rnd.nextLong();
    };
  }

  static float randomFloat(Random rnd) {
    return switch (rnd.nextInt(4)) {
      case 0 -> new float[] {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, -0.0f,
          0.0f, Float.MIN_VALUE, Float.MAX_VALUE, Float.MIN_NORMAL, 0.1f}[rnd.nextInt(9)];
      case 1 -> Float.intBitsToFloat(rnd.nextInt());  // any bits, NaN payloads included
      default -> (rnd.nextFloat() - 0.5f) * (float) Math.pow(10, rnd.nextInt(20) - 10);
    };
  }

  static double randomDouble(Random rnd) {
    return switch (rnd.nextInt(4)) {
      case 0 -> new double[] {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
          -0.0, 0.0, Double.MIN_VALUE, Double.MAX_VALUE, Double.MIN_NORMAL, 0.1}[rnd.nextInt(9)];
      case 1 -> Double.longBitsToDouble(rnd.nextLong());
      default -> (rnd.nextDouble() - 0.5) * Math.pow(10, rnd.nextInt(40) - 20);
    };
  }

  static int randomLength(Random rnd) {
    return rnd.nextInt(5) == 0 ? Strings.BOUNDARIES[rnd.nextInt(Strings.BOUNDARIES.length)]
        : rnd.nextInt(20);
  }

  static JsonNode floatJson(float f) {
    if (Float.isNaN(f)) return J.textNode("NaN");
    if (Float.isInfinite(f)) return J.textNode(f > 0 ? "Infinity" : "-Infinity");
    return J.numberNode(f);
  }

  static JsonNode doubleJson(double d) {
    if (Double.isNaN(d)) return J.textNode("NaN");
    if (Double.isInfinite(d)) return J.textNode(d > 0 ? "Infinity" : "-Infinity");
    return J.numberNode(d);
  }

  private static Generic tagged(Object value, String kind, JsonNode inner) {
    ObjectNode o = J.objectNode();
    o.set(kind, inner);
    return new Generic(value, o);
  }

  private static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }

  private static byte[] bytes(Random rnd) {
    byte[] b = new byte[rnd.nextInt(3) == 0 ? randomLength(rnd) : rnd.nextInt(8)];
    rnd.nextBytes(b);
    return b;
  }

  /** A duration, a period or a geo bounding box (tags 28, 29 from 8.9; 30 from 8.11), or null before. */
  static Generic randomAfter8_11(Random rnd) {
    if (!Es.durationAndPeriod()) return null;
    switch (rnd.nextInt(3)) {
      case 0: {
        long seconds = randomLong(rnd);
        long nanos = rnd.nextBoolean() ? 0 : rnd.nextInt(1_000_000_000);
        return tagged(Duration.ofSeconds(seconds, nanos), "duration",
            J.arrayNode().add(seconds).add(nanos));
      }
      case 1: {
        int y = randomInt(rnd);
        int m = randomInt(rnd);
        int d = randomInt(rnd);
        return tagged(Period.of(y, m, d), "period", J.arrayNode().add(y).add(m).add(d));
      }
      default: {
        double[] c = new double[4];
        ArrayNode j = J.arrayNode();
        for (int i = 0; i < 4; i++) {
          c[i] = rnd.nextInt(4) == 0 ? randomDouble(rnd) : rnd.nextDouble() * 180 - 90;
          j.add(doubleJson(c[i]));
        }
        return tagged(Es.geoBoundingBox(c[0], c[1], c[2], c[3]), "geo bounding box", j);
      }
    }
  }

  /** A generic value of any kind writeGenericValue takes; containers nest up to 3 deep. */
  static Generic randomGeneric(Random rnd, int depth) {
    if (rnd.nextInt(10) == 0) {
      Generic g = randomAfter8_11(rnd);
      if (g != null) return g;
    }
    int kinds = depth >= 3 ? 22 : 28;
    switch (rnd.nextInt(kinds)) {
      case 0: return new Generic(null, J.nullNode());
      case 1: {
        String s = Strings.random(rnd);
        return new Generic(s, J.textNode(s));
      }
      case 2: {
        int i = randomInt(rnd);
        return tagged(i, "int", J.numberNode(i));
      }
      case 3: {
        long l = randomLong(rnd);
        return tagged(l, "long", J.numberNode(l));
      }
      case 4: {
        float f = randomFloat(rnd);
        return tagged(f, "float", floatJson(f));
      }
      case 5: {
        double d = randomDouble(rnd);
        return tagged(d, "double", doubleJson(d));
      }
      case 6: {
        boolean b = rnd.nextBoolean();
        return new Generic(b, J.booleanNode(b));
      }
      case 7: {
        byte[] b = bytes(rnd);
        return tagged(b, "byte array", J.textNode(hex(b)));
      }
      case 8: {
        byte b = (byte) rnd.nextInt();
        return tagged(b, "byte", J.numberNode(b));
      }
      case 9: {
        long ms = rnd.nextLong() % 253402300799999L;
        return tagged(new Date(ms), "date", J.numberNode(ms));
      }
      case 10: {
        byte[] b = bytes(rnd);
        return tagged(new BytesArray(b), "bytes reference", J.textNode(hex(b)));
      }
      case 11: {
        String s = Strings.random(rnd);
        return tagged(Es.text(s), "text", J.textNode(s));
      }
      case 12: {
        short s = (short) rnd.nextInt();
        return tagged(s, "short", J.numberNode(s));
      }
      case 13: {
        int[] a = new int[rnd.nextInt(6)];
        ArrayNode j = J.arrayNode();
        for (int i = 0; i < a.length; i++) j.add(a[i] = randomInt(rnd));
        return tagged(a, "int array", j);
      }
      case 14: {
        long[] a = new long[rnd.nextInt(6)];
        ArrayNode j = J.arrayNode();
        for (int i = 0; i < a.length; i++) j.add(a[i] = randomLong(rnd));
        return tagged(a, "long array", j);
      }
      case 15: {
        float[] a = new float[rnd.nextInt(6)];
        ArrayNode j = J.arrayNode();
        for (int i = 0; i < a.length; i++) j.add(floatJson(a[i] = randomFloat(rnd)));
        return tagged(a, "float array", j);
      }
      case 16: {
        double[] a = new double[rnd.nextInt(6)];
        ArrayNode j = J.arrayNode();
        for (int i = 0; i < a.length; i++) j.add(doubleJson(a[i] = randomDouble(rnd)));
        return tagged(a, "double array", j);
      }
      case 17: {
        byte[] b = bytes(rnd);
        return tagged(new BytesRef(b), "bytes ref", J.textNode(hex(b)));
      }
      case 18: {
        double lat = rnd.nextInt(4) == 0 ? randomDouble(rnd) : rnd.nextDouble() * 180 - 90;
        double lon = rnd.nextInt(4) == 0 ? randomDouble(rnd) : rnd.nextDouble() * 360 - 180;
        return tagged(new GeoPoint(lat, lon), "geo point",
            J.arrayNode().add(doubleJson(lat)).add(doubleJson(lon)));
      }
      case 19: {
        long ms = rnd.nextLong() % 253402300799999L;
        ZoneId zone = ZoneId.of(ZONES[rnd.nextInt(ZONES.length)]);
        // From 8.16 the wire carries nanoseconds: some below the millisecond where it does.
        int nanos = Es.zonedDateTimeNanos() && rnd.nextBoolean() ? 1 + rnd.nextInt(999_999) : 0;
        ZonedDateTime z = ZonedDateTime.ofInstant(Instant.ofEpochMilli(ms).plusNanos(nanos), zone);
        ArrayNode j = J.arrayNode().add(ms).add(zone.getId());
        if (nanos != 0) j.add(nanos);
        return tagged(z, "zoned date time", j);
      }
      case 20: {
        BigInteger b = new BigInteger(rnd.nextInt(130), rnd);
        if (rnd.nextBoolean()) b = b.negate();
        return tagged(b, "big integer", J.textNode(b.toString()));
      }
      case 21: {
        long nanos = (rnd.nextLong() & Long.MAX_VALUE) % LocalTime.MAX.toNanoOfDay();
        ZoneOffset off = ZoneOffset.ofTotalSeconds(
            rnd.nextBoolean() ? (rnd.nextInt(37) - 18) * 1800 : rnd.nextInt(129601) - 64800);
        OffsetTime t = OffsetTime.of(LocalTime.ofNanoOfDay(nanos), off);
        return tagged(t, "offset time", J.arrayNode().add(nanos).add(off.getId()));
      }
      case 22: case 23: {
        boolean array = rnd.nextBoolean();
        List<Object> l = new ArrayList<>();
        ArrayNode j = J.arrayNode();
        for (int i = rnd.nextInt(5); i > 0; i--) {
          Generic g = randomGeneric(rnd, depth + 1);
          l.add(g.value());
          j.add(g.json());
        }
        return array ? tagged(l.toArray(), "object array", j) : tagged(l, "list", j);
      }
      case 24: case 25: {
        boolean ordered = rnd.nextBoolean();
        Map<String, Object> m = ordered ? new LinkedHashMap<>() : new TreeMap<>();
        Map<String, JsonNode> js = new LinkedHashMap<>();
        for (int i = rnd.nextInt(5); i > 0; i--) {
          String k = rnd.nextBoolean() ? "k" + rnd.nextInt(10) : Strings.random(rnd);
          Generic g = randomGeneric(rnd, depth + 1);
          m.put(k, g.value());
          js.put(k, g.json());
        }
        ArrayNode j = J.arrayNode();
        for (String k : m.keySet()) j.addArray().add(k).add(js.get(k));
        return tagged(m, ordered ? "ordered map" : "map", j);
      }
      default: {
        boolean ordered = rnd.nextBoolean();
        Set<String> s = ordered ? new LinkedHashSet<>() : new TreeSet<>();
        for (int i = rnd.nextInt(5); i > 0; i--) s.add(Strings.random(rnd));
        ArrayNode j = J.arrayNode();
        s.forEach(j::add);
        return tagged(s, ordered ? "ordered set" : "set", j);
      }
    }
  }

  /** Equality of what ES read with what it wrote: arrays by content at any depth. */
  static boolean deepEquals(Object a, Object b) {
    if (a == null || b == null) return a == b;
    if (a.getClass().isArray() || b.getClass().isArray()) {
      return Objects.deepEquals(a, b) || (a instanceof Object[] x && b instanceof Object[] y
          && sameSequence(Arrays.asList(x), Arrays.asList(y)));
    }
    if (a instanceof List<?> x && b instanceof List<?> y) return sameSequence(x, y);
    if (a instanceof Map<?, ?> x && b instanceof Map<?, ?> y) {
      if (x.size() != y.size()) return false;
      if (x instanceof LinkedHashMap && !sameSequence(List.copyOf(x.keySet()),
          List.copyOf(y.keySet()))) {
        return false;
      }
      for (Map.Entry<?, ?> e : x.entrySet()) {
        if (!y.containsKey(e.getKey()) || !deepEquals(e.getValue(), y.get(e.getKey()))) {
          return false;
        }
      }
      return true;
    }
    if (a instanceof LinkedHashSet<?> x && b instanceof Set<?> y) {
      return x.equals(y) && sameSequence(List.copyOf(x), List.copyOf(y));
    }
    return a.equals(b);
  }

  private static boolean sameSequence(List<?> x, List<?> y) {
    if (x.size() != y.size()) return false;
    Iterator<?> i = x.iterator();
    Iterator<?> j = y.iterator();
    while (i.hasNext()) {
      if (!deepEquals(i.next(), j.next())) return false;
    }
    return true;
  }

  static String show(Object v) {
    String s = v instanceof Object[] a ? Arrays.deepToString(a)
        : v != null && v.getClass().isArray() ? Arrays.deepToString(new Object[] {v})
        : String.valueOf(v);
    return s.length() > 120 ? s.substring(0, 120) + "..." : s;
  }
}
