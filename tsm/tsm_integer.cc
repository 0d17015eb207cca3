// Integer, unsigned and timestamp blocks (InfluxDB tsm1 batch_integer.go,
// batch_timestamp.go). Byte grammar, header byte = encoding << 4 | low:
//
//   integers / unsigned (deltas d0 = zigzag(v0), di = zigzag(vi - vi-1), wrapping):
//     00             d0..dn-1 as BE64                   (some di > 2^60 - 1)
//     10 d0:BE64     simple8b words of d1..dn-1          (n = 1 or 2, or deltas differ)
//     20 d0:BE64     uvarint d1, uvarint n - 1           (n > 2, d1 = d2 = ... = dn-1)
//   timestamps (d0 = v0, di = vi - vi-1 as unsigned, wrapping; no zigzag):
//     00             d0..dn-1 as BE64                   (some di > 2^60 - 1)
//     1e d0:BE64     simple8b words of di / 10^e         (10^e: the largest of 1e12..1
//                                                        dividing every di; e = 12 if n = 1)
//     2e d0:BE64     uvarint d1 / 10^e, uvarint n        (n > 1, all di equal; e = 0 when
//                                                        10^e = 1, 12 when d1 = 0)
//   The empty array is zero bytes.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "codec/byte_order.h"
#include "tsm/internal.h"
#include "tsm/simple8b.h"
#include "tsm/tsm.h"
#include "tsm/tsm_kernels.h"

