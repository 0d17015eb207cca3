// The reduce-wide bucket budget (ReduceContext::max_buckets, ES's
// search.max_buckets) against hostile shard results, with the counting
// allocator (counting_allocator.h) measuring the reduce's peak memory.
//
// The inputs are assembled here field by field with the stream's primitive
// writers, following the histogram and terms layouts of wire format §7, not
// through the aggregation classes: a shard can send any of these bytes.
//
// The bound every reduce here keeps, success or TooManyBucketsError:
//   peak <= kInputFactor x input + max_buckets x kBucketBytes + kSlack
// (docs/aggregations.md, "Reduce memory"). The buckets here carry small
// sub-aggregations (another histogram's header, or nothing), so a bucket
// costs well under kBucketBytes.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "aggregations/date_histogram.h"
#include "aggregations/histogram.h"
#include "aggregations/internal_aggregation.h"
#include "aggregations/registry.h"
#include "aggregations/terms.h"
#include "stream/bytes_stream_output.h"
#include "stream/stream_input.h"
#include "tests/support/counting_allocator.h"

namespace wirestream::aggregations {
namespace {

using Bytes = std::vector<uint8_t>;
using testing::AllocationScope;

constexpr size_t kInputFactor = 16;
constexpr size_t kBucketBytes = 512;
constexpr size_t kSlack = 64 * 1024;

constexpr uint8_t kNullMetadata = 0xFF;
constexpr uint8_t kOrderCountDesc = 1;
constexpr uint8_t kOrderKeyAsc = 4;

// One field after another with the primitive writers.
class Wire {
 public:
  Wire& byte(uint8_t b) {
    out_.writeByte(b);
    return *this;
  }
  Wire& vint(int32_t v) {
    out_.writeVInt(v);
    return *this;
  }
  Wire& vlong(int64_t v) {
    out_.writeVLong(v);
    return *this;
  }
  Wire& lng(int64_t v) {
    out_.writeLong(v);
    return *this;
  }
  Wire& dbl(double v) {
    out_.writeDouble(v);
    return *this;
  }
  Wire& boolean(bool v) {
    out_.writeBoolean(v);
    return *this;
  }
  Wire& str(const std::string& s) {
    out_.writeString(s);
    return *this;
  }
  Wire& raw(const Bytes& b) {
    out_.writeBytes(b);
    return *this;
  }
  Bytes bytes() const { return out_.bytes().toVector(); }

