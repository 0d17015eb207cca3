package org.wirestream.interop;

import java.lang.reflect.Constructor;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.lucene.util.BytesRef;
import org.elasticsearch.common.Rounding;
import org.elasticsearch.common.time.DateFormatter;
import org.elasticsearch.common.util.BigArrays;
import org.elasticsearch.core.TimeValue;
import org.elasticsearch.index.mapper.DateFieldMapper;
import org.elasticsearch.search.DocValueFormat;
import org.elasticsearch.search.aggregations.AggregationBuilder;
import org.elasticsearch.search.aggregations.AggregatorFactories;
import org.elasticsearch.search.aggregations.BucketOrder;
import org.elasticsearch.search.aggregations.InternalAggregation;
import org.elasticsearch.search.aggregations.InternalAggregations;
import org.elasticsearch.search.aggregations.InternalOrder;
import org.elasticsearch.search.aggregations.bucket.MultiBucketsAggregation;
import org.elasticsearch.search.aggregations.bucket.histogram.InternalDateHistogram;
import org.elasticsearch.search.aggregations.bucket.histogram.InternalHistogram;
import org.elasticsearch.search.aggregations.bucket.histogram.LongBounds;
import org.elasticsearch.search.aggregations.bucket.terms.DoubleTerms;
import org.elasticsearch.search.aggregations.bucket.terms.LongTerms;
import org.elasticsearch.search.aggregations.bucket.terms.StringTerms;
import org.elasticsearch.search.aggregations.bucket.terms.TermsAggregationBuilder;
import org.elasticsearch.search.aggregations.metrics.AbstractHyperLogLogPlusPlus;
import org.elasticsearch.search.aggregations.metrics.HyperLogLogPlusPlus;
import org.elasticsearch.search.aggregations.metrics.InternalAvg;
import org.elasticsearch.search.aggregations.metrics.InternalCardinality;
import org.elasticsearch.search.aggregations.metrics.InternalStats;
import org.elasticsearch.search.aggregations.metrics.InternalValueCount;
import org.wirestream.interop.compat.Es;

/**
 * Shard results of one search, built with ES's own classes: a plan fixes each aggregation's
 * request (size, shard_size, order, interval, bounds, precision...) once, and every shard then
 * builds its result from it the way a shard does: terms from one key universe with each shard's
 * own counts, ranked by the order, cut at shard_size (the rest in other_doc_count) and sent in
 * the reduce order; histogram buckets in key order with the empty-bucket info min_doc_count 0
 * needs; date histograms in America/New_York across a DST change; cardinality sketches over
 * overlapping values, some still linear counting, some dense. AggGen builds single results
 * with every parameter random, which shards of one search cannot have, hence this class.
 */
final class ReduceShards {
  static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
  /** DST changes in America/New_York (UTC millis): spring forward and fall back. */
  static final long[] DST_CHANGES = {
    1615705200000L, 1636264800000L, 1647154800000L, 1667714400000L
  };

  final Random rnd;

  static final boolean ES_7X = Es.release().startsWith("7.");

  ReduceShards(Random rnd) {
    this.rnd = rnd;
  }

  /** One aggregation of the request, built once per shard (or per bucket for a sub-agg). */
  abstract static class Plan {
    final String name;
    final Map<String, Object> meta;
    final List<Plan> subs = new ArrayList<>();

    Plan(String name, Map<String, Object> meta) {
      this.name = name;
      this.meta = meta;
    }

    abstract String type();

    /** This shard's result; `empty` for the template of an empty bucket's sub-aggregations. */
    abstract InternalAggregation build(int shard, boolean empty) throws Exception;

    /** 8.x's reduce finds each aggregation's builder by name; the type does not matter. */
    AggregationBuilder builder() {
      TermsAggregationBuilder b = new TermsAggregationBuilder(name);
      for (Plan p : subs) b.subAggregation(p.builder());
      return b;
    }

