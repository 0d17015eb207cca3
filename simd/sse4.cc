// The sse4 level (SSSE3 + SSE4.1 + POPCNT), x86 only.
//
// VInt/VLong encode: two values per register; their 7-bit groups are spread
// into 64-bit lanes, continuation bits come from a byte-wise non-zero test
// smeared downwards, lengths from psadbw; each lane is then stored whole (8
// bytes, plus the 9th/10th for VLong) and the cursor advances by its length.
// VInt decode: a 16-byte window, the terminators from pmovmskb, four lengths
// index a shuffle that lays the four values' bytes into 32-bit lanes.
#include "simd/internal.h"

#if WIRESTREAM_SIMD_X86
#include <immintrin.h>

// Everything from here on is compiled for ssse3,sse4.1,popcnt (the
// dispatcher calls it only on CPUs that have them).
HWY_PUSH_ATTRIBUTES("ssse3,sse4.1,popcnt")
#include "simd/x86_sse4.h"

namespace wirestream::simd::internal {

namespace {

uint8_t* encodeVIntsSse4(const int32_t* in, size_t n, uint8_t* dst) {
  alignas(16) uint64_t bytes[2];
  alignas(16) uint64_t lens[2];
  size_t i = 0;
  // An 8-byte store for value j starts at most at 5 j and must end by 5 n:
  // so the vector loop stops two values before the end.
  for (; i + 3 <= n; i += 2) {
    __m128i v = _mm_cvtepu32_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(in + i)));
    __m128i x = spread56x2(v);
    __m128i s = continuationx2<4>(x, _mm_setzero_si128());
    _mm_store_si128(reinterpret_cast<__m128i*>(bytes), _mm_or_si128(x, s));
    _mm_store_si128(
        reinterpret_cast<__m128i*>(lens),
        _mm_add_epi64(_mm_sad_epu8(_mm_srli_epi64(s, 7), _mm_setzero_si128()), _mm_set1_epi64x(1)));
    std::memcpy(dst, &bytes[0], 8);
    dst += lens[0];
    std::memcpy(dst, &bytes[1], 8);
    dst += lens[1];
  }
  for (; i < n; ++i) dst = encodeVIntOne(dst, static_cast<uint32_t>(in[i]));
  return dst;
}

uint8_t* encodeVLongsSse4(const int64_t* in, size_t n, uint8_t* dst) {
  alignas(16) uint64_t bytes[2];
  alignas(16) uint64_t lens[2];
  alignas(16) uint64_t tops[2];
  size_t i = 0;
  for (; i + 2 <= n; i += 2) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    __m128i x = spread56x2(v);
    __m128i top = _mm_srli_epi64(v, 56);  // groups 8 and 9: the 9th byte whole
    __m128i top_set = _mm_andnot_si128(_mm_cmpeq_epi64(top, _mm_setzero_si128()),
                                       _mm_set1_epi64x(static_cast<int64_t>(1ULL << 63)));
    __m128i s = continuationx2<8>(x, top_set);
    _mm_store_si128(reinterpret_cast<__m128i*>(bytes), _mm_or_si128(x, s));
    __m128i len =
        _mm_add_epi64(_mm_sad_epu8(_mm_srli_epi64(s, 7), _mm_setzero_si128()), _mm_set1_epi64x(1));
    len = _mm_add_epi64(len, _mm_srli_epi64(top, 7));  // the 10th byte
    _mm_store_si128(reinterpret_cast<__m128i*>(lens), len);
    _mm_store_si128(reinterpret_cast<__m128i*>(tops), top);
#pragma GCC unroll 8
    for (int j = 0; j < 2; ++j) {
      std::memcpy(dst, &bytes[j], 8);
      dst[8] = static_cast<uint8_t>(tops[j]);
      dst[9] = static_cast<uint8_t>(tops[j] >> 7);
      dst += lens[j];
    }
  }
  for (; i < n; ++i) dst = encodeVLongOne(dst, static_cast<uint64_t>(in[i]));
  return dst;
}

DecodeBatch decodeVIntsSse4(const uint8_t* p, const uint8_t* limit, int32_t* out, size_t n) {
  return decodeVIntsWindow16(p, limit, out, n);
}

