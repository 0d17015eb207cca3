// simple8b (Anh & Moffat, as in InfluxDB's pkg/encoding/simple8b): packs
// unsigned integers of at most 60 bits into 64-bit words, a 4-bit selector on
// top saying how many values of how many bits follow:
//
//   selector  0    1    2   3   4   5   6   7   8   9  10  11  12  13  14  15
//   values    240  120  60  30  20  15  12  10  8   7   6   5   4   3   2   1
//   bits      0    0    1   2   3   4   5   6   7   8   10  12  15  20  30  60
//
// Selectors 0 and 1 are runs of the value 1 (no payload). The first value sits
// in the lowest bits. Words are stored big-endian. Used by the integer and
// timestamp blocks of tsm.h.
//
// Example (runs: simple8b):
//   #include <vector>
//   std::vector<uint64_t> values = {1, 2, 3, 1000, 5};
//   std::vector<uint8_t> words(simple8b::maxEncodedBytes(values.size()));
//   words.resize(simple8b::encode(values, words.data()));
//   size_t count = simple8b::count(words);                    // validates
//   std::vector<uint64_t> back(count);
//   simple8b::decode(words, back.data());
//
// Stateless; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace wirestream::tsm::simple8b {

inline constexpr uint64_t kMaxValue = (uint64_t{1} << 60) - 1;

// Bytes `encode` may write for n values (one word a value at worst).
[[nodiscard]] constexpr size_t maxEncodedBytes(size_t n) { return 8 * n; }

// Packs `values` (each <= kMaxValue; std::invalid_argument otherwise) into
// big-endian words at dst, choosing per word the first selector from 0 up that
// holds the next values, as InfluxDB's EncodeAll does (a selector needing more
// values than are left is skipped, never padded). Returns the bytes written.
[[nodiscard]] size_t encode(std::span<const uint64_t> values, uint8_t* dst);

// Number of values in `words`. A partial last word is EndOfStreamError. A word whose unused bits
// (the payload of selectors 0 and 1, the top 4 bits of selectors 8 and 9) are not zero is
// CorruptStreamError.
[[nodiscard]] size_t count(std::span<const uint8_t> words);

// Unpacks words already checked by `count` into dst (room for count(words)
// values). Returns the number of values written.
size_t decode(std::span<const uint8_t> words, uint64_t* dst);

// decode fused with the running sums of the integer and timestamp blocks:
// dst[i] = sum + f(v0) + ... + f(vi), f = zig-zag decoding / multiplying by
// `scale`, in wrapping uint64 arithmetic.
size_t decodeZigZagSums(std::span<const uint8_t> words, uint64_t* dst, uint64_t sum);
size_t decodeScaledSums(std::span<const uint8_t> words, uint64_t* dst, uint64_t sum,
                        uint64_t scale);

}  // namespace wirestream::tsm::simple8b
