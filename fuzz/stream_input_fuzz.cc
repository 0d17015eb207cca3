// Fuzz target: every primitive, string and array reader of StreamInput over a
// ByteArrayStreamInput, driven by core programs (program.h, coreOps()), with
// the differential round trip: decoded ops re-encode canonically (exact bytes
// unless an overlong varint or a NaN payload was normalised) and the
// re-encoding decodes to itself.
#include <cstdint>

#include "fuzz/program.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wirestream;
  std::span<const uint8_t> raw(data, size);
  ByteArrayStreamInput in(raw);
  fuzz::ProgramResult r = fuzz::runProgram(fuzz::coreOps(), in, raw);
  fuzz::checkReencodingIsStable(fuzz::coreOps(), r, in.transportVersion());
  return 0;
}
