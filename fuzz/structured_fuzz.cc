// Fuzz target: the structured readers (program.h, structuredOps()): generic
// values, bytes references, time values, instants, collections, maps, enums
// and enum sets, optional writeables, and named writeables through a registry
// whose "group" shape nests named writeables recursively. Input: one version
// byte (bit 0 set: 7.10.0, where map keys are strings; else 8.7.0, where they
// are generic values), then a structured program. Same differential round
// trip as the core target.
#include <cstdint>

#include "fuzz/program.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wirestream;
  if (size == 0) return 0;
  TransportVersion version = (data[0] & 1) ? TransportVersion::V_7_10_0 : TransportVersion::V_8_7_0;
  std::span<const uint8_t> raw(data + 1, size - 1);
  ByteArrayStreamInput in(raw);
  in.setTransportVersion(version);
  fuzz::ProgramResult r = fuzz::runProgram(fuzz::structuredOps(), in, raw);
  fuzz::checkReencodingIsStable(fuzz::structuredOps(), r, version);
  return 0;
}
