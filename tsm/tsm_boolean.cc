// Boolean blocks (InfluxDB tsm1 batch_boolean.go):
//
//   10 uvarint(n) then n bits, most significant first, zero-padded to the byte
//
// The empty array is 10 00. InfluxDB's decoder reads min(n, bits present)
// values; here fewer bits than n is a truncated block and bytes past the last
// value's byte are an error. Padding bits are not checked: InfluxDB's encoder
// leaves whatever a reused buffer held there.
#include <array>
#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include "tsm/internal.h"
#include "tsm/tsm.h"

namespace wirestream::tsm {
namespace {

const char* const kKind = "boolean";

// `n` bytes (at most 8) at p as a little-endian word, the rest zero.
inline uint64_t loadLittle(const uint8_t* p, size_t n) {
  uint64_t x = 0;
  std::memcpy(&x, p, n);
  if constexpr (std::endian::native == std::endian::big) x = __builtin_bswap64(x);
  return x;
}

inline void storeLittle(uint8_t* p, uint64_t x, size_t n) {
  if constexpr (std::endian::native == std::endian::big) x = __builtin_bswap64(x);
  std::memcpy(p, &x, n);
}

// Eight bytes of 0 or 1 as one bit byte, the first value its most
// significant bit: byte k of the little-endian word times 2^(9j), j = 7 - k,
// lands on bit 63 - k, and no two terms share a bit, so nothing carries.
inline uint8_t packEight(const uint8_t* p) {
  const uint64_t x = loadLittle(p, 8);
  return uint8_t((x * 0x8040201008040201u) >> 56);
}

// The same for bytes that may hold any nonzero value for true.
inline uint8_t packEightNonzero(const uint8_t* p) {
  const uint64_t x = loadLittle(p, 8);
  constexpr uint64_t kLow7 = 0x7F7F7F7F7F7F7F7Fu;
  const uint64_t ones = ((((x & kLow7) + kLow7) | x) >> 7) & 0x0101010101010101u;
  return uint8_t((ones * 0x8040201008040201u) >> 56);
}

// Whole groups of eight through `pack`, the tail bit by bit.
template <typename Pack, typename Get>
void encodeBytes(size_t n, const uint8_t* values, Pack pack, Get get, std::vector<uint8_t>& out) {
  out.assign(1 + kMaxVLongBytes + (n + 7) / 8, 0);
  out[0] = internal::kPacked << 4;
  uint8_t* p = internal::putUvarint(out.data() + 1, n);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) *p++ = pack(values + i);
  if (i < n) {
    uint8_t b = 0;
    for (int k = 0; i + k < n; ++k) b |= uint8_t(get(i + k)) << (7 - k);
    *p++ = b;
  }
  out.resize(p - out.data());
}

// libstdc++'s std::vector<bool> keeps value i at bit i % 64 of word i / 64,
// and its iterators name the word (_M_p, public members): 64 values a word
// move at once, each byte's bits reversed, since a TSM block's first value is
// its byte's most significant bit. Elsewhere the proxy, a value at a time.
#if defined(__GLIBCXX__)
constexpr bool kVectorBoolWords = sizeof(std::_Bit_type) == 8;
#else
constexpr bool kVectorBoolWords = false;
#endif

inline uint64_t reverseBitsOfEachByte(uint64_t x) {
  x = ((x >> 1) & 0x5555555555555555u) | ((x & 0x5555555555555555u) << 1);
  x = ((x >> 2) & 0x3333333333333333u) | ((x & 0x3333333333333333u) << 2);
  return ((x >> 4) & 0x0F0F0F0F0F0F0F0Fu) | ((x & 0x0F0F0F0F0F0F0F0Fu) << 4);
}

template <typename Get>
void encodeBits(size_t n, Get get, std::vector<uint8_t>& out) {
  out.assign(1 + kMaxVLongBytes + (n + 7) / 8, 0);
  out[0] = internal::kPacked << 4;
  uint8_t* p = internal::putUvarint(out.data() + 1, n);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint8_t b = 0;
    for (int k = 0; k < 8; ++k) b |= uint8_t(get(i + k)) << (7 - k);
    *p++ = b;
  }
  if (i < n) {
    uint8_t b = 0;
    for (int k = 0; i + k < n; ++k) b |= uint8_t(get(i + k)) << (7 - k);
    *p++ = b;
  }
  out.resize(p - out.data());
}

}  // namespace

void encodeBooleanArray(std::span<const bool> values, std::vector<uint8_t>& out) {
  // A bool's object representation is one byte, 0 or 1.
  static_assert(sizeof(bool) == 1);
  encodeBytes(
      values.size(), reinterpret_cast<const uint8_t*>(values.data()), packEight,
      [&](size_t i) { return values[i]; }, out);
}

