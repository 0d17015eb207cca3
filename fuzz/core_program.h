// The "program" the core fuzz targets decode: a sequence of
//   op byte, then the encoding the op's reader expects
// where the op byte (modulo kCoreOpCount) picks one StreamInput reader
// (readVInt, readString, readStringArray, ...). Putting the op choice in the
// same stream as the data lets libFuzzer splice and mutate whole values.
//
//   ProgramResult r = runCoreProgram(in, raw);   // raw: the bytes `in` reads
//
// Every decoded value is written straight back with the matching StreamOutput
// writer, giving the canonical re-encoding of the ops decoded so far, and each
// op is checked as it goes (the differential round trip):
//   - the re-encoding is never longer than the bytes it came from;
//   - when it has the same length it is byte-identical, unless a float/double
//     NaN was canonicalised. A length difference can only come from a varint
//     that ES accepts in an overlong form (`80 00` for 0, in a VInt, VLong,
//     ZLong, or any size prefix): every other encoding here is canonical,
//     because the readers are strict about booleans, UTF-8 overlongs and
//     surrogates. The caller then checks decode(encode(decode(x))) ==
//     decode(x) by running the re-encoding again and comparing.
// Only StreamError ends a program; any other exception escapes to libFuzzer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "stream/stream_input.h"
#include "stream/stream_output.h"

namespace wirestream::fuzz {

inline constexpr int kCoreOpCount = 27;

struct ProgramResult {
  std::vector<uint8_t> reencoded;  // op byte + canonical bytes, per decoded op
  size_t ops = 0;                  // ops decoded completely
  size_t consumed = 0;             // input bytes those ops took
  std::string error;               // "" at a clean end; else type: message
};

// Decodes ops from `in` until it is exhausted or a reader throws StreamError.
// `raw` is the whole logical input of `in` (for the per-op byte comparison).
ProgramResult runCoreProgram(StreamInput& in, std::span<const uint8_t> raw);

// Reads one value with the reader of op `op % kCoreOpCount` and writes it to
// `out`; returns true if a NaN was written. (The allocation test drives every
// reader through this, with an output that discards.)
bool decodeCoreOp(uint8_t op, StreamInput& in, StreamOutput& out);

// Name of op `op % kCoreOpCount`, for messages and the seed generator.
const char* coreOpName(uint8_t op);

// Aborts (FUZZ_CHECK) unless running the re-encoding of `first` decodes with
// no error to exactly the same re-encoding.
void checkReencodingIsStable(const ProgramResult& first);

// Lower-case hex of at most the first 64 bytes, for failure messages.
std::string hexPrefix(std::span<const uint8_t> bytes);

}  // namespace wirestream::fuzz
