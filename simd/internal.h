// Internal to //simd: the scalar kernel table, the shuffle tables, and the per-value
// helpers (on codec/varint.h) every level falls back to.
//
// The vector levels live in hwy_kernels.cc, which Highway compiles once per target
// inside that target's attribute region. Anything it shares with other units must not
// be an inline function with external linkage (the linker could keep the copy compiled
// for AVX2 and run it on a CPU without it), so the helpers below are `static inline`;
// this header is included before any target region opens, so they are baseline code.
//
// //simd sits below //stream; the per-value varints come from //codec, which both
// use, so a kernel's fallback decodes exactly what StreamInput does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "codec/value_rules.h"
#include "codec/varint.h"
#include "simd/simd.h"

namespace wirestream::simd::internal {

extern const Kernels kScalarKernels;
// The scalar varint loops, which the neon level reuses (simd/hwy_varint.inc says why).
uint8_t* encodeVIntsScalar(const int32_t* in, size_t n, uint8_t* dst);
uint8_t* encodeVLongsScalar(const int64_t* in, size_t n, uint8_t* dst);
DecodeBatch decodeVIntsScalar(const uint8_t* p, const uint8_t* limit, int32_t* out, size_t n);
DecodeBatch decodeVLongsScalar(const uint8_t* p, const uint8_t* limit, int64_t* out, size_t n);

// Defined by hwy_kernels.cc on x86 and aarch64 only (dispatch.cc calls them only
// there). highwayKernels: the table of the Highway target HWY_DYNAMIC_DISPATCH picks
// for this CPU, nullptr when that target is no level of ours (Highway's baseline).
// highwayKernelsFor: a level's table whatever the CPU, nullptr when this build has no
// target for it.
const Kernels* highwayKernels();
const Kernels* highwayKernelsFor(Level level);

// VInt decode shuffles for four values in a 16-byte window, indexed by
// (L0-1) + 5 (L1-1) + 25 (L2-1) + 125 (L3-1), each length 1..5. `lo` gathers
// the first min(L, 4) bytes of value i into 32-bit lane i (zero-filled); `hi`
// puts the 5th byte (L == 5) into byte 3 of lane i.
struct VIntShuffle {
  alignas(16) uint8_t lo[16];
  alignas(16) uint8_t hi[16];
};
struct VIntShuffleTable {
  VIntShuffle e[625];
};
extern const VIntShuffleTable kVIntShuffles;

// VLong decode shuffles for two values (each 1..8 bytes) in a 16-byte window,
// indexed by (L0-1) * 8 + (L1-1): value i's bytes into 64-bit lane i.
struct VLongShuffle {
  alignas(16) uint8_t lanes[16];
};
struct VLongShuffleTable {
  VLongShuffle e[64];
};
extern const VLongShuffleTable kVLongShuffles;

// The per-value codec (codec/varint.h) every kernel falls back to. Its inline functions
// are defined outside any target region, so a copy the linker keeps is baseline code.
static inline uint8_t* encodeVIntOne(uint8_t* dst, uint32_t v) {
  return codec::encodeVarint32(dst, v);
}
static inline uint8_t* encodeVLongOne(uint8_t* dst, uint64_t v) {
  return codec::encodeVarint64(dst, v);
}
static inline const uint8_t* tryDecodeVInt(const uint8_t* p, const uint8_t* limit, int32_t* out) {
  return codec::decodeVInt(p, limit, out);
}
static inline const uint8_t* tryDecodeVLong(const uint8_t* p, const uint8_t* limit, int64_t* out) {
  uint64_t v;
  const uint8_t* next = codec::decodeVarint64(p, limit, &v);
  if (next != nullptr) *out = static_cast<int64_t>(v);
  return next;
}

// Per-value tails shared by the vector kernels.
static inline DecodeBatch decodeVIntsTail(const uint8_t* p, const uint8_t* limit, int32_t* out,
                                          size_t n, size_t done) {
  for (; done < n; ++done) {
    const uint8_t* next = tryDecodeVInt(p, limit, out + done);
    if (next == nullptr) break;
    p = next;
  }
  return {done, p};
}

static inline DecodeBatch decodeVLongsTail(const uint8_t* p, const uint8_t* limit, int64_t* out,
                                           size_t n, size_t done) {
  for (; done < n; ++done) {
    const uint8_t* next = tryDecodeVLong(p, limit, out + done);
    if (next == nullptr) break;
    p = next;
  }
  return {done, p};
}

static inline size_t asciiPrefixTail(const uint8_t* p, size_t n, size_t i) {
  while (i < n && p[i] < 0x80) ++i;
  return i;
}

static inline size_t utf16LengthTail(const uint8_t* p, size_t n, size_t i) {
  size_t units = 0;
  for (; i < n; ++i) units += ((p[i] & 0xC0) != 0x80) + (p[i] >= 0xF0);
  return units;
}

using codec::canonicalDoubleBits;
using codec::canonicalFloatBits;

// Scalar ByteStreamSplit over values [from, n): the reference the vector
// kernels are tested against, and their tail.
static inline void splitEncodeFloatsTail(const float* in, size_t n, uint8_t* out, size_t from) {
  for (size_t i = from; i < n; ++i) {
    uint32_t bits = canonicalFloatBits(in[i]);
    for (int k = 0; k < 4; ++k) out[k * n + i] = static_cast<uint8_t>(bits >> (24 - 8 * k));
  }
}

static inline void splitDecodeFloatsTail(const uint8_t* in, size_t n, float* out, size_t from) {
  for (size_t i = from; i < n; ++i) {
    uint32_t bits = 0;
    for (int k = 0; k < 4; ++k) bits = (bits << 8) | in[k * n + i];
    std::memcpy(out + i, &bits, 4);
  }
}

static inline void splitEncodeDoublesTail(const double* in, size_t n, uint8_t* out, size_t from) {
  for (size_t i = from; i < n; ++i) {
    uint64_t bits = canonicalDoubleBits(in[i]);
    for (int k = 0; k < 8; ++k) out[k * n + i] = static_cast<uint8_t>(bits >> (56 - 8 * k));
  }
}

static inline void splitDecodeDoublesTail(const uint8_t* in, size_t n, double* out, size_t from) {
  for (size_t i = from; i < n; ++i) {
    uint64_t bits = 0;
    for (int k = 0; k < 8; ++k) bits = (bits << 8) | in[k * n + i];
    std::memcpy(out + i, &bits, 8);
  }
}

}  // namespace wirestream::simd::internal
