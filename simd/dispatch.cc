// CPU detection and the choice of kernel table: detected once, overridable by
// WIRESTREAM_SIMD (read on first use) and by setLevel().
#include <hwy/detect_compiler_arch.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <mutex>
#include <stdexcept>
#include <string>

#include "simd/internal.h"

namespace wirestream::simd {

namespace {

#if HWY_ARCH_X86 || HWY_ARCH_ARM_A64
// Each vector level is a Highway target (hwy_kernels.cc); Highway's CPU detection
// (the one HWY_DYNAMIC_DISPATCH uses, including the OS check for YMM/ZMM state) picks
// the best compiled target, whose table names its level. Highway's targets are a
// ladder (AVX3_DL requires AVX2's features, AVX2 SSE4's), so are ours.
Level detect() {
  const Kernels* best = internal::highwayKernels();
  if (best == nullptr) return Level::kScalar;
#if HWY_ARCH_X86
  // Some Highway releases leave VBMI (vpermb, which the avx512 ByteStreamSplit runs)
  // out of AVX3_DL's runtime check; every CPU with VBMI2 has it, but check anyway.
  if (best->level == Level::kAvx512) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512vbmi")) return Level::kAvx2;
  }
#endif
  return best->level;
}
#else
// Other architectures run the scalar level.
Level detect() { return Level::kScalar; }
#endif

#if HWY_ARCH_X86
constexpr Level kLadder[] = {Level::kScalar, Level::kSse4, Level::kAvx2, Level::kAvx512};
#elif HWY_ARCH_ARM_A64
constexpr Level kLadder[] = {Level::kScalar, Level::kNeon};
#else
constexpr Level kLadder[] = {Level::kScalar};
#endif

// A level's step on this architecture's ladder; -1 for another architecture's.
int rank(Level level) {
  for (size_t i = 0; i < std::size(kLadder); ++i) {
    if (kLadder[i] == level) return static_cast<int>(i);
  }
  return -1;
}

// A level's table; callers have checked that the CPU runs it.
const Kernels& table(Level level) {
#if HWY_ARCH_X86 || HWY_ARCH_ARM_A64
  if (level != Level::kScalar) {
    if (const Kernels* k = internal::highwayKernelsFor(level)) return *k;
  }
#endif
  return internal::kScalarKernels;
}

std::atomic<const Kernels*> g_active{nullptr};
// The testing cap as a rank on the ladder.
std::atomic<int> g_cap{static_cast<int>(std::size(kLadder)) - 1};
std::atomic<bool> g_warned{false};

void warnOnce(const std::string& message) {
  if (!g_warned.exchange(true)) std::fprintf(stderr, "wirestream: %s\n", message.c_str());
}

// The level to use for a request: the request if the CPU has it, else the best
// level it has (with the one-time warning).
Level resolve(std::optional<Level> want) {
  Level best = detectedLevel();
  if (!want) return best;
  if (cpuSupports(*want)) return *want;
  warnOnce(std::string("SIMD level ") + levelName(*want) + " is not supported by this CPU; using " +
           levelName(best));
  return best;
}

const Kernels& initFromEnvironment() {
  std::optional<Level> want;
  if (const char* env = std::getenv("WIRESTREAM_SIMD")) {
    std::string_view name(env);
    want = parseLevel(name);
    if (!want && name != "auto" && !name.empty()) {
      warnOnce("unknown WIRESTREAM_SIMD=" + std::string(name) +
               " (expected scalar, sse4, avx2, avx512, neon or auto); using auto");
    }
  }
  const Kernels* chosen = &table(resolve(want));
  const Kernels* expected = nullptr;
  // A concurrent setLevel() wins over the environment.
  if (!g_active.compare_exchange_strong(expected, chosen)) return *expected;
  return *chosen;
}

}  // namespace

const char* levelName(Level level) {
  switch (level) {
    case Level::kScalar:
      return "scalar";
    case Level::kSse4:
      return "sse4";
    case Level::kAvx2:
      return "avx2";
    case Level::kAvx512:
      return "avx512";
    case Level::kNeon:
      return "neon";
  }
  return "unknown";
}

std::optional<Level> parseLevel(std::string_view name) {
  for (Level level : kAllLevels) {
    if (name == levelName(level)) return level;
  }
  return std::nullopt;
}

Level detectedLevel() {
  static const Level level = detect();
  return kLadder[std::min(rank(level), g_cap.load())];
}

// A cap from another architecture's ladder caps nothing.
void capDetectedLevelForTesting(std::optional<Level> cap) {
  int r = cap ? rank(*cap) : -1;
  g_cap.store(r >= 0 ? r : static_cast<int>(std::size(kLadder)) - 1);
}

bool cpuSupports(Level level) {
  int r = rank(level);
  return r >= 0 && r <= rank(detectedLevel());
}

std::vector<Level> supportedLevels() {
  std::vector<Level> out;
  for (Level level : kAllLevels) {
    if (cpuSupports(level)) out.push_back(level);
  }
  return out;
}

const Kernels& kernels() {
  const Kernels* k = g_active.load(std::memory_order_acquire);
  if (k != nullptr) [[likely]]
    return *k;
  return initFromEnvironment();
}

Level activeLevel() { return kernels().level; }

Level setLevel(std::optional<Level> level) {
  const Kernels* k = &table(resolve(level));
  g_active.store(k, std::memory_order_release);
  return k->level;
}

const Kernels& kernelsFor(Level level) {
  if (!cpuSupports(level)) {
    throw std::invalid_argument(std::string("this CPU cannot run SIMD level ") + levelName(level));
  }
  return table(level);
}

}  // namespace wirestream::simd