DecodeBatch decodeVLongsSse4(const uint8_t* p, const uint8_t* limit, int64_t* out, size_t n) {
  size_t i = 0;
  while (n - i >= 2 && limit - p >= 16) {
    __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    uint32_t cont = static_cast<uint32_t>(_mm_movemask_epi8(w));
    if (cont == 0 && n - i >= 16) {
      __m128i* o = reinterpret_cast<__m128i*>(out + i);
#pragma GCC unroll 8
      for (int k = 0; k < 8; ++k) {
        _mm_storeu_si128(o + k, _mm_cvtepu8_epi64(w));
        w = _mm_srli_si128(w, 2);
      }
      p += 16;
      i += 16;
      continue;
    }
    size_t used = decodeVLongGroup2(w, ~cont, out + i);
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

size_t asciiPrefixLengthSse4(const uint8_t* p, size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    int m = _mm_movemask_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i)));
    if (m != 0) return i + __builtin_ctz(static_cast<unsigned>(m));
  }
  return asciiPrefixTail(p, n, i);
}

size_t utf16LengthSse4(const uint8_t* p, size_t n) {
  size_t units = 0;
  size_t i = 0;
  const __m128i cont_end = _mm_set1_epi8(-64);  // 0x80..0xBF are the int8 values below -64
  const __m128i four_min = _mm_set1_epi8(-17);  // 0xF0..0xFF are -16..-1
  for (; i + 16 <= n; i += 16) {
    __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    unsigned cont = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpgt_epi8(cont_end, w)));
    unsigned four = static_cast<unsigned>(_mm_movemask_epi8(
        _mm_and_si128(_mm_cmpgt_epi8(w, four_min), _mm_cmplt_epi8(w, _mm_setzero_si128()))));
    units += 16 - __builtin_popcount(cont) + __builtin_popcount(four);
  }
  return units + utf16LengthTail(p, n, i);
}

void splitEncodeFloatsSse4(const float* in, size_t n, uint8_t* out) {
  const __m128i to_words = floatsToWords();
  const __m128 nan = _mm_castsi128_ps(_mm_set1_epi32(0x7fc00000));
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i r[4];
#pragma GCC unroll 8
    for (int j = 0; j < 4; ++j) {
      __m128 f = _mm_loadu_ps(in + i + 4 * j);
      f = _mm_blendv_ps(f, nan, _mm_cmpunord_ps(f, f));
      r[j] = _mm_shuffle_epi8(_mm_castps_si128(f), to_words);
    }
    transpose4x32(r);
#pragma GCC unroll 8
    for (int k = 0; k < 4; ++k) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + k * n + i), r[k]);
    }
  }
  splitEncodeFloatsTail(in, n, out, i);
}

void splitDecodeFloatsSse4(const uint8_t* in, size_t n, float* out) {
  const __m128i to_floats = wordsToFloats();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i r[4];
#pragma GCC unroll 8
    for (int k = 0; k < 4; ++k) {
      r[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + k * n + i));
    }
    transpose4x32(r);
#pragma GCC unroll 8
    for (int j = 0; j < 4; ++j) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i + 4 * j),
                       _mm_shuffle_epi8(r[j], to_floats));
    }
  }
  splitDecodeFloatsTail(in, n, out, i);
}

void splitEncodeDoublesSse4(const double* in, size_t n, uint8_t* out) {
  const __m128i to_words = doublesToWords();
  const __m128d nan = _mm_castsi128_pd(_mm_set1_epi64x(0x7ff8000000000000LL));
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i r[8];
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) {
      __m128d d = _mm_loadu_pd(in + i + 2 * j);
      d = _mm_blendv_pd(d, nan, _mm_cmpunord_pd(d, d));
      r[j] = _mm_shuffle_epi8(_mm_castpd_si128(d), to_words);
    }
    transpose8x16(r);
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + k * n + i), r[k]);
    }
  }
  splitEncodeDoublesTail(in, n, out, i);
}

void splitDecodeDoublesSse4(const uint8_t* in, size_t n, double* out) {
  const __m128i to_doubles = wordsToDoubles();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i r[8];
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) {
      r[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + k * n + i));
    }
    transpose8x16(r);
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i + 2 * j),
                       _mm_shuffle_epi8(r[j], to_doubles));
    }
  }
  splitDecodeDoublesTail(in, n, out, i);
}

}  // namespace

const Kernels kSse4Kernels = {
    Level::kSse4,          encodeVIntsSse4,        encodeVLongsSse4,       decodeVIntsSse4,
    decodeVLongsSse4,      asciiPrefixLengthSse4,  utf16LengthSse4,        splitEncodeFloatsSse4,
    splitDecodeFloatsSse4, splitEncodeDoublesSse4, splitDecodeDoublesSse4,
};

}  // namespace wirestream::simd::internal

HWY_POP_ATTRIBUTES
#endif  // WIRESTREAM_SIMD_X86
