// Helpers shared by the codec units of //tsm (not public API): header
// nibbles, uvarints as Go's encoding/binary writes them, and the throw helpers
// whose messages name the block kind.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "stream/errors.h"
#include "stream/varint.h"

namespace wirestream::tsm::internal {

// Encoding nibbles (high 4 bits of a block's first byte), as in tsm1.
inline constexpr uint8_t kUncompressed = 0;  // integers, timestamps
inline constexpr uint8_t kPacked = 1;        // simple8b, Gorilla, bit-packed, snappy
inline constexpr uint8_t kRle = 2;           // integers, timestamps

// Go's binary.PutUvarint is LEB128, the bytes of writeVLong.
inline uint8_t* putUvarint(uint8_t* p, uint64_t v) { return encodeVLong(p, v); }

// Go's binary.Uvarint: at most 10 bytes, the 10th 0 or 1. Throws
// EndOfStreamError when [p, limit) ends inside it, CorruptStreamError on overflow.
inline DecodeResult<uint64_t> getUvarint(const uint8_t* p, const uint8_t* limit) {
  auto r = decodeVLong(p, limit);
  return {static_cast<uint64_t>(r.value), r.next};
}

[[noreturn, gnu::cold]] void throwTruncated(const char* kind, const std::string& what);
[[noreturn, gnu::cold]] void throwCorruptBlock(const char* kind, const std::string& what);
[[noreturn, gnu::cold]] void throwTooManyValues(const char* kind, uint64_t count,
                                                size_t max_values);

inline void checkCount(const char* kind, uint64_t count, size_t max_values) {
  if (count > max_values) throwTooManyValues(kind, count, max_values);
}

// simple8b::decodeZigZagSums / decodeScaledSums with the room at dst known
// (`room`, the words' value count): the vector kernels of tsm_kernels.h unpack
// what whole-vector stores fit, the scalar loop the rest.
size_t decodeZigZagSums(std::span<const uint8_t> words, uint64_t* dst, size_t room, uint64_t sum);
size_t decodeScaledSums(std::span<const uint8_t> words, uint64_t* dst, size_t room, uint64_t sum,
                        uint64_t scale);

// simple8b::encode with the scalar loops (the scalar kernel table's).
size_t simple8bEncodeScalar(const uint64_t* values, size_t n, uint8_t* dst);

// The scratch of the integer and timestamp encoders (deltas), one a thread.
std::vector<uint64_t>& scratch(size_t n);

}  // namespace wirestream::tsm::internal
