// Tests of //tsm. Every expected block below is derived by hand from
// InfluxDB's Go code (tsdb/engine/tsm1/batch_{integer,timestamp,float,
// boolean,string}.go and pkg/encoding/simple8b/encoding.go, master-1.x); the
// comment beside each says which lines of that code produce which bytes.
// Constants from there: intUncompressed / timeUncompressed = 0,
// intCompressedSimple / timeCompressedPackedSimple = 1, intCompressedRLE /
// timeCompressedRLE = 2, floatCompressedGorilla = booleanCompressedBitPacked =
// stringCompressedSnappy = 1, each written as `byte(type) << 4`;
// uvnan = 0x7FF8000000000001; simple8b.MaxValue = 2^60 - 1.
#include "tsm/tsm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "stream/errors.h"
#include "tests/stream/test_util.h"
#include "tsm/simple8b.h"

namespace wirestream::tsm {
namespace {

using Bytes = std::vector<uint8_t>;
using testing::hexBytes;
using testing::toHex;

// Builds a bit string most significant bit first, zero-padded to the byte: the
// float blocks below are written field by field as batch_float.go writes them.
class Bits {
 public:
  Bits& add(uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) bits_.push_back((v >> i) & 1);
    return *this;
  }
  Bytes bytes() const {
    Bytes out((bits_.size() + 7) / 8, 0);
    for (size_t i = 0; i < bits_.size(); ++i) out[i / 8] |= bits_[i] << (7 - i % 8);
    return out;
  }

