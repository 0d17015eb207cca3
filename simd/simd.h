// SIMD batch codecs over plain memory, with runtime CPU dispatch.
//
// Example (runs: simd):
//   const int32_t values[] = {1, 300, 70000};
//   uint8_t dst[5 * 3];                                 // room for 5 * n bytes
//   const simd::Kernels& k = simd::kernels();           // the active level's table
//   uint8_t* end = k.encodeVInts(values, 3, dst);       // 01 AC 02 F0 A2 04
//   int32_t out[3];
//   simd::DecodeBatch r = k.decodeVInts(dst, end, out, 3);
//   // r.count values decoded; if r.count < n, the value at r.next is malformed or runs
//   // past `limit`: decode it with the per-value path (stream/varint.h), which throws
//   // the typed error or crosses into the next chunk.
//
// Every kernel produces exactly the bytes (or values) of the per-value path in
// codec/varint.h and codec/cesu8.h; the wire format does not change.
// This package does not depend on //stream (so //stream can use it): decoders
// never throw, they stop before the first value they cannot prove valid and
// wholly inside [p, limit), and never read at or past `limit`.
//
// Levels: scalar (always); the vector levels are Highway targets of one source
// (hwy_kernels.cc), chosen by Highway's CPU detection: on x86 sse4 = HWY_SSE4
// (SSSE3, SSE4.1/4.2, CLMUL, AES), avx2 = HWY_AVX2 (adds AVX2, BMI1/2, FMA, F16C,
// LZCNT), avx512 = HWY_AVX3_DL (adds AVX-512 F/VL/DQ/BW, VBMI, VBMI2, VNNI, VAES,
// VPCLMULQDQ, VPOPCNTDQ, BITALG, with the OS saving ZMM state); on aarch64 neon =
// HWY_NEON. Each architecture's levels are a ladder: a CPU runs scalar and its
// levels up to the detected one.
// The CPU is detected once and cached.
// WIRESTREAM_SIMD=scalar|sse4|avx2|avx512|neon|auto, read on first use, forces a
// level; setLevel() does the same for tests and benchmarks. A forced level the
// CPU lacks (or another architecture's) falls back to the best level it has,
// with a one-time warning on stderr.
//
// Thread-safety: kernels are stateless; the active level is an atomic pointer,
// so setLevel() may race with users (each call sees one table or the other).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace wirestream::simd {

enum class Level : uint8_t { kScalar = 0, kSse4 = 1, kAvx2 = 2, kAvx512 = 3, kNeon = 4 };

inline constexpr Level kAllLevels[] = {Level::kScalar, Level::kSse4, Level::kAvx2, Level::kAvx512,
                                       Level::kNeon};

// "scalar", "sse4", "avx2", "avx512", "neon".
const char* levelName(Level level);
// Parses a WIRESTREAM_SIMD value; "auto" and unknown names give nullopt.
[[nodiscard]] std::optional<Level> parseLevel(std::string_view name);

// Outcome of a batch decode: `count` values written, `next` the first byte
// not consumed.
struct DecodeBatch {
  size_t count;
  const uint8_t* next;
};

// One level's kernels. Room and bounds contracts:
// - encodeVInts: LEB128 of each uint32 (writeVInt's bytes); dst has room for
//   5 * n bytes and nothing past dst + 5 * n is touched. Returns the end.
// - encodeVLongs: 64-bit LEB128 of each value as unsigned (writeVLongNoCheck's
//   bytes, 1..10 each); dst has room for 10 * n bytes.
// - decodeVInts / decodeVLongs: see the header comment; strict as wire format §4.
// - asciiPrefixLength: length of the run of bytes < 0x80 at the start of p[0..n).
// - utf16Length: UTF-16 units of valid UTF-8 (non-continuation bytes, plus one
//   more for each 4-byte lead); the input must already be validated.
// - splitEncode*: ByteStreamSplit, wirestream extension. out[k * n + i] is byte
//   k of the big-endian bits of value i (as writeFloat/writeDouble send them;
//   NaN canonicalised the same way). splitDecode* is the inverse (NaN kept).
struct Kernels {
  Level level;
  uint8_t* (*encodeVInts)(const int32_t* in, size_t n, uint8_t* dst);
  uint8_t* (*encodeVLongs)(const int64_t* in, size_t n, uint8_t* dst);
  DecodeBatch (*decodeVInts)(const uint8_t* p, const uint8_t* limit, int32_t* out, size_t n);
  DecodeBatch (*decodeVLongs)(const uint8_t* p, const uint8_t* limit, int64_t* out, size_t n);
  size_t (*asciiPrefixLength)(const uint8_t* p, size_t n);
  size_t (*utf16Length)(const uint8_t* p, size_t n);
  void (*splitEncodeFloats)(const float* in, size_t n, uint8_t* out);
  void (*splitDecodeFloats)(const uint8_t* in, size_t n, float* out);
  void (*splitEncodeDoubles)(const double* in, size_t n, uint8_t* out);
  void (*splitDecodeDoubles)(const uint8_t* in, size_t n, double* out);
};

// The best level this CPU runs (detected once).
Level detectedLevel();
bool cpuSupports(Level level);
// The levels this CPU runs, scalar first.
std::vector<Level> supportedLevels();

// The level in use: WIRESTREAM_SIMD (read on first use), setLevel(), or auto.
Level activeLevel();
// Forces `level` (nullopt: back to auto). A level the CPU lacks falls back to
// detectedLevel() with a one-time warning on stderr. Returns the level in use.
Level setLevel(std::optional<Level> level);

// The active level's kernels: hot paths call this once per array.
const Kernels& kernels();
// A given level's kernels, for tests and benchmarks. The CPU must support it
// (std::invalid_argument otherwise).
const Kernels& kernelsFor(Level level);

// Tests only: pretend the CPU stops at `cap` (nullopt: the real CPU), so the
// fallback of a forced level the CPU lacks can be tested on any machine.
void capDetectedLevelForTesting(std::optional<Level> cap);

}  // namespace wirestream::simd
