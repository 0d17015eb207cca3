package org.wirestream.interop;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;

/**
 * Equality of JSON trees as values: integers by value whatever their node class, other numbers
 * as doubles bit for bit (-0.0 is not 0.0), and as floats where the expected side is a float.
 * Object members in any order, arrays in order. Returns null when equal, else the path and the
 * two sides of the first difference.
 */
final class JsonCompare {
  private JsonCompare() {}

  static String diff(JsonNode expected, JsonNode actual) {
    return diff("$", expected, actual);
  }

  private static String diff(String path, JsonNode e, JsonNode a) {
    if (e == null || a == null) {
      return e == a ? null : path + ": " + e + " vs " + a;
    }
    if (e.isNumber() && a.isNumber()) {
      boolean same;
      if (e.isIntegralNumber() && a.isIntegralNumber()) {
        same = e.bigIntegerValue().equals(a.bigIntegerValue());
      } else if (e.isFloat()) {
        same = Float.floatToIntBits(e.floatValue()) == Float.floatToIntBits((float) a.doubleValue());
      } else {
        same = Double.doubleToLongBits(e.doubleValue()) == Double.doubleToLongBits(a.doubleValue());
      }
      return same ? null : path + ": " + e + " vs " + a;
    }
    if (e.getNodeType() != a.getNodeType()) return path + ": " + e + " vs " + a;
    if (e.isArray()) {
      if (e.size() != a.size()) return path + ": " + e.size() + " vs " + a.size() + " elements";
      for (int i = 0; i < e.size(); i++) {
        String d = diff(path + "[" + i + "]", e.get(i), a.get(i));
        if (d != null) return d;
      }
      return null;
    }
    if (e.isObject()) {
      if (e.size() != a.size()) return path + ": members " + names(e) + " vs " + names(a);
      for (Iterator<Map.Entry<String, JsonNode>> it = e.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> m = it.next();
        String d = diff(path + "." + m.getKey(), m.getValue(), a.get(m.getKey()));
        if (d != null) return d;
      }
      return null;
    }
    return e.equals(a) ? null : path + ": " + e + " vs " + a;
  }

  /**
   * As diff, and object members must also come in the same order (ES's response JSON is
   * compared as ES writes it: keys, their order, values).
   */
  static String diffOrdered(JsonNode expected, JsonNode actual) {
    String d = diff(expected, actual);
    return d != null ? d : order("$", expected, actual);
  }

  private static String order(String path, JsonNode e, JsonNode a) {
    if (e == null || a == null) return null;
    if (e.isObject()) {
      if (!names(e).equals(names(a))) return path + ": member order " + names(e) + " vs " + names(a);
      for (Iterator<String> it = e.fieldNames(); it.hasNext(); ) {
        String n = it.next();
        String d = order(path + "." + n, e.get(n), a.get(n));
        if (d != null) return d;
      }
    } else if (e.isArray()) {
      for (int i = 0; i < e.size(); i++) {
        String d = order(path + "[" + i + "]", e.get(i), a.get(i));
        if (d != null) return d;
      }
    }
    return null;
  }

  private static String names(JsonNode o) {
    StringBuilder b = new StringBuilder("[");
    o.fieldNames().forEachRemaining(n -> b.append(b.length() > 1 ? "," : "").append(n));
    return b.append("]").toString();
  }

  /** Where two hex strings first differ, with a little context on each side. */
  static String hexDiff(String expected, String actual) {
    int i = 0;
    int n = Math.min(expected.length(), actual.length());
    while (i < n && expected.charAt(i) == actual.charAt(i)) i++;
    int from = Math.max(0, (i / 2 - 8) * 2);
    return "first difference at byte " + i / 2 + " of " + expected.length() / 2 + " (ES) / "
        + actual.length() / 2 + " (wirestream): ES ..." + clip(expected, from)
        + "... wirestream ..." + clip(actual, from) + "...";
  }

  private static String clip(String hex, int from) {
    return from >= hex.length() ? "" : hex.substring(from, Math.min(hex.length(), from + 48));
  }
}
