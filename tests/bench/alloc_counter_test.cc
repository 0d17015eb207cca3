// AllocCounter sees every operator new of the binary, and its peak is the
// high-water mark above the scope's start.
#include "bench/alloc_counter.h"

#include <gtest/gtest.h>

#include <memory>
#include <new>
#include <vector>

namespace wirestream::bench {
namespace {

TEST(AllocCounter, CountsAllocationsAndThePeakAboveTheStart) {
  auto before = std::make_unique<std::vector<char>>(1 << 20);  // outside the scope
  AllocCounter::Scope scope;
  {
    std::vector<char> a(100000);
    std::vector<char> b(50000);
  }
  auto s = scope.stats();
  EXPECT_EQ(s.allocations, 2u);
  EXPECT_GE(s.peak_extra_bytes, 150000u);
  EXPECT_LT(s.peak_extra_bytes, 150000u + 4096);
}

TEST(AllocCounter, SeesAlignedAndArrayForms) {
  AllocCounter::Scope scope;
  void* p = ::operator new (16384, std::align_val_t{64});
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  delete[] new int[10];
  ::operator delete (p, std::align_val_t{64});
  auto s = scope.stats();
  EXPECT_EQ(s.allocations, 2u);
  EXPECT_GE(s.peak_extra_bytes, 16384u);
}

TEST(AllocCounter, NoAllocationNoCount) {
  AllocCounter::Scope scope;
  int x = 1;
  (void)x;
  EXPECT_EQ(scope.stats().allocations, 0u);
  EXPECT_EQ(scope.stats().peak_extra_bytes, 0u);
}

}  // namespace
}  // namespace wirestream::bench
