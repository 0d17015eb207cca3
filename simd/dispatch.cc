// CPU detection and the choice of kernel table: detected once, overridable by
// WIRESTREAM_SIMD (read on first use) and by setLevel().
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <mutex>
#include <stdexcept>
#include <string>

#include "simd/internal.h"

#if WIRESTREAM_SIMD_X86
#include <cpuid.h>
#endif

namespace wirestream::simd {

namespace {

#if WIRESTREAM_SIMD_X86
// Whether the OS saves the opmask and all 32 ZMM registers on a context switch
// (XCR0 bits 1, 2, 5, 6, 7); without it AVX-512 instructions fault even where
// CPUID lists them. XGETBV exists only where CPUID.1:ECX.OSXSAVE is set.
bool osSavesZmmState() {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & bit_OSXSAVE)) return false;
  unsigned xcr0_lo, xcr0_hi;
  __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  return (xcr0_lo & 0xE6) == 0xE6;
}

Level detect() {
  __builtin_cpu_init();
  // gcc's AVX2 bit includes the OS check (XGETBV: YMM state enabled).
  bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
              __builtin_cpu_supports("popcnt");
  if (avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vbmi") &&
      osSavesZmmState()) {
    return Level::kAvx512;
  }
  if (avx2) return Level::kAvx2;
  if (__builtin_cpu_supports("sse4.1") && __builtin_cpu_supports("ssse3") &&
      __builtin_cpu_supports("popcnt")) {
    return Level::kSse4;
  }
  return Level::kScalar;
}

constexpr Level kLadder[] = {Level::kScalar, Level::kSse4, Level::kAvx2, Level::kAvx512};
#elif WIRESTREAM_SIMD_ARM64
// Highway's dynamic dispatch picks its best target; only NEON is a level of ours.
Level detect() { return internal::highwayKernels() != nullptr ? Level::kNeon : Level::kScalar; }

constexpr Level kLadder[] = {Level::kScalar, Level::kNeon};
#else
// Other architectures run the scalar level.
Level detect() { return Level::kScalar; }

constexpr Level kLadder[] = {Level::kScalar};
#endif

// A level's step on this architecture's ladder; -1 for another architecture's.
int rank(Level level) {
  for (size_t i = 0; i < std::size(kLadder); ++i) {
    if (kLadder[i] == level) return static_cast<int>(i);
  }
  return -1;
}

const Kernels& table(Level level) {
  switch (level) {
#if WIRESTREAM_SIMD_X86
    case Level::kAvx512:
      return internal::kAvx512Kernels;
    case Level::kAvx2:
      return internal::kAvx2Kernels;
    case Level::kSse4:
      return internal::kSse4Kernels;
#elif WIRESTREAM_SIMD_ARM64
    case Level::kNeon:
      return *internal::highwayKernels();
#endif
    default:
      return internal::kScalarKernels;
  }
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
