// The avx2 level (AVX2 + BMI1 + POPCNT), x86 only.
//
// The same algorithms as sse4.cc at twice the width: VInt/VLong encode spread
// four values per register; VLong decode takes 4 values from a 32-byte window
// as two 16-byte groups (the second starting where the first ends) shuffled in
// the two 128-bit lanes at once, falling back to one pair, then to one value;
// VInt decode is the 16-byte loop of x86_sse4.h (see there why); ByteStream-
// Split transposes 32 values per step, the two lanes holding values 0..15 and
// 16..31 so that each stream's 32 bytes come out in order.
#include "simd/internal.h"

#if WIRESTREAM_SIMD_X86
#include <immintrin.h>

// Everything from here on is compiled for avx2,bmi,popcnt (the
// dispatcher calls it only on CPUs that have them).
HWY_PUSH_ATTRIBUTES("avx2,bmi,popcnt")
#include "simd/x86_sse4.h"

namespace wirestream::simd::internal {

namespace {

WIRESTREAM_SIMD_INLINE __m256i spread56x4(__m256i v) {
  __m256i x = _mm256_or_si256(
      _mm256_and_si256(v, _mm256_set1_epi64x(0x0FFFFFFF)),
      _mm256_and_si256(_mm256_slli_epi64(v, 4), _mm256_set1_epi64x(0x0FFFFFFF00000000LL)));
  x = _mm256_or_si256(
      _mm256_and_si256(x, _mm256_set1_epi64x(0x00003FFF00003FFFLL)),
      _mm256_and_si256(_mm256_slli_epi64(x, 2), _mm256_set1_epi64x(0x3FFF00003FFF0000LL)));
  return _mm256_or_si256(
      _mm256_and_si256(x, _mm256_set1_epi64x(0x007F007F007F007FLL)),
      _mm256_and_si256(_mm256_slli_epi64(x, 1), _mm256_set1_epi64x(0x7F007F007F007F00LL)));
}

template <int kSmear>
WIRESTREAM_SIMD_INLINE __m256i continuationx4(__m256i x, __m256i top) {
  __m256i nz =
      _mm256_and_si256(_mm256_add_epi8(x, _mm256_set1_epi8(0x7F)), _mm256_set1_epi8(char(0x80)));
  __m256i s = _mm256_or_si256(_mm256_srli_epi64(nz, 8), top);
  s = _mm256_or_si256(s, _mm256_srli_epi64(s, 8));
  s = _mm256_or_si256(s, _mm256_srli_epi64(s, 16));
  if (kSmear > 4) s = _mm256_or_si256(s, _mm256_srli_epi64(s, 32));
  return s;
}

WIRESTREAM_SIMD_INLINE __m256i gather56x4(__m256i x) {
  x = _mm256_and_si256(x, _mm256_set1_epi8(0x7F));
  x = _mm256_or_si256(
      _mm256_and_si256(x, _mm256_set1_epi64x(0x007F007F007F007FLL)),
      _mm256_srli_epi64(_mm256_and_si256(x, _mm256_set1_epi64x(0x7F007F007F007F00LL)), 1));
  x = _mm256_or_si256(
      _mm256_and_si256(x, _mm256_set1_epi64x(0x00003FFF00003FFFLL)),
      _mm256_srli_epi64(_mm256_and_si256(x, _mm256_set1_epi64x(0x3FFF00003FFF0000LL)), 2));
  return _mm256_or_si256(
      _mm256_and_si256(x, _mm256_set1_epi64x(0x0FFFFFFF)),
      _mm256_srli_epi64(_mm256_and_si256(x, _mm256_set1_epi64x(0x0FFFFFFF00000000LL)), 4));
}

WIRESTREAM_SIMD_INLINE __m256i load2x128(const void* lo, const void* hi) {
  return _mm256_inserti128_si256(
      _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(lo))),
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(hi)), 1);
}

}  // namespace