 private:
  BytesStreamOutput out_;
};

// An InternalAggregations: VInt count, then the elements (type name included).
Bytes list(const std::vector<Bytes>& elements) {
  Wire w;
  w.vint(static_cast<int32_t>(elements.size()));
  for (const Bytes& e : elements) w.raw(e);
  return w.bytes();
}

struct HistogramBucket {
  double key;
  Bytes subs = list({});
};

// A `histogram` element with minDocCount 0 and the bounds [lo, hi] (absent
// when NaN: ES writes +inf / -inf for no bound), whose empty buckets carry `empty_subs`.
Bytes histogram(const std::string& name, double lo, double hi, const Bytes& empty_subs,
                const std::vector<HistogramBucket>& buckets = {}, double interval = 1) {
  Wire w;
  w.str("histogram").str(name).byte(kNullMetadata);
  w.byte(kOrderKeyAsc).vlong(0);  // order, minDocCount 0: the empty bucket info follows
  w.dbl(interval).dbl(0);         // interval, offset
  w.dbl(lo == lo ? lo : std::numeric_limits<double>::infinity());
  w.dbl(hi == hi ? hi : -std::numeric_limits<double>::infinity());
  w.raw(empty_subs);
  w.str("raw").boolean(false);  // format, keyed
  w.vint(static_cast<int32_t>(buckets.size()));
  for (const HistogramBucket& b : buckets) w.dbl(b.key).vlong(1).raw(b.subs);
  return w.bytes();
}

constexpr int64_t kDay = 86400000;
constexpr uint8_t kTimeUnitRounding = 1;
constexpr uint8_t kDayOfMonth = 5;

struct DateBucket {
  int64_t key;
  int64_t doc_count = 1;
  Bytes subs = list({});
};

// A `date_histogram` element (InternalDateHistogram) with minDocCount
// `min_doc_count`; when it is 0, a day rounding in UTC whose empty buckets
// carry `empty_subs` and extended bounds [lo, hi] (ms).
Bytes dateHistogram(const std::string& name, int64_t min_doc_count, int64_t lo, int64_t hi,
                    const Bytes& empty_subs, const std::vector<DateBucket>& buckets = {},
                    const std::string& zone = "Z", uint8_t unit = kDayOfMonth) {
  Wire w;
  w.str("date_histogram").str(name).byte(kNullMetadata);
  w.byte(kOrderKeyAsc).vlong(min_doc_count);
  if (min_doc_count == 0) {
    w.byte(kTimeUnitRounding).byte(unit).str(zone);  // rounding
    w.raw(empty_subs);
    w.boolean(true);                                // extended bounds
    w.boolean(true).lng(lo).boolean(true).lng(hi);  // optional long min, max
    w.boolean(false).boolean(false);                // no min/max as string
  }
  w.lng(0).str("raw").boolean(false);  // offset, format, keyed
  w.vint(static_cast<int32_t>(buckets.size()));
  for (const DateBucket& b : buckets) w.lng(b.key).vlong(b.doc_count).raw(b.subs);
  return w.bytes();
}

// An `sterms` element (8.x layout) ordered by count, with `n` buckets "t0".."t<n-1>"
// of doc count n - i, each holding `subs`.
Bytes sterms(const std::string& name, int n, int32_t size, const Bytes& subs) {
  Wire w;
  w.str("sterms").str(name).byte(kNullMetadata);
  w.byte(kOrderKeyAsc).byte(kOrderCountDesc);  // reduce order, order
  w.vint(size).vlong(1);                       // requiredSize, minDocCount
  w.boolean(false);                            // no doc count error
  w.str("raw").vint(size);                     // format, shardSize
  w.boolean(false).vlong(0);                   // showTermDocCountError, otherDocCount
  w.vint(n);
  for (int i = 0; i < n; ++i) {
    std::string key = "t" + std::to_string(i);
    w.vlong(n - i).raw(subs);
    w.vint(static_cast<int32_t>(key.size())).raw(Bytes(key.begin(), key.end()));
  }
  return w.bytes();
}

// The bytes here are built by hand as ES 8.7 writes them (a date_histogram without
// downsampledResultsOffset): read at 8.7.0, not at TransportVersion::current().
InternalAggregations decode(const Bytes& bytes) {
  ByteArrayStreamInput in(bytes);
  in.setTransportVersion(TransportVersion::V_8_7_0);
  InternalAggregations aggs = InternalAggregations::readFrom(in, defaultRegistry());
  EXPECT_EQ(in.available(), 0u);
  return aggs;
}

struct Outcome {
  bool ok = false;
  std::string error;
  int32_t error_max = -1;
  size_t peak = 0;
  int64_t counted = 0;  // the context's live count after a successful reduce
  int64_t buckets = 0;  // bucketCount() of the result
};

// A final reduce of `bytes` (decoded once, reduced as one shard) under
// `max_buckets`, measured from before the reduce to after its result is freed.
Outcome reduceMeasured(const Bytes& bytes, int32_t max_buckets) {
  InternalAggregations shard = decode(bytes);
  const InternalAggregations* lists[] = {&shard};
  ReduceContext context = ReduceContext::finalReduce(max_buckets);
  Outcome o;
  AllocationScope scope;
  try {
    InternalAggregations r = InternalAggregations::reduce(lists, context);
    o.ok = true;
    o.counted = context.bucketCount();
    o.buckets = r.bucketCount();
  } catch (const TooManyBucketsError& e) {
    o.error = e.what();
    o.error_max = e.maxBuckets();
  }
  o.peak = scope.peakBytes();
  return o;
}

void expectBounded(const Outcome& o, size_t input, int32_t max_buckets) {
  size_t bound = kInputFactor * input + static_cast<size_t>(max_buckets) * kBucketBytes + kSlack;
  EXPECT_LE(o.peak, bound) << "input " << input << " bytes, max_buckets " << max_buckets;
  std::printf("input %zu B, max_buckets %d: %s, peak %zu B (bound %zu B)\n", input, max_buckets,
              o.ok ? "reduced" : "too many buckets", o.peak, bound);
}

std::string esMessage(int32_t max, int64_t was) {
  return "Trying to create too many buckets. Must be less than or equal to: [" +
         std::to_string(max) + "] but was [" + std::to_string(was) +
         "]. This limit can be set by changing the [search.max_buckets] cluster level setting.";
}

// A nested fill bomb: 65,536 empty buckets, each to hold a copy of a histogram
// of 65,536 empty buckets (2^32 buckets, ~170 GB before the budget).
TEST(ReduceBudget, NestedFillBombFailsFastInSmallMemory) {
  Bytes inner = histogram("i", 0, 65535, list({}));
  Bytes input = list({histogram("o", 0, 65535, list({inner}))});
  EXPECT_LE(input.size(), 121u);
  Outcome o = reduceMeasured(input, ReduceContext::kDefaultMaxBuckets);
  ASSERT_FALSE(o.ok);
  // 65,536 outer empty buckets fit; the template's first empty bucket does not.
  EXPECT_EQ(o.error, esMessage(65536, 65537));
  EXPECT_EQ(o.error_max, 65536);
  EXPECT_LE(o.peak, kSlack);  // counted before anything was built
}

// Nested fills that fit: 100 empty buckets x a histogram of 600 buckets.
TEST(ReduceBudget, NestedFillsWithinBudgetAreBuiltAndCountedExactly) {
  Bytes inner = histogram("i", 0, 599, list({}));
  Bytes input = list({histogram("o", 0, 99, list({inner}))});
  Outcome o = reduceMeasured(input, ReduceContext::kDefaultMaxBuckets);
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_EQ(o.buckets, 100 + 100 * 600);
  EXPECT_EQ(o.counted, o.buckets);  // every copy counted, nothing twice
  expectBounded(o, input.size(), ReduceContext::kDefaultMaxBuckets);
  // 60,100 buckets do not fit in 60,099, and the failure keeps the smaller bound.
  for (int32_t max : {60099, 10000, 1000, 0}) {
    Outcome small = reduceMeasured(input, max);
    EXPECT_FALSE(small.ok) << max;
    EXPECT_EQ(small.error_max, max);
    expectBounded(small, input.size(), max);
  }
}

// A 138 KB sterms: 2,000 buckets, each holding a histogram that
// fills 65,536 empty buckets.
TEST(ReduceBudget, ManyBucketsTimesFillsFail) {
  Bytes fills = list({histogram("h", 0, 65535, list({}))});
  Bytes input = list({sterms("t", 2000, 2000, fills)});
  EXPECT_GE(input.size(), 100000u);
  for (int32_t max : {ReduceContext::kDefaultMaxBuckets, 10000}) {
    Outcome o = reduceMeasured(input, max);
    EXPECT_FALSE(o.ok);
    EXPECT_EQ(o.error_max, max);
    expectBounded(o, input.size(), max);
  }
}

// 2,000 terms x 100 filled buckets = 202,000 buckets: too many when all are
// kept, but under size 10 the terms that fall out are freed and given back
// as they go (ES's priority queue), so only ~10 x 101 are ever live.
TEST(ReduceBudget, TermsGiveBackWhatFallsOutOfSize) {
  Bytes fills = list({histogram("h", 0, 99, list({}))});
  Bytes all = list({sterms("t", 2000, 2000, fills)});
  Outcome o = reduceMeasured(all, ReduceContext::kDefaultMaxBuckets);
  EXPECT_FALSE(o.ok);
  expectBounded(o, all.size(), ReduceContext::kDefaultMaxBuckets);

  Bytes top10 = list({sterms("t", 2000, 10, fills)});
  Outcome k = reduceMeasured(top10, 2000);
  ASSERT_TRUE(k.ok) << k.error;
  EXPECT_EQ(k.buckets, 10 + 10 * 100);
  EXPECT_EQ(k.counted, k.buckets);
  expectBounded(k, top10.size(), 2000);
}

// Many terms under a small size never add up, as in ES: 70,000 buckets with
// size 10 reduce under the default budget; with size 70,000 they do not.
TEST(ReduceBudget, ManyTermsUnderSmallSizeFit) {
  Bytes few = list({sterms("t", 70000, 10, list({}))});
  Outcome o = reduceMeasured(few, ReduceContext::kDefaultMaxBuckets);
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_EQ(o.counted, 10);
  Bytes all = list({sterms("t", 70000, 70000, list({}))});
  Outcome a = reduceMeasured(all, ReduceContext::kDefaultMaxBuckets);
  EXPECT_EQ(a.error, esMessage(65536, 65537));
}

// Histograms nested 40 deep through their empty bucket info, each filling
// two buckets: 2^40 buckets at the bottom.
TEST(ReduceBudget, DeepSubAggregationsFail) {
  Bytes subs = list({});
  for (int depth = 0; depth < 40; ++depth) subs = list({histogram("h", 0, 1, subs)});
  Outcome o = reduceMeasured(subs, ReduceContext::kDefaultMaxBuckets);
  EXPECT_FALSE(o.ok);
  expectBounded(o, subs.size(), ReduceContext::kDefaultMaxBuckets);

  // Terms nested 40 deep, one bucket each, reduce to 40 buckets.
  Bytes chain = list({});
  for (int depth = 0; depth < 40; ++depth) chain = list({sterms("t", 1, 10, chain)});
  Outcome c = reduceMeasured(chain, 40);
  ASSERT_TRUE(c.ok) << c.error;
  EXPECT_EQ(c.counted, 40);
  EXPECT_FALSE(reduceMeasured(chain, 39).ok);
}

// The limit is inclusive, as ES's: buckets 0 and 65,535 with the gap filled
// are 65,536 buckets; one more key is one too many.
TEST(ReduceBudget, LimitIsInclusive) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Bytes fits = list({histogram("h", nan, nan, list({}), {{0}, {65535}})});
  Outcome o = reduceMeasured(fits, ReduceContext::kDefaultMaxBuckets);
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_EQ(o.counted, 65536);
  Bytes over = list({histogram("h", nan, nan, list({}), {{0}, {65536}})});
  EXPECT_EQ(reduceMeasured(over, ReduceContext::kDefaultMaxBuckets).error, esMessage(65536, 65537));
  EXPECT_EQ(reduceMeasured(fits, 3).error, esMessage(3, 4));
}

// A heavy empty-bucket template (here large metadata) counts one bucket per
// kEmptyCopyBytesPerBucket bytes of its encoding for each copy.
TEST(ReduceBudget, HeavyTemplateCopiesCount) {
  Wire meta;
  // {"k": "xx..."}: a map (0A), keys as generic strings from 8.7.0.
  meta.byte(0x0A).vint(1).byte(0).str("k").byte(0).str(std::string(64 * 1024, 'x'));
  Wire max;
  max.str("max").str("m").raw(meta.bytes()).str("raw").dbl(1);
  Bytes input = list({histogram("h", 0, 9999, list({max.bytes()}))});
  Outcome o = reduceMeasured(input, ReduceContext::kDefaultMaxBuckets);
  ASSERT_FALSE(o.ok);  // 10,000 copies of 64 KiB: ~2.5 million bucket units
  expectBounded(o, input.size(), ReduceContext::kDefaultMaxBuckets);
}

// The nested fill bomb as date_histograms: 65,536 days, each to hold a copy of
// 65,536 days. 65,536 outer buckets fit; the template's first does not.
TEST(ReduceBudget, DateHistogramNestedFillBombFailsFastInSmallMemory) {
  Bytes inner = dateHistogram("i", 0, 0, 65535 * kDay, list({}));
  Bytes input = list({dateHistogram("o", 0, 0, 65535 * kDay, list({inner}))});
  EXPECT_LE(input.size(), 160u);
  Outcome o = reduceMeasured(input, ReduceContext::kDefaultMaxBuckets);
  ASSERT_FALSE(o.ok);
  EXPECT_EQ(o.error, esMessage(65536, 65537));
  EXPECT_LE(o.peak, kSlack);  // counted before anything was built
  // A range of 2^60 ms (36 million years of days) is refused as early.
  Bytes huge = list({dateHistogram("h", 0, 0, int64_t{1} << 60, list({}))});
  Outcome h = reduceMeasured(huge, ReduceContext::kDefaultMaxBuckets);
  EXPECT_EQ(h.error, esMessage(65536, 65537));
  EXPECT_LE(h.peak, kSlack);
}

// In a region zone (stepped through the tz database) the budget holds the
// same way: hours in Europe/Berlin over 2^50 ms fail after 65,537, quickly.
TEST(ReduceBudget, DateHistogramInRegionZoneFailsFast) {
  constexpr uint8_t kHourOfDay = 6;
  Bytes hours =
      list({dateHistogram("h", 0, 0, int64_t{1} << 50, list({}), {}, "Europe/Berlin", kHourOfDay)});
  Outcome o = reduceMeasured(hours, ReduceContext::kDefaultMaxBuckets);
  EXPECT_EQ(o.error, esMessage(65536, 65537));
  EXPECT_LE(o.peak, kSlack);
  // 2021-03-28 in Berlin has 23 hours: 23 buckets from local midnight to 23:00.
  Bytes day = list({dateHistogram("h", 0, 1616886000000, 1616886000000 + 22 * 3600000, list({}), {},
                                  "Europe/Berlin", kHourOfDay)});
  Outcome d = reduceMeasured(day, ReduceContext::kDefaultMaxBuckets);
  ASSERT_TRUE(d.ok) << d.error;
  EXPECT_EQ(d.counted, 23);
}

// Mixed nesting: a date_histogram inside a histogram's empty buckets and
// inside every bucket of a terms result; each fill counts per copy.
TEST(ReduceBudget, DateHistogramInsideOtherAggregationsCounts) {
  Bytes days = dateHistogram("d", 0, 0, 599 * kDay, list({}));
  Bytes in_histogram = list({histogram("o", 0, 99, list({days}))});
  Outcome o = reduceMeasured(in_histogram, ReduceContext::kDefaultMaxBuckets);
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_EQ(o.buckets, 100 + 100 * 600);
  EXPECT_EQ(o.counted, o.buckets);
  expectBounded(o, in_histogram.size(), ReduceContext::kDefaultMaxBuckets);
  for (int32_t max : {60099, 1000, 0}) {
    Outcome small = reduceMeasured(in_histogram, max);
    EXPECT_FALSE(small.ok) << max;
    EXPECT_EQ(small.error_max, max);
    expectBounded(small, in_histogram.size(), max);
  }
  // 2,000 terms x a date_histogram of 65,536 days.
  Bytes wide = list({dateHistogram("d", 0, 0, 65535 * kDay, list({}))});
  Bytes in_terms = list({sterms("t", 2000, 2000, wide)});
  Outcome t = reduceMeasured(in_terms, ReduceContext::kDefaultMaxBuckets);
  EXPECT_FALSE(t.ok);
  expectBounded(t, in_terms.size(), ReduceContext::kDefaultMaxBuckets);
  // Date histograms nested 40 deep through their empty bucket info.
  Bytes deep = list({});
  for (int depth = 0; depth < 40; ++depth) deep = list({dateHistogram("d", 0, 0, kDay, deep)});
  Outcome d = reduceMeasured(deep, ReduceContext::kDefaultMaxBuckets);
  EXPECT_FALSE(d.ok);
  expectBounded(d, deep.size(), ReduceContext::kDefaultMaxBuckets);
}

// Kept buckets count too, and the limit is inclusive: days 0 and 65,535 with
// the gap filled are 65,536 buckets; one day more is one too many.
TEST(ReduceBudget, DateHistogramLimitIsInclusive) {
  Bytes fits = list({dateHistogram("d", 0, 0, 0, list({}), {{0}, {65535 * kDay}})});
  Outcome o = reduceMeasured(fits, ReduceContext::kDefaultMaxBuckets);
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_EQ(o.counted, 65536);
  EXPECT_EQ(o.buckets, 65536);
  Bytes over = list({dateHistogram("d", 0, 0, 0, list({}), {{0}, {65536 * kDay}})});
  EXPECT_EQ(reduceMeasured(over, ReduceContext::kDefaultMaxBuckets).error, esMessage(65536, 65537));
  // minDocCount 1: only the kept buckets count.
  std::vector<DateBucket> three = {{0}, {kDay}, {5 * kDay}};
  Bytes kept = list({dateHistogram("d", 1, 0, 0, list({}), three)});
  Outcome k = reduceMeasured(kept, 3);
  ASSERT_TRUE(k.ok) << k.error;
  EXPECT_EQ(k.counted, 3);
  EXPECT_EQ(reduceMeasured(kept, 2).error, esMessage(2, 3));
}

// A normal reduce is unchanged by the budget: two shards merge by key, the
// gaps and the bounds are filled with days, and nothing is counted twice.
TEST(ReduceBudget, DateHistogramNormalReduceUnchanged) {
  Bytes a = list({dateHistogram("d", 0, -kDay, 4 * kDay, list({}), {{0, 2}, {2 * kDay, 1}})});
  Bytes b = list({dateHistogram("d", 0, -kDay, 4 * kDay, list({}), {{2 * kDay, 3}})});
  InternalAggregations sa = decode(a), sb = decode(b);
  const InternalAggregations* lists[] = {&sa, &sb};
  ReduceContext context = ReduceContext::finalReduce();
  InternalAggregations r = InternalAggregations::reduce(lists, context);
  const auto& h = static_cast<const DateHistogram&>(r[0]);
  std::vector<std::pair<int64_t, int64_t>> got;
  for (const DateHistogram::Bucket& bucket : h.buckets())
    got.emplace_back(bucket.key, bucket.doc_count);
  std::vector<std::pair<int64_t, int64_t>> want = {{-kDay, 0},    {0, 2},        {kDay, 0},
                                                   {2 * kDay, 4}, {3 * kDay, 0}, {4 * kDay, 0}};
  EXPECT_EQ(got, want);
  EXPECT_EQ(context.bucketCount(), 6);
  EXPECT_EQ(r.bucketCount(), 6);
}

// Partial reduces create no more buckets than they are given and count none.
TEST(ReduceBudget, PartialReduceCountsNothing) {
  Bytes input = list({sterms("t", 100, 100, list({}))});
  InternalAggregations shard = decode(input);
  const InternalAggregations* lists[] = {&shard, &shard};
  ReduceContext partial = ReduceContext::partialReduce();
  partial.max_buckets = 1;
  InternalAggregations r = InternalAggregations::reduce(lists, partial);
  EXPECT_EQ(r.bucketCount(), 100);
  EXPECT_EQ(partial.bucketCount(), 0);
}

}  // namespace
}  // namespace wirestream::aggregations
