package org.wirestream.interop;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random size-0 searches over the coordinator check's index (tag keyword, price long, score
 * double, @timestamp date, ip): a match_all, term or @timestamp range query and one to three
 * top-level aggregations of the kinds //search's builders write, as ES's search JSON: terms
 * (size, shard_size, min_doc_count, missing, order by count, key, a sub-metric or one of a
 * stats sub-aggregation's values), histogram and date_histogram (offsets, time zones,
 * min_doc_count 0, extended and hard bounds, numeric missing), avg, max, min, sum, stats and
 * cardinality, some with meta.
 */
final class SearchGen {
  private SearchGen() {}

  static String search(Random r) {
    StringBuilder b = new StringBuilder("{\"size\":0,\"query\":").append(query(r));
    b.append(",\"aggs\":{");
    int n = 1 + r.nextInt(3);
    // Names from a set whose Java hashes collide in pairs ("t"/"d", "a"/"q" share a bin of a
    // 16-bin HashMap): the order of the reduced aggregations follows ES's HashMap walk.
    List<String> names = new ArrayList<>(List.of("t", "d", "a", "q", "a0", "a1"));
    java.util.Collections.shuffle(names, r);
    for (int i = 0; i < n; i++) {
      if (i > 0) b.append(',');
      b.append('"').append(names.get(i)).append("\":").append(agg(r, true));
    }
    return b.append("}}").toString();
  }

  static String query(Random r) {
    return switch (r.nextInt(3)) {
      case 0 -> "{\"match_all\":{}}";
      case 1 -> "{\"term\":{\"tag\":\"t" + r.nextInt(6) + "\"}}";
      default -> {
        int from = r.nextInt(40);
        yield "{\"range\":{\"@timestamp\":{\"gte\":\"2024-03-" + String.format("%02d", 1 + from % 28)
            + "T00:00:00Z\",\"lt\":\"2024-04-" + String.format("%02d", 1 + r.nextInt(28))
            + "T00:00:00Z\"}}}";
      }
    };
  }

  static final String[] METRICS = {"avg", "max", "min", "sum", "stats", "cardinality"};

  static String metric(Random r, boolean top) {
    return metric(r, METRICS[r.nextInt(METRICS.length)], top);
  }

  /**
   * A metric; a cardinality's sketch always stays sparse (linear counting, ES's estimate to
   * the last bit): a dense one's estimate is a known difference of wirestream's (Ertl's
   * estimator, docs/aggregations.md), which the reduce check counts apart. The 40 tags fit any
   * threshold from 100 (precision 10 and up); prices and IPs (thousands) only at the largest
   * (precision 18), at the top level only (ES 7.17 allocates such a sketch's registers
   * eagerly, one per bucket).
   */
  static String metric(Random r, String kind, boolean top) {
    if (kind.equals("cardinality")) {
      String field = top ? new String[] {"tag", "price", "ip"}[r.nextInt(3)] : "tag";
      String threshold = !field.equals("tag") ? ",\"precision_threshold\":40000"
          : r.nextBoolean() ? "" : ",\"precision_threshold\":" + (100 + r.nextInt(2900));
      return "{\"cardinality\":{\"field\":\"" + field + "\"" + threshold + "}" + meta(r) + "}";
    }
    String field = r.nextBoolean() ? "price" : "score";
    return "{\"" + kind + "\":{\"field\":\"" + field + "\"}" + meta(r) + "}";
  }

  /** Now and then an aggregation's meta (after its body, as ES's JSON puts it). */
  static String meta(Random r) {
    return r.nextInt(8) == 0 ? ",\"meta\":{\"owner\":\"wirestream\",\"n\":" + r.nextInt(100) + "}"
        : "";
  }

