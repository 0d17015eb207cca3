// MemoryProbe in the timed binaries: the plain allocator, nothing counted.
#include "bench/memory_probe.h"

namespace wirestream::bench {

struct MemoryProbe::Scope {};

bool MemoryProbe::enabled() { return false; }
MemoryProbe::MemoryProbe() = default;
MemoryProbe::~MemoryProbe() = default;
uint64_t MemoryProbe::allocations() const { return 0; }
uint64_t MemoryProbe::peakBytes() const { return 0; }

}  // namespace wirestream::bench
