// HistogramBuckets, the flat bucket columns behind Histogram::buckets() and
// DateHistogram::buckets(): the vector-like API keeps every bucket's key,
// doc count and sub-aggregations as a std::vector<Bucket> would, whichever
// layout holds them (none, metric columns, objects); the bytes written from
// metric columns are the bytes of §7 (ES's InternalDateHistogram.Bucket:
// long key, VLong doc count, the sub-aggregation list); and the reduce gives
// the same result from either layout.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "agg_test_util.h"
#include "aggregations/columnar.h"

namespace wirestream::aggregations {
namespace {

using testing::hex;
using Buckets = DateHistogram::Buckets;

InternalAggregations avg(double sum, int64_t count, std::string name = "avg_price") {
  return testing::single(std::make_unique<Avg>(std::move(name), GenericValue(), sum, count));
}

InternalAggregations stats(int64_t count, double min, double max, double sum) {
  return testing::single(std::make_unique<Stats>("s", GenericValue(), count, min, max, sum));
}

void expectSame(const Buckets& bs, const std::vector<DateHistogram::Bucket>& model) {
  ASSERT_EQ(bs.size(), model.size());
  size_t i = 0;
  for (auto&& b : bs) {
    EXPECT_EQ(b.key, model[i].key) << i;
    EXPECT_EQ(b.doc_count, model[i].doc_count) << i;
    EXPECT_TRUE(b.aggregations == model[i].aggregations) << i;
    ++i;
  }
}

TEST(HistogramBuckets, MetricSubAggregationsOfOneShapeAreColumns) {
  Buckets bs;
  for (int64_t i = 0; i < 100; ++i) bs.push_back({i * 60000, i + 1, avg(2.5 * i, i + 1)});
  EXPECT_TRUE(bs.metrics().active());
  EXPECT_FALSE(bs.hasObjects());
  EXPECT_EQ(bs.metrics().rows(), 100u);
  const Buckets& c = bs;
  EXPECT_EQ(static_cast<const Avg&>(c[7].aggregations[0]).sum(), 17.5);
  EXPECT_EQ(static_cast<const Avg&>(c[7].aggregations[0]).count(), 8);
  EXPECT_EQ(c[7].aggregations[0].getName(), "avg_price");

  // Another name breaks the shape: every bucket's list becomes objects again.
  Buckets mixed = bs;
  mixed.push_back({1, 1, avg(1, 1, "other")});
  EXPECT_FALSE(mixed.metrics().active());
  EXPECT_TRUE(mixed.hasObjects());
  EXPECT_EQ(static_cast<const Avg&>(std::as_const(mixed)[7].aggregations[0]).sum(), 17.5);

  // A BucketRef hands out objects; the values stay.
  Buckets edited = bs;
  static_cast<Avg&>(edited[3].aggregations[0]).setSum(99);
  EXPECT_FALSE(edited.metrics().active());
  EXPECT_EQ(static_cast<const Avg&>(std::as_const(edited)[3].aggregations[0]).sum(), 99);
  EXPECT_EQ(static_cast<const Avg&>(std::as_const(edited)[4].aggregations[0]).sum(), 10);

  // A bucket without sub-aggregations after metric rows: objects.
  Buckets gap = bs;
  gap.push_back({5, 5, {}});
  EXPECT_TRUE(gap.hasObjects());
  EXPECT_TRUE(std::as_const(gap)[100].aggregations.empty());
}

TEST(HistogramBuckets, RandomEditsMatchAVectorOfBuckets) {
  std::mt19937_64 rng(testing::testSeed());
  for (int run = 0; run < 60; ++run) {
    Buckets bs;
    std::vector<DateHistogram::Bucket> model;
    const int subs = static_cast<int>(rng() % 4);  // none, avg, stats, any
    for (int step = 0; step < 50; ++step) {
      auto key = static_cast<int64_t>(rng() % 1000);
      auto count = static_cast<int64_t>(rng() % 100);
      switch (rng() % 8) {
        case 0:
          if (!model.empty()) {
            bs.pop_back();
            model.pop_back();
          }
          break;
        case 1:
          if (!model.empty()) {
            size_t i = rng() % model.size();
            bs[i].doc_count = count;
            model[i].doc_count = count;
          }
          break;
        default: {
          InternalAggregations a;
          int kind = subs == 3 ? static_cast<int>(rng() % 3) : subs;
          if (kind == 1) a = avg(static_cast<double>(rng() % 1000) / 4, count);
          if (kind == 2) a = stats(count, -1.5, static_cast<double>(rng() % 50), 7.25);
          model.push_back({key, count, a});
          if (rng() % 2) {
            bs.push_back({key, count, std::move(a)});
          } else {
            bs.append(key, count, a);
          }
          break;
        }
      }
      expectSame(bs, model);
    }
  }
}

// The ES bytes of buckets held as metric columns, from ES's writers:
// InternalDateHistogram.Bucket.writeTo (writeLong key, writeVLong docCount,
// aggregations.writeTo), InternalAggregations.writeTo (VInt count, then
// writeString(type) + the aggregation), InternalAggregation.writeTo
// (writeString name, writeGenericValue metadata: null is FF) and
// InternalAvg.doWriteTo (writeNamedWriteable format: "raw", writeDouble sum,
// writeVLong count).
TEST(HistogramBuckets, MetricColumnsWriteTheEsBytes) {
  DateHistogram h("h", GenericValue());
  h.buckets().push_back({1420070400000, 3, avg(7.5, 3, "a")});
  h.buckets().push_back({1420156800000, 200, avg(-0.0, 0, "a")});
  ASSERT_TRUE(h.buckets().metrics().active());
  DateHistogram shell("h", GenericValue());
  std::vector<uint8_t> expected =
      testing::writeAggs(testing::single(shell.clone()), TransportVersion::current());
  ASSERT_EQ(expected.back(), 0x00);  // the bucket count
  expected.pop_back();
  std::vector<uint8_t> buckets =
      hex("02"
          // 1420070400000, 3, one aggregation "avg" named "a", no metadata, "raw", 7.5, 3
          "0000014aa2cab000 03 01 03617667 0161 ff 03726177 401e000000000000 03"
          // 1420156800000, 200 (VLong c8 01), -0.0, 0
          "0000014aa7f10c00 c801 01 03617667 0161 ff 03726177 8000000000000000 00");
  expected.insert(expected.end(), buckets.begin(), buckets.end());
  EXPECT_EQ(testing::writeAggs(testing::single(h.clone()), TransportVersion::current()), expected);
}

std::unique_ptr<DateHistogram> shard(uint64_t seed, bool objects) {
  std::mt19937_64 rng(seed);
  auto h = std::make_unique<DateHistogram>("h", GenericValue());
  h->setMinDocCount(0);
  DateHistogram::EmptyBucketInfo e;
  e.rounding = DateHistogram::Rounding::timeInterval(1000, "Z");
  e.aggregations = stats(0, INFINITY, -INFINITY, 0);
  e.bounds = DateHistogram::Bounds{0, 39000, std::nullopt, std::nullopt};  // extended_bounds
  h->setEmptyBucketInfo(std::move(e));
  for (int64_t k = 0; k < 40; ++k) {
    if (rng() % 3 == 0) continue;
    auto count = static_cast<int64_t>(1 + rng() % 9);
    h->buckets().push_back({k * 1000, count,
                            stats(count, static_cast<double>(rng() % 10),
                                  10 + static_cast<double>(rng() % 10), 0.1 * count)});
  }
  if (objects && !h->buckets().empty()) h->buckets()[0];  // a BucketRef: objects
  return h;
}

TEST(HistogramBuckets, ReduceIsTheSameFromEitherLayout) {
  uint64_t seed = testing::testSeed();
  for (BucketOrder order : {BucketOrder::key(true), BucketOrder::key(false),
                            BucketOrder::count(false), BucketOrder::aggregation("s.max", true)}) {
    InternalAggregations results[2];
    for (bool objects : {false, true}) {
      InternalAggregations a = testing::single(shard(seed, objects));
      InternalAggregations b = testing::single(shard(seed + 1, objects));
      static_cast<DateHistogram&>(a[0]).setOrder(order);
      EXPECT_EQ(static_cast<const DateHistogram&>(a[0]).buckets().metrics().active(), !objects);
      const InternalAggregations* lists[] = {&a, &b};
      results[objects] = InternalAggregations::reduce(lists, ReduceContext::finalReduce());
    }
    EXPECT_TRUE(results[0] == results[1]);
    EXPECT_EQ(testing::writeAggs(results[0], TransportVersion::current()),
              testing::writeAggs(results[1], TransportVersion::current()));
    const auto& h = static_cast<const DateHistogram&>(results[0][0]);
    EXPECT_EQ(h.buckets().size(), 40u);  // filled out to the bounds: 0 .. 39 s
    EXPECT_TRUE(h.buckets().metrics().active());
  }
}

TEST(HistogramBuckets, ColumnarReadGivesColumns) {
  InternalAggregations aggs = testing::single(shard(testing::testSeed(), false));
  BytesStreamOutput out;
  columnar::writeAggregations(out, aggs);
  BytesReferenceStreamInput in(out.bytes());
  InternalAggregations back = columnar::readAggregations(in, defaultRegistry());
  EXPECT_TRUE(back == aggs);
  EXPECT_TRUE(static_cast<const DateHistogram&>(back[0]).buckets().metrics().active());
}

}  // namespace
}  // namespace wirestream::aggregations