    InternalAggregations subAggs(int shard, boolean empty) throws Exception {
      List<InternalAggregation> list = new ArrayList<>();
      for (Plan p : subs) list.add(p.build(shard, empty));
      return InternalAggregations.from(list);
    }

    String describe() {
      StringBuilder b = new StringBuilder(type()).append(' ').append(name);
      if (!subs.isEmpty()) {
        b.append(" {");
        for (int i = 0; i < subs.size(); i++) b.append(i > 0 ? ", " : "").append(subs.get(i).describe());
        b.append('}');
      }
      return b.toString();
    }
  }

  /** A search: its top-level aggregations and how many shards answered. */
  record Case(List<Plan> plans, int shards) {
    List<InternalAggregations> build() throws Exception {
      List<InternalAggregations> out = new ArrayList<>();
      for (int s = 0; s < shards; s++) {
        List<InternalAggregation> list = new ArrayList<>();
        for (Plan p : plans) list.add(p.build(s, false));
        out.add(InternalAggregations.from(list));
      }
      return out;
    }

    AggregatorFactories.Builder builders() {
      AggregatorFactories.Builder b = AggregatorFactories.builder();
      for (Plan p : plans) b.addAggregator(p.builder());
      return b;
    }

    String describe() {
      StringBuilder b = new StringBuilder().append(shards).append(" shards [");
      for (int i = 0; i < plans.size(); i++) b.append(i > 0 ? ", " : "").append(plans.get(i).describe());
      return b.append(']').toString();
    }
  }

  Case randomCase() {
    List<Plan> plans = new ArrayList<>();
    for (int i = 0, n = 1 + rnd.nextInt(2); i < n; i++) plans.add(randomPlan("a" + i, 0));
    return new Case(plans, 2 + rnd.nextInt(4));
  }

  Plan randomPlan(String name, int depth) {
    int k = rnd.nextInt(depth == 0 ? 10 : 14);
    Plan p = switch (k) {
      case 0, 1, 2 -> new TermsPlan(name, new String[] {"sterms", "lterms", "dterms"}[rnd.nextInt(3)]);
      case 3 -> new HistogramPlan(name);
      case 4 -> new DateHistogramPlan(name);
      case 5 -> new CardinalityPlan(name, depth);
      default -> new MetricPlan(name, new String[] {
          "max", "min", "sum", "avg", "value_count", "stats"}[rnd.nextInt(6)]);
    };
    if (p instanceof MetricPlan || p instanceof CardinalityPlan) return p;
    for (int i = 0, n = rnd.nextInt(3); i < n; i++) {
      Plan sub = depth >= 1 && rnd.nextBoolean()
          ? new MetricPlan("s" + i, new String[] {"max", "avg", "sum"}[rnd.nextInt(3)])
          : randomPlan("s" + i, depth + 1);
      p.subs.add(sub);
    }
    if (p instanceof TermsPlan t) t.pickOrder();
    return p;
  }

  /**
   * The order as ES's aggregation builders keep it, and so as a shard sends it: one that is not
   * by key becomes a compound with `_key asc` after it, so that ties are broken by key.
   */
  static BucketOrder builderOrder(BucketOrder o) {
    return InternalOrder.isKeyOrder(o) || o instanceof InternalOrder.CompoundOrder ? o
        : BucketOrder.compound(o);
  }

  Map<String, Object> metadata() {
    return rnd.nextInt(6) == 0 ? Map.of("owner", "m" + rnd.nextInt(3)) : null;
  }

  DocValueFormat numberFormat() {
    return rnd.nextInt(4) == 0 ? new DocValueFormat.Decimal("#,##0.00") : DocValueFormat.RAW;
  }

  double value() {
    return rnd.nextInt(10) == 0 ? rnd.nextGaussian() * 1e6 : Math.round(rnd.nextDouble() * 1e4) / 8.0;
  }

