// Fuzz target: every primitive, string and array reader of StreamInput over a
// ByteArrayStreamInput, driven by the op programs of core_program.h, with the
// differential round trip: decoded ops re-encode canonically (exact bytes
// unless an overlong varint or a NaN payload was normalised) and the
// re-encoding decodes to itself.
#include <cstdint>

#include "fuzz/core_program.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wirestream;
  std::span<const uint8_t> raw(data, size);
  ByteArrayStreamInput in(raw);
  fuzz::ProgramResult r = fuzz::runCoreProgram(in, raw);
  fuzz::checkReencodingIsStable(r);
  return 0;
}