void encodeBooleanArray(const std::vector<bool>& values, std::vector<uint8_t>& out) {
  if constexpr (kVectorBoolWords) {
    const size_t n = values.size();
    out.assign(1 + kMaxVLongBytes + (n + 7) / 8, 0);
    out[0] = internal::kPacked << 4;
    uint8_t* p = internal::putUvarint(out.data() + 1, n);
    const auto* words = values.begin()._M_p;
    size_t w = 0;
    for (; w < n / 64; ++w, p += 8) storeLittle(p, reverseBitsOfEachByte(words[w]), 8);
    if (const size_t tail = n % 64) {
      const uint64_t bits = words[w] & ((uint64_t{1} << tail) - 1);
      const size_t bytes = (tail + 7) / 8;
      storeLittle(p, reverseBitsOfEachByte(bits), bytes);
      p += bytes;
    }
    out.resize(p - out.data());
  } else {
    encodeBits(
        values.size(), [&](size_t i) { return bool(values[i]); }, out);
  }
}

void decodeBooleanArray(std::span<const uint8_t> block, std::vector<bool>& out) {
  decodeBooleanArray(block, out, kDefaultMaxValues);
}

namespace {

// A block's count and first bit byte, checked: the header, bits for every
// value and nothing after them.
struct Bits {
  uint64_t count;
  const uint8_t* p;
};

Bits checkedBits(std::span<const uint8_t> block, size_t max_values) {
  if (block[0] != internal::kPacked << 4) {
    internal::throwCorruptBlock(kKind,
                                "has header " + std::to_string(block[0]) + ", not 16 (bit-packed)");
  }
  const uint8_t* end = block.data() + block.size();
  auto count = internal::getUvarint(block.data() + 1, end);
  const uint64_t have = end - count.next;
  const uint64_t need = count.value / 8 + (count.value % 8 != 0);
  if (have < need) {
    internal::throwTruncated(kKind, "of " + std::to_string(count.value) + " values has " +
                                        std::to_string(have) + " of its " + std::to_string(need) +
                                        " bytes");
  }
  if (have > need) {
    internal::throwCorruptBlock(kKind, "of " + std::to_string(count.value) + " values has " +
                                           std::to_string(have - need) +
                                           " bytes after its last value");
  }
  internal::checkCount(kKind, count.value, max_values);
  return {count.value, count.next};
}

// Byte b's 8 bits as 8 bytes of 0 / 1, most significant bit first in memory.
const std::array<uint64_t, 256>& byteExpansion() {
  static const std::array<uint64_t, 256> table = [] {
    std::array<uint64_t, 256> t{};
    for (unsigned b = 0; b < 256; ++b) {
      uint8_t bytes[8];
      for (int k = 0; k < 8; ++k) bytes[k] = (b >> (7 - k)) & 1;
      std::memcpy(&t[b], bytes, 8);
    }
    return t;
  }();
  return table;
}

}  // namespace

void decodeBooleanArray(std::span<const uint8_t> block, std::vector<bool>& out, size_t max_values) {
  if (block.empty()) {
    out.clear();
    return;
  }
  const Bits bits = checkedBits(block, max_values);
  out.resize(bits.count);
  if constexpr (kVectorBoolWords) {
    auto* words = out.begin()._M_p;
    const size_t n = bits.count;
    size_t w = 0;
    for (; w < n / 64; ++w) words[w] = reverseBitsOfEachByte(loadLittle(bits.p + 8 * w, 8));
    if (const size_t tail = n % 64) {
      // The padding bits after the last value are not checked: left out.
      words[w] = reverseBitsOfEachByte(loadLittle(bits.p + 8 * w, (tail + 7) / 8)) &
                 ((uint64_t{1} << tail) - 1);
    }
    return;
  }
  // Through an iterator, 8 bits a byte: vector<bool>'s operator[] recomputes
  // the word and mask of every bit.
  const uint8_t* p = bits.p;
  auto it = out.begin();
  const size_t whole = bits.count / 8;
  for (size_t i = 0; i < whole; ++i) {
    const unsigned b = p[i];
    for (int k = 7; k >= 0; --k) *it++ = (b >> k) & 1;
  }
  for (int k = 7; it != out.end(); --k) *it++ = (p[whole] >> k) & 1;
}

void encodeBooleanBytes(std::span<const uint8_t> values, std::vector<uint8_t>& out) {
  encodeBytes(
      values.size(), values.data(), packEightNonzero, [&](size_t i) { return values[i] != 0; },
      out);
}

void decodeBooleanBytes(std::span<const uint8_t> block, std::vector<uint8_t>& out,
                        size_t max_values) {
  if (block.empty()) {
    out.clear();
    return;
  }
  const Bits bits = checkedBits(block, max_values);
  // Whole bytes through the table, 8 values a store; the tail bit by bit.
  out.resize(bits.count);
  const auto& table = byteExpansion();
  const size_t whole = bits.count / 8;
  uint8_t* dst = out.data();
  for (size_t i = 0; i < whole; ++i, dst += 8) std::memcpy(dst, &table[bits.p[i]], 8);
  for (size_t i = whole * 8, k = 7; i < bits.count; ++i, --k) *dst++ = (bits.p[whole] >> k) & 1;
}

}  // namespace wirestream::tsm
