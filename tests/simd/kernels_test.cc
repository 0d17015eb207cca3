// Every kernel at every level this CPU runs, against the per-value path of
// stream/ (varint.h, the scalar ByteStreamSplit loop, string_codec): random
// arrays of every length 0..257, at misaligned offsets, and malformed input.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "simd/simd.h"
#include "stream/varint.h"
#include "tests/stream/test_util.h"

namespace wirestream::simd {
namespace {

constexpr size_t kMaxLength = 257;
constexpr size_t kOffsets[] = {0, 1, 3, 7, 13};

// Values whose VInt widths are spread evenly over 1..5 bytes (5 = negative
// or >= 2^28), plus the band edges.
int32_t mixedVInt(std::mt19937_64& rng) {
  static const uint32_t edges[] = {0,           127,
                                   128,         16383,
                                   16384,       (1u << 21) - 1,
                                   1u << 21,    (1u << 28) - 1,
                                   1u << 28,    0x7fffffff,
                                   0x80000000u, 0xffffffffu};
  uint64_t r = rng();
  if (r % 8 == 0) return static_cast<int32_t>(edges[(r >> 8) % std::size(edges)]);
  int width = static_cast<int>((r >> 8) % 5);
  uint32_t bits = static_cast<uint32_t>(r >> 32);
  return static_cast<int32_t>(width == 4 ? bits : bits >> (32 - 7 * (width + 1)));
}

// Non-negative VLongs over 1..9 bytes; with `any_sign`, negatives too (10).
int64_t mixedVLong(std::mt19937_64& rng, bool any_sign = false) {
  uint64_t r = rng();
  int width = static_cast<int>(rng() % (any_sign ? 10 : 9));
  if (width == 9) return static_cast<int64_t>(r | (1ULL << 63));
  uint64_t v = r >> (64 - 7 * (width + 1));
  return static_cast<int64_t>(v & 0x7fffffffffffffffULL);
}

std::vector<uint8_t> referenceVInts(const std::vector<int32_t>& values) {
  std::vector<uint8_t> out(values.size() * kMaxVIntBytes);
  uint8_t* p = out.data();
  for (int32_t v : values) p = encodeVInt(p, static_cast<uint32_t>(v));
  out.resize(p - out.data());
  return out;
}

std::vector<uint8_t> referenceVLongs(const std::vector<int64_t>& values) {
  std::vector<uint8_t> out(values.size() * kMaxVLongBytes);
  uint8_t* p = out.data();
  for (int64_t v : values) p = encodeVLong(p, static_cast<uint64_t>(v));
  out.resize(p - out.data());
  return out;
}

class KernelsTest : public ::testing::TestWithParam<Level> {
 protected:
  const Kernels& k() { return kernelsFor(GetParam()); }
};

TEST_P(KernelsTest, EncodeVIntsMatchesPerValue) {
  std::mt19937_64 rng(testing::testSeed(6001));
  for (size_t n = 0; n <= kMaxLength; ++n) {
    for (size_t off : kOffsets) {
      std::vector<int32_t> storage(n + off);
      for (auto& v : storage) v = mixedVInt(rng);
      std::vector<int32_t> values(storage.begin() + off, storage.end());
      std::vector<uint8_t> expected = referenceVInts(values);
      // Exactly 5n bytes of room, with guard bytes after it that must survive.
      std::vector<uint8_t> dst(off + 5 * n + 16, 0xEE);
      uint8_t* end = k().encodeVInts(storage.data() + off, n, dst.data() + off);
      ASSERT_EQ(static_cast<size_t>(end - dst.data() - off), expected.size()) << n;
      ASSERT_EQ(std::vector<uint8_t>(dst.begin() + off, dst.begin() + off + expected.size()),
                expected)
          << "n=" << n << " offset=" << off;
      for (size_t g = off + 5 * n; g < dst.size(); ++g) ASSERT_EQ(dst[g], 0xEE) << n;
    }
  }
}

TEST_P(KernelsTest, EncodeVLongsMatchesPerValue) {
  std::mt19937_64 rng(testing::testSeed(6002));
  for (size_t n = 0; n <= kMaxLength; ++n) {
    for (size_t off : kOffsets) {
      std::vector<int64_t> storage(n + off);
      for (auto& v : storage) v = mixedVLong(rng, /*any_sign=*/true);
      std::vector<int64_t> values(storage.begin() + off, storage.end());
      std::vector<uint8_t> expected = referenceVLongs(values);
      std::vector<uint8_t> dst(off + 10 * n + 16, 0xEE);
      uint8_t* end = k().encodeVLongs(storage.data() + off, n, dst.data() + off);
      ASSERT_EQ(static_cast<size_t>(end - dst.data() - off), expected.size()) << n;
      ASSERT_EQ(std::vector<uint8_t>(dst.begin() + off, dst.begin() + off + expected.size()),
                expected)
          << "n=" << n << " offset=" << off;
      for (size_t g = off + 10 * n; g < dst.size(); ++g) ASSERT_EQ(dst[g], 0xEE) << n;
    }
  }
}

// Decoding exactly the encoded bytes (limit = their end, so any read past it
// would be caught by ASan) gives the values back and consumes everything.
TEST_P(KernelsTest, DecodeVIntsMatchesPerValue) {
  std::mt19937_64 rng(testing::testSeed(6003));
  for (size_t n = 0; n <= kMaxLength; ++n) {
    for (size_t off : kOffsets) {
      std::vector<int32_t> values(n);
      // Some arrays of small values only, to run the all-1-byte path.
      bool small = n % 3 == 0;
      for (auto& v : values) v = small ? static_cast<int32_t>(rng() % 128) : mixedVInt(rng);
      std::vector<uint8_t> bytes = referenceVInts(values);
      std::vector<uint8_t> storage(off + bytes.size());
      std::copy(bytes.begin(), bytes.end(), storage.begin() + off);
      const uint8_t* p = storage.data() + off;
      std::vector<int32_t> out(n + 1, 0x5a5a5a5a);
      DecodeBatch r = k().decodeVInts(p, p + bytes.size(), out.data(), n);
      ASSERT_EQ(r.count, n) << "offset " << off;
      ASSERT_EQ(r.next, p + bytes.size());
      out.pop_back();
      ASSERT_EQ(out, values) << "n=" << n << " offset=" << off;
    }
  }
}

TEST_P(KernelsTest, DecodeVLongsMatchesPerValue) {
  std::mt19937_64 rng(testing::testSeed(6004));
  for (size_t n = 0; n <= kMaxLength; ++n) {
    for (size_t off : kOffsets) {
      std::vector<int64_t> values(n);
      bool small = n % 3 == 0;
      for (auto& v : values) v = small ? static_cast<int64_t>(rng() % 128) : mixedVLong(rng, true);
      std::vector<uint8_t> bytes = referenceVLongs(values);
      std::vector<uint8_t> storage(off + bytes.size());
      std::copy(bytes.begin(), bytes.end(), storage.begin() + off);
      const uint8_t* p = storage.data() + off;
      std::vector<int64_t> out(n);
      DecodeBatch r = k().decodeVLongs(p, p + bytes.size(), out.data(), n);
      ASSERT_EQ(r.count, n) << "offset " << off;
      ASSERT_EQ(r.next, p + bytes.size());
      ASSERT_EQ(out, values) << "n=" << n << " offset=" << off;
    }
  }
}

// What the per-value path does on the same bytes: how many values it decodes
// before it throws (or n), and where it stands then.
template <typename T, typename Decode>
DecodeBatch perValue(const uint8_t* p, const uint8_t* limit, size_t n, std::vector<T>& out,
                     Decode decode) {
  size_t i = 0;
  try {
    for (; i < n; ++i) {
      auto r = decode(p, limit);
      out[i] = r.value;
      p = r.next;
    }
  } catch (const StreamError&) {
  }
  return {i, p};
}

// Random corruptions (flipped continuation bits, bad 5th/10th bytes, cut
// ends): the batch decoder stops exactly where the per-value decoder throws,
// with the same values before it.
TEST_P(KernelsTest, MalformedInputStopsWherePerValueThrows) {
  std::mt19937_64 rng(testing::testSeed(6005));
  for (int round = 0; round < 3000; ++round) {
    size_t n = rng() % 80 + 1;
    bool vlong = round % 2 == 1;
    std::vector<int32_t> ints(n);
    std::vector<int64_t> longs(n);
    for (size_t i = 0; i < n; ++i) {
      ints[i] = mixedVInt(rng);
      longs[i] = mixedVLong(rng, true);
    }
    std::vector<uint8_t> bytes = vlong ? referenceVLongs(longs) : referenceVInts(ints);
    int mutations = static_cast<int>(rng() % 3) + 1;
    for (int m = 0; m < mutations; ++m) {
      size_t at = rng() % bytes.size();
      switch (rng() % 4) {
        case 0:
          bytes[at] |= 0x80;
          break;  // runs on
        case 1:
          bytes[at] = static_cast<uint8_t>(rng() | 0x80);
          break;
        case 2:
          bytes[at] = 0xFF;
          break;
        default:
          bytes.resize(at);
          break;  // cut
      }
      if (bytes.empty()) break;
    }
    std::vector<uint8_t> storage(bytes);  // exact size: reads past it are caught by ASan
    const uint8_t* p = storage.data();
    const uint8_t* limit = p + storage.size();
    if (vlong) {
      std::vector<int64_t> want(n), got(n);
      DecodeBatch expected = perValue<int64_t>(p, limit, n, want, decodeVLong);
      DecodeBatch r = k().decodeVLongs(p, limit, got.data(), n);
      ASSERT_EQ(r.count, expected.count) << "round " << round;
      ASSERT_EQ(r.next, expected.next) << "round " << round;
      for (size_t i = 0; i < r.count; ++i) ASSERT_EQ(got[i], want[i]) << round;
    } else {
      std::vector<int32_t> want(n), got(n);
      DecodeBatch expected = perValue<int32_t>(p, limit, n, want, decodeVInt);
      DecodeBatch r = k().decodeVInts(p, limit, got.data(), n);
      ASSERT_EQ(r.count, expected.count) << "round " << round;
      ASSERT_EQ(r.next, expected.next) << "round " << round;
      for (size_t i = 0; i < r.count; ++i) ASSERT_EQ(got[i], want[i]) << round;
    }
  }
}

// A 5th VInt byte with a high bit set, inside a window the vector path takes.
TEST_P(KernelsTest, InvalidFifthByteStopsBeforeIt) {
  for (size_t pos = 0; pos < 12; ++pos) {
    std::vector<uint8_t> bytes(64, 0x01);
    bytes[pos] = 0xFF;
    bytes[pos + 1] = 0xFF;
    bytes[pos + 2] = 0xFF;
    bytes[pos + 3] = 0xFF;
    bytes[pos + 4] = 0x10;  // bit 4 of the 5th byte
    std::vector<int32_t> out(40);
    DecodeBatch r = k().decodeVInts(bytes.data(), bytes.data() + bytes.size(), out.data(), 40);
    EXPECT_EQ(r.count, pos);
    EXPECT_EQ(r.next, bytes.data() + pos);
    EXPECT_THROW((void)decodeVInt(r.next, bytes.data() + bytes.size()), CorruptStreamError);
  }
}

TEST_P(KernelsTest, OverlongButValidEncodingsDecodeLikePerValue) {
  // 0 as 80 80 80 80 00 and 1 as 81 00: the per-value path accepts both.
  std::vector<uint8_t> bytes;
  for (int i = 0; i < 20; ++i) {
    bytes.insert(bytes.end(), {0x80, 0x80, 0x80, 0x80, 0x00, 0x81, 0x00});
  }
  std::vector<int32_t> out(40);
  DecodeBatch r = k().decodeVInts(bytes.data(), bytes.data() + bytes.size(), out.data(), 40);
  ASSERT_EQ(r.count, 40u);
  for (int i = 0; i < 40; ++i) EXPECT_EQ(out[i], i % 2) << i;
}

TEST_P(KernelsTest, AsciiPrefixAndUtf16Length) {
  std::mt19937_64 rng(testing::testSeed(6006));
  const char* samples[] = {"a", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80"};
  for (size_t n = 0; n <= kMaxLength; ++n) {
    for (size_t off : kOffsets) {
      // ASCII, then (sometimes) one non-ASCII byte at a random place.
      std::vector<uint8_t> s(off + n);
      for (auto& c : s) c = static_cast<uint8_t>(rng() % 128);
      size_t first = n;
      if (n > 0 && rng() % 4 != 0) {
        first = rng() % n;
        s[off + first] = static_cast<uint8_t>(0x80 | rng());
      }
      EXPECT_EQ(k().asciiPrefixLength(s.data() + off, n), first) << n << " " << off;
      // Valid UTF-8 of mixed widths: units from the reference loop.
      std::string text;
      size_t units = 0;
      while (text.size() < n) {
        int which = static_cast<int>(rng() % 4);
        text += samples[which];
        units += which == 3 ? 2 : 1;
      }
      std::string padded = std::string(off, 'x') + text;
      EXPECT_EQ(k().utf16Length(reinterpret_cast<const uint8_t*>(padded.data()) + off, text.size()),
                units);
    }
  }
}

std::vector<uint8_t> referenceSplit(const std::vector<double>& values) {
  size_t n = values.size();
  std::vector<uint8_t> out(8 * n);
  for (size_t i = 0; i < n; ++i) {
    uint64_t bits =
        std::isnan(values[i]) ? 0x7ff8000000000000ULL : std::bit_cast<uint64_t>(values[i]);
    for (int k = 0; k < 8; ++k) out[k * n + i] = static_cast<uint8_t>(bits >> (56 - 8 * k));
  }
  return out;
}

std::vector<uint8_t> referenceSplit(const std::vector<float>& values) {
  size_t n = values.size();
  std::vector<uint8_t> out(4 * n);
  for (size_t i = 0; i < n; ++i) {
    uint32_t bits = std::isnan(values[i]) ? 0x7fc00000u : std::bit_cast<uint32_t>(values[i]);
    for (int k = 0; k < 4; ++k) out[k * n + i] = static_cast<uint8_t>(bits >> (24 - 8 * k));
  }
  return out;
}

template <typename T>
T randomFloating(std::mt19937_64& rng) {
  switch (rng() % 8) {
    case 0:
      return std::numeric_limits<T>::quiet_NaN();
    case 1:
      return -std::numeric_limits<T>::infinity();
    default: {
      using Bits = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
      return std::bit_cast<T>(static_cast<Bits>(rng()));  // includes NaN payloads
    }
  }
}

template <typename T>
bool sameBits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

TEST_P(KernelsTest, ByteStreamSplitDoubles) {
  std::mt19937_64 rng(testing::testSeed(6007));
  for (size_t n = 0; n <= kMaxLength; ++n) {
    for (size_t off : kOffsets) {
      std::vector<double> storage(off + n);
      for (auto& v : storage) v = randomFloating<double>(rng);
      std::vector<double> values(storage.begin() + off, storage.end());
      std::vector<uint8_t> expected = referenceSplit(values);
      std::vector<uint8_t> enc(off + 8 * n + 16, 0xEE);
      k().splitEncodeDoubles(storage.data() + off, n, enc.data() + off);
      ASSERT_EQ(std::vector<uint8_t>(enc.begin() + off, enc.begin() + off + 8 * n), expected)
          << "n=" << n << " offset=" << off;
      for (size_t g = off + 8 * n; g < enc.size(); ++g) ASSERT_EQ(enc[g], 0xEE);
      std::vector<double> dec(off + n);
      k().splitDecodeDoubles(enc.data() + off, n, dec.data() + off);
      // Decoding gives the canonical bits back: equal to re-decoding the
      // reference.
      std::vector<double> want(n);
      for (size_t i = 0; i < n; ++i) {
        want[i] = std::isnan(values[i]) ? std::bit_cast<double>(0x7ff8000000000000ULL) : values[i];
      }
      ASSERT_TRUE(sameBits(std::vector<double>(dec.begin() + off, dec.end()), want)) << n;
    }
  }
}

TEST_P(KernelsTest, ByteStreamSplitFloats) {
  std::mt19937_64 rng(testing::testSeed(6008));
  for (size_t n = 0; n <= kMaxLength; ++n) {
    for (size_t off : kOffsets) {
      std::vector<float> storage(off + n);
      for (auto& v : storage) v = randomFloating<float>(rng);
      std::vector<float> values(storage.begin() + off, storage.end());
      std::vector<uint8_t> expected = referenceSplit(values);
      std::vector<uint8_t> enc(off + 4 * n + 16, 0xEE);
      k().splitEncodeFloats(storage.data() + off, n, enc.data() + off);
      ASSERT_EQ(std::vector<uint8_t>(enc.begin() + off, enc.begin() + off + 4 * n), expected)
          << "n=" << n << " offset=" << off;
      for (size_t g = off + 4 * n; g < enc.size(); ++g) ASSERT_EQ(enc[g], 0xEE);
      std::vector<float> dec(off + n);
      k().splitDecodeFloats(enc.data() + off, n, dec.data() + off);
      std::vector<float> want(n);
      for (size_t i = 0; i < n; ++i) {
        want[i] = std::isnan(values[i]) ? std::bit_cast<float>(0x7fc00000u) : values[i];
      }
      ASSERT_TRUE(sameBits(std::vector<float>(dec.begin() + off, dec.end()), want)) << n;
    }
  }
}

// Decoding is a pure transposition: arbitrary bytes (NaN payloads included)
// come back unchanged through decode then encode... except NaNs, which encode
// canonicalises; so check decode against the reference byte loop instead.
TEST_P(KernelsTest, ByteStreamSplitDecodeKeepsEveryBit) {
  std::mt19937_64 rng(testing::testSeed(6009));
  for (size_t n : {1u, 15u, 16u, 17u, 31u, 32u, 33u, 63u, 64u, 65u, 100u, 129u, 257u}) {
    std::vector<uint8_t> bytes(8 * n);
    for (auto& b : bytes) b = static_cast<uint8_t>(rng());
    std::vector<double> got(n);
    k().splitDecodeDoubles(bytes.data(), n, got.data());
    for (size_t i = 0; i < n; ++i) {
      uint64_t bits = 0;
      for (int kk = 0; kk < 8; ++kk) bits = (bits << 8) | bytes[kk * n + i];
      ASSERT_EQ(std::bit_cast<uint64_t>(got[i]), bits) << i;
    }
    std::vector<float> gotf(2 * n);
    k().splitDecodeFloats(bytes.data(), 2 * n, gotf.data());
    for (size_t i = 0; i < 2 * n; ++i) {
      uint32_t bits = 0;
      for (int kk = 0; kk < 4; ++kk) bits = (bits << 8) | bytes[kk * 2 * n + i];
      ASSERT_EQ(std::bit_cast<uint32_t>(gotf[i]), bits) << i;
    }
  }
}

std::string levelParamName(const ::testing::TestParamInfo<Level>& info) {
  return levelName(info.param);
}

INSTANTIATE_TEST_SUITE_P(AllLevels, KernelsTest, ::testing::ValuesIn(supportedLevels()),
                         levelParamName);

}  // namespace
}  // namespace wirestream::simd
