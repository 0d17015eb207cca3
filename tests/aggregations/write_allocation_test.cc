// writeTo allocates nothing: a StringTerms of StringTerms (with metadata,
// metrics and a cardinality sketch in the leaves) written again and again
// into one reused BytesStreamOutput makes no heap allocation once warm. This
// binary replaces the global operator new to count.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "agg_test_util.h"

namespace {
std::atomic<int64_t> allocations{0};
}  // namespace

void* operator new(size_t n) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t n) { return operator new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }

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

TEST(WriteAllocation, ReusedOutputAllocatesNothing) {
  InternalAggregations aggs = testing::single(nested(100, 100));
  PageRecycler recycler;
  BytesStreamOutput out(recycler);
  for (TransportVersion v : {TransportVersion::V_7_10_0, TransportVersion::V_8_7_0}) {
    out.setTransportVersion(v);
    aggs.writeTo(out);  // warm: the pages, the page list
    size_t size = out.size();
    out.reset();
    int64_t before = allocations.load();
    for (int i = 0; i < 5; ++i) {
      aggs.writeTo(out);
      ASSERT_EQ(out.size(), size);
      out.reset();
    }
    EXPECT_EQ(allocations.load() - before, 0) << "at " << v.toString();
  }
  // The counter works.
  int64_t before = allocations.load();
  auto p = std::make_unique<int>(1);
  EXPECT_EQ(allocations.load() - before, 1);
}

}  // namespace
}  // namespace wirestream::aggregations
