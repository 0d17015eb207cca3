package org.wirestream.interop;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random size-0 searches over the coordinator check's index (tag keyword, price long, score
 * double, @timestamp date, ip): a match_all, term or @timestamp range query and one to three
 * top-level aggregations of the kinds //search's builders write, as ES's search JSON.
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

  static String metric(Random r) {
    String[] kinds = {"avg", "max", "min", "sum"};
    String field = r.nextBoolean() ? "price" : "score";
    return "{\"" + kinds[r.nextInt(kinds.length)] + "\":{\"field\":\"" + field + "\"}}";
  }

  static String agg(Random r, boolean top) {
    int k = r.nextInt(top ? 4 : 1);
    if (!top) return metric(r);
    switch (k) {
      case 0: {
        StringBuilder t = new StringBuilder("{\"terms\":{\"field\":\"tag\",\"size\":")
            .append(1 + r.nextInt(10));
        if (r.nextInt(3) == 0) t.append(",\"shard_size\":").append(5 + r.nextInt(20));
        if (r.nextInt(3) == 0) t.append(",\"min_doc_count\":").append(1 + r.nextInt(20));
        if (r.nextInt(3) == 0) t.append(",\"missing\":\"none\"");
        boolean sub = r.nextBoolean();
        switch (r.nextInt(sub ? 4 : 3)) {
          case 0 -> {}
          case 1 -> t.append(",\"order\":{\"_count\":\"").append(r.nextBoolean() ? "asc" : "desc")
              .append("\"}");
          case 2 -> t.append(",\"order\":{\"_key\":\"").append(r.nextBoolean() ? "asc" : "desc")
              .append("\"}");
          default -> t.append(",\"order\":{\"m\":\"").append(r.nextBoolean() ? "asc" : "desc")
              .append("\"}");
        }
        t.append("}");
        if (sub) t.append(",\"aggs\":{\"m\":").append(metric(r)).append("}");
        return t.append("}").toString();
      }
      case 1: {
        StringBuilder h = new StringBuilder("{\"histogram\":{\"field\":\"price\",\"interval\":")
            .append(new int[] {50, 100, 250, 1000}[r.nextInt(4)]);
        if (r.nextBoolean()) h.append(",\"min_doc_count\":").append(r.nextInt(3));
        if (r.nextInt(3) == 0) h.append(",\"offset\":").append(r.nextInt(50));
        h.append("}");
        if (r.nextBoolean()) h.append(",\"aggs\":{\"m\":").append(metric(r)).append("}");
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
        d.append("}");
        if (r.nextBoolean()) d.append(",\"aggs\":{\"m\":").append(metric(r)).append("}");
        return d.append("}").toString();
      }
      default:
        return metric(r);
    }
  }
}
