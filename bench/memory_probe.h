// MemoryProbe: allocations and peak heap of a stretch of benchmark code, in
// the binary that counts them and nowhere else. The timed binaries link
// :memory_probe_off (the plain allocator, no counters reported);
// //bench:alloc_bench links :memory_probe_counting, which brings the counting
// operator new of //tests/support:counting_allocator.
//
//   MemoryProbe probe;                   // baseline: now
//   for (auto _ : state) serialize(out);
//   if (MemoryProbe::enabled()) state.counters["allocs_per_iter"] = ...probe.allocations();
//
// Probes nest; not thread-safe (one benchmark thread).
#pragma once

#include <cstdint>
#include <memory>

namespace wirestream::bench {

class MemoryProbe {
 public:
  // Whether this binary counts (links :memory_probe_counting).
  static bool enabled();

  MemoryProbe();
  ~MemoryProbe();
  MemoryProbe(const MemoryProbe&) = delete;
  MemoryProbe& operator=(const MemoryProbe&) = delete;

  // Since construction; 0 when !enabled().
  uint64_t allocations() const;
  uint64_t peakBytes() const;

 private:
  struct Scope;
  std::unique_ptr<Scope> scope_;
};

}  // namespace wirestream::bench
