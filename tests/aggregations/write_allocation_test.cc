// writeTo allocates nothing: a StringTerms of StringTerms (with metadata,
// metrics and a cardinality sketch in the leaves) and a date_histogram whose
// avg sub-aggregations are metric columns, written again and again
// into one reused BytesStreamOutput makes no heap allocation once warm,
// counted by //tests/support:counting_allocator.
#include <gtest/gtest.h>

#include "agg_test_util.h"
#include "tests/support/counting_allocator.h"

namespace wirestream::aggregations {
namespace {

std::unique_ptr<StringTerms> nested(int outer, int inner) {
  auto top = std::make_unique<StringTerms>("outer", GenericValue::ofMap({{"team", "search"}}));
  for (int i = 0; i < outer; ++i) {
    auto sub = std::make_unique<StringTerms>("inner", GenericValue());
    for (int j = 0; j < inner; ++j) {
      StringTerms::Bucket b;
      b.key = "term-" + std::to_string(j);
      b.doc_count = j;
      if (j % 10 == 0) {
        b.aggregations.add(std::make_unique<Avg>("price", GenericValue(), 1.5 * j, j));
      }
      sub->buckets().push_back(std::move(b));
    }
    StringTerms::Bucket b;
    b.key = "key-" + std::to_string(i);
    b.doc_count = i + 1;
    b.aggregations.add(std::move(sub));
    HyperLogLogPlusPlus s(6);
    for (int k = 0; k < i; ++k) s.collect(HyperLogLogPlusPlus::hashLong(k));
    b.aggregations.add(std::make_unique<Cardinality>("users", GenericValue(), s));
    top->buckets().push_back(std::move(b));
  }
  return top;
}

// Buckets whose avg sub-aggregations are held as metric columns.
std::unique_ptr<DateHistogram> perMinute(int n) {
  auto h = std::make_unique<DateHistogram>("per_minute", GenericValue());
  for (int i = 0; i < n; ++i) {
    h->buckets().push_back(
        {i * int64_t{60000}, i + 1,
         testing::single(std::make_unique<Avg>("avg_price", GenericValue(), 2.5 * i, i + 1))});
  }
  return h;
}

TEST(WriteAllocation, ReusedOutputAllocatesNothing) {
  InternalAggregations aggs = testing::single(nested(100, 100));
  aggs.add(perMinute(1000));
  ASSERT_TRUE(static_cast<const DateHistogram&>(aggs[1]).buckets().metrics().active());
  PageRecycler recycler;
  BytesStreamOutput out(recycler);
  for (TransportVersion v : {TransportVersion::V_7_10_0, TransportVersion::V_8_7_0}) {
    out.setTransportVersion(v);
    aggs.writeTo(out);  // warm: the pages, the page list
    size_t size = out.size();
    out.reset();
    wirestream::testing::AllocationScope scope;
    for (int i = 0; i < 5; ++i) {
      aggs.writeTo(out);
      ASSERT_EQ(out.size(), size);
      out.reset();
    }
    EXPECT_EQ(scope.allocations(), 0u) << "at " << v.toString();
  }
  // The counter works.
  wirestream::testing::AllocationScope scope;
  auto p = std::make_unique<int>(1);
  EXPECT_EQ(scope.allocations(), 1u);
}

}  // namespace
}  // namespace wirestream::aggregations
