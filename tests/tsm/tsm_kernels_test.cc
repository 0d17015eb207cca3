// The vector kernels of //tsm against the scalar loops, at every target
// this CPU runs: random arrays for the delta kernels, random valid simple8b
// words (every selector, widest and narrowest values, runs) for the fused
// decoders. The blocks themselves are checked at every target by tsm_test.
#include "tsm/tsm_kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "codec/byte_order.h"
#include "tests/stream/test_util.h"
#include "tsm/internal.h"

namespace wirestream::tsm::internal {
namespace {

constexpr uint8_t kCount[16] = {240, 120, 60, 30, 20, 15, 12, 10, 8, 7, 6, 5, 4, 3, 2, 1};
constexpr uint8_t kBits[16] = {0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 20, 30, 60};

const Kernels& scalar() { return kernelTable(0); }

// Restores the default table after each test.
class TsmKernels : public ::testing::Test {
 protected:
  void TearDown() override { useKernels(nullptr); }
};

TEST_F(TsmKernels, ScalarFirstThenEveryTargetOnce) {
  ASSERT_GE(kernelTableCount(), 1u);
  EXPECT_EQ(std::string(scalar().name), "scalar");
  std::set<std::string> names;
  for (size_t i = 0; i < kernelTableCount(); ++i) {
    EXPECT_TRUE(names.insert(kernelTable(i).name).second) << kernelTable(i).name;
    std::printf("table %zu: %s\n", i, kernelTable(i).name);
  }
  // The default is Highway's pick, the best listed (or the scalar loops when
  // WIRESTREAM_SIMD=scalar).
  const char* env = std::getenv("WIRESTREAM_SIMD");
  const Kernels& expected = env != nullptr && std::string(env) == "scalar"
                                ? scalar()
                                : kernelTable(kernelTableCount() - 1);
  EXPECT_EQ(&kernels(), &expected) << kernels().name;
  useKernels(&scalar());
  EXPECT_EQ(&kernels(), &scalar());
}

std::vector<uint64_t> randomValues(std::mt19937_64& rng, size_t n) {
  std::vector<uint64_t> v(n);
  uint64_t x = rng();
  switch (rng() % 5) {
    case 0:
      for (auto& e : v) e = rng();
      break;
    case 1:
      for (auto& e : v) e = x += rng() % 10 - 4;  // up and down
      break;
    case 2:
      for (auto& e : v) e = x;
      break;
    case 3:
      for (auto& e : v) e = x += 1000;
      break;
    default:
      for (auto& e : v) e = rng() >> (rng() % 64);
      break;
  }
  if (n > 3 && rng() % 4 == 0) v[rng() % n] ^= uint64_t{1} << (rng() % 64);  // one outlier
  return v;
}

TEST_F(TsmKernels, DeltasMatchTheScalarLoops) {
  std::mt19937_64 rng(testing::testSeed(0x75a1de17a));
  for (int iter = 0; iter < 4000; ++iter) {
    size_t n = 1 + rng() % (iter % 4 == 0 ? 300 : 20);
    std::vector<uint64_t> v = randomValues(rng, n);
    std::vector<uint64_t> want_z(n), want_d(n);
    Deltas wz = scalar().zigZagDeltas(v.data(), n, want_z.data());
    Deltas wd = scalar().deltas(v.data(), n, want_d.data());
    for (size_t t = 1; t < kernelTableCount(); ++t) {
      const Kernels& k = kernelTable(t);
      std::vector<uint64_t> z(n), d(n);
      Deltas gz = k.zigZagDeltas(v.data(), n, z.data());
      Deltas gd = k.deltas(v.data(), n, d.data());
      ASSERT_EQ(z, want_z) << k.name << " n=" << n;
      ASSERT_EQ(d, want_d) << k.name << " n=" << n;
      ASSERT_EQ(gz.any_bits, wz.any_bits) << k.name;
      ASSERT_EQ(gz.equal, wz.equal) << k.name;
      ASSERT_EQ(gd.any_bits, wd.any_bits) << k.name;
      ASSERT_EQ(gd.equal, wd.equal) << k.name;
    }
  }
}

// Valid words (unused bits zero) of random selectors; mostly one selector in a
// row, as real blocks are.
std::vector<uint8_t> randomWords(std::mt19937_64& rng, size_t words, size_t& count) {
  std::vector<uint8_t> out(8 * words);
  count = 0;
  unsigned s = rng() % 16;
  for (size_t i = 0; i < words; ++i) {
    if (rng() % 4 == 0) s = rng() % 16;
    uint64_t w = uint64_t(s) << 60;
    if (s >= 2) {
      const uint64_t max = (uint64_t{1} << kBits[s]) - 1;
      for (int j = 0; j < kCount[s]; ++j) {
        uint64_t x = rng() % 3 == 0 ? max : rng() & max;
        w |= x << (j * kBits[s]);
      }
    }
    codec::storeBig64(out.data() + 8 * i, w);
    count += kCount[s];
  }
  return out;
}

TEST_F(TsmKernels, FusedDecodersMatchTheScalarLoops) {
  std::mt19937_64 rng(testing::testSeed(0x75a1dec0de));
  const uint64_t scales[] = {1, 10, 1000, 1000000000, 1000000000000, 0x9E3779B97F4A7C15};
  for (int iter = 0; iter < 3000; ++iter) {
    size_t count = 0;
    std::vector<uint8_t> words = randomWords(rng, rng() % (iter % 3 == 0 ? 200 : 12), count);
    const uint64_t sum = rng();
    const uint64_t scale = scales[rng() % std::size(scales)];
    std::vector<uint64_t> want_z(count), want_s(count);
    useKernels(&scalar());
    ASSERT_EQ(decodeZigZagSums(words, want_z.data(), count, sum), count);
    ASSERT_EQ(decodeScaledSums(words, want_s.data(), count, sum, scale), count);
    for (size_t t = 1; t < kernelTableCount(); ++t) {
      useKernels(&kernelTable(t));
      std::vector<uint64_t> z(count), s(count);
      ASSERT_EQ(decodeZigZagSums(words, z.data(), count, sum), count);
      ASSERT_EQ(decodeScaledSums(words, s.data(), count, sum, scale), count);
      ASSERT_EQ(z, want_z) << kernelTable(t).name << " words=" << words.size() / 8;
      ASSERT_EQ(s, want_s) << kernelTable(t).name << " scale=" << scale;
    }
  }
}

// Values for simple8b: runs of ones, runs of one width, mixed widths, the
// widest values of a selector, a single wide outlier.
std::vector<uint64_t> randomSimple8bValues(std::mt19937_64& rng, size_t n) {
  std::vector<uint64_t> v(n);
  size_t i = 0;
  while (i < n) {
    size_t run = std::min<size_t>(n - i, 1 + rng() % 300);
    int shape = rng() % 4;
    int bits = int(rng() % 61);
    for (size_t k = 0; k < run; ++k, ++i) {
      const uint64_t max = bits == 0 ? 0 : (~uint64_t{0} >> (64 - bits));
      switch (shape) {
        case 0:
          v[i] = 1;
          break;
        case 1:
          v[i] = rng() & max;
          break;
        case 2:
          v[i] = rng() % 3 == 0 ? max : rng() & max;
          break;
        default:
          v[i] = (rng() & 0xFFFFFFFFFFFFFFF) >> (rng() % 60);
          break;
      }
    }
  }
  return v;
}

TEST_F(TsmKernels, Simple8bEncodeMatchesTheScalarLoops) {
  std::mt19937_64 rng(testing::testSeed(0x75a1e4c0de));
  for (int iter = 0; iter < 3000; ++iter) {
    size_t n = iter % 3 == 0 ? rng() % 2000 : rng() % 70;
    std::vector<uint64_t> v = randomSimple8bValues(rng, n);
    std::vector<uint8_t> want(8 * n), got(8 * n);
    want.resize(scalar().simple8bEncode(v.data(), n, want.data()));
    for (size_t t = 1; t < kernelTableCount(); ++t) {
      got.assign(8 * n, 0);
      got.resize(kernelTable(t).simple8bEncode(v.data(), n, got.data()));
      ASSERT_EQ(got, want) << kernelTable(t).name << " n=" << n;
    }
    if (n > 0) {  // a value above 2^60 - 1 is a caller error at every target
      v[rng() % n] |= uint64_t{1} << (60 + rng() % 4);
      for (size_t t = 0; t < kernelTableCount(); ++t) {
        EXPECT_THROW(kernelTable(t).simple8bEncode(v.data(), n, got.data()), std::invalid_argument)
            << kernelTable(t).name;
      }
    }
  }
}

// RLE's sequences, every length around the vector widths and long ones, steps that
// wrap (negative, huge): the same values at every target, nothing stored past n.
TEST_F(TsmKernels, FillArithmeticMatchesTheScalarLoop) {
  std::mt19937_64 rng(testing::testSeed(0xf111a417));
  constexpr uint64_t kGuard = 0xA5A5A5A5A5A5A5A5;
  for (int iter = 0; iter < 2000; ++iter) {
    const size_t n = iter < 70 ? static_cast<size_t>(iter) : rng() % 3000;
    const uint64_t first = iter % 4 == 0 ? rng() : rng() % 1000;
    const uint64_t step = iter % 3 == 0 ? rng() : (rng() % 21) - 10;
    std::vector<uint64_t> want(n);
    for (size_t i = 0; i < n; ++i) want[i] = first + i * step;
    for (size_t t = 0; t < kernelTableCount(); ++t) {
      std::vector<uint64_t> got(n + 16, kGuard);
      kernelTable(t).fillArithmetic(got.data(), n, first, step);
      ASSERT_TRUE(std::equal(want.begin(), want.end(), got.begin()))
          << kernelTable(t).name << " n=" << n << " first=" << first << " step=" << step;
      for (size_t i = n; i < got.size(); ++i) {
        ASSERT_EQ(got[i], kGuard) << kernelTable(t).name << " wrote past n=" << n;
      }
    }
  }
}

// The kernels stop where a whole-vector store would pass the room, and never
// write past it: guard values after the room stay.
TEST_F(TsmKernels, NoStorePastTheRoom) {
  std::mt19937_64 rng(testing::testSeed(0x75a1900d));
  for (int iter = 0; iter < 2000; ++iter) {
    size_t count = 0;
    std::vector<uint8_t> words = randomWords(rng, 1 + rng() % 40, count);
    for (size_t t = 1; t < kernelTableCount(); ++t) {
      std::vector<uint64_t> out(count + 16, 0xA5A5A5A5A5A5A5A5);
      SumsCursor c{words.data(), words.data() + words.size(), out.data(), out.data() + count, 0};
      kernelTable(t).zigZagSums(c);
      ASSERT_LE(c.out, out.data() + count);
      for (size_t i = count; i < out.size(); ++i) {
        ASSERT_EQ(out[i], 0xA5A5A5A5A5A5A5A5) << kernelTable(t).name << " wrote past the room";
      }
    }
  }
}

}  // namespace
}  // namespace wirestream::tsm::internal
