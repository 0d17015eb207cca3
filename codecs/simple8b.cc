// simple8b words (see simple8b.h for the selector table):
//
//   word = selector:4 | payload:60, big-endian
//   payload of selector s >= 2: value i in bits [i*bits(s), (i+1)*bits(s))
//   selectors 0 / 1: 240 / 120 ones, payload zero
//
// Encoder: per word, a run of 240 then 120 ones if at least that many values
// are left (InfluxDB only looks for runs when >= 120 values remain), else the
// lowest selector s >= 2 whose value count fits in what is left and whose bit
// width holds each of those values. Found in one pass over the values: a value
// too wide for the current selector moves to the next selectors until one stops
// before it or is wide enough.
#include "codecs/simple8b.h"

#include <algorithm>
#include <array>
#include <bit>
#include <stdexcept>
#include <string>

#include "codecs/internal.h"
#include "codecs/tsm_kernels.h"
#include "stream/byte_order.h"
#include "stream/varint.h"

namespace wirestream::tsm::simple8b {
namespace {

constexpr std::array<uint8_t, 16> kCount = {240, 120, 60, 30, 20, 15, 12, 10,
                                            8,   7,   6,  5,  4,  3,  2,  1};
constexpr std::array<uint8_t, 16> kBits = {0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 20, 30, 60};
constexpr uint64_t kPayload = kMaxValue;

// Bits of a word's payload no value uses.
constexpr std::array<uint64_t, 16> kUnused = [] {
  std::array<uint64_t, 16> m{};
  for (int s = 0; s < 16; ++s) {
    int used = s < 2 ? 0 : kCount[s] * kBits[s];
    m[s] = kPayload & ~((uint64_t{1} << used) - 1);
  }
  return m;
}();

// The largest value of selector s >= 2.
constexpr std::array<uint64_t, 16> kLargest = [] {
  std::array<uint64_t, 16> m{};
  for (int s = 2; s < 16; ++s) m[s] = (uint64_t{1} << kBits[s]) - 1;
  return m;
}();

// Lowest selector >= 2 holding values of `width` bits (width <= 60).
constexpr std::array<uint8_t, 61> kSelectorForWidth = [] {
  std::array<uint8_t, 61> t{};
  for (int w = 0; w <= 60; ++w) {
    int s = 2;
    while (kBits[s] < w) ++s;
    t[w] = static_cast<uint8_t>(s);
  }
  return t;
}();

// Lowest selector >= 2 taking at most k values (k in 1..59; none for 0).
constexpr std::array<uint8_t, 60> kSelectorForCount = [] {
  std::array<uint8_t, 60> t{};
  t[0] = 16;
  for (int k = 1; k < 60; ++k) {
    int s = 2;
    while (kCount[s] > k) ++s;
    t[k] = static_cast<uint8_t>(s);
  }
  return t;
}();

// Lowest selector >= 2 that needs at most `left` values (left in 1..60).
constexpr std::array<uint8_t, 61> kSelectorForLeft = [] {
  std::array<uint8_t, 61> t{};
  for (int left = 1; left <= 60; ++left) {
    int s = 2;
    while (kCount[s] > left) ++s;
    t[left] = static_cast<uint8_t>(s);
  }
  return t;
}();

template <int N, int B>
inline uint64_t pack(const uint64_t* v) {
  uint64_t w = 0;
  for (int i = 0; i < N; ++i) w |= v[i] << (i * B);
  return w;
}

template <int N, int B, typename F>
inline void unpack(uint64_t w, uint64_t* dst, F& f) {
  constexpr uint64_t kMask = (uint64_t{1} << B) - 1;
  for (int i = 0; i < N; ++i) dst[i] = f((w >> (i * B)) & kMask);
}

uint64_t packWord(int s, const uint64_t* v) {
  uint64_t w;
  switch (s) {
    case 2:
      w = pack<60, 1>(v);
      break;
    case 3:
      w = pack<30, 2>(v);
      break;
    case 4:
      w = pack<20, 3>(v);
      break;
    case 5:
      w = pack<15, 4>(v);
      break;
    case 6:
      w = pack<12, 5>(v);
      break;
    case 7:
      w = pack<10, 6>(v);
      break;
    case 8:
      w = pack<8, 7>(v);
      break;
    case 9:
      w = pack<7, 8>(v);
      break;
    case 10:
      w = pack<6, 10>(v);
      break;
    case 11:
      w = pack<5, 12>(v);
      break;
    case 12:
      w = pack<4, 15>(v);
      break;
    case 13:
      w = pack<3, 20>(v);
      break;
    case 14:
      w = pack<2, 30>(v);
      break;
    default:
      w = v[0];
      break;
  }
  return uint64_t(s) << 60 | w;
}

[[noreturn]] void throwTooLarge(uint64_t v) {
  throw std::invalid_argument("simple8b: value " + std::to_string(v) + " is above 2^60 - 1");
}

// Unpacks every value v of the words as *out++ = f(v): the running sums of the
// integer and timestamp blocks happen inside each selector's unrolled loop.
template <typename F>
// Stops at `end` or before the first word whose selector is below stop_below;
// p is left there.
size_t decodeWith(const uint8_t*& p, const uint8_t* end, uint64_t* dst, F f,
                  unsigned stop_below = 0) {
  uint64_t* out = dst;
  for (; p != end; p += 8) {
    uint64_t w = loadBig64(p);
    if ((w >> 60) < stop_below) break;
    switch (w >> 60) {
      case 0:
        for (int i = 0; i < 240; ++i) out[i] = f(1);
        out += 240;
        break;
      case 1:
        for (int i = 0; i < 120; ++i) out[i] = f(1);
        out += 120;
        break;
      case 2:
        unpack<60, 1>(w, out, f);
        out += 60;
        break;
      case 3:
        unpack<30, 2>(w, out, f);
        out += 30;
        break;
      case 4:
        unpack<20, 3>(w, out, f);
        out += 20;
        break;
      case 5:
        unpack<15, 4>(w, out, f);
        out += 15;
        break;
      case 6:
        unpack<12, 5>(w, out, f);
        out += 12;
        break;
      case 7:
        unpack<10, 6>(w, out, f);
        out += 10;
        break;
      case 8:
        unpack<8, 7>(w, out, f);
        out += 8;
        break;
      case 9:
        unpack<7, 8>(w, out, f);
        out += 7;
        break;
      case 10:
        unpack<6, 10>(w, out, f);
        out += 6;
        break;
      case 11:
        unpack<5, 12>(w, out, f);
        out += 5;
        break;
      case 12:
        unpack<4, 15>(w, out, f);
        out += 4;
        break;
      case 13:
        unpack<3, 20>(w, out, f);
        out += 3;
        break;
      case 14:
        unpack<2, 30>(w, out, f);
        out += 2;
        break;
      default:
        *out++ = f(w & kPayload);
        break;
    }
  }
  return out - dst;
}

// The values of words already checked by count().
size_t countWords(std::span<const uint8_t> words) {
  size_t total = 0;
  for (size_t i = 0; i + 8 <= words.size(); i += 8) total += kCount[words[i] >> 4];
  return total;
}

}  // namespace

size_t encode(std::span<const uint64_t> values, uint8_t* dst) {
  const size_t n = values.size();
  uint8_t* p = dst;
  size_t i = 0;
  while (i < n) {
    const size_t left = n - i;
    const uint64_t* v = values.data() + i;
    if (left >= 120) {
      const size_t limit = left >= 240 ? 240 : 120;
      size_t ones = 0;
      while (ones < limit && v[ones] == 1) ++ones;
      if (ones == 240) {
        storeBig64(p, 0);
        p += 8;
        i += 240;
        continue;
      }
      if (ones >= 120) {
        storeBig64(p, uint64_t{1} << 60);
        p += 8;
        i += 120;
        continue;
      }
    }
    // Selector s holds the next values iff the first kCount[s] of them fit in
    // kBits[s]. Values before k fit in kBits[s]; `seen` is their OR, so it
    // exceeds kLargest[s] exactly when v[k] does not fit.
    int s = kSelectorForLeft[std::min<size_t>(left, 60)];
    uint64_t seen = 0;
    for (size_t k = 0; k < kCount[s];) {
      seen |= v[k];
      if (seen <= kLargest[s]) {
        ++k;
        continue;
      }
      if (v[k] > kMaxValue) throwTooLarge(v[k]);
      // v[k] breaks s: the next selector either stops before v[k] (and fits)
      // or is wide enough for it; both tests are monotone in s.
      s = std::min(kSelectorForCount[k], kSelectorForWidth[64 - std::countl_zero(seen)]);
    }
    storeBig64(p, packWord(s, v));
    p += 8;
    i += kCount[s];
  }
  return p - dst;
}

size_t count(std::span<const uint8_t> words) {
  const size_t whole = words.size() / 8;
  if (words.size() % 8 != 0) {
    tsm::internal::throwTruncated("simple8b", "ends " + std::to_string(words.size() % 8) +
                                                  " bytes into word " + std::to_string(whole));
  }
  size_t total = 0;
  const uint8_t* p = words.data();
  for (size_t i = 0; i < whole; ++i) {
    uint64_t w = loadBig64(p + 8 * i);
    unsigned s = static_cast<unsigned>(w >> 60);
    if (w & kUnused[s]) {
      tsm::internal::throwCorruptBlock("simple8b", "word " + std::to_string(i) + " (selector " +
                                                       std::to_string(s) +
                                                       ") has nonzero unused bits");
    }
    total += kCount[s];
  }
  return total;
}

size_t decode(std::span<const uint8_t> words, uint64_t* dst) {
  const uint8_t* p = words.data();
  return decodeWith(p, p + words.size() / 8 * 8, dst, [](uint64_t v) { return v; });
}

size_t decodeZigZagSums(std::span<const uint8_t> words, uint64_t* dst, uint64_t sum) {
  return tsm::internal::decodeZigZagSums(words, dst, countWords(words), sum);
}

size_t decodeScaledSums(std::span<const uint8_t> words, uint64_t* dst, uint64_t sum,
                        uint64_t scale) {
  return tsm::internal::decodeScaledSums(words, dst, countWords(words), sum, scale);
}

}  // namespace wirestream::tsm::simple8b

