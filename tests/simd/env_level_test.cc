// WIRESTREAM_SIMD is read on first use: BUILD runs this test once per value
// with `env`, and it checks the active level before anything else sets it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "simd/simd.h"

namespace wirestream::simd {
namespace {

TEST(EnvironmentLevel, FirstUseHonoursWirestreamSimd) {
  const char* env = std::getenv("WIRESTREAM_SIMD");
  ASSERT_NE(env, nullptr) << "run through Bazel, which sets WIRESTREAM_SIMD";
  std::optional<Level> want = parseLevel(env);
  Level expected = want && cpuSupports(*want) ? *want : detectedLevel();
  EXPECT_EQ(activeLevel(), expected) << "WIRESTREAM_SIMD=" << env;
  EXPECT_EQ(kernels().level, expected);
  // The API still overrides the environment afterwards.
  EXPECT_EQ(setLevel(Level::kScalar), Level::kScalar);
  EXPECT_EQ(activeLevel(), Level::kScalar);
}

}  // namespace
}  // namespace wirestream::simd
