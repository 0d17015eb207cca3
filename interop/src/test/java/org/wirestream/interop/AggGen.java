package org.wirestream.interop;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.Constructor;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.lucene.util.BytesRef;
import org.elasticsearch.common.Rounding;
import org.elasticsearch.common.time.DateFormatter;
import org.elasticsearch.common.util.BigArrays;
import org.elasticsearch.core.TimeValue;
import org.elasticsearch.index.mapper.DateFieldMapper;
import org.elasticsearch.search.DocValueFormat;
import org.elasticsearch.search.aggregations.BucketOrder;
import org.elasticsearch.search.aggregations.InternalAggregation;
import org.elasticsearch.search.aggregations.InternalAggregations;
import org.elasticsearch.search.aggregations.bucket.histogram.InternalDateHistogram;
import org.elasticsearch.search.aggregations.bucket.histogram.InternalHistogram;
import org.elasticsearch.search.aggregations.bucket.histogram.LongBounds;
import org.elasticsearch.search.aggregations.bucket.terms.DoubleTerms;
import org.elasticsearch.search.aggregations.bucket.terms.LongTerms;
import org.elasticsearch.search.aggregations.bucket.terms.StringTerms;
import org.elasticsearch.search.aggregations.metrics.AbstractHyperLogLogPlusPlus;
import org.elasticsearch.search.aggregations.metrics.HyperLogLogPlusPlus;
import org.elasticsearch.search.aggregations.metrics.InternalAvg;
import org.elasticsearch.search.aggregations.metrics.InternalCardinality;
import org.elasticsearch.search.aggregations.metrics.InternalStats;
import org.elasticsearch.search.aggregations.metrics.InternalValueCount;
import org.wirestream.interop.compat.Es;

/**
 * Random aggregation results built with ES's own classes: every type wirestream implements
 * (aggregations/registry.cc), every DocValueFormat that suits it, every optional field, and
 * sub-aggregations nested up to 3 deep. A bucketed aggregation's buckets share one shape of
 * sub-aggregations (as a shard's do), so orders by a sub-aggregation name a real one.
 */
final class AggGen {
  static final String[] TYPES = {
    "sterms", "lterms", "dterms", "histogram", "date_histogram", "max", "min", "sum", "avg",
    "value_count", "stats", "cardinality"
  };
  static final String[] DECIMALS = {"#,##0.00", "0.###E0", "#.#", "000", "#,##0.###;(#)"};
  static final String[] DATE_PATTERNS = {
    "strict_date_optional_time", "yyyy-MM-dd", "epoch_millis", "strict_date_optional_time_nanos",
    "uuuu-MM-dd'T'HH:mm", "basic_date"
  };

  /** A type and a name, with the shape of its buckets' sub-aggregations. */
  record Shape(String type, String name, List<Shape> subs) {
    boolean bucketed() {
      return type.endsWith("terms") || type.endsWith("histogram");
    }
  }

  final Random rnd;
  /** The tagged JSON (docs/cli.md) of each metadata map's values, by the map's identity. */
  final Map<Map<String, Object>, ObjectNode> metadataJson = new IdentityHashMap<>();

  AggGen(Random rnd) {
    this.rnd = rnd;
  }

  /** 1-3 top-level aggregations, as one shard result's list. */
  InternalAggregations randomList() throws Exception {
    List<InternalAggregation> list = new ArrayList<>();
    for (Shape s : randomShapes(0)) list.add(build(s, 0));
    return InternalAggregations.from(list);
  }

  List<Shape> randomShapes(int depth) {
    List<Shape> shapes = new ArrayList<>();
    Set<String> names = new HashSet<>();
    int n = depth == 0 ? 1 + rnd.nextInt(3) : rnd.nextInt(3);
    for (int i = 0; i < n; i++) {
      String type = TYPES[rnd.nextInt(TYPES.length)];
      if (depth >= 3 && (type.endsWith("terms") || type.endsWith("histogram"))) type = "max";
      String name = rnd.nextInt(8) == 0 ? Strings.random(rnd) : type.charAt(0) + "" + i;
      if (!names.add(name)) continue;
      boolean bucketed = type.endsWith("terms") || type.endsWith("histogram");
      shapes.add(new Shape(type, name, bucketed ? randomShapes(depth + 1) : List.of()));
    }
    return shapes;
  }