  /** max, min, sum, avg, value_count, stats: random per shard and bucket, or empty. */
  final class MetricPlan extends Plan {
    final String type;
    final DocValueFormat format;

    MetricPlan(String name, String type) {
      super(name, metadata());
      this.type = type;
      this.format = numberFormat();
    }

    @Override
    String type() {
      return type;
    }

    @Override
    InternalAggregation build(int shard, boolean empty) {
      boolean none = empty || rnd.nextInt(8) == 0;  // no values on this shard or in this bucket
      return switch (type) {
        case "max" -> Es.max(name, none ? Double.NEGATIVE_INFINITY : value(), format, meta);
        case "min" -> Es.min(name, none ? Double.POSITIVE_INFINITY : value(), format, meta);
        case "sum" -> Es.sum(name, none ? 0 : value(), format, meta);
        case "avg" -> none ? new InternalAvg(name, 0, 0, format, meta)
            : new InternalAvg(name, value(), 1 + rnd.nextInt(100), format, meta);
        case "value_count" -> new InternalValueCount(name, none ? 0 : rnd.nextInt(1000), meta);
        default -> {
          if (none) {
            yield new InternalStats(name, 0, 0, Double.POSITIVE_INFINITY,
                Double.NEGATIVE_INFINITY, format, meta);
          }
          double a = value();
          double b = value();
          long count = 1 + rnd.nextInt(100);
          yield new InternalStats(name, count, (a + b) / 2 * count, Math.min(a, b), Math.max(a, b),
              format, meta);
        }
      };
    }
  }

  /**
   * cardinality: one precision, each shard's sketch over a shared pool of hashes. Every
   * precision ES takes (4 to 18) at the top; inside buckets at most 14: ES 7.17 allocates a
   * sketch's 2^precision registers when it is built, and a sketch a bucket a shard at 18
   * (256 KiB each) ran the harness out of its 2 GiB heap (7.17.29, seed 3842413444).
   */
  final class CardinalityPlan extends Plan {
    final int precision;
    final long[] pool;

    CardinalityPlan(String name, int depth) {
      super(name, metadata());
      precision = 4 + rnd.nextInt(depth == 0 ? 15 : 11);
      pool = new long[1 + rnd.nextInt(4000)];
      for (int i = 0; i < pool.length; i++) pool[i] = rnd.nextLong();
    }

    @Override
    String type() {
      return "cardinality";
    }

    @Override
    InternalAggregation build(int shard, boolean empty) throws Exception {
      AbstractHyperLogLogPlusPlus counts = null;  // a shard or bucket without values
      if (!empty && rnd.nextInt(10) != 0) {
        HyperLogLogPlusPlus hll =
            new HyperLogLogPlusPlus(precision, BigArrays.NON_RECYCLING_INSTANCE, 1);
        // Sparse (linear counting) or dense: few or many of the pool's values.
        int n = rnd.nextBoolean() ? rnd.nextInt(Math.min(pool.length, 30)) : rnd.nextInt(pool.length);
        int from = rnd.nextInt(pool.length);
        for (int i = 0; i < n; i++) hll.collect(0, pool[(from + i) % pool.length]);
        counts = hll;
      }
      Constructor<InternalCardinality> k = InternalCardinality.class.getDeclaredConstructor(
          String.class, AbstractHyperLogLogPlusPlus.class, Map.class);
      k.setAccessible(true);  // package-private in ES
      return k.newInstance(name, counts, meta);
    }
  }

  /** sterms, lterms, dterms: one key universe, per-shard counts, shard_size cut. */
  final class TermsPlan extends Plan {
    final String type;
    final DocValueFormat format;
    final List<Object> universe = new ArrayList<>();
    final int size = 1 + rnd.nextInt(10);
    final int shardSize = size + rnd.nextInt(6);
    final long minDocCount = rnd.nextInt(4) == 0 ? 2 : 1;
    final boolean showError = rnd.nextBoolean();
    BucketOrder order;
    BucketOrder reduceOrder;