// The varint kernels and the counts have external linkage: the avx512 table
// reuses them (internal.h).
uint8_t* encodeVIntsAvx2(const int32_t* in, size_t n, uint8_t* dst) {
  alignas(32) uint64_t bytes[4];
  alignas(32) uint64_t lens[4];
  size_t i = 0;
  // 8-byte stores: value j's starts at most at 5 j and must end by 5 n.
  for (; i + 5 <= n; i += 4) {
    __m256i v = _mm256_cvtepu32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i)));
    __m256i x = spread56x4(v);
    __m256i s = continuationx4<4>(x, _mm256_setzero_si256());
    _mm256_store_si256(reinterpret_cast<__m256i*>(bytes), _mm256_or_si256(x, s));
    _mm256_store_si256(
        reinterpret_cast<__m256i*>(lens),
        _mm256_add_epi64(_mm256_sad_epu8(_mm256_srli_epi64(s, 7), _mm256_setzero_si256()),
                         _mm256_set1_epi64x(1)));
#pragma GCC unroll 8
    for (int j = 0; j < 4; ++j) {
      std::memcpy(dst, &bytes[j], 8);
      dst += lens[j];
    }
  }
  for (; i < n; ++i) dst = encodeVIntOne(dst, static_cast<uint32_t>(in[i]));
  return dst;
}

uint8_t* encodeVLongsAvx2(const int64_t* in, size_t n, uint8_t* dst) {
  alignas(32) uint64_t bytes[4];
  alignas(32) uint64_t lens[4];
  alignas(32) uint64_t tops[4];
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
    __m256i x = spread56x4(v);
    __m256i top = _mm256_srli_epi64(v, 56);
    __m256i top_set = _mm256_andnot_si256(_mm256_cmpeq_epi64(top, _mm256_setzero_si256()),
                                          _mm256_set1_epi64x(static_cast<int64_t>(1ULL << 63)));
    __m256i s = continuationx4<8>(x, top_set);
    _mm256_store_si256(reinterpret_cast<__m256i*>(bytes), _mm256_or_si256(x, s));
    __m256i len = _mm256_add_epi64(_mm256_sad_epu8(_mm256_srli_epi64(s, 7), _mm256_setzero_si256()),
                                   _mm256_set1_epi64x(1));
    len = _mm256_add_epi64(len, _mm256_srli_epi64(top, 7));  // the 10th byte
    _mm256_store_si256(reinterpret_cast<__m256i*>(lens), len);
    _mm256_store_si256(reinterpret_cast<__m256i*>(tops), top);
#pragma GCC unroll 8
    for (int j = 0; j < 4; ++j) {
      std::memcpy(dst, &bytes[j], 8);
      dst[8] = static_cast<uint8_t>(tops[j]);
      dst[9] = static_cast<uint8_t>(tops[j] >> 7);
      dst += lens[j];
    }
  }
  for (; i < n; ++i) dst = encodeVLongOne(dst, static_cast<uint64_t>(in[i]));
  return dst;
}

// Ends (terminator positions) of the next `count` values in a 32-bit mask;
// 32 for a missing one.
template <int kCount>
WIRESTREAM_SIMD_INLINE void terminatorPositions(uint64_t t, uint32_t* e) {
#pragma GCC unroll 8
  for (int k = 0; k < kCount; ++k) {
    e[k] = static_cast<uint32_t>(__builtin_ctzll(t | (1ULL << 32)));
    t &= t - 1;
  }
}

DecodeBatch decodeVIntsAvx2(const uint8_t* p, const uint8_t* limit, int32_t* out, size_t n) {
  return decodeVIntsWindow16(p, limit, out, n);
}