namespace wirestream::tsm::internal {

namespace {

// Alternates the vector kernel (the words it takes) with the scalar loop: a run
// of words of the selectors the kernel leaves, or all the rest once its stores
// would pass the room.
template <typename Kernel, typename Step>
size_t decodeSums(std::span<const uint8_t> words, uint64_t* dst, size_t room, uint64_t sum,
                  const Kernels& table, Kernel kernel, Step step) {
  const uint8_t* end = words.data() + words.size() / 8 * 8;
  SumsCursor c{words.data(), end, dst, dst + room, sum};
  for (;;) {
    kernel(c);
    if (c.words == end) break;
    // Stopped for room: the scalar loop takes the rest.
    const unsigned stop_below = (*c.words >> 4) < table.scalar_from ? 0 : table.scalar_from;
    uint64_t s = c.sum;
    c.out += simple8b::decodeWith(
        c.words, end, c.out, [&s, step](uint64_t v) { return s = step(s, v); }, stop_below);
    c.sum = s;
    if (c.words == end) break;
  }
  return c.out - dst;
}

}  // namespace

size_t decodeZigZagSums(std::span<const uint8_t> words, uint64_t* dst, size_t room, uint64_t sum) {
  const Kernels& k = kernels();
  return decodeSums(
      words, dst, room, sum, k, [&k](SumsCursor& c) { k.zigZagSums(c); },
      [](uint64_t s, uint64_t v) { return s + static_cast<uint64_t>(zigZagDecode(v)); });
}

size_t decodeScaledSums(std::span<const uint8_t> words, uint64_t* dst, size_t room, uint64_t sum,
                        uint64_t scale) {
  const Kernels& k = kernels();
  return decodeSums(
      words, dst, room, sum, k, [&k, scale](SumsCursor& c) { k.scaledSums(c, scale); },
      [scale](uint64_t s, uint64_t v) { return s + v * scale; });
}

}  // namespace wirestream::tsm::internal