  static String agg(Random r, boolean top) {
    int k = r.nextInt(top ? 4 : 1);
    if (!top) return metric(r, false);
    switch (k) {
      case 0: {
        StringBuilder t = new StringBuilder("{\"terms\":{\"field\":\"tag\",\"size\":")
            .append(1 + r.nextInt(10));
        if (r.nextInt(3) == 0) t.append(",\"shard_size\":").append(5 + r.nextInt(20));
        if (r.nextInt(3) == 0) t.append(",\"min_doc_count\":").append(1 + r.nextInt(20));
        if (r.nextInt(3) == 0) t.append(",\"missing\":\"none\"");
        boolean sub = r.nextBoolean();
        String subKind = METRICS[r.nextInt(METRICS.length)];
        String dir = r.nextBoolean() ? "asc" : "desc";
        switch (r.nextInt(sub ? 4 : 3)) {
          case 0 -> {}
          case 1 -> t.append(",\"order\":{\"_count\":\"").append(dir).append("\"}");
          case 2 -> t.append(",\"order\":{\"_key\":\"").append(dir).append("\"}");
          default -> {
            // A stats sub-aggregation is ordered by one of its values ("m.avg").
            String path = subKind.equals("stats")
                ? "m." + new String[] {"avg", "min", "max", "sum", "count"}[r.nextInt(5)]
                : "m";
            t.append(",\"order\":{\"").append(path).append("\":\"").append(dir).append("\"}");
          }
        }
        t.append("}");
        if (sub) t.append(",\"aggs\":{\"m\":").append(metric(r, subKind, false)).append("}");
        return t.append(meta(r)).append("}").toString();
      }
      case 1: {
        StringBuilder h = new StringBuilder("{\"histogram\":{\"field\":\"price\",\"interval\":")
            .append(new int[] {50, 100, 250, 1000}[r.nextInt(4)]);
        if (r.nextBoolean()) h.append(",\"min_doc_count\":").append(r.nextInt(3));
        if (r.nextInt(3) == 0) h.append(",\"offset\":").append(r.nextInt(50));
        if (r.nextInt(4) == 0) h.append(",\"missing\":").append(r.nextInt(3) * 1000 - 1000);
        switch (r.nextInt(6)) {
          case 0 -> h.append(h.indexOf("min_doc_count") < 0 ? ",\"min_doc_count\":0" : "")
              .append(",\"extended_bounds\":{\"min\":")
              .append(-1000 - r.nextInt(500)).append(",\"max\":").append(5000 + r.nextInt(1500))
              .append("}");
          case 1 -> h.append(",\"hard_bounds\":{\"min\":").append(r.nextInt(1000))
              .append(",\"max\":").append(1500 + r.nextInt(2000)).append("}");
          default -> {}
        }
        h.append("}");
        if (r.nextBoolean()) h.append(",\"aggs\":{\"m\":").append(metric(r, false)).append("}");
        return h.append("}").toString();
      }
      case 2: {
        StringBuilder d = new StringBuilder("{\"date_histogram\":{\"field\":\"@timestamp\",");
        if (r.nextBoolean()) {
          d.append("\"fixed_interval\":\"").append(new String[] {"1d", "12h", "3d"}[r.nextInt(3)])
              .append("\"");
        } else {
          d.append("\"calendar_interval\":\"").append(new String[] {"day", "week", "month"}[
              r.nextInt(3)]).append("\"");
        }
        if (r.nextBoolean()) d.append(",\"min_doc_count\":").append(r.nextInt(2));
        if (r.nextInt(3) == 0) {
          d.append(",\"time_zone\":\"").append(new String[] {"Europe/Paris", "-05:00",
              "America/New_York"}[r.nextInt(3)]).append("\"");
        }
        if (r.nextInt(3) == 0) d.append(",\"offset\":\"+").append(1 + r.nextInt(6)).append("h\"");
        switch (r.nextInt(6)) {
          case 0 -> d.append(d.indexOf("min_doc_count") < 0 ? ",\"min_doc_count\":0" : "")
              .append(",\"extended_bounds\":{\"min\":\"2024-02-")
              .append(String.format("%02d", 10 + r.nextInt(15))).append("\",\"max\":\"2024-05-")
              .append(String.format("%02d", 1 + r.nextInt(20))).append("\"}");
          case 1 -> d.append(",\"hard_bounds\":{\"min\":\"2024-03-")
              .append(String.format("%02d", 5 + r.nextInt(10))).append("\",\"max\":\"2024-04-")
              .append(String.format("%02d", 1 + r.nextInt(20))).append("\"}");
          default -> {}
        }
        d.append("}");
        if (r.nextBoolean()) d.append(",\"aggs\":{\"m\":").append(metric(r, false)).append("}");
        return d.append("}").toString();
      }
      default:
        return metric(r, true);
    }
  }
}