 private:
  std::vector<int> bits_;
};

Bytes concat(Bytes a, const Bytes& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

uint64_t bitsOf(double d) { return std::bit_cast<uint64_t>(d); }
double fromBits(uint64_t b) { return std::bit_cast<double>(b); }

// Decoding `block` must give `values`; every strict prefix must throw a
// StreamError, except where the layout has no count (uncompressed and simple8b
// integers / timestamps end at any whole value or word): there a prefix may
// decode, to a strict prefix of the values.
template <typename T, typename Decode>
void expectDecodes(const Bytes& block, const std::vector<T>& values, Decode decode,
                   bool countless) {
  std::vector<T> back;
  decode(block, back);
  EXPECT_EQ(back, values) << toHex(block);
  for (size_t n = 1; n < block.size(); ++n) {
    Bytes prefix(block.begin(), block.begin() + n);
    std::vector<T> got;
    try {
      decode(prefix, got);
    } catch (const StreamError&) {
      continue;
    }
    ASSERT_TRUE(countless) << "prefix of " << n << " bytes of " << toHex(block) << " decoded";
    ASSERT_LT(got.size(), values.size());
    EXPECT_TRUE(std::equal(got.begin(), got.end(), values.begin()))
        << "prefix of " << n << " bytes decoded to other values";
  }
}

bool countless(const Bytes& block) { return !block.empty() && (block[0] >> 4) < 2; }

// ---- integers -------------------------------------------------------------

struct IntCase {
  const char* name;
  std::vector<int64_t> values;
  const char* block;
};

// deltas[0] = ZigZagEncode(v0), deltas[i] = ZigZagEncode(vi - vi-1).
const IntCase kIntCases[] = {
    // `if len(src) == 0 { return nil, nil }`
    {"empty", {}, ""},
    // No deltas: RLE needs len > 2, max = 0, simple8b.EncodeAll of nothing is no
    // words; header intCompressedSimple << 4 = 10, then BE64(ZigZag(5) = 10).
    {"one value", {5}, "10 000000000000000A"},
    // Two values are never RLE (len > 2); ZigZag(2) = 4 alone: EncodeAll skips
    // every code with intN > 1 and packs it with {1, 60}: 15 << 60 | 4.
    {"two values", {1, 3}, "10 0000000000000002 F000000000000004"},
    // deltas 0, 2, 2: deltas[1..] equal, len > 2: 20, BE64(0), uvarint(2),
    // uvarint(len - 1 = 2).
    {"RLE", {0, 1, 2}, "20 0000000000000000 02 02"},
    // Negative step -3: ZigZag(-3) = 5; ZigZag(7) = 14 first.
    {"RLE down", {7, 4, 1, -2}, "20 000000000000000E 05 03"},
    // Step 2^62 wraps the third value to -2^63; ZigZag(2^62) = 2^63 is above
    // MaxValue, but the RLE test comes first: uvarint(2^63) is 9 bytes of 80
    // and 01.
    {"RLE of a delta above 2^60 - 1",
     {0, int64_t{1} << 62, std::numeric_limits<int64_t>::min()},
     "20 0000000000000000 80808080808080808001 02"},
    // ZigZag(-2^59) = 2^60 - 1 = MaxValue, not above it: simple8b, code {1, 60}.
    {"delta at MaxValue", {0, -(int64_t{1} << 59)}, "10 0000000000000000 FFFFFFFFFFFFFFFF"},
    // ZigZag(2^59) = 2^60 > MaxValue: `max > simple8b.MaxValue` writes every
    // delta (the first too) as BE64 after header intUncompressed << 4 = 00.
    {"delta above MaxValue", {0, int64_t{1} << 59}, "00 0000000000000000 1000000000000000"},
    {"uncompressed three",
     {-1, std::numeric_limits<int64_t>::max(), 3},
     // ZigZag(-1) = 1; INT64_MAX - (-1) wraps to INT64_MIN, ZigZag = 2^64 - 1;
     // 3 - INT64_MAX wraps to INT64_MIN + 4, ZigZag = 2^64 - 9.
     "00 0000000000000001 FFFFFFFFFFFFFFFF FFFFFFFFFFFFFFF7"},
    // d0 = ZigZag(1) = 2, then deltas 0, 2, -1: ZigZag 0, 4, 1. Three values
    // left: codes with intN > 3 are skipped, {3, 20} holds them:
    // 13 << 60 | 0 | 4 << 20 | 1 << 40.
    {"simple8b three", {1, 1, 3, 2}, "10 0000000000000002 D000010000400000"},
};

TEST(TsmInteger, ExpectedBlocks) {
  for (const IntCase& c : kIntCases) {
    SCOPED_TRACE(c.name);
    Bytes expected = hexBytes(c.block);
    Bytes out = {0xEE};  // replaced, not appended to
    encodeIntegerArray(c.values, out);
    EXPECT_EQ(toHex(out), toHex(expected));
    expectDecodes<int64_t>(
        expected, c.values, [](const Bytes& b, auto& o) { decodeIntegerArray(b, o); },
        countless(expected));
  }
}

// Long RLE runs decode through eight vector lanes and a scalar tail: every
// length around a multiple of eight, steps up, down and wrapping, integers
// and timestamps.
TEST(TsmInteger, LongRleRunsDecodeEveryValue) {
  const uint64_t steps[] = {1, 7, uint64_t(-3), uint64_t{1} << 62, 0x9E3779B97F4A7C15u};
  for (size_t n : {size_t{3}, size_t{8}, size_t{9}, size_t{15}, size_t{16}, size_t{17},
                   size_t{1000}, size_t{1003}}) {
    for (uint64_t step : steps) {
      SCOPED_TRACE("n " + std::to_string(n) + ", step " + std::to_string(step));
      std::vector<int64_t> values(n);
      for (size_t i = 0; i < n; ++i) values[i] = int64_t(uint64_t(-5) + i * step);
      Bytes block;
      encodeIntegerArray(values, block);
      ASSERT_EQ(block[0], 0x20);  // RLE
      std::vector<int64_t> back;
      decodeIntegerArray(block, back);
      EXPECT_EQ(back, values);
      if (step == 1 || step == 7) {  // increasing: a timestamp RLE block too
        for (int64_t& v : values) v += 1000;
        encodeTimeArray(values, block);
        ASSERT_EQ(block[0] >> 4, 2);
        decodeTimeArray(block, back);
        EXPECT_EQ(back, values);
      }
    }
  }
}

TEST(TsmUnsigned, IsTheIntegerBlockOfTheSameBits) {
  // UnsignedArrayEncodeAll reinterprets []uint64 as []int64.
  std::vector<uint64_t> max = {UINT64_MAX};  // int64 -1, ZigZag 1
  Bytes out;
  encodeUnsignedArray(max, out);
  EXPECT_EQ(toHex(out), toHex(hexBytes("10 0000000000000001")));
  std::vector<uint64_t> seq = {1, 2, 3};  // ZigZag(1) = 2, deltas 2, 2: RLE
  encodeUnsignedArray(seq, out);
  EXPECT_EQ(toHex(out), toHex(hexBytes("20 0000000000000002 02 02")));
  std::vector<uint64_t> back;
  decodeUnsignedArray(out, back);
  EXPECT_EQ(back, seq);
  for (const IntCase& c : kIntCases) {
    std::vector<uint64_t> u(c.values.begin(), c.values.end());
    encodeUnsignedArray(u, out);
    EXPECT_EQ(toHex(out), toHex(hexBytes(c.block))) << c.name;
    decodeUnsignedArray(out, back);
    EXPECT_EQ(back, u) << c.name;
  }
}

// ---- simple8b ------------------------------------------------------------

constexpr int kCount[16] = {240, 120, 60, 30, 20, 15, 12, 10, 8, 7, 6, 5, 4, 3, 2, 1};
constexpr int kBitsOf[16] = {0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 20, 30, 60};

Bytes words(std::span<const uint64_t> values) {
  Bytes out(simple8b::maxEncodedBytes(values.size()));
  out.resize(simple8b::encode(values, out.data()));
  return out;
}

Bytes be64(uint64_t w) {
  Bytes b(8);
  for (int i = 0; i < 8; ++i) b[i] = uint8_t(w >> (56 - 8 * i));
  return b;
}

std::vector<uint64_t> unpackAll(const Bytes& w) {
  std::vector<uint64_t> v(simple8b::count(w));
  EXPECT_EQ(simple8b::decode(w, v.data()), v.size());
  return v;
}

TEST(Simple8b, EverySelectorAtItsWidestValues) {
  // n = intN values of 2^bitN - 1: every code before has intN > n and is
  // skipped (`if intN > len(remaining) { continue }`), code s takes them all:
  // val = (code + 2) << 60 | OR of v << (k * bitN) = s << 60 | 2^(n * bitN) - 1.
  for (int s = 2; s < 16; ++s) {
    SCOPED_TRACE(s);
    uint64_t widest = (uint64_t{1} << kBitsOf[s]) - 1;
    std::vector<uint64_t> v(kCount[s], widest);
    int used = kCount[s] * kBitsOf[s];
    uint64_t payload = used == 64 ? ~0ull : (uint64_t{1} << used) - 1;
    EXPECT_EQ(toHex(words(v)), toHex(be64(uint64_t(s) << 60 | payload)));
    EXPECT_EQ(unpackAll(words(v)), v);
    // One more bit in the last value and code s fails (`inV >= maxVal`): the
    // first code after it holding the values takes as many as it can.
    v.back() = widest + 1;
    if (s < 15) {
      std::vector<uint64_t> back = unpackAll(words(v));
      EXPECT_EQ(back, v);
      EXPECT_GT(words(v).size(), 8u);
    }
  }
}

TEST(Simple8b, RunsOfOnes) {
  // 240 ones: len(remaining) >= 240, k == 239 (index of the last 1): word 0.
  std::vector<uint64_t> ones(240, 1);
  EXPECT_EQ(toHex(words(ones)), toHex(hexBytes("0000000000000000")));
  EXPECT_EQ(unpackAll(words(ones)), ones);
  // 120 ones: a = remaining[:120], k == 119: 1 << 60.
  std::vector<uint64_t> v120(120, 1);
  EXPECT_EQ(toHex(words(v120)), toHex(hexBytes("1000000000000000")));
  // 240 values, the last 2: k == 238 >= 119 gives 120 ones (1 << 60); the
  // remaining 120 have k == 118: CODES. {60, 1}: 60 ones, 2 << 60 | 2^60 - 1;
  // then 60 left, the last 2: {60, 1} fails, {30, 2} takes 30 ones
  // (3 << 60 | 0x555555555555555), then the last 30: 29 ones and 2 << 58.
  std::vector<uint64_t> v(240, 1);
  v.back() = 2;
  EXPECT_EQ(toHex(words(v)), toHex(hexBytes("1000000000000000"
                                            "2FFFFFFFFFFFFFFF"
                                            "3555555555555555"
                                            "3955555555555555")));
  EXPECT_EQ(unpackAll(words(v)), v);
  // 119 ones: len(remaining) < 120, no run word: {60, 1} 60 ones, then 59 left
  // skip intN 60, {30, 2} 30 ones, {20, 3} 20 ones (bits 0, 3, ..., 57:
  // 0x249249249249249), 9 left: {8, 7} 8 ones (bits 0, 7, ..., 49:
  // 0x02040810204081), {1, 60} the last.
  std::vector<uint64_t> v119(119, 1);
  EXPECT_EQ(toHex(words(v119)), toHex(hexBytes("2FFFFFFFFFFFFFFF"
                                               "3555555555555555"
                                               "4249249249249249"
                                               "8002040810204081"
                                               "F000000000000001")));
}

TEST(Simple8b, ValuesInOrderFromTheLowBits) {
  // {10, 6}: val |= inV << (k * 6).
  std::vector<uint64_t> v = {0, 1, 2, 3, 4, 5, 6, 7, 8, 63};
  uint64_t w = 7ull << 60;
  for (int k = 0; k < 10; ++k) w |= v[k] << (6 * k);
  EXPECT_EQ(toHex(words(v)), toHex(be64(w)));
}

TEST(Simple8b, RejectsValuesAboveTheLimitAndDirtyWords) {
  std::vector<uint64_t> big = {simple8b::kMaxValue + 1};
  uint8_t buf[8];
  EXPECT_THROW((void)simple8b::encode(big, buf), std::invalid_argument);
  // Selector 0 with a payload bit; selector 8 (8 x 7 bits) with bit 56 set.
  EXPECT_THROW((void)simple8b::count(hexBytes("0000000000000001")), CorruptStreamError);
  EXPECT_THROW((void)simple8b::count(hexBytes("8100000000000000")), CorruptStreamError);
  EXPECT_THROW((void)simple8b::count(hexBytes("1000000000000000 00")), EndOfStreamError);
  EXPECT_EQ(simple8b::count(hexBytes("F000000000000000 E000000000000000")), 3u);
}

// ---- timestamps ----------------------------------------------------------

struct TimeCase {
  const char* name;
  std::vector<int64_t> values;
  const char* block;
};

// deltas[0] = v0, deltas[i] = vi - vi-1 as uint64; div starts at 1e12.
const TimeCase kTimeCases[] = {
    {"empty", {}, ""},
    // len(deltas) == 1: no RLE, max 0, the divisor loop runs over no deltas so
    // div stays 1e12: header 1 << 4 | log10(1e12) = 1C.
    {"one value", {5}, "1C 0000000000000005"},
    // Two values: the RLE loop from i = 2 finds nothing, rle stays true.
    // deltas[1] = 0: 0 % 1e12 == 0, div 1e12, header 2C, uvarint(0 / 1e12),
    // uvarint(len = 2) (the count, not count - 1 as for integers).
    {"two equal", {10, 10}, "2C 000000000000000A 00 02"},
    // deltas[1] = 1e9: div drops 1e12 -> 1e11 -> 1e10 -> 1e9: header 29,
    // uvarint(1), uvarint(3).
    {"RLE seconds in ns", {0, 1000000000, 2000000000}, "29 0000000000000000 01 03"},
    // deltas[1] = 7: div drops to 1, header 2 << 4 | 0, uvarint(7) undivided.
    {"RLE no divisor", {0, 7, 14}, "20 0000000000000000 07 03"},
    // Decreasing, two values: still RLE (any two values are); 5 - 10 wraps to
    // 2^64 - 5: uvarint FB FF*8 01.
    {"RLE backwards", {10, 5}, "20 000000000000000A FBFFFFFFFFFFFFFFFF01 02"},
    // deltas 10, 2^64 - 5, 15: max > MaxValue: timeUncompressed, raw deltas.
    {"uncompressed", {10, 5, 20}, "00 000000000000000A FFFFFFFFFFFFFFFB 000000000000000F"},
    // Delta 2^60 - 1 = MaxValue (ends in 5: div 1), then 1: {1, 60} twice.
    {"delta at MaxValue",
     {0, (int64_t{1} << 60) - 1, int64_t{1} << 60},
     "10 0000000000000000 FFFFFFFFFFFFFFFF F000000000000001"},
    {"delta above MaxValue",
     {0, int64_t{1} << 60, (int64_t{1} << 60) + 1},
     "00 0000000000000000 1000000000000000 0000000000000001"},
    // deltas 1e13, 2e13: div stays 1e12, 10 and 20 packed by {2, 30}:
    // 14 << 60 | 10 | 20 << 30.
    {"divisor capped at 1e12",
     {0, 10000000000000, 30000000000000},
     "1C 0000000000000000 E00000050000000A"},
};

TEST(TsmTime, ExpectedBlocks) {
  for (const TimeCase& c : kTimeCases) {
    SCOPED_TRACE(c.name);
    Bytes expected = hexBytes(c.block);
    Bytes out = {0xEE};
    encodeTimeArray(c.values, out);
    EXPECT_EQ(toHex(out), toHex(expected));
    expectDecodes<int64_t>(
        expected, c.values, [](const Bytes& b, auto& o) { decodeTimeArray(b, o); },
        countless(expected));
  }
}

TEST(TsmTime, EveryDivisor) {
  // Steps 10^e and 2 * 10^e: the divisor loop settles on 10^e (1e12 at most),
  // deltas/div = 1, 2 packed by {2, 30}: 14 << 60 | 1 | 2 << 30; header
  // 1 << 4 | log10(div).
  int64_t unit = 1;
  for (int e = 0; e <= 12; ++e, unit *= 10) {
    SCOPED_TRACE(e);
    std::vector<int64_t> ts = {0, unit, 3 * unit};
    Bytes expected = concat({uint8_t(0x10 | e)}, hexBytes("0000000000000000 E000000080000001"));
    Bytes out;
    encodeTimeArray(ts, out);
    EXPECT_EQ(toHex(out), toHex(expected));
    expectDecodes<int64_t>(
        expected, ts, [](const Bytes& b, auto& o) { decodeTimeArray(b, o); }, true);
  }
}

// ---- floats --------------------------------------------------------------

// The first value, then per value: 0 (same), or 1 then 0 (reuse the last
// leading/trailing) or 1 then 1, 5 bits leading, 6 bits significant (64 as
// 0), the significant bits; last the uvnan terminator the same way.
constexpr uint64_t kUvnan = 0x7FF8000000000001;

struct FloatCase {
  const char* name;
  std::vector<uint64_t> values;  // bit patterns
  Bytes block;
};

std::vector<FloatCase> floatCases() {
  const Bytes head = {0x10};
  return {
      // len(src) == 0: first = NaN (uvnan), finished: header and 8 bytes only.
      {"empty", {}, hexBytes("10 7FF8000000000001")},
      // 1.0 then uvnan: x = 3FF0.. ^ 7FF8..01 = 4008000000000001: 1 leading
      // zero, 0 trailing; no previous leading, so control 11, 00001, sig 63
      // (111111), 63 bits. Bytes C3 FC 00 80 00 00 00 00 00 10.
      {"one value", {bitsOf(1.0)}, hexBytes("10 3FF0000000000000 C3FC0080000000000010")},
      // 1.0 twice: a 0 bit, then the terminator as above one bit later.
      {"repeat",
       {bitsOf(1.0), bitsOf(1.0)},
       concat(
           concat(head, be64(bitsOf(1.0))),
           Bits().add(0, 1).add(0b11, 2).add(1, 5).add(63, 6).add(0x4008000000000001, 63).bytes())},
      // 1.0, 3.0, 2.0: x1 = 7FF8000000000000 (lz 1, tz 51): 11 00001 001100
      // and the 12 bits FFF. x2 = 0008000000000000 (lz 12 >= 1, tz 51 >= 51):
      // 10 and 64 - 1 - 51 = 12 bits of x >> 51 = 001. Terminator: x =
      // 4000.. ^ 7FF8..01 = 3FF8000000000001, tz 0 < 51: 11 00010 111110, 62 bits.
      {"reuse",
       {bitsOf(1.0), bitsOf(3.0), bitsOf(2.0)},
       concat(concat(head, be64(bitsOf(1.0))), Bits()
                                                   .add(0b11, 2)
                                                   .add(1, 5)
                                                   .add(12, 6)
                                                   .add(0xFFF, 12)
                                                   .add(0b10, 2)
                                                   .add(0x001, 12)
                                                   .add(0b11, 2)
                                                   .add(2, 5)
                                                   .add(62, 6)
                                                   .add(0x3FF8000000000001, 62)
                                                   .bytes())},
      // x = 0000000000FF0000: 40 leading zeros, but `leading &= 0x1F` makes it
      // 8 (the `>= 32` clamp after it never fires): sig = 64 - 8 - 16 = 40,
      // 40 bits of x >> 16 = 00000000FF. Terminator: x = 3FF0000000FF0000 ^
      // 7FF8000000000001 = 4008000000FF0001, lz 1 >= 8? no: 11 00001 111111, 63 bits.
      {"leading zeros above 31 wrap",
       {bitsOf(1.0), 0x3FF0000000FF0000},
       concat(concat(head, be64(bitsOf(1.0))), Bits()
                                                   .add(0b11, 2)
                                                   .add(8, 5)
                                                   .add(40, 6)
                                                   .add(0xFF, 40)
                                                   .add(0b11, 2)
                                                   .add(1, 5)
                                                   .add(63, 6)
                                                   .add(0x4008000000FF0001, 63)
                                                   .bytes())},
      // -0.0 then the smallest denormal: x = 8000000000000001, no leading or
      // trailing zeros: sig 64 is written as 0 (000000) and 64 bits follow.
      // Terminator: 0000000000000001 ^ uvnan = 7FF8000000000000: lz 1 >= 0,
      // tz 51 >= 0: reuse, 10 and all 64 bits.
      {"negative zero and 64 significant bits",
       {bitsOf(-0.0), 1},
       concat(concat(head, be64(bitsOf(-0.0))), Bits()
                                                    .add(0b11, 2)
                                                    .add(0, 5)
                                                    .add(0, 6)
                                                    .add(0x8000000000000001, 64)
                                                    .add(0b10, 2)
                                                    .add(0x7FF8000000000000, 64)
                                                    .bytes())},
      // +Inf, -Inf: x = 8000000000000000 (lz 0, tz 63): 11 00000 000001 and
      // the bit 1. Terminator: FFF0.. ^ 7FF8..01 = 8008000000000001, tz 0 < 63:
      // 11 00000 000000 (64) and 64 bits.
      {"infinities",
       {bitsOf(INFINITY), bitsOf(-INFINITY)},
       concat(concat(head, be64(bitsOf(INFINITY))), Bits()
                                                        .add(0b11, 2)
                                                        .add(0, 5)
                                                        .add(1, 6)
                                                        .add(1, 1)
                                                        .add(0b11, 2)
                                                        .add(0, 5)
                                                        .add(0, 6)
                                                        .add(0x8008000000000001, 64)
                                                        .bytes())},
  };
}

TEST(TsmFloat, ExpectedBlocks) {
  for (const FloatCase& c : floatCases()) {
    SCOPED_TRACE(c.name);
    std::vector<double> values;
    for (uint64_t b : c.values) values.push_back(fromBits(b));
    Bytes out = {0xEE};
    encodeFloatArray(values, out);
    EXPECT_EQ(toHex(out), toHex(c.block));
    expectDecodes<uint64_t>(
        c.block, c.values,
        [](const Bytes& b, std::vector<uint64_t>& o) {
          std::vector<double> d;
          decodeFloatArray(b, d);
          o.clear();
          for (double x : d) o.push_back(bitsOf(x));
        },
        false);
  }
}

TEST(TsmFloat, NaNIsACallerError) {
  // FloatArrayEncodeAll: "unsupported value: NaN", first or later.
  Bytes out;
  std::vector<double> first = {NAN, 1.0};
  std::vector<double> later = {1.0, std::numeric_limits<double>::quiet_NaN()};
  EXPECT_THROW(encodeFloatArray(first, out), std::invalid_argument);
  EXPECT_THROW(encodeFloatArray(later, out), std::invalid_argument);
}

TEST(TsmFloat, DecodesANaNThatIsNotTheTerminator) {
  // InfluxDB's decoder stops only at uvnan; 7FF8000000000000 is a value.
  // x = 7FF8..00 ^ uvnan = 1: lz 63 & 31 = 31, tz 0, sig 33: 11 11111 100001
  // and 33 bits of 1.
  Bytes block = concat(hexBytes("10 7FF8000000000000"),
                       Bits().add(0b11, 2).add(31, 5).add(33, 6).add(1, 33).bytes());
  std::vector<double> back;
  decodeFloatArray(block, back);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(bitsOf(back[0]), 0x7FF8000000000000u);
}

// ---- booleans and strings -----------------------------------------------

TEST(TsmBoolean, ExpectedBlocks) {
  // 10 (booleanCompressedBitPacked << 4), uvarint(len), bits MSB first from
  // `128 >> (n & 7)`; length rounds the bit count up to bytes.
  struct Case {
    std::vector<bool> values;
    const char* block;
  };
  std::vector<bool> alternating(200);
  for (size_t i = 0; i < 200; i += 2) alternating[i] = true;
  const Case cases[] = {
      {{}, "10 00"},
      {{true}, "10 01 80"},
      {{true, false, true}, "10 03 A0"},
      {std::vector<bool>(9, true), "10 09 FF 80"},
      {alternating, "10 C801 AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},
  };
  for (const Case& c : cases) {
    Bytes out = {0xEE};
    encodeBooleanArray(c.values, out);
    EXPECT_EQ(toHex(out), toHex(hexBytes(c.block)));
    expectDecodes<bool>(
        hexBytes(c.block), c.values, [](const Bytes& b, auto& o) { decodeBooleanArray(b, o); },
        false);
  }
}

TEST(TsmBoolean, BytesVariantIsTheSameBlock) {
  std::mt19937_64 rng(testing::testSeed(7));
  Bytes block, bytes_block;
  for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{63}, size_t{64},
                   size_t{65}, size_t{200}, size_t{1001}}) {
    std::vector<bool> values(n);
    std::vector<uint8_t> as_bytes(n);
    for (size_t i = 0; i < n; ++i) {
      values[i] = rng() & 1;
      as_bytes[i] = values[i] ? uint8_t(1 + rng() % 255) : 0;  // any nonzero byte is true
    }
    encodeBooleanArray(values, block);
    encodeBooleanBytes(as_bytes, bytes_block);
    EXPECT_EQ(toHex(bytes_block), toHex(block)) << n;
    // The span<const bool> form (eight values a multiply) writes it too.
    auto plain = std::make_unique<bool[]>(n);
    for (size_t i = 0; i < n; ++i) plain[i] = values[i];
    Bytes span_block;
    encodeBooleanArray(std::span<const bool>(plain.get(), n), span_block);
    EXPECT_EQ(toHex(span_block), toHex(block)) << n;
    // vector<bool> back, 64 values a word; padding bits set (InfluxDB's
    // encoder may leave them) are not values.
    Bytes padded = block;
    if (n % 8 != 0) padded.back() |= uint8_t(0xFF >> (n % 8));
    std::vector<bool> bools = {true};
    decodeBooleanArray(padded, bools);
    EXPECT_EQ(bools, values);
    std::vector<uint8_t> back = {9, 9};
    decodeBooleanBytes(block, back);
    ASSERT_EQ(back.size(), n);
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(back[i], values[i] ? 1 : 0) << i;
    // The same refusals as decodeBooleanArray, on every strict prefix.
    for (size_t k = 1; k < block.size(); ++k) {
      Bytes prefix(block.begin(), block.begin() + k);
      EXPECT_THROW(decodeBooleanBytes(prefix, back), EndOfStreamError) << k;
    }
  }
  std::vector<uint8_t> back;
  decodeBooleanBytes(hexBytes("10 03 A0"), back);
  EXPECT_EQ(back, (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_THROW(decodeBooleanBytes(hexBytes("10 03 A0 00"), back), CorruptStreamError);
  EXPECT_THROW(decodeBooleanBytes(hexBytes("20 03 A0"), back), CorruptStreamError);
  EXPECT_THROW(decodeBooleanBytes(hexBytes("10 09 FF 80"), back, 8), LimitExceededError);
}

TEST(TsmString, ExpectedBlocks) {
  // Empty: `b[0] = stringCompressedSnappy << 4; return b[:2]` over a zeroed
  // buffer: 10 00 (00 is also snappy's encoding of nothing).
  Bytes out = {0xEE};
  encodeStringArray(std::span<const std::string>(), out);
  EXPECT_EQ(toHex(out), toHex(hexBytes("10 00")));
  // "a", "bc": the payload uvarint(1) 61 uvarint(2) 62 63 (5 bytes); snappy:
  // uvarint(5), one literal tag (5 - 1) << 2 = 10, the bytes (too short for a
  // copy in either snappy).
  std::vector<std::string> v = {"a", "bc"};
  encodeStringArray(v, out);
  EXPECT_EQ(toHex(out), toHex(hexBytes("10 05 10 0161026263")));
  expectDecodes<std::string>(
      out, v, [](const Bytes& b, auto& o) { decodeStringArray(b, o); }, false);
  // One value "x": payload 01 78; snappy uvarint(2), literal tag (2 - 1) << 2 = 04.
  std::vector<std::string> one = {"x"};
  Bytes single;
  encodeStringArray(one, single);
  EXPECT_EQ(toHex(single), toHex(hexBytes("10 02 04 0178")));
  expectDecodes<std::string>(
      single, one, [](const Bytes& b, auto& o) { decodeStringArray(b, o); }, false);
  std::vector<std::string_view> views = {"a", "bc"};
  Bytes again;
  encodeStringArray(views, again);
  EXPECT_EQ(again, out);
}

// The views form decodes the same strings into one buffer, reusing its
// capacity, and refuses what the owning form refuses.
TEST(TsmString, ViewsDecodeTheSameStringsIntoOneReusedBuffer) {
  const uint64_t seed = std::random_device()();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::vector<std::string> values(1000);
  for (std::string& v : values) v.assign(rng() % 70, char('a' + rng() % 26));
  Bytes block;
  encodeStringArray(values, block);
  std::string buffer;
  std::vector<std::string_view> views;
  decodeStringViews(block, buffer, views);
  ASSERT_TRUE(std::equal(values.begin(), values.end(), views.begin(), views.end()));
  for (const std::string_view& v : views) {
    EXPECT_GE(v.data(), buffer.data());
    EXPECT_LE(v.data() + v.size(), buffer.data() + buffer.size());
  }
  // A smaller block reuses the buffer's storage.
  const char* storage = buffer.data();
  std::vector<std::string> two = {"a", "bc"};
  encodeStringArray(two, block);
  decodeStringViews(block, buffer, views);
  EXPECT_EQ(buffer.data(), storage);
  ASSERT_EQ(views.size(), 2u);
  EXPECT_EQ(views[0], "a");
  EXPECT_EQ(views[1], "bc");
  EXPECT_THROW(decodeStringViews(block, buffer, views, 1), LimitExceededError);
  decodeStringViews({}, buffer, views);
  EXPECT_TRUE(views.empty());
  EXPECT_THROW(decodeStringViews(hexBytes("20 00"), buffer, views), CorruptStreamError);
  EXPECT_THROW(decodeStringViews(hexBytes("10"), buffer, views), EndOfStreamError);
}

std::vector<int64_t> randomIntsForReuse(std::mt19937_64& rng) {
  std::vector<int64_t> v(1000);
  int64_t x = 0;
  for (auto& e : v) e = x += int64_t(rng() % 100);
  return v;
}

// ---- malformed blocks ----------------------------------------------------

template <typename E, typename Decode>
void expectThrows(const char* block, Decode decode, const char* what) {
  SCOPED_TRACE(std::string(what) + ": " + block);
  try {
    decode(hexBytes(block));
    ADD_FAILURE() << "decoded";
  } catch (const E&) {
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw " << e.what();
  }
}

auto decInt = [](const Bytes& b) {
  std::vector<int64_t> o;
  decodeIntegerArray(b, o);
};
auto decTime = [](const Bytes& b) {
  std::vector<int64_t> o;
  decodeTimeArray(b, o);
};
auto decFloat = [](const Bytes& b) {
  std::vector<double> o;
  decodeFloatArray(b, o);
};
auto decBool = [](const Bytes& b) {
  std::vector<bool> o;
  decodeBooleanArray(b, o);
};
auto decString = [](const Bytes& b) {
  std::vector<std::string> o;
  decodeStringArray(b, o);
};

TEST(TsmMalformed, BadEncodingNibbles) {
  expectThrows<CorruptStreamError>("30 0000000000000000", decInt, "integer encoding 3");
  expectThrows<CorruptStreamError>("F0 0000000000000000", decInt, "integer encoding 15");
  expectThrows<CorruptStreamError>("11 0000000000000000", decInt, "integer low nibble");
  expectThrows<CorruptStreamError>("30 0000000000000000", decTime, "time encoding 3");
  expectThrows<CorruptStreamError>("01 0000000000000000", decTime, "uncompressed divisor");
  expectThrows<CorruptStreamError>("1D 0000000000000000", decTime, "divisor 1e13");
  expectThrows<CorruptStreamError>("20 7FF8000000000001", decFloat, "float encoding 2");
  expectThrows<CorruptStreamError>("11 7FF8000000000001", decFloat, "float low nibble");
  expectThrows<CorruptStreamError>("20 01 80", decBool, "boolean encoding 2");
  expectThrows<CorruptStreamError>("00 00", decString, "string encoding 0");
}

TEST(TsmMalformed, Simple8bWordsWithUnusedBits) {
  expectThrows<CorruptStreamError>("10 0000000000000000 0000000000000001", decInt,
                                   "selector 0 payload");
  expectThrows<CorruptStreamError>("10 0000000000000000 1800000000000000", decTime,
                                   "selector 1 payload");
  expectThrows<CorruptStreamError>("10 0000000000000000 9F00000000000000", decInt,
                                   "selector 9 top bits");
}

TEST(TsmMalformed, CountsTheBytesCannotHold) {
  expectThrows<EndOfStreamError>("00 00000000000000", decInt, "uncompressed 7 bytes");
  expectThrows<EndOfStreamError>("10 0000000000000000 F0000000", decInt, "half a word");
  expectThrows<EndOfStreamError>("10 64 FF", decBool, "100 booleans in a byte");
  expectThrows<EndOfStreamError>("10 FFFFFFFFFFFFFFFFFF01", decBool, "2^64 - 1 booleans");
  expectThrows<EndOfStreamError>("20 0000000000000000 01", decInt, "RLE without count");
  expectThrows<CorruptStreamError>("20 0000000000000000 01 FFFFFFFFFFFFFFFFFF02", decInt,
                                   "uvarint past 64 bits");
  // RLE counts above the limit fail before anything is reserved.
  expectThrows<LimitExceededError>("20 0000000000000000 01 FFFFFFFFFFFFFFFFFF01", decInt,
                                   "2^64 - 1 repeats");
  expectThrows<LimitExceededError>("21 0000000000000000 01 8080808010", decTime, "2^32 timestamps");
  std::vector<int64_t> o;
  EXPECT_THROW(decodeIntegerArray(hexBytes("20 0000000000000000 01 0A"), o, 10),
               LimitExceededError);
  decodeIntegerArray(hexBytes("20 0000000000000000 01 09"), o, 10);
  EXPECT_EQ(o.size(), 10u);
  EXPECT_THROW(decodeTimeArray(hexBytes("10 0000000000000000 0000000000000000"), o, 240),
               LimitExceededError);  // 1 + 240 values
  // Snappy declaring 2^32 bytes from 6.
  expectThrows<CorruptStreamError>("10 8080808010 00", decString, "snappy length");
  // Snappy of "05 61": a string of 5 bytes with 1 present.
  expectThrows<EndOfStreamError>("10 02 04 0561", decString, "string past the payload");
  // 11 11111 111111: 31 leading zeros and 63 meaningful bits.
  expectThrows<CorruptStreamError>("10 0000000000000000 FFF8", decFloat, "lz + sig > 64");
  expectThrows<EndOfStreamError>("10 0000000000000000 00", decFloat, "no terminator");
}

TEST(TsmMalformed, TrailingBytes) {
  expectThrows<CorruptStreamError>("20 0000000000000000 02 02 00", decInt, "after RLE");
  expectThrows<CorruptStreamError>("29 0000000000000000 01 03 00", decTime, "after RLE");
  expectThrows<CorruptStreamError>("2C 0000000000000000 01 00", decTime, "RLE of 0 values");
  expectThrows<CorruptStreamError>("10 7FF8000000000001 00", decFloat, "after empty");
  expectThrows<CorruptStreamError>("10 3FF0000000000000 C3FC0080000000000010 00", decFloat,
                                   "after terminator");
  expectThrows<CorruptStreamError>("10 3FF0000000000000 C3FC0080000000000011", decFloat,
                                   "padding bit");
  expectThrows<CorruptStreamError>("10 03 A0 00", decBool, "after the bits");
}

TEST(TsmLimits, MaxValuesBoundsEveryDecoder) {
  std::vector<double> f;
  Bytes block;
  std::vector<double> three = {1.0, 2.0, 3.0};
  encodeFloatArray(three, block);
  EXPECT_THROW(decodeFloatArray(block, f, 2), LimitExceededError);
  decodeFloatArray(block, f, 3);
  EXPECT_EQ(f, three);
  std::vector<bool> b;
  EXPECT_THROW(decodeBooleanArray(hexBytes("10 0A FFC0"), b, 9), LimitExceededError);
  std::vector<std::string> s, two = {"a", "bc"};
  encodeStringArray(two, block);
  EXPECT_THROW(decodeStringArray(block, s, 1), LimitExceededError);
  std::vector<int64_t> i;
  // Uncompressed, 2 values; simple8b, 1 + 240 values.
  EXPECT_THROW(decodeIntegerArray(hexBytes("00 0000000000000000 0000000000000002"), i, 1),
               LimitExceededError);
  EXPECT_THROW(decodeIntegerArray(hexBytes("10 0000000000000000 0000000000000000"), i, 240),
               LimitExceededError);
}

TEST(TsmLimits, OutIsReplacedWhateverItHeld) {
  // Decoders reuse the storage of `out`; a longer or shorter `out` must end as
  // exactly the block's values.
  std::mt19937_64 rng(7);
  for (size_t held : {0, 1, 999, 1000, 5000}) {
    SCOPED_TRACE(held);
    std::vector<int64_t> ints = randomIntsForReuse(rng);
    Bytes block;
    std::vector<int64_t> out(held, -1);
    encodeIntegerArray(ints, block);
    decodeIntegerArray(block, out);
    EXPECT_EQ(out, ints);
    out.assign(held, -1);
    encodeTimeArray(ints, block);
    decodeTimeArray(block, out);
    EXPECT_EQ(out, ints);
    std::vector<double> f(ints.size()), fout(held, 9.5);
    for (size_t k = 0; k < ints.size(); ++k) f[k] = double(ints[k] % 1000) / 8;
    encodeFloatArray(f, block);
    decodeFloatArray(block, fout);
    EXPECT_EQ(fout, f);
    std::vector<bool> bools(ints.size()), bout(held, true);
    for (size_t k = 0; k < ints.size(); ++k) bools[k] = ints[k] & 1;
    encodeBooleanArray(bools, block);
    decodeBooleanArray(block, bout);
    EXPECT_EQ(bout, bools);
    // The empty blocks clear it.
    out.assign(held, -1);
    decodeIntegerArray(Bytes{}, out);
    EXPECT_TRUE(out.empty());
    fout.assign(held, 9.5);
    decodeFloatArray(hexBytes("10 7FF8000000000001"), fout);
    EXPECT_TRUE(fout.empty());
  }
}

// ---- randomized round trips ---------------------------------------------

std::vector<int64_t> randomInts(std::mt19937_64& rng, size_t n) {
  std::vector<int64_t> v(n);
  int64_t x = int64_t(rng());
  switch (rng() % 6) {
    case 0:
      for (auto& e : v) e = int64_t(rng());
      break;
    case 1:
      for (auto& e : v) e = x += rng() % 10;
      break;
    case 2:
      for (auto& e : v) e = x;
      break;
    case 3: {
      int64_t unit = 1;
      for (int k = rng() % 13; k > 0; --k) unit *= 10;
      for (auto& e : v) e = x += unit * int64_t(1 + rng() % 3);
      break;
    }
    case 4:
      for (auto& e : v) e = int64_t(rng() >> (rng() % 64));
      break;
    default:
      for (auto& e : v) e = x += rng() % 4 == 0 ? 2 : 1;
      break;
  }
  return v;
}

TEST(TsmRoundTrip, Randomized) {
  std::mt19937_64 rng(testing::testSeed(20261201));
  Bytes block;
  for (int iter = 0; iter < 3000; ++iter) {
    size_t n = rng() % 3 == 0 ? rng() % 8 : rng() % 2000;
    std::vector<int64_t> ints = randomInts(rng, n);
    std::vector<int64_t> back;
    encodeIntegerArray(ints, block);
    decodeIntegerArray(block, back);
    ASSERT_EQ(back, ints) << "integers, block " << toHex(block);
    encodeTimeArray(ints, block);
    decodeTimeArray(block, back);
    ASSERT_EQ(back, ints) << "timestamps, block " << toHex(block);
    std::vector<uint64_t> u(ints.begin(), ints.end()), uback;
    encodeUnsignedArray(u, block);
    decodeUnsignedArray(block, uback);
    ASSERT_EQ(uback, u);

    std::vector<double> f(n);
    double walk = double(rng() % 1000);
    int shape = rng() % 4;
    for (auto& e : f) {
      if (shape == 0) {
        do e = fromBits(rng());
        while (std::isnan(e));
      } else if (shape == 1) {
        e = walk += double(int(rng() % 21) - 10) / 4;
      } else if (shape == 2) {
        const double specials[] = {0.0, -0.0, INFINITY, -INFINITY, 1.0, 5e-324};
        e = specials[rng() % 6];
      } else {
        e = double(rng() % 4);
      }
    }
    std::vector<double> fback;
    encodeFloatArray(f, block);
    decodeFloatArray(block, fback);
    ASSERT_EQ(fback.size(), f.size());
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(bitsOf(fback[i]), bitsOf(f[i])) << i;

    std::vector<bool> b(n), bback;
    for (size_t i = 0; i < n; ++i) b[i] = rng() & 1;
    encodeBooleanArray(b, block);
    decodeBooleanArray(block, bback);
    ASSERT_EQ(bback, b);

    if (iter % 10 == 0) {
      std::vector<std::string> s(n % 300), sback;
      for (auto& e : s) e = std::string(rng() % 40, char('a' + rng() % 3));
      encodeStringArray(s, block);
      decodeStringArray(block, sback);
      ASSERT_EQ(sback, s);
    }
  }
}

}  // namespace
}  // namespace wirestream::tsm