  InternalAggregations subs(List<Shape> shapes, int depth) throws Exception {
    List<InternalAggregation> list = new ArrayList<>();
    for (Shape s : shapes) list.add(build(s, depth));
    return InternalAggregations.from(list);
  }

  Map<String, Object> metadata() {
    if (rnd.nextInt(4) != 0) return null;
    Map<String, Object> m = new LinkedHashMap<>();
    ObjectNode json = Values.J.objectNode();
    for (int i = rnd.nextInt(3); i >= 0; i--) {
      Values.Generic g = Values.randomGeneric(rnd, rnd.nextBoolean() ? 3 : 1);
      m.put("m" + i, g.value());
      json.set("m" + i, g.json());
    }
    metadataJson.put(m, json);
    return m;
  }

  DocValueFormat decimal() {
    return new DocValueFormat.Decimal(DECIMALS[rnd.nextInt(DECIMALS.length)]);
  }

  DocValueFormat dateTime() {
    DateFormatter formatter =
        DateFormatter.forPattern(DATE_PATTERNS[rnd.nextInt(DATE_PATTERNS.length)]);
    // The locale is on the wire from 8.16 (the lines that have it list more than ROOT).
    java.util.Locale[] locales = Es.dateLocales();
    java.util.Locale locale = locales[rnd.nextInt(locales.length)];
    if (!locale.equals(java.util.Locale.ROOT)) formatter = formatter.withLocale(locale);
    return new DocValueFormat.DateTime(formatter,
        ZoneId.of(Values.ZONES[rnd.nextInt(Values.ZONES.length)]),
        rnd.nextBoolean() ? DateFieldMapper.Resolution.MILLISECONDS
            : DateFieldMapper.Resolution.NANOSECONDS);
  }

  DocValueFormat format(String type) {
    return switch (type) {
      case "sterms" -> rnd.nextInt(3) == 0 ? DocValueFormat.BINARY
          : rnd.nextInt(3) == 0 ? DocValueFormat.IP
          : rnd.nextInt(4) == 0 && Es.tsidFormat() != null ? Es.tsidFormat() : DocValueFormat.RAW;
      case "lterms" -> switch (rnd.nextInt(7)) {
        case 0 -> DocValueFormat.BOOLEAN;
        case 1 -> decimal();
        case 2 -> dateTime();
        case 3 -> DocValueFormat.GEOHASH;
        case 4 -> DocValueFormat.GEOTILE;
        case 5 -> DocValueFormat.UNSIGNED_LONG_SHIFTED;
        default -> DocValueFormat.RAW;
      };
      case "dterms", "histogram" -> rnd.nextBoolean() ? decimal() : DocValueFormat.RAW;
      case "date_histogram" -> rnd.nextInt(5) == 0 ? DocValueFormat.RAW : dateTime();
      default -> switch (rnd.nextInt(4)) {
        case 0 -> decimal();
        case 1 -> dateTime();
        default -> DocValueFormat.RAW;
      };
    };
  }

  double value() {
    return rnd.nextInt(5) == 0 ? Values.randomDouble(rnd) : Math.round(rnd.nextDouble() * 1e4) / 8.0;
  }

  /**
   * A value that the format can render: from 8.18 ES refuses to format a date before the
   * epoch at nanosecond resolution (it threw nothing in 8.7), so such a value is mirrored.
   */
  static double renderable(double v, DocValueFormat f) {
    if (f instanceof DocValueFormat.DateTime
        && f.toString().contains("NANOSECONDS") && (long) v < 0) {
      return v == Double.NEGATIVE_INFINITY ? Double.POSITIVE_INFINITY : -v;
    }
    return v;
  }

  static InternalAggregation statsOf(String name, long count, double sum, double min, double max,
      DocValueFormat f, Map<String, Object> meta) {
    return new InternalStats(name, count, renderable(sum, f), renderable(min, f),
        renderable(max, f), f, meta);
  }