    TermsPlan(String name, String type) {
      super(name, metadata());
      this.type = type;
      this.format = type.equals("sterms") ? DocValueFormat.RAW : numberFormat();
      int n = 1 + rnd.nextInt(rnd.nextInt(5) == 0 ? 60 : 20);
      for (int i = 0; i < n; i++) {
        Object key = switch (type) {
          case "sterms" -> new BytesRef(rnd.nextInt(4) == 0 ? Strings.random(rnd) : "t" + rnd.nextInt(500));
          case "lterms" -> (long) (rnd.nextInt(4) == 0 ? rnd.nextLong() : rnd.nextInt(1000) - 100);
          default -> value();
        };
        if (!universe.contains(key)) universe.add(key);
      }
    }

    /** Count (mostly descending), key, or a single-value sub-metric; sometimes compound. */
    void pickOrder() {
      List<BucketOrder> choices = new ArrayList<>();
      choices.add(BucketOrder.count(false));
      choices.add(BucketOrder.count(false));
      choices.add(BucketOrder.count(true));
      choices.add(BucketOrder.key(rnd.nextBoolean()));
      for (Plan p : subs) {
        switch (p.type()) {
          // Not by cardinality: its estimate is a known difference (ReduceCheck.ESTIMATOR).
          // Not by avg against ES 7.x: an empty avg is NaN, which ES 7 sorts last both ways
          // and wirestream as ES 8 does (ReduceCheck.NAN_ORDER_7X).
          case "avg" -> {
            if (!ES_7X) choices.add(BucketOrder.aggregation(p.name, rnd.nextBoolean()));
          }
          case "max", "min", "sum", "value_count" ->
              choices.add(BucketOrder.aggregation(p.name, rnd.nextBoolean()));
          case "stats" -> choices.add(BucketOrder.aggregation(p.name, "max", rnd.nextBoolean()));
          default -> {}
        }
      }
      order = choices.get(rnd.nextInt(choices.size()));
      order = rnd.nextInt(6) == 0 ? BucketOrder.compound(order, BucketOrder.key(false))
          : builderOrder(order);
      // A shard (ES 7.10 and later) sends its buckets by key for the merge-sort reduce: in the
      // order itself when that is by key, else ascending (shards before 7.10 sent them in the
      // order, which sends ES down its hash-map reduce; no shard of a pinned line does).
      reduceOrder = InternalOrder.isKeyOrder(order) ? order : BucketOrder.key(true);
    }

    @Override
    String type() {
      return type;
    }

    @Override
    InternalAggregation build(int shard, boolean empty) throws Exception {
      if (order == null) pickOrder();
      List<MultiBucketsAggregation.Bucket> all = new ArrayList<>();
      if (!empty) {
        double keep = 0.3 + 0.7 * rnd.nextDouble();
        for (Object key : universe) {
          if (rnd.nextDouble() > keep) continue;
          long count = 1 + (rnd.nextBoolean() ? rnd.nextInt(10) : rnd.nextInt(1000));
          all.add(bucket(key, count, subAggs(shard, false)));
        }
      }
      Comparator<MultiBucketsAggregation.Bucket> byOrder = order.comparator();
      all.sort(byOrder);
      long other = 0;
      List<MultiBucketsAggregation.Bucket> top = new ArrayList<>(all);
      if (top.size() > shardSize) {
        for (MultiBucketsAggregation.Bucket b : top.subList(shardSize, top.size())) other += b.getDocCount();
        top = new ArrayList<>(top.subList(0, shardSize));
      }
      if (reduceOrder != order) top.sort(reduceOrder.comparator());
      return terms(top, other);
    }

