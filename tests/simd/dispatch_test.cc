// The level is detected once, forced through setLevel(), and the stream layer
// follows whatever is active.
#include <gtest/gtest.h>

#include "simd/simd.h"

namespace wirestream::simd {
namespace {

TEST(Dispatch, NamesParseBack) {
  for (Level level : kAllLevels) EXPECT_EQ(parseLevel(levelName(level)), level);
  EXPECT_EQ(parseLevel("auto"), std::nullopt);
  EXPECT_EQ(parseLevel("avx512"), Level::kAvx512);
  EXPECT_EQ(parseLevel("avx512vbmi2"), std::nullopt);
  EXPECT_EQ(parseLevel(""), std::nullopt);
}

TEST(Dispatch, DetectedLevelIsSupportedAndStable) {
  Level detected = detectedLevel();
  EXPECT_TRUE(cpuSupports(detected));
  EXPECT_TRUE(cpuSupports(Level::kScalar));
  EXPECT_EQ(detectedLevel(), detected);
  std::vector<Level> levels = supportedLevels();
  ASSERT_FALSE(levels.empty());
  EXPECT_EQ(levels.front(), Level::kScalar);
  EXPECT_EQ(levels.back(), detected);
  // This project's CI machines (Zen 3) have AVX2; say so if that changes.
  std::printf("detected SIMD level: %s\n", levelName(detected));
}

// The avx512 level runs only where the CPU (and OS) has it: the kernel tests
// iterate supportedLevels(), so on a CPU without it they never instantiate it,
// and this test says so instead of passing silently.
TEST(Dispatch, Avx512OnlyWhereTheCpuHasIt) {
  if (!cpuSupports(Level::kAvx512)) {
    EXPECT_THROW(kernelsFor(Level::kAvx512), std::invalid_argument);
    GTEST_SKIP() << "this CPU has no AVX-512 (F/BW/VL/VBMI with ZMM state "
                    "enabled): avx512 kernels not tested here";
  }
  EXPECT_EQ(detectedLevel(), Level::kAvx512);
  EXPECT_EQ(kernelsFor(Level::kAvx512).level, Level::kAvx512);
}

TEST(Dispatch, ForcedLevelIsHonoured) {
  for (Level level : supportedLevels()) {
    EXPECT_EQ(setLevel(level), level);
    EXPECT_EQ(activeLevel(), level);
    EXPECT_EQ(kernels().level, level);
    EXPECT_EQ(&kernels(), &kernelsFor(level));
  }
  EXPECT_EQ(setLevel(std::nullopt), detectedLevel());
  EXPECT_EQ(activeLevel(), detectedLevel());
}

TEST(Dispatch, EachLevelHasItsOwnKernels) {
  std::vector<Level> levels = supportedLevels();
  for (size_t a = 0; a < levels.size(); ++a) {
    EXPECT_EQ(kernelsFor(levels[a]).level, levels[a]);
    for (size_t b = a + 1; b < levels.size(); ++b) {
      // neon reuses the scalar varint loops (simd/hwy_varint.inc says why); avx512 shares
      // only avx2's text kernels, which this test does not compare.
      bool reused = levels[a] == Level::kScalar && levels[b] == Level::kNeon;
      if (!reused) {
        EXPECT_NE(kernelsFor(levels[a]).decodeVInts, kernelsFor(levels[b]).decodeVInts);
      }
      EXPECT_NE(kernelsFor(levels[a]).splitEncodeDoubles, kernelsFor(levels[b]).splitEncodeDoubles);
    }
  }
}

// On a CPU capped at scalar, every forced vector level falls back to scalar,
// and the warning is printed once for the whole process.
TEST(Dispatch, LevelTheCpuLacksFallsBackWithOneWarning) {
  capDetectedLevelForTesting(Level::kScalar);
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(setLevel(Level::kAvx2), Level::kScalar);
  EXPECT_EQ(activeLevel(), Level::kScalar);
  EXPECT_EQ(setLevel(Level::kAvx512), Level::kScalar);
  EXPECT_EQ(setLevel(Level::kSse4), Level::kScalar);
  EXPECT_THROW(kernelsFor(Level::kSse4), std::invalid_argument);
  std::string err = ::testing::internal::GetCapturedStderr();
  capDetectedLevelForTesting(std::nullopt);
  setLevel(std::nullopt);
  EXPECT_NE(err.find("SIMD level avx2 is not supported by this CPU; using scalar"),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find("sse4 is not supported"), std::string::npos) << "warned twice: " << err;
}

TEST(Dispatch, UnsupportedLevelIsRefusedByKernelsFor) {
  for (Level level : kAllLevels) {
    if (cpuSupports(level)) continue;
    EXPECT_THROW(kernelsFor(level), std::invalid_argument);
    EXPECT_EQ(setLevel(level), detectedLevel());  // falls back, warns once
  }
}

}  // namespace
}  // namespace wirestream::simd
