// The counting allocator sees every operator new of the binary, and its peak
// is the high-water mark above the scope's start.
#include "tests/support/counting_allocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <new>
#include <vector>

namespace wirestream::testing {
namespace {

TEST(CountingAllocator, CountsAllocationsAndThePeakAboveTheStart) {
  auto before = std::make_unique<std::vector<char>>(1 << 20);  // outside the scope
  AllocationScope scope;
  {
    std::vector<char> a(100000);
    std::vector<char> b(50000);
  }
  EXPECT_EQ(scope.allocations(), 2u);
  EXPECT_EQ(scope.peakBytes(), 150000u);
  EXPECT_EQ(scope.totalBytes(), 150000u);
}

TEST(CountingAllocator, SeesAlignedAndArrayForms) {
  AllocationScope scope;
  void* p = ::operator new (16384, std::align_val_t{64});
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  delete[] new int[10];
  ::operator delete (p, std::align_val_t{64});
  EXPECT_EQ(scope.allocations(), 2u);
  EXPECT_EQ(scope.peakBytes(), 16384u + 40u);
}

TEST(CountingAllocator, NoAllocationNoCount) {
  AllocationScope scope;
  int x = 1;
  (void)x;
  EXPECT_EQ(scope.allocations(), 0u);
  EXPECT_EQ(scope.peakBytes(), 0u);
}

TEST(CountingAllocator, AnInnerScopeKeepsTheOuterPeak) {
  AllocationScope outer;
  { std::vector<char> big(10000); }
  {
    AllocationScope inner;
    std::vector<char> small(100);
    EXPECT_EQ(inner.peakBytes(), 100u);
  }
  EXPECT_EQ(outer.peakBytes(), 10000u);
  EXPECT_EQ(outer.allocations(), 2u);
}

}  // namespace
}  // namespace wirestream::testing