DecodeBatch decodeVLongsAvx2(const uint8_t* p, const uint8_t* limit, int64_t* out, size_t n) {
  size_t i = 0;
  while (n - i >= 4 && limit - p >= 32) {
    __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    uint32_t cont = static_cast<uint32_t>(_mm256_movemask_epi8(w));
    if (cont == 0 && n - i >= 32) {
      __m256i* o = reinterpret_cast<__m256i*>(out + i);
      __m128i lo = _mm256_castsi256_si128(w), hi = _mm256_extracti128_si256(w, 1);
#pragma GCC unroll 8
      for (int k = 0; k < 4; ++k) {
        _mm256_storeu_si256(o + k, _mm256_cvtepu8_epi64(lo));
        _mm256_storeu_si256(o + 4 + k, _mm256_cvtepu8_epi64(hi));
        lo = _mm_srli_si128(lo, 4);
        hi = _mm_srli_si128(hi, 4);
      }
      p += 32;
      i += 32;
      continue;
    }
    uint32_t e[4];
    terminatorPositions<4>(~cont, e);
    uint32_t l0 = e[0], l1 = e[1] - e[0] - 1, l2 = e[2] - e[1] - 1, l3 = e[3] - e[2] - 1;
    bool ok = ((l0 > 7) | (l1 > 7) | (l2 > 7) | (l3 > 7) | (e[1] > 15) | (e[3] > 31) |
               (e[3] - e[1] > 16)) == 0;
    if (ok) {
      __m256i win = load2x128(p, p + e[1] + 1);
      __m256i x = _mm256_shuffle_epi8(
          win, load2x128(kVLongShuffles.e[l0 * 8 + l1].lanes, kVLongShuffles.e[l2 * 8 + l3].lanes));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), gather56x4(x));
      p += e[3] + 1;
      i += 4;
      continue;
    }
    size_t used = decodeVLongGroup2(_mm256_castsi256_si128(w), ~cont, out + i);
    if (used != 0) {
      p += used;
      i += 2;
      continue;
    }
    const uint8_t* next = tryDecodeVLong(p, limit, out + i);
    if (next == nullptr) return {i, p};
    p = next;
    ++i;
  }
  return decodeVLongsTail(p, limit, out, n, i);
}

size_t asciiPrefixLengthAvx2(const uint8_t* p, size_t n) {
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    uint32_t m = static_cast<uint32_t>(
        _mm256_movemask_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i))));
    if (m != 0) return i + __builtin_ctz(m);
  }
  return asciiPrefixTail(p, n, i);
}

size_t utf16LengthAvx2(const uint8_t* p, size_t n) {
  size_t units = 0;
  size_t i = 0;
  const __m256i cont_end = _mm256_set1_epi8(-64);  // 0x80..0xBF are the int8 values below -64
  const __m256i four_min = _mm256_set1_epi8(-17);  // 0xF0..0xFF are -16..-1
  for (; i + 32 <= n; i += 32) {
    __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    uint32_t cont = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpgt_epi8(cont_end, w)));
    uint32_t four = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_and_si256(
        _mm256_cmpgt_epi8(w, four_min), _mm256_cmpgt_epi8(_mm256_setzero_si256(), w))));
    units += 32 - __builtin_popcount(cont) + __builtin_popcount(four);
  }
  return units + utf16LengthTail(p, n, i);
}

namespace {

// ---- ByteStreamSplit: 32 values a step, lane 0 = values 0..15, lane 1 = 16..31 ----

WIRESTREAM_SIMD_INLINE void transpose8x16(__m256i r[8]) {
  __m256i a0 = _mm256_unpacklo_epi16(r[0], r[1]), a1 = _mm256_unpackhi_epi16(r[0], r[1]);
  __m256i a2 = _mm256_unpacklo_epi16(r[2], r[3]), a3 = _mm256_unpackhi_epi16(r[2], r[3]);
  __m256i a4 = _mm256_unpacklo_epi16(r[4], r[5]), a5 = _mm256_unpackhi_epi16(r[4], r[5]);
  __m256i a6 = _mm256_unpacklo_epi16(r[6], r[7]), a7 = _mm256_unpackhi_epi16(r[6], r[7]);
  __m256i b0 = _mm256_unpacklo_epi32(a0, a2), b1 = _mm256_unpackhi_epi32(a0, a2);
  __m256i b2 = _mm256_unpacklo_epi32(a1, a3), b3 = _mm256_unpackhi_epi32(a1, a3);
  __m256i b4 = _mm256_unpacklo_epi32(a4, a6), b5 = _mm256_unpackhi_epi32(a4, a6);
  __m256i b6 = _mm256_unpacklo_epi32(a5, a7), b7 = _mm256_unpackhi_epi32(a5, a7);
  r[0] = _mm256_unpacklo_epi64(b0, b4);
  r[1] = _mm256_unpackhi_epi64(b0, b4);
  r[2] = _mm256_unpacklo_epi64(b1, b5);
  r[3] = _mm256_unpackhi_epi64(b1, b5);
  r[4] = _mm256_unpacklo_epi64(b2, b6);
  r[5] = _mm256_unpackhi_epi64(b2, b6);
  r[6] = _mm256_unpacklo_epi64(b3, b7);
  r[7] = _mm256_unpackhi_epi64(b3, b7);
}

WIRESTREAM_SIMD_INLINE void transpose4x32(__m256i r[4]) {
  __m256i t0 = _mm256_unpacklo_epi32(r[0], r[1]), t1 = _mm256_unpackhi_epi32(r[0], r[1]);
  __m256i t2 = _mm256_unpacklo_epi32(r[2], r[3]), t3 = _mm256_unpackhi_epi32(r[2], r[3]);
  r[0] = _mm256_unpacklo_epi64(t0, t2);
  r[1] = _mm256_unpackhi_epi64(t0, t2);
  r[2] = _mm256_unpacklo_epi64(t1, t3);
  r[3] = _mm256_unpackhi_epi64(t1, t3);
}

WIRESTREAM_SIMD_INLINE __m256i broadcast(__m128i x) { return _mm256_broadcastsi128_si256(x); }

WIRESTREAM_SIMD_INLINE void store2x128(void* lo, void* hi, __m256i x) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(lo), _mm256_castsi256_si128(x));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(hi), _mm256_extracti128_si256(x, 1));
}