  InternalAggregation build(Shape s, int depth) throws Exception {
    Map<String, Object> meta = metadata();
    return switch (s.type) {
      case "sterms", "lterms", "dterms" -> terms(s, depth, meta);
      case "histogram" -> histogram(s, depth, meta);
      case "date_histogram" -> dateHistogram(s, depth, meta);
      case "max" -> {
        double v = value();
        DocValueFormat f = format("max");
        yield Es.max(s.name, renderable(v, f), f, meta);
      }
      case "min" -> {
        double v = value();
        DocValueFormat f = format("min");
        yield Es.min(s.name, renderable(v, f), f, meta);
      }
      case "sum" -> {
        double v = value();
        DocValueFormat f = format("sum");
        yield Es.sum(s.name, renderable(v, f), f, meta);
      }
      case "avg" -> {
        double v = value();
        long n = rnd.nextInt(100);
        DocValueFormat f = format("avg");
        yield new InternalAvg(s.name, renderable(v, f), n, f, meta);
      }
      case "value_count" -> new InternalValueCount(s.name, rnd.nextInt(1000), meta);
      case "stats" -> {
        long count = rnd.nextInt(3) == 0 ? 0 : rnd.nextInt(1000);
        yield count == 0
            ? new InternalStats(s.name, 0, 0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
                format("stats"), meta)
            : statsOf(s.name, count, value(), value(), value(), format("stats"), meta);
      }
      default -> cardinality(s, meta);
    };
  }

  /** An order: by count, by key, by a sub-aggregation's value, or compound. */
  BucketOrder order(Shape s) {
    List<BucketOrder> single = new ArrayList<>();
    single.add(BucketOrder.count(rnd.nextBoolean()));
    single.add(BucketOrder.key(rnd.nextBoolean()));
    for (Shape sub : s.subs) {
      if (!sub.name.matches("[A-Za-z0-9_]+")) continue;  // a path names it: no [ ] > . in it
      switch (sub.type) {
        case "max", "min", "sum", "avg", "value_count", "cardinality" ->
            single.add(BucketOrder.aggregation(sub.name, rnd.nextBoolean()));
        case "stats" -> single.add(BucketOrder.aggregation(sub.name, "avg", rnd.nextBoolean()));
        default -> {}
      }
    }
    BucketOrder o = single.get(rnd.nextInt(single.size()));
    if (rnd.nextInt(5) == 0) {
      return BucketOrder.compound(o, BucketOrder.key(true));
    }
    return o;
  }

