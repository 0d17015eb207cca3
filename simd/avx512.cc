// The avx512 level (AVX-512 F + BW + VL + VBMI), x86 only.
//
// 512-bit registers pay off in ByteStreamSplit, one long stream of
// independent work: 64 values a step, VBMI's vpermb sorts each 64-byte register
// by stream in one instruction (no per-lane shuffle and 16-bit transpose as in
// avx2.cc), then a transpose of 128-bit lanes (floats) or 64-bit words
// (doubles) across the registers puts each stream's 64 bytes in one register.
// Everything else is avx2's kernel (declared in internal.h), because measured
// on the development CPU (bench/simd_bench.cc) the 512-bit versions were not
// faster everywhere: a 64-byte ASCII scan (first 32 bytes, 64 a step, masked
// tail) won 10% on pure ASCII but lost 20% on text with a non-ASCII letter
// every ~64 bytes (many short calls). The varint kernels are not widened:
// their cost is per-value length arithmetic, and the byte compaction that
// would help (vpcompressb) needs VBMI2, which that CPU lacks.
#include "simd/internal.h"

#if WIRESTREAM_SIMD_X86
#include <immintrin.h>

// Everything from here on is compiled for avx512f,avx512bw,avx512vl,avx512vbmi (the
// dispatcher calls it only on CPUs that have them).
HWY_PUSH_ATTRIBUTES("avx512f,avx512bw,avx512vl,avx512vbmi")
// gcc 12's own AVX-512 headers (`__m512i __Y = __Y;` in their undefined-vector
// helpers) trip this at -O1, as under --config=asan.
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace wirestream::simd::internal {

namespace {

// Byte indexes for vpermb. Float encode: output byte 16 k + i is stream k
// (big-endian byte k, little-endian byte 3 - k) of value i.
WIRESTREAM_SIMD_INLINE __m512i floatsToStreams() {
  alignas(64) uint8_t idx[64];
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 16; ++i) idx[16 * k + i] = 4 * i + (3 - k);
  return _mm512_load_si512(idx);
}

WIRESTREAM_SIMD_INLINE __m512i streamsToFloats() {
  alignas(64) uint8_t idx[64];
  for (int i = 0; i < 16; ++i)
    for (int b = 0; b < 4; ++b) idx[4 * i + b] = 16 * (3 - b) + i;
  return _mm512_load_si512(idx);
}

// Double encode: output byte 8 k + i is stream k of value i.
WIRESTREAM_SIMD_INLINE __m512i doublesToStreams() {
  alignas(64) uint8_t idx[64];
  for (int k = 0; k < 8; ++k)
    for (int i = 0; i < 8; ++i) idx[8 * k + i] = 8 * i + (7 - k);
  return _mm512_load_si512(idx);
}

WIRESTREAM_SIMD_INLINE __m512i streamsToDoubles() {
  alignas(64) uint8_t idx[64];
  for (int i = 0; i < 8; ++i)
    for (int b = 0; b < 8; ++b) idx[8 * i + b] = 8 * (7 - b) + i;
  return _mm512_load_si512(idx);
}

// r[j] lane k <-> r[k] lane j (lanes of 128 bits); its own inverse.
WIRESTREAM_SIMD_INLINE void transposeLanes4(__m512i r[4]) {
  __m512i t0 = _mm512_shuffle_i64x2(r[0], r[1], _MM_SHUFFLE(1, 0, 1, 0));
  __m512i t1 = _mm512_shuffle_i64x2(r[0], r[1], _MM_SHUFFLE(3, 2, 3, 2));
  __m512i t2 = _mm512_shuffle_i64x2(r[2], r[3], _MM_SHUFFLE(1, 0, 1, 0));
  __m512i t3 = _mm512_shuffle_i64x2(r[2], r[3], _MM_SHUFFLE(3, 2, 3, 2));
  r[0] = _mm512_shuffle_i64x2(t0, t2, _MM_SHUFFLE(2, 0, 2, 0));
  r[1] = _mm512_shuffle_i64x2(t0, t2, _MM_SHUFFLE(3, 1, 3, 1));
  r[2] = _mm512_shuffle_i64x2(t1, t3, _MM_SHUFFLE(2, 0, 2, 0));
  r[3] = _mm512_shuffle_i64x2(t1, t3, _MM_SHUFFLE(3, 1, 3, 1));
}

// r[j] word k <-> r[k] word j (64-bit words); its own inverse. Each stage
// pairs registers d apart and interleaves blocks of d words.
WIRESTREAM_SIMD_INLINE void transposeWords8(__m512i r[8]) {
  __m512i a[8];
#pragma GCC unroll 8
  for (int j = 0; j < 8; j += 2) {
    a[j] = _mm512_unpacklo_epi64(r[j], r[j + 1]);
    a[j + 1] = _mm512_unpackhi_epi64(r[j], r[j + 1]);
  }
  const __m512i lo2 = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);
  const __m512i hi2 = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
#pragma GCC unroll 8
  for (int j : {0, 1, 4, 5}) {
    r[j] = _mm512_permutex2var_epi64(a[j], lo2, a[j + 2]);
    r[j + 2] = _mm512_permutex2var_epi64(a[j], hi2, a[j + 2]);
  }
  const __m512i lo4 = _mm512_setr_epi64(0, 1, 2, 3, 8, 9, 10, 11);
  const __m512i hi4 = _mm512_setr_epi64(4, 5, 6, 7, 12, 13, 14, 15);
#pragma GCC unroll 8
  for (int j = 0; j < 4; ++j) {
    a[j] = _mm512_permutex2var_epi64(r[j], lo4, r[j + 4]);
    a[j + 4] = _mm512_permutex2var_epi64(r[j], hi4, r[j + 4]);
  }
#pragma GCC unroll 8
  for (int j = 0; j < 8; ++j) r[j] = a[j];
}

