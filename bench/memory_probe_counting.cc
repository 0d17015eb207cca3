// MemoryProbe over the counting allocator (//bench:alloc_bench).
#include "bench/memory_probe.h"
#include "tests/support/counting_allocator.h"

namespace wirestream::bench {

struct MemoryProbe::Scope {
  testing::AllocationScope scope;
};

bool MemoryProbe::enabled() { return true; }
// The Scope's own allocation happens before its baseline is taken.
MemoryProbe::MemoryProbe() : scope_(std::make_unique<Scope>()) {}
MemoryProbe::~MemoryProbe() = default;
uint64_t MemoryProbe::allocations() const { return scope_->scope.allocations(); }
uint64_t MemoryProbe::peakBytes() const { return scope_->scope.peakBytes(); }

}  // namespace wirestream::bench