  InternalAggregation terms(Shape s, int depth, Map<String, Object> meta) throws Exception {
    DocValueFormat f = format(s.type);
    int required = 1 + rnd.nextInt(20);
    int shardSize = required + rnd.nextInt(10);
    long minDocCount = rnd.nextInt(3);
    boolean showError = rnd.nextBoolean();
    long other = rnd.nextInt(3) == 0 ? 0 : rnd.nextInt(100000);
    Long error = rnd.nextInt(4) == 0 ? null : (long) rnd.nextInt(50);
    BucketOrder order = order(s);
    BucketOrder reduceOrder = rnd.nextBoolean() ? BucketOrder.key(true) : order;
    // Wide only at the top: 40 buckets of 40 of 40 would be 64,000 leaves a vector.
    int n = depth == 0 && rnd.nextInt(10) == 0 ? 40 : rnd.nextInt(6);
    Set<Object> keys = new HashSet<>();
    switch (s.type) {
      case "sterms" -> {
        List<StringTerms.Bucket> buckets = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          BytesRef key;
          if (f == DocValueFormat.IP) {
            byte[] b = new byte[16];
            rnd.nextBytes(b);
            key = new BytesRef(b);
          } else if (f == DocValueFormat.BINARY) {
            byte[] b = new byte[rnd.nextInt(12)];
            rnd.nextBytes(b);
            key = new BytesRef(b);
          } else if (f == Es.tsidFormat()) {
            key = tsid();
          } else {
            key = new BytesRef(rnd.nextBoolean() ? "t" + rnd.nextInt(50) : Strings.random(rnd));
          }
          if (!keys.add(key)) continue;
          buckets.add(new StringTerms.Bucket(key, 1 + rnd.nextInt(1000), subs(s.subs, depth + 1),
              showError, rnd.nextInt(20), f));
        }
        return new StringTerms(s.name, reduceOrder, order, required, minDocCount, meta, f,
            shardSize, showError, other, buckets, error);
      }
      case "lterms" -> {
        List<LongTerms.Bucket> buckets = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          long key = longKey(f);
          if (!keys.add(key)) continue;
          buckets.add(new LongTerms.Bucket(key, 1 + rnd.nextInt(1000), subs(s.subs, depth + 1),
              showError, rnd.nextInt(20), f));
        }
        return new LongTerms(s.name, reduceOrder, order, required, minDocCount, meta, f,
            shardSize, showError, other, buckets, error);
      }
      default -> {
        // DoubleTerms.Bucket is package-private in ES 7.x (and its constructor in 8.x): raw.
        Class<?> bucket = Class.forName(DoubleTerms.class.getName() + "$Bucket");
        Constructor<?> k = bucket.getDeclaredConstructor(double.class, long.class,
            InternalAggregations.class, boolean.class, long.class, DocValueFormat.class);
        k.setAccessible(true);
        List buckets = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          double key = value();
          if (!keys.add(key)) continue;
          buckets.add(k.newInstance(key, (long) (1 + rnd.nextInt(1000)),
              subs(s.subs, depth + 1), showError, (long) rnd.nextInt(20), f));
        }
        @SuppressWarnings("unchecked")
        InternalAggregation t = new DoubleTerms(s.name, reduceOrder, order, required,
            minDocCount, meta, f, shardSize, showError, other, buckets, error);
        return t;
      }
    }
  }

  /**
   * A time-series id as 8.x's _tsid holds one: the count of dimensions, then each one's name
   * and a tagged value ('s' and a string, or 'l' and a long).
   */
  BytesRef tsid() throws java.io.IOException {
    org.elasticsearch.common.io.stream.BytesStreamOutput out =
        new org.elasticsearch.common.io.stream.BytesStreamOutput();
    int n = 1 + rnd.nextInt(3);
    out.writeVInt(n);
    for (int i = 0; i < n; i++) {
      out.writeBytesRef(new BytesRef("d" + i));
      if (rnd.nextBoolean()) {
        out.writeByte((byte) 's');
        out.writeBytesRef(new BytesRef(rnd.nextBoolean() ? "host-" + rnd.nextInt(9) : Strings.random(rnd)));
      } else {
        out.writeByte((byte) 'l');
        out.writeLong(Values.randomLong(rnd));
      }
    }
    return out.bytes().toBytesRef();
  }

  /** A long terms key its format can render (ES renders keys as it reads them). */
  long longKey(DocValueFormat f) {
    if (f == DocValueFormat.BOOLEAN) return rnd.nextInt(2);
    if (f == DocValueFormat.GEOTILE) {
      int zoom = rnd.nextInt(30);
      long x = rnd.nextLong() & ((1L << zoom) - 1);
      long y = rnd.nextLong() & ((1L << zoom) - 1);
      return ((long) zoom << 58) | (x << 29) | y;
    }
    if (f == DocValueFormat.GEOHASH) {
      int level = 1 + rnd.nextInt(12);
      return ((rnd.nextLong() & ((1L << (5 * level)) - 1)) << 4) | level;
    }
    if (f instanceof DocValueFormat.DateTime) return rnd.nextLong() & ((1L << 52) - 1);
    return Values.randomLong(rnd);
  }

  BucketOrder histogramOrder(Shape s) {
    // Histograms order by key or count (ES refuses other orders in the builder).
    return rnd.nextInt(4) == 0 ? BucketOrder.count(rnd.nextBoolean())
        : BucketOrder.key(rnd.nextInt(5) != 0);
  }

  InternalAggregation histogram(Shape s, int depth, Map<String, Object> meta) throws Exception {
    DocValueFormat f = format("histogram");
    double interval = new double[] {1, 0.5, 10, 2.5, 1e-3}[rnd.nextInt(5)];
    double offset = rnd.nextInt(3) == 0 ? interval / 2 : 0;
    long minDocCount = rnd.nextInt(3) == 0 ? 1 + rnd.nextInt(2) : 0;
    boolean keyed = rnd.nextInt(4) == 0;
    List<InternalHistogram.Bucket> buckets = new ArrayList<>();
    double k0 = Math.floor(rnd.nextInt(200) - 100) * interval + offset;
    for (int i = 0, n = rnd.nextInt(8); i < n; i++) {
      k0 += interval * (1 + rnd.nextInt(3));
      buckets.add(Es.histogramBucket(k0, minDocCount + rnd.nextInt(100), keyed, f,
          subs(s.subs, depth + 1)));
    }
    InternalHistogram.EmptyBucketInfo empty = null;
    if (minDocCount == 0) {
      double min = rnd.nextBoolean() ? Double.POSITIVE_INFINITY : k0 - 10 * interval;
      double max = rnd.nextBoolean() ? Double.NEGATIVE_INFINITY : k0 + 10 * interval;
      empty = new InternalHistogram.EmptyBucketInfo(interval, offset, min, max,
          subs(s.subs, depth + 1));
    }
    return new InternalHistogram(s.name, buckets, histogramOrder(s), minDocCount, empty, f,
        keyed, meta);
  }

  Rounding rounding() {
    ZoneId zone = ZoneId.of(Values.ZONES[rnd.nextInt(Values.ZONES.length)]);
    Rounding.Builder b = rnd.nextBoolean()
        ? Rounding.builder(Rounding.DateTimeUnit.values()[rnd.nextInt(Rounding.DateTimeUnit.values().length)])
        : Rounding.builder(TimeValue.timeValueMinutes(1 + rnd.nextInt(24 * 60)));
    b.timeZone(zone);
    if (rnd.nextInt(3) == 0) b.offset(rnd.nextInt(3_600_000) - 1_800_000);
    return b.build();
  }

  InternalAggregation dateHistogram(Shape s, int depth, Map<String, Object> meta)
      throws Exception {
    DocValueFormat f = format("date_histogram");
    long minDocCount = rnd.nextInt(3) == 0 ? 1 : 0;
    long offset = rnd.nextInt(3) == 0 ? rnd.nextInt(3_600_000) : 0;
    boolean keyed = rnd.nextInt(4) == 0;
    List<InternalDateHistogram.Bucket> buckets = new ArrayList<>();
    long key = 1_600_000_000_000L + rnd.nextInt(1_000_000) * 60_000L;
    for (int i = 0, n = rnd.nextInt(8); i < n; i++) {
      key += 3_600_000L * (1 + rnd.nextInt(48));
      buckets.add(Es.dateHistogramBucket(key, minDocCount + rnd.nextInt(100), keyed, f,
          subs(s.subs, depth + 1)));
    }
    Object empty = null;
    Class<?> info = Class.forName(InternalDateHistogram.class.getName() + "$EmptyBucketInfo");
    if (minDocCount == 0) {
      LongBounds bounds = rnd.nextBoolean() ? null
          : new LongBounds(rnd.nextBoolean() ? null : key - 86_400_000L,
              rnd.nextBoolean() ? null : key + 86_400_000L);
      Constructor<?> k = info.getDeclaredConstructor(Rounding.class, InternalAggregations.class,
          LongBounds.class);
      k.setAccessible(true);  // package-private in ES
      empty = k.newInstance(rounding(), subs(s.subs, depth + 1), bounds);
    }
    boolean downsampled = Es.hasDownsampledResultsOffset() && rnd.nextInt(4) == 0;
    return Es.dateHistogram(s.name, buckets, histogramOrder(s), minDocCount, offset, empty, f,
        keyed, downsampled, meta);
  }

  InternalAggregation cardinality(Shape s, Map<String, Object> meta) throws Exception {
    AbstractHyperLogLogPlusPlus counts = null;
    if (rnd.nextInt(8) != 0) {
      HyperLogLogPlusPlus hll =
          new HyperLogLogPlusPlus(4 + rnd.nextInt(15), BigArrays.NON_RECYCLING_INSTANCE, 1);
      // Few values stay a linear-counting set; many turn the sketch dense.
      int n = rnd.nextBoolean() ? rnd.nextInt(20) : rnd.nextInt(5000);
      for (int i = 0; i < n; i++) hll.collect(0, rnd.nextLong());
      counts = hll;
    }
    Constructor<InternalCardinality> k = InternalCardinality.class.getDeclaredConstructor(
        String.class, AbstractHyperLogLogPlusPlus.class, Map.class);
    k.setAccessible(true);  // package-private in ES
    return k.newInstance(s.name, counts, meta);
  }
}
