// The one counting allocator of the tree: linking //tests/support:counting_allocator
// into a binary replaces every form of global operator new / delete (plain,
// array, nothrow, aligned) with versions that go to malloc and count
// allocations, live bytes, their peak and the total allocated. Tests bound
// what a reader holds with it; //bench:alloc_bench reports allocations per
// iteration and peak bytes with it (the timed benchmark binaries keep the
// plain allocator).
//
//   AllocationScope scope;           // starts measuring here
//   reader(in);
//   EXPECT_LE(scope.peakBytes(), bound);
//   EXPECT_EQ(scope.allocations(), 0u);
//
// Bytes are the sizes asked for (a header before each block remembers its
// size), not malloc's rounding, so figures repeat from run to run. Counts only
// C++ new/delete (what std::vector / std::string use), not malloc().
// Counters are relaxed atomics, so allocating threads do not race; the peak is
// exact for one allocating thread and a close bound otherwise. Scopes nest
// (an inner scope does not lower an outer one's peak) but must not overlap
// across threads.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wirestream::testing {

// Live bytes, and the peak since the innermost AllocationScope began; total
// bytes and allocations since the process started.
struct AllocationCounters {
  size_t live = 0;
  size_t peak = 0;
  size_t total = 0;
  uint64_t allocations = 0;
};
// A snapshot of the counters.
AllocationCounters allocationCounters();

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
  // Calls to operator new since construction.
  uint64_t allocations() const;

 private:
  size_t start_live_;
  size_t start_total_;
  uint64_t start_allocations_;
  size_t saved_peak_;
};

}  // namespace wirestream::testing