    MultiBucketsAggregation.Bucket bucket(Object key, long count, InternalAggregations aggs)
        throws Exception {
      return switch (type) {
        case "sterms" -> new StringTerms.Bucket((BytesRef) key, count, aggs, showError, 0, format);
        case "lterms" -> new LongTerms.Bucket((Long) key, count, aggs, showError, 0, format);
        default -> {
          // DoubleTerms.Bucket: a package-private class in 7.x, its constructor in 8.x.
          Constructor<?> k = Class.forName(DoubleTerms.class.getName() + "$Bucket")
              .getDeclaredConstructor(double.class, long.class, InternalAggregations.class,
                  boolean.class, long.class, DocValueFormat.class);
          k.setAccessible(true);
          yield (MultiBucketsAggregation.Bucket) k.newInstance((Double) key, count, aggs,
              showError, 0L, format);
        }
      };
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    InternalAggregation terms(List<MultiBucketsAggregation.Bucket> buckets, long other) {
      List<?> b = buckets;
      return switch (type) {
        case "sterms" -> new StringTerms(name, reduceOrder, order, size, minDocCount, meta, format,
            shardSize, showError, other, (List<StringTerms.Bucket>) b, 0L);
        case "lterms" -> new LongTerms(name, reduceOrder, order, size, minDocCount, meta, format,
            shardSize, showError, other, (List<LongTerms.Bucket>) b, 0L);
        default -> new DoubleTerms(name, reduceOrder, order, size, minDocCount, meta, format,
            shardSize, showError, other, (List) b, 0L);
      };
    }
  }

  /** histogram: one interval and offset; min_doc_count 0 with or without extended bounds. */
  final class HistogramPlan extends Plan {
    final double interval = new double[] {1, 0.5, 10, 2.5, 0.1}[rnd.nextInt(5)];
    final double offset = rnd.nextInt(3) == 0 ? interval / 2 : 0;
    final long minDocCount = rnd.nextInt(4) == 0 ? 1 : 0;
    final boolean keyed = rnd.nextInt(4) == 0;
    final DocValueFormat format = numberFormat();
    final BucketOrder order = rnd.nextInt(5) == 0 ? builderOrder(BucketOrder.count(rnd.nextBoolean()))
        : BucketOrder.key(rnd.nextInt(4) != 0);
    final long first = rnd.nextInt(100) - 50;
    final int span = 1 + rnd.nextInt(rnd.nextInt(8) == 0 ? 200 : 20);
    final double minBound;
    final double maxBound;

    HistogramPlan(String name) {
      super(name, metadata());
      // Extended bounds, sometimes off the interval's grid; infinities mean none.
      minBound = rnd.nextBoolean() ? Double.POSITIVE_INFINITY
          : (first - rnd.nextInt(10)) * interval + offset - (rnd.nextBoolean() ? interval / 3 : 0);
      maxBound = rnd.nextBoolean() ? Double.NEGATIVE_INFINITY
          : (first + span + rnd.nextInt(10)) * interval + offset + (rnd.nextBoolean() ? interval / 3 : 0);
    }

    @Override
    String type() {
      return "histogram";
    }

    @Override
    InternalAggregation build(int shard, boolean empty) throws Exception {
      List<InternalHistogram.Bucket> buckets = new ArrayList<>();
      if (!empty) {
        double keep = rnd.nextDouble();
        for (long i = first; i < first + span; i++) {
          if (rnd.nextDouble() > keep) continue;
          buckets.add(Es.histogramBucket(i * interval + offset, 1 + rnd.nextInt(100),
              keyed, format, subAggs(shard, false)));
        }
      }
      InternalHistogram.EmptyBucketInfo info = minDocCount == 0
          ? new InternalHistogram.EmptyBucketInfo(interval, offset, minBound, maxBound,
              subAggs(shard, true))
          : null;
      // A shard sends histogram buckets by key, ascending, whatever the order.
      return new InternalHistogram(name, buckets, order, minDocCount, info, format, keyed, meta);
    }
  }

