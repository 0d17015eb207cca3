// AllocCounter: counts heap allocations and live / peak heap bytes made
// through the global operator new of the binary it is linked into, so
// benchmarks can report "allocations per iteration" and "peak extra bytes".
//
//   AllocCounter::Scope scope;              // baseline: now
//   for (auto _ : state) serialize(out);
//   AllocCounter::Stats s = scope.stats();  // allocations and peak since then
//   state.counters["allocs_per_iter"] = benchmark::Counter(
//       s.allocations, benchmark::Counter::kAvgIterations);
//
// alloc_counter.cc replaces every form of global operator new / delete
// (plain, array, nothrow, aligned) with versions that go to malloc and count;
// link it with alwayslink so the replacement is in the binary. Bytes are the
// sizes asked for (a small header remembers each), not the allocator's
// rounding, so the figures are repeatable. Memory that code takes from
// malloc() directly, not through operator new, is not seen.
//
// Thread-safe: relaxed atomics; the peak is exact for one allocating thread
// and a close bound otherwise. A Scope resets the process-wide peak, so two
// Scopes must not overlap.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wirestream::bench {

class AllocCounter {
 public:
  struct Stats {
    uint64_t allocations = 0;       // calls to operator new since the scope began
    uint64_t peak_extra_bytes = 0;  // highest live bytes above the baseline
  };

  // Totals since the process started.
  static uint64_t allocations();
  static uint64_t liveBytes();

  class Scope {
   public:
    Scope();
    Stats stats() const;

   private:
    uint64_t allocations_at_start_;
    uint64_t live_at_start_;
  };
};

}  // namespace wirestream::bench