namespace wirestream::tsm {
namespace {

using internal::checkCount;
using internal::kPacked;
using internal::kRle;
using internal::kUncompressed;
using internal::throwCorruptBlock;
using internal::throwTruncated;

constexpr uint64_t kPow10[13] = {1,           10,           100,          1000,      10000,
                                 100000,      1000000,      10000000,     100000000, 1000000000,
                                 10000000000, 100000000000, 1000000000000};

std::string hexByte(uint8_t b) {
  static const char* digits = "0123456789ABCDEF";
  return std::string("0x") + digits[b >> 4] + digits[b & 15];
}

// Writes the uncompressed layout: header 00, then every d as BE64.
void writeUncompressed(const uint64_t* d, size_t n, std::vector<uint8_t>& out) {
  out.resize(1 + 8 * n);
  out[0] = kUncompressed << 4;
  for (size_t i = 0; i < n; ++i) codec::storeBig64(out.data() + 1 + 8 * i, d[i]);
}

// Writes header, d0 and the simple8b words of d1..dn-1.
void writePacked(uint8_t header, const uint64_t* d, size_t n, std::vector<uint8_t>& out) {
  out.resize(9 + simple8b::maxEncodedBytes(n - 1));
  out[0] = header;
  codec::storeBig64(out.data() + 1, d[0]);
  size_t words = simple8b::encode({d + 1, n - 1}, out.data() + 9);
  out.resize(9 + words);
}

void writeRle(uint8_t header, uint64_t first, uint64_t delta, uint64_t count,
              std::vector<uint8_t>& out) {
  out.resize(1 + 8 + 2 * kMaxVLongBytes);
  out[0] = header;
  codec::storeBig64(out.data() + 1, first);
  uint8_t* p = internal::putUvarint(out.data() + 9, delta);
  p = internal::putUvarint(p, count);
  out.resize(p - out.data());
}

void encodeIntegerBits(const uint64_t* v, size_t n, std::vector<uint8_t>& out) {
  out.clear();
  if (n == 0) return;
  std::vector<uint64_t>& d = internal::scratch(n);
  // A delta is above simple8b's limit iff it sets one of the top 4 bits.
  const internal::Deltas stats = internal::kernels().zigZagDeltas(v, n, d.data());
  if (n > 2 && stats.equal) {
    writeRle(kRle << 4, d[0], d[1], n - 1, out);
  } else if (stats.any_bits > simple8b::kMaxValue) {
    writeUncompressed(d.data(), n, out);
  } else {
    writePacked(kPacked << 4, d.data(), n, out);
  }
}

// Throws unless the block holds its header and first BE64 value.
void requireFirstValue(size_t size, const char* kind, const char* layout) {
  if (size < 9) {
    throwTruncated(kind, std::string(layout) + " of " + std::to_string(size) +
                             " bytes ends inside the first value");
  }
}

// The uncompressed layout: every delta as BE64; out[i] = sum of delta(word 0..i).
template <typename T, typename Delta>
void decodeUncompressed(std::span<const uint8_t> block, std::vector<T>& out, size_t max_values,
                        const char* kind, Delta delta) {
  const size_t payload = block.size() - 1;
  if (payload == 0 || payload % 8 != 0) {
    throwTruncated(kind, "(uncompressed) ends " + std::to_string(payload % 8) +
                             " bytes into value " + std::to_string(payload / 8));
  }
  const size_t count = payload / 8;
  checkCount(kind, count, max_values);
  out.resize(count);
  uint64_t sum = 0;
  for (size_t i = 0; i < count; ++i) {
    sum += delta(codec::loadBig64(block.data() + 1 + 8 * i));
    out[i] = static_cast<T>(sum);
  }
}

// The simple8b layout: sizes out for the first value and the words' values
// (counted and checked first) and returns its storage; `words` is set.
template <typename T>
uint64_t* sizeForPacked(std::span<const uint8_t> block, std::vector<T>& out, size_t max_values,
                        const char* kind, std::span<const uint8_t>& words) {
  requireFirstValue(block.size(), kind, "(simple8b)");
  words = block.subspan(9);
  const size_t count = simple8b::count(words) + 1;
  checkCount(kind, count, max_values);
  out.resize(count);
  return reinterpret_cast<uint64_t*>(out.data());
}

// Decodes an integer block into dst's storage as unsigned bits.
template <typename T>
void decodeIntegerBits(std::span<const uint8_t> block, std::vector<T>& out, size_t max_values,
                       const char* kind) {
  if (block.empty()) {
    out.clear();
    return;
  }
  const uint8_t header = block[0];
  if (header & 0x0F)
    throwCorruptBlock(kind, "header " + hexByte(header) + " has a nonzero low nibble");
  const uint8_t* p = block.data();
  const size_t size = block.size();
  switch (header >> 4) {
    case kUncompressed:
      decodeUncompressed(block, out, max_values, kind,
                         [](uint64_t w) { return static_cast<uint64_t>(zigZagDecode(w)); });
      return;
    case kPacked: {
      std::span<const uint8_t> words;
      uint64_t* d = sizeForPacked(block, out, max_values, kind, words);
      d[0] = static_cast<uint64_t>(zigZagDecode(codec::loadBig64(p + 1)));
      internal::decodeZigZagSums(words, d + 1, out.size() - 1, d[0]);
      return;
    }
    case kRle: {
      requireFirstValue(size, kind, "(RLE)");
      const uint8_t* end = p + size;
      auto delta = internal::getUvarint(p + 9, end);
      auto repeat = internal::getUvarint(delta.next, end);
      if (repeat.next != end) {
        throwCorruptBlock(kind, "(RLE) has " + std::to_string(end - repeat.next) +
                                    " bytes after its repeat count");
      }
      if (repeat.value >= max_values) {
        internal::throwTooManyValues(
            kind, repeat.value == UINT64_MAX ? repeat.value : repeat.value + 1, max_values);
      }
      size_t count = repeat.value + 1;
      out.resize(count);
      uint64_t acc = static_cast<uint64_t>(zigZagDecode(codec::loadBig64(p + 1)));
      uint64_t step = static_cast<uint64_t>(zigZagDecode(delta.value));
      internal::kernels().fillArithmetic(reinterpret_cast<uint64_t*>(out.data()), count, acc, step);
      return;
    }
    default:
      throwCorruptBlock(kind, "has unknown encoding " + std::to_string(header >> 4));
  }
}

// Index of the first of d[i..n) that 10^E does not divide.
template <int E>
size_t divisibleRun(const uint64_t* d, size_t i, size_t n) {
  while (i < n && d[i] % kPow10[E] == 0) ++i;
  return i;
}

template <int E>
void divideAll(uint64_t* d, size_t n) {
  for (size_t i = 1; i < n; ++i) d[i] /= kPow10[E];
}

// log10 of the largest of 1e12..1 dividing every d[1..n) (12 when n = 1).
int commonPowerOfTen(const uint64_t* d, size_t n) {
  using Run = size_t (*)(const uint64_t*, size_t, size_t);
  static constexpr Run kRun[13] = {
      divisibleRun<0>,  divisibleRun<1>,  divisibleRun<2>, divisibleRun<3>, divisibleRun<4>,
      divisibleRun<5>,  divisibleRun<6>,  divisibleRun<7>, divisibleRun<8>, divisibleRun<9>,
      divisibleRun<10>, divisibleRun<11>, divisibleRun<12>};
  int e = 12;
  size_t i = 1;
  while (e > 0 && i < n) {
    i = kRun[e](d, i, n);
    if (i < n) --e;
  }
  return e;
}

void divideByPowerOfTen(uint64_t* d, size_t n, int e) {
  using Divide = void (*)(uint64_t*, size_t);
  static constexpr Divide kDivide[13] = {divideAll<0>, divideAll<1>, divideAll<2>,  divideAll<3>,
                                         divideAll<4>, divideAll<5>, divideAll<6>,  divideAll<7>,
                                         divideAll<8>, divideAll<9>, divideAll<10>, divideAll<11>,
                                         divideAll<12>};
  kDivide[e](d, n);
}

}  // namespace

void encodeIntegerArray(std::span<const int64_t> values, std::vector<uint8_t>& out) {
  encodeIntegerBits(reinterpret_cast<const uint64_t*>(values.data()), values.size(), out);
}

void encodeUnsignedArray(std::span<const uint64_t> values, std::vector<uint8_t>& out) {
  encodeIntegerBits(values.data(), values.size(), out);
}

void decodeIntegerArray(std::span<const uint8_t> block, std::vector<int64_t>& out) {
  decodeIntegerBits(block, out, kDefaultMaxValues, "integer");
}

void decodeIntegerArray(std::span<const uint8_t> block, std::vector<int64_t>& out,
                        size_t max_values) {
  decodeIntegerBits(block, out, max_values, "integer");
}

void decodeUnsignedArray(std::span<const uint8_t> block, std::vector<uint64_t>& out) {
  decodeIntegerBits(block, out, kDefaultMaxValues, "unsigned");
}

void decodeUnsignedArray(std::span<const uint8_t> block, std::vector<uint64_t>& out,
                         size_t max_values) {
  decodeIntegerBits(block, out, max_values, "unsigned");
}

void encodeTimeArray(std::span<const int64_t> timestamps, std::vector<uint8_t>& out) {
  out.clear();
  const size_t n = timestamps.size();
  if (n == 0) return;
  const uint64_t* v = reinterpret_cast<const uint64_t*>(timestamps.data());
  std::vector<uint64_t>& d = internal::scratch(n);
  const internal::Deltas stats = internal::kernels().deltas(v, n, d.data());
  if (n > 1 && stats.equal) {
    int e = 12;
    while (e > 0 && d[1] % kPow10[e] != 0) --e;
    writeRle(static_cast<uint8_t>(kRle << 4 | e), d[0], d[1] / kPow10[e], n, out);
  } else if (stats.any_bits > simple8b::kMaxValue) {
    writeUncompressed(d.data(), n, out);
  } else {
    int e = commonPowerOfTen(d.data(), n);
    if (e > 0) divideByPowerOfTen(d.data(), n, e);
    writePacked(static_cast<uint8_t>(kPacked << 4 | e), d.data(), n, out);
  }
}

void decodeTimeArray(std::span<const uint8_t> block, std::vector<int64_t>& out) {
  decodeTimeArray(block, out, kDefaultMaxValues);
}

void decodeTimeArray(std::span<const uint8_t> block, std::vector<int64_t>& out, size_t max_values) {
  static const char* kKind = "timestamp";
  if (block.empty()) {
    out.clear();
    return;
  }
  const uint8_t header = block[0];
  const int e = header & 0x0F;
  const uint8_t* p = block.data();
  const size_t size = block.size();
  const int encoding = header >> 4;
  if (encoding > kRle) throwCorruptBlock(kKind, "has unknown encoding " + std::to_string(encoding));
  if (encoding == kUncompressed ? e != 0 : e > 12) {
    throwCorruptBlock(kKind,
                      "header " + hexByte(header) + " has divisor exponent " + std::to_string(e));
  }
  switch (encoding) {
    case kUncompressed:
      decodeUncompressed(block, out, max_values, kKind, [](uint64_t w) { return w; });
      return;
    case kPacked: {
      std::span<const uint8_t> words;
      uint64_t* d = sizeForPacked(block, out, max_values, kKind, words);
      d[0] = codec::loadBig64(p + 1);
      internal::decodeScaledSums(words, d + 1, out.size() - 1, d[0], kPow10[e]);
      return;
    }
    default: {  // kRle
      requireFirstValue(size, kKind, "(RLE)");
      const uint8_t* end = p + size;
      auto delta = internal::getUvarint(p + 9, end);
      auto count = internal::getUvarint(delta.next, end);
      if (count.next != end) {
        throwCorruptBlock(
            kKind, "(RLE) has " + std::to_string(end - count.next) + " bytes after its count");
      }
      if (count.value == 0) throwCorruptBlock(kKind, "(RLE) has a count of 0");
      checkCount(kKind, count.value, max_values);
      out.resize(count.value);
      uint64_t acc = codec::loadBig64(p + 1);
      const uint64_t step = delta.value * kPow10[e];
      internal::kernels().fillArithmetic(reinterpret_cast<uint64_t*>(out.data()), count.value, acc,
                                         step);
      return;
    }
  }
}

}  // namespace wirestream::tsm