void splitEncodeFloatsAvx512(const float* in, size_t n, uint8_t* out) {
  const __m512i idx = floatsToStreams();
  const __m512 nan = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fc00000));
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    __m512i r[4];
#pragma GCC unroll 8
    for (int j = 0; j < 4; ++j) {
      __m512 f = _mm512_loadu_ps(in + i + 16 * j);
      f = _mm512_mask_mov_ps(f, _mm512_cmp_ps_mask(f, f, _CMP_UNORD_Q), nan);
      r[j] = _mm512_permutexvar_epi8(idx, _mm512_castps_si512(f));
    }
    transposeLanes4(r);
#pragma GCC unroll 8
    for (int k = 0; k < 4; ++k) _mm512_storeu_si512(out + k * n + i, r[k]);
  }
  splitEncodeFloatsTail(in, n, out, i);
}

void splitDecodeFloatsAvx512(const uint8_t* in, size_t n, float* out) {
  const __m512i idx = streamsToFloats();
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    __m512i r[4];
#pragma GCC unroll 8
    for (int k = 0; k < 4; ++k) r[k] = _mm512_loadu_si512(in + k * n + i);
    transposeLanes4(r);
#pragma GCC unroll 8
    for (int j = 0; j < 4; ++j)
      _mm512_storeu_si512(out + i + 16 * j, _mm512_permutexvar_epi8(idx, r[j]));
  }
  splitDecodeFloatsTail(in, n, out, i);
}

void splitEncodeDoublesAvx512(const double* in, size_t n, uint8_t* out) {
  const __m512i idx = doublesToStreams();
  const __m512d nan = _mm512_castsi512_pd(_mm512_set1_epi64(0x7ff8000000000000LL));
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    __m512i r[8];
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) {
      __m512d d = _mm512_loadu_pd(in + i + 8 * j);
      d = _mm512_mask_mov_pd(d, _mm512_cmp_pd_mask(d, d, _CMP_UNORD_Q), nan);
      r[j] = _mm512_permutexvar_epi8(idx, _mm512_castpd_si512(d));
    }
    transposeWords8(r);
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) _mm512_storeu_si512(out + k * n + i, r[k]);
  }
  splitEncodeDoublesTail(in, n, out, i);
}

void splitDecodeDoublesAvx512(const uint8_t* in, size_t n, double* out) {
  const __m512i idx = streamsToDoubles();
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    __m512i r[8];
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) r[k] = _mm512_loadu_si512(in + k * n + i);
    transposeWords8(r);
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j)
      _mm512_storeu_si512(out + i + 8 * j, _mm512_permutexvar_epi8(idx, r[j]));
  }
  splitDecodeDoublesTail(in, n, out, i);
}

}  // namespace

const Kernels kAvx512Kernels = {
    Level::kAvx512,           encodeVIntsAvx2,          encodeVLongsAvx2,
    decodeVIntsAvx2,          decodeVLongsAvx2,         asciiPrefixLengthAvx2,
    utf16LengthAvx2,          splitEncodeFloatsAvx512,  splitDecodeFloatsAvx512,
    splitEncodeDoublesAvx512, splitDecodeDoublesAvx512,
};

}  // namespace wirestream::simd::internal

HWY_POP_ATTRIBUTES
#endif  // WIRESTREAM_SIMD_X86
