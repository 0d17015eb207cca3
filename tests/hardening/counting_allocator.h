// A counting allocator for tests: linking counting_allocator.cc into a test
// binary replaces the global operator new / delete with versions that track
// live bytes, their peak, and the total allocated.
//
//   AllocationScope scope;           // starts measuring here
//   reader(in);
//   EXPECT_LE(scope.peakBytes(), bound);
//
// Counts only C++ new/delete (what std::vector / std::string use), not malloc.
// Not thread-safe: measure on one thread with nothing else allocating.
#pragma once

#include <cstddef>

namespace wirestream::testing {

// Live bytes, and the peak and total since the innermost AllocationScope.
struct AllocationCounters {
  size_t live = 0;
  size_t peak = 0;
  size_t total = 0;
};
AllocationCounters& allocationCounters();

class AllocationScope {
 public:
  AllocationScope();
  ~AllocationScope();
  AllocationScope(const AllocationScope&) = delete;
  AllocationScope& operator=(const AllocationScope&) = delete;

  // Highest live bytes above the level at construction.
  size_t peakBytes() const;
  // Bytes allocated since construction (freed or not).
  size_t totalBytes() const;

 private:
  size_t start_live_;
  size_t start_total_;
  size_t saved_peak_;
};

}  // namespace wirestream::testing
