// Randomized round trips of every aggregation type at 7.10.0 and 8.7.0:
// read(write(x)) == x, write(read(bytes)) == bytes, every page size, and the
// wire JSON round trip. The seed is printed (WIRESTREAM_SEED repeats one).
#include <gtest/gtest.h>

#include "agg_test_util.h"
#include "aggregations/json/aggregation_json.h"

namespace wirestream::aggregations {
namespace {

using testing::RandomAggs;

const TransportVersion kVersions[] = {TransportVersion::V_7_10_0, TransportVersion::V_8_7_0};

int maxDepth(const InternalAggregations& aggs);

int maxDepth(const InternalAggregation& a) {
  int d = 0;
  auto sub = [&](const InternalAggregations& s) { d = std::max(d, maxDepth(s)); };
  if (auto* t = dynamic_cast<const StringTerms*>(&a))
    for (const auto& b : t->buckets()) sub(b.aggregations);
  if (auto* t = dynamic_cast<const LongTerms*>(&a))
    for (const auto& b : t->buckets()) sub(b.aggregations);
  if (auto* t = dynamic_cast<const DoubleTerms*>(&a))
    for (const auto& b : t->buckets()) sub(b.aggregations);
  if (auto* h = dynamic_cast<const Histogram*>(&a))
    for (const auto& b : h->buckets()) sub(b.aggregations);
  return d;
}

int maxDepth(const InternalAggregations& aggs) {
  int d = 0;
  for (const auto& a : aggs.list()) d = std::max(d, 1 + maxDepth(*a));
  return d;
}

TEST(AggregationRoundTrip, EveryTypeBothVersions) {
  uint64_t seed = testing::testSeed();
  for (TransportVersion v : kVersions) {
    RandomAggs gen(seed, v);
    std::map<std::string, int> seen;
    int deepest = 0;
    size_t most_buckets = 0;
    for (int iter = 0; iter < 300; ++iter) {
      const std::string& type = testing::kAllTypes[iter % testing::kAllTypes.size()];
      InternalAggregations aggs = testing::single(gen.agg(type, 0));
      if (gen.coin(0.3))
        RandomAggs::addUnique(
            aggs, gen.agg(testing::kAllTypes[gen.uniform(0, testing::kAllTypes.size() - 1)], 0), 1);
      for (const auto& a : aggs.list()) ++seen[std::string(a->getWriteableName())];
      deepest = std::max(deepest, maxDepth(aggs));
      if (auto* t = dynamic_cast<const StringTerms*>(&aggs[0])) {
        most_buckets = std::max(most_buckets, t->buckets().size());
      }

      std::vector<uint8_t> bytes = testing::writeAggs(aggs, v);
      InternalAggregations back = testing::readAggs(bytes, v);
      ASSERT_TRUE(back == aggs) << "seed " << seed << " iter " << iter << " type " << type;
      ASSERT_EQ(testing::writeAggs(back, v), bytes) << "seed " << seed << " iter " << iter;
      // The copy constructor deep-copies.
      InternalAggregations copy = aggs;
      ASSERT_TRUE(copy == aggs);
      // The wire JSON is lossless.
      InternalAggregations from_json =
          aggregationsFromWireJson(nlohmann::ordered_json::parse(toWireJson(aggs).dump()));
      ASSERT_TRUE(from_json == aggs) << "seed " << seed << " iter " << iter << "\n"
                                     << toWireJson(aggs).dump();
    }
    EXPECT_EQ(seen.size(), testing::kAllTypes.size());
    EXPECT_GE(deepest, 4) << "want sub-aggregations 3 deep";
    EXPECT_GE(most_buckets, 500u);
  }
}

TEST(AggregationRoundTrip, AcrossPageSizes) {
  uint64_t seed = testing::testSeed();
  RandomAggs gen(seed, TransportVersion::current());
  for (int iter = 0; iter < 40; ++iter) {
    InternalAggregations aggs = gen.aggs();
    std::vector<uint8_t> expected = testing::writeAggs(aggs, TransportVersion::current());
    for (size_t page : {1, 3, 7, 13, 1024}) {
      ASSERT_EQ(testing::writeAggs(aggs, TransportVersion::current(), page), expected);
      PageRecycler recycler(page);
      BytesStreamOutput out(recycler);
      aggs.writeTo(out);
      BytesReference ref = out.bytes();
      BytesReferenceStreamInput in(ref);
      ASSERT_TRUE(InternalAggregations::readFrom(in, defaultRegistry()) == aggs)
          << "seed " << seed << " iter " << iter << " page " << page;
    }
  }
}

TEST(AggregationRoundTrip, EveryStrictPrefixIsEndOfStream) {
  uint64_t seed = testing::testSeed();
  for (TransportVersion v : kVersions) {
    RandomAggs gen(seed, v);
    for (int iter = 0; iter < 60; ++iter) {
      InternalAggregations aggs =
          testing::single(gen.agg(testing::kAllTypes[iter % testing::kAllTypes.size()], 2));
      std::vector<uint8_t> bytes = testing::writeAggs(aggs, v);
      for (size_t n = 0; n < bytes.size(); ++n) {
        std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + n);
        ByteArrayStreamInput in(prefix);
        in.setTransportVersion(v);
        EXPECT_THROW(InternalAggregations::readFrom(in, defaultRegistry()), EndOfStreamError)
            << "seed " << seed << " iter " << iter << " prefix " << n << " of " << bytes.size();
      }
    }
  }
}

// Version gates of §7: the reduce order only from 7.10.0; hasDocCountError
// only from 7.15.0. Before 7.15.0 an absent docCountError travels as 0.
TEST(AggregationRoundTrip, VersionGatesOfTerms) {
  LongTerms t("t", GenericValue());
  t.setDocCountError(std::nullopt);
  auto at = [&](TransportVersion v) {
    PageRecycler r(1024);
    BytesStreamOutput out(r);
    out.setTransportVersion(v);
    t.writeTo(out);
    return out.bytes().toVector();
  };
  std::vector<uint8_t> v7 = at(TransportVersion::V_7_10_0);
  std::vector<uint8_t> v8 = at(TransportVersion::V_8_7_0);
  std::vector<uint8_t> v6 = at(TransportVersion::fromRelease(7, 9, 0));
  // name "t", metadata FF, reduce order 04, order 01, size 0A, min doc 01, ...
  EXPECT_EQ(BytesReference(std::span<const uint8_t>(v8)).toHex(),
            "01 74 ff 04 01 0a 01 00 03 72 61 77 0a 00 00 00");
  EXPECT_EQ(BytesReference(std::span<const uint8_t>(v7)).toHex(),
            "01 74 ff 04 01 0a 01 00 03 72 61 77 0a 00 00 00");
  EXPECT_EQ(BytesReference(std::span<const uint8_t>(v6)).toHex(),
            "01 74 ff 01 0a 01 00 03 72 61 77 0a 00 00 00");
  t.setDocCountError(5);
  EXPECT_EQ(BytesReference(std::span<const uint8_t>(at(TransportVersion::V_8_7_0))).toHex(),
            "01 74 ff 04 01 0a 01 01 0a 03 72 61 77 0a 00 00 00");
  EXPECT_EQ(BytesReference(std::span<const uint8_t>(at(TransportVersion::V_7_10_0))).toHex(),
            "01 74 ff 04 01 0a 01 0a 03 72 61 77 0a 00 00 00");
  // Before 7.10.0 the reduce order is the order.
  ByteArrayStreamInput in(v6);
  in.setTransportVersion(TransportVersion::fromRelease(7, 9, 0));
  LongTerms back(in, defaultRegistry());
  EXPECT_EQ(back.reduceOrder(), BucketOrder::count(false));
  EXPECT_EQ(back.docCountError(), std::nullopt);
}

// Metadata map keys: strings before 8.7.0, generic values from 8.7.0 on.
TEST(AggregationRoundTrip, MetadataKeysByVersion) {
  auto bytes = [](TransportVersion v) {
    Max m("m", GenericValue::ofMap({{"k", "v"}}), 1.0);
    PageRecycler r(1024);
    BytesStreamOutput out(r);
    out.setTransportVersion(v);
    m.writeTo(out);
    return out.bytes().toHex();
  };
  EXPECT_EQ(bytes(TransportVersion::V_7_10_0),
            "01 6d 0a 01 01 6b 00 01 76 03 72 61 77 3f f0 00 00 00 00 00 00");
  EXPECT_EQ(bytes(TransportVersion::V_8_7_0),
            "01 6d 0a 01 00 01 6b 00 01 76 03 72 61 77 3f f0 00 00 00 00 00 00");
}

}  // namespace
}  // namespace wirestream::aggregations