  /** date_histogram in America/New_York: calendar or fixed interval across a DST change. */
  final class DateHistogramPlan extends Plan {
    final Rounding rounding;
    final Rounding.Prepared prepared;
    final long minDocCount = rnd.nextInt(4) == 0 ? 1 : 0;
    final boolean keyed = rnd.nextInt(4) == 0;
    final DocValueFormat format = rnd.nextInt(5) == 0 ? DocValueFormat.RAW
        : new DocValueFormat.DateTime(DateFormatter.forPattern("strict_date_optional_time"),
            NEW_YORK, DateFieldMapper.Resolution.MILLISECONDS);
    final BucketOrder order = rnd.nextInt(6) == 0 ? builderOrder(BucketOrder.count(rnd.nextBoolean()))
        : BucketOrder.key(rnd.nextInt(4) != 0);
    final List<Long> keys = new ArrayList<>();
    final LongBounds bounds;

    DateHistogramPlan(String name) {
      super(name, metadata());
      Rounding.DateTimeUnit[] units = {
        Rounding.DateTimeUnit.HOUR_OF_DAY, Rounding.DateTimeUnit.DAY_OF_MONTH,
        Rounding.DateTimeUnit.WEEK_OF_WEEKYEAR, Rounding.DateTimeUnit.MONTH_OF_YEAR,
        Rounding.DateTimeUnit.QUARTER_OF_YEAR
      };
      long[] unitMillis = {3_600_000L, 86_400_000L, 7 * 86_400_000L, 30 * 86_400_000L,
          91 * 86_400_000L};
      int u = rnd.nextInt(units.length + 1);
      long step;
      Rounding.Builder b;
      if (u == units.length) {
        step = 3_600_000L * (1 + rnd.nextInt(6));
        b = Rounding.builder(TimeValue.timeValueMillis(step));
      } else {
        step = unitMillis[u];
        b = Rounding.builder(units[u]);
      }
      rounding = b.timeZone(NEW_YORK).build();
      prepared = rounding.prepareForUnknown();
      int n = 2 + rnd.nextInt(16);
      long change = DST_CHANGES[rnd.nextInt(DST_CHANGES.length)];
      long key = prepared.round(change - step * rnd.nextInt(n));
      for (int i = 0; i < n; i++) {
        keys.add(key);
        key = prepared.nextRoundingValue(key);
      }
      long lo = keys.get(0);
      long hi = keys.get(n - 1);
      bounds = rnd.nextBoolean() ? null
          : new LongBounds(rnd.nextBoolean() ? null : lo - step * rnd.nextInt(4) - rnd.nextInt(1000),
              rnd.nextBoolean() ? null : hi + step * rnd.nextInt(4) + rnd.nextInt(1000));
    }

    @Override
    String type() {
      return "date_histogram";
    }

    @Override
    InternalAggregation build(int shard, boolean empty) throws Exception {
      List<InternalDateHistogram.Bucket> buckets = new ArrayList<>();
      if (!empty) {
        double keep = rnd.nextDouble();
        for (long k : keys) {
          if (rnd.nextDouble() > keep) continue;
          buckets.add(Es.dateHistogramBucket(k, 1 + rnd.nextInt(100), keyed, format,
              subAggs(shard, false)));
        }
      }
      Class<?> info = Class.forName(InternalDateHistogram.class.getName() + "$EmptyBucketInfo");
      Object emptyInfo = null;
      if (minDocCount == 0) {
        Constructor<?> k = info.getDeclaredConstructor(Rounding.class, InternalAggregations.class,
            LongBounds.class);
        k.setAccessible(true);  // package-private in ES
        emptyInfo = k.newInstance(rounding, subAggs(shard, true), bounds);
      }
      return Es.dateHistogram(name, buckets, order, minDocCount, 0L, emptyInfo, format, keyed,
          false, meta);
    }
  }
}
