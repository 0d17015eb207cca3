// simple8b words (see simple8b.h for the selector table):
//
//   word = selector:4 | payload:60, big-endian
//   payload of selector s >= 2: value i in bits [i*bits(s), (i+1)*bits(s))
//   selectors 0 / 1: 240 / 120 ones, payload zero
//
// Encoder: per word, a run of 240 then 120 ones if at least that many values
// are left (InfluxDB only looks for runs when >= 120 values remain), else the
// lowest selector s >= 2 whose value count fits in what is left and whose bit
// width holds each of those values. The previous word's selector is tried
// first; otherwise one pass over the values finds it: a value too wide for the
// current selector moves to the next selectors until one stops before it or is
// wide enough (simple8b_encode-inl.h, shared with the vector kernels). The
// integer and timestamp blocks decode through the vector kernels where they pay
// (tsm_kernels.h), this file's loops doing the other words.
#include "tsm/simple8b.h"

#include <algorithm>
#include <array>
#include <bit>
#include <stdexcept>
#include <string>

#include "codec/byte_order.h"
#include "stream/varint.h"
#include "tsm/internal.h"
#include "tsm/simple8b_tables.h"
#include "tsm/tsm_kernels.h"

namespace wirestream::tsm::simple8b {

void detail::throwTooLarge(uint64_t v) {
  throw std::invalid_argument("simple8b: value " + std::to_string(v) + " is above 2^60 - 1");
}

namespace {

using namespace detail;  // NOLINT(build/namespaces): the tables

template <int N, int B, typename F>
inline void unpack(uint64_t w, uint64_t* dst, F& f) {
  constexpr uint64_t kMask = (uint64_t{1} << B) - 1;
  for (int i = 0; i < N; ++i) dst[i] = f((w >> (i * B)) & kMask);
}

#include "tsm/simple8b_encode-inl.h"

// Unpacks every value v of the words as *out++ = f(v): the running sums of the
// integer and timestamp blocks happen inside each selector's unrolled loop.
// Stops at `end` or before the first word whose selector is below stop_below;
// p is left there.
template <typename F>
size_t decodeWith(const uint8_t*& p, const uint8_t* end, uint64_t* dst, F f,
                  unsigned stop_below = 0) {
  uint64_t* out = dst;
  for (; p != end; p += 8) {
    uint64_t w = codec::loadBig64(p);
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
  return tsm::internal::kernels().simple8bEncode(values.data(), values.size(), dst);
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
    uint64_t w = codec::loadBig64(p + 8 * i);
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

size_t simple8bEncodeScalar(const uint64_t* values, size_t n, uint8_t* dst) {
  return simple8b::EncodeWords(
      values, n, dst,
      [](const uint64_t* v, size_t from, size_t to) {
        uint64_t r = 0;
        for (size_t k = from; k < to; ++k) r |= v[k];
        return r;
      },
      [](int s, const uint64_t* v, size_t) { return simple8b::detail::packWord(s, v); });
}

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