void splitEncodeFloatsAvx2(const float* in, size_t n, uint8_t* out) {
  const __m256i to_words = broadcast(floatsToWords());
  const __m256 nan = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000));
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i r[4];
#pragma GCC unroll 8
    for (int j = 0; j < 4; ++j) {
      __m256 f = _mm256_castsi256_ps(load2x128(in + i + 4 * j, in + i + 16 + 4 * j));
      f = _mm256_blendv_ps(f, nan, _mm256_cmp_ps(f, f, _CMP_UNORD_Q));
      r[j] = _mm256_shuffle_epi8(_mm256_castps_si256(f), to_words);
    }
    transpose4x32(r);
#pragma GCC unroll 8
    for (int k = 0; k < 4; ++k) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + k * n + i), r[k]);
    }
  }
  splitEncodeFloatsTail(in, n, out, i);
}

void splitDecodeFloatsAvx2(const uint8_t* in, size_t n, float* out) {
  const __m256i to_floats = broadcast(wordsToFloats());
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i r[4];
#pragma GCC unroll 8
    for (int k = 0; k < 4; ++k) {
      r[k] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + k * n + i));
    }
    transpose4x32(r);
#pragma GCC unroll 8
    for (int j = 0; j < 4; ++j) {
      store2x128(out + i + 4 * j, out + i + 16 + 4 * j, _mm256_shuffle_epi8(r[j], to_floats));
    }
  }
  splitDecodeFloatsTail(in, n, out, i);
}

void splitEncodeDoublesAvx2(const double* in, size_t n, uint8_t* out) {
  const __m256i to_words = broadcast(doublesToWords());
  const __m256d nan = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7ff8000000000000LL));
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i r[8];
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) {
      __m256d d = _mm256_castsi256_pd(load2x128(in + i + 2 * j, in + i + 16 + 2 * j));
      d = _mm256_blendv_pd(d, nan, _mm256_cmp_pd(d, d, _CMP_UNORD_Q));
      r[j] = _mm256_shuffle_epi8(_mm256_castpd_si256(d), to_words);
    }
    transpose8x16(r);
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + k * n + i), r[k]);
    }
  }
  splitEncodeDoublesTail(in, n, out, i);
}

void splitDecodeDoublesAvx2(const uint8_t* in, size_t n, double* out) {
  const __m256i to_doubles = broadcast(wordsToDoubles());
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i r[8];
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) {
      r[k] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + k * n + i));
    }
    transpose8x16(r);
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) {
      store2x128(out + i + 2 * j, out + i + 16 + 2 * j, _mm256_shuffle_epi8(r[j], to_doubles));
    }
  }
  splitDecodeDoublesTail(in, n, out, i);
}

}  // namespace

const Kernels kAvx2Kernels = {
    Level::kAvx2,          encodeVIntsAvx2,        encodeVLongsAvx2,       decodeVIntsAvx2,
    decodeVLongsAvx2,      asciiPrefixLengthAvx2,  utf16LengthAvx2,        splitEncodeFloatsAvx2,
    splitDecodeFloatsAvx2, splitEncodeDoublesAvx2, splitDecodeDoublesAvx2,
};

}  // namespace wirestream::simd::internal

HWY_POP_ATTRIBUTES
#endif  // WIRESTREAM_SIMD_X86
