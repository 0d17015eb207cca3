// The "programs" the op-driven fuzz targets decode: a sequence of
//   op byte, then the encoding the op's reader expects
// where the op byte (modulo the table size) picks one reader from an op
// table: coreOps() (readVInt, readString, readStringArray, ...) or
// structuredOps() (readGenericValue, readCollection, readMap, readEnumSet,
// readNamedWriteable, ...). Putting the op choice in the same stream as the
// data lets libFuzzer splice and mutate whole values.
//
//   ProgramResult r = runProgram(coreOps(), in, raw);  // raw: the bytes `in` reads
//   checkReencodingIsStable(coreOps(), r, version);
//
// Every decoded value is written straight back with the matching StreamOutput
// writer, giving the canonical re-encoding of the ops decoded so far, and each
// op is checked as it goes (the differential round trip):
//   - the re-encoding is never longer than the bytes it came from;
//   - for ops marked `exact`, a re-encoding of the same length is
//     byte-identical, unless a float/double NaN was canonicalised. A length
//     difference can only come from a varint that ES accepts in an overlong
//     form (`80 00` for 0: a VInt, VLong, ZLong or any size prefix); every
//     other encoding is canonical because the readers are strict about
//     booleans, UTF-8 overlongs and surrogates. Ops that read into a sorted
//     container (readMap into std::map, readEnumSet into std::set) write back
//     in sorted order, so they are not `exact`.
// checkReencodingIsStable then checks decode(encode(decode(x))) == decode(x)
// by running the re-encoding again and comparing the two re-encodings.
// Only StreamError ends a program; any other exception escapes to libFuzzer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "stream/stream_input.h"
#include "stream/stream_output.h"
#include "stream/structured/generic_value.h"
#include "stream/structured/structured_stream.h"
#include "stream/transport_version.h"

namespace wirestream::fuzz {

struct Op {
  const char* name;
  // Reads one value and writes it back; returns true if a NaN was written.
  bool (*run)(StreamInput& in, StreamOutput& out);
  bool exact;  // same length re-encoding => same bytes (see above)
};

// Every primitive, string and array reader of StreamInput (core_ops.cc).
std::span<const Op> coreOps();
// The structured readers: generic values, bytes references, time values,
// instants, collections, maps, enums, optional and named writeables
// (structured_ops.cc).
std::span<const Op> structuredOps();

struct ProgramResult {
  std::vector<uint8_t> reencoded;  // op byte + canonical bytes, per decoded op
  size_t ops = 0;                  // ops decoded completely
  size_t consumed = 0;             // input bytes those ops took
  std::string error;               // "" at a clean end; else type: message
};

// Decodes ops from `in` until it is exhausted or a reader throws StreamError.
// `raw` is the whole logical input of `in` (for the per-op byte comparison).
ProgramResult runProgram(std::span<const Op> ops, StreamInput& in, std::span<const uint8_t> raw);

// Aborts (FUZZ_CHECK) unless running the re-encoding of `first` (at
// `version`) decodes with no error to exactly the same re-encoding.
void checkReencodingIsStable(std::span<const Op> ops, const ProgramResult& first,
                             TransportVersion version);

// Whether a float or double anywhere in `v` is NaN (writeGenericValue
// canonicalises NaN payloads, so such bytes may legitimately differ).
bool containsNan(const GenericValue& v);

// Index of the op called `name` (for the seed generator); aborts if none.
uint8_t opIndex(std::span<const Op> ops, const char* name);

// Lower-case hex of at most the first 64 bytes, for failure messages.
std::string hexPrefix(std::span<const uint8_t> bytes);

// The version a leading input byte picks (% 3: 7.10.0, 7.17.0, 8.7.0: each side of
// the aggregation results' gates), and its name in seed file names.
inline constexpr int kVersionBytes = 3;
inline TransportVersion versionFromByte(uint8_t b) {
  static constexpr TransportVersion kVersions[kVersionBytes] = {
      TransportVersion::V_7_10_0, TransportVersion::V_7_17_0, TransportVersion::V_8_7_0};
  return kVersions[b % kVersionBytes];
}
inline const char* versionNameFromByte(uint8_t b) {
  static constexpr const char* kNames[kVersionBytes] = {"v7_10", "v7_17", "v8_7"};
  return kNames[b % kVersionBytes];
}

}  // namespace wirestream::fuzz
