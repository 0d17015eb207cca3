// 128-bit building blocks shared by the sse4 and avx2 translation units (both
// include it inside their target region of at least SSSE3 + SSE4.1 + POPCNT).
// Everything here is `static inline` so that each unit keeps its own copy (see
// internal.h).
#pragma once

#include <immintrin.h>

#include "simd/internal.h"

namespace wirestream::simd::internal {

// Spreads the low 56 bits of each 64-bit lane into 8 bytes of 7 bits, low
// group first: 28|28 into the 32-bit halves, 14|14 into 16-bit quarters, 7|7
// into bytes. Bits 56..63 are dropped.
WIRESTREAM_SIMD_INLINE __m128i spread56x2(__m128i v) {
  __m128i x =
      _mm_or_si128(_mm_and_si128(v, _mm_set1_epi64x(0x0FFFFFFF)),
                   _mm_and_si128(_mm_slli_epi64(v, 4), _mm_set1_epi64x(0x0FFFFFFF00000000LL)));
  x = _mm_or_si128(_mm_and_si128(x, _mm_set1_epi64x(0x00003FFF00003FFFLL)),
                   _mm_and_si128(_mm_slli_epi64(x, 2), _mm_set1_epi64x(0x3FFF00003FFF0000LL)));
  return _mm_or_si128(_mm_and_si128(x, _mm_set1_epi64x(0x007F007F007F007FLL)),
                      _mm_and_si128(_mm_slli_epi64(x, 1), _mm_set1_epi64x(0x7F007F007F007F00LL)));
}

// Continuation bits for spread groups: 0x80 on every byte below the highest
// non-zero one (each byte is <= 0x7F, so byte + 0x7F carries into 0x80 exactly
// when it is non-zero). `top` has bit 63 set when a group above the eight is
// non-zero. `smear` bytes: 4 enough for 32-bit values, 8 for 64-bit.
template <int kSmear>
WIRESTREAM_SIMD_INLINE __m128i continuationx2(__m128i x, __m128i top) {
  __m128i nz = _mm_and_si128(_mm_add_epi8(x, _mm_set1_epi8(0x7F)), _mm_set1_epi8(char(0x80)));
  __m128i s = _mm_or_si128(_mm_srli_epi64(nz, 8), top);
  s = _mm_or_si128(s, _mm_srli_epi64(s, 8));
  s = _mm_or_si128(s, _mm_srli_epi64(s, 16));
  if (kSmear > 4) s = _mm_or_si128(s, _mm_srli_epi64(s, 32));
  return s;
}

// Gathers 7-bit groups back: the inverse of spread56x2 on masked bytes.
WIRESTREAM_SIMD_INLINE __m128i gather56x2(__m128i x) {
  x = _mm_and_si128(x, _mm_set1_epi8(0x7F));
  x = _mm_or_si128(_mm_and_si128(x, _mm_set1_epi64x(0x007F007F007F007FLL)),
                   _mm_srli_epi64(_mm_and_si128(x, _mm_set1_epi64x(0x7F007F007F007F00LL)), 1));
  x = _mm_or_si128(_mm_and_si128(x, _mm_set1_epi64x(0x00003FFF00003FFFLL)),
                   _mm_srli_epi64(_mm_and_si128(x, _mm_set1_epi64x(0x3FFF00003FFF0000LL)), 2));
  return _mm_or_si128(_mm_and_si128(x, _mm_set1_epi64x(0x0FFFFFFF)),
                      _mm_srli_epi64(_mm_and_si128(x, _mm_set1_epi64x(0x0FFFFFFF00000000LL)), 4));
}

// Four VInts in lanes from their shuffled bytes: `lo` holds bytes 0..3 of each
// value (zero past its length), `hi` its 5th byte in byte 3 of the lane.
WIRESTREAM_SIMD_INLINE __m128i gatherVIntx4(__m128i lo, __m128i hi) {
  __m128i x = _mm_and_si128(lo, _mm_set1_epi8(0x7F));
  x = _mm_or_si128(_mm_and_si128(x, _mm_set1_epi32(0x007F007F)),
                   _mm_srli_epi32(_mm_and_si128(x, _mm_set1_epi32(0x7F007F00)), 1));
  x = _mm_or_si128(_mm_and_si128(x, _mm_set1_epi32(0x00003FFF)),
                   _mm_srli_epi32(_mm_and_si128(x, _mm_set1_epi32(0x3FFF0000)), 2));
  return _mm_or_si128(x, _mm_slli_epi32(hi, 4));
}

// Decodes four VInts from the 16 bytes in w (terminators: ~pmovmskb), or
// returns 0 when they do not all end inside those bytes, one is longer than 5
// bytes, or a 5th byte has a bit of 0xF0 set (the caller then takes the
// per-value path).
WIRESTREAM_SIMD_INLINE size_t decodeVIntGroup4(__m128i w, uint32_t terminators, int32_t* out) {
  uint32_t t = terminators & 0xFFFF;
  uint32_t e0 = __builtin_ctz(t | 0x10000);
  t &= t - 1;
  uint32_t e1 = __builtin_ctz(t | 0x10000);
  t &= t - 1;
  uint32_t e2 = __builtin_ctz(t | 0x10000);
  t &= t - 1;
  uint32_t e3 = __builtin_ctz(t | 0x10000);
  // Lengths minus one; a missing terminator is at 16 (outside the window).
  uint32_t l0 = e0, l1 = e1 - e0 - 1, l2 = e2 - e1 - 1, l3 = e3 - e2 - 1;
  if ((l0 > 4) | (l1 > 4) | (l2 > 4) | (l3 > 4) | (e3 > 15)) return 0;
  const VIntShuffle& s = kVIntShuffles.e[l0 + 5 * l1 + 25 * l2 + 125 * l3];
  __m128i lo = _mm_shuffle_epi8(w, _mm_load_si128(reinterpret_cast<const __m128i*>(s.lo)));
  __m128i hi = _mm_shuffle_epi8(w, _mm_load_si128(reinterpret_cast<const __m128i*>(s.hi)));
  if (!_mm_testz_si128(hi, _mm_set1_epi32(static_cast<int>(0xF0000000u)))) return 0;
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), gatherVIntx4(lo, hi));
  return e3 + 1;
}

// Two VLongs of at most 8 bytes each from the 16 bytes in w, or 0.
WIRESTREAM_SIMD_INLINE size_t decodeVLongGroup2(__m128i w, uint32_t terminators, int64_t* out) {
  uint32_t t = terminators & 0xFFFF;
  uint32_t e0 = __builtin_ctz(t | 0x10000);
  t &= t - 1;
  uint32_t e1 = __builtin_ctz(t | 0x10000);
  uint32_t l0 = e0, l1 = e1 - e0 - 1;
  if ((l0 > 7) | (l1 > 7) | (e1 > 15)) return 0;
  const VLongShuffle& s = kVLongShuffles.e[l0 * 8 + l1];
  __m128i x = _mm_shuffle_epi8(w, _mm_load_si128(reinterpret_cast<const __m128i*>(s.lanes)));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), gather56x2(x));
  return e1 + 1;
}

// The VInt decode loop of both levels: 16 one-byte values at once when the
// window has no continuation bit, else a group of four, else one value by the
// per-value rules (stopping where those fail). An 8-value, 32-byte AVX2 variant
// was measured slower on Zen 3: its validity test fails more often and the
// mispredictions cost more than the wider shuffle saves.
WIRESTREAM_SIMD_INLINE DecodeBatch decodeVIntsWindow16(const uint8_t* p, const uint8_t* limit,
                                                       int32_t* out, size_t n) {
  size_t i = 0;
  while (n - i >= 4 && limit - p >= 16) {
    __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    uint32_t cont = static_cast<uint32_t>(_mm_movemask_epi8(w));
    if (cont == 0 && n - i >= 16) {  // sixteen 1-byte values
      __m128i* o = reinterpret_cast<__m128i*>(out + i);
      _mm_storeu_si128(o, _mm_cvtepu8_epi32(w));
      _mm_storeu_si128(o + 1, _mm_cvtepu8_epi32(_mm_srli_si128(w, 4)));
      _mm_storeu_si128(o + 2, _mm_cvtepu8_epi32(_mm_srli_si128(w, 8)));
      _mm_storeu_si128(o + 3, _mm_cvtepu8_epi32(_mm_srli_si128(w, 12)));
      p += 16;
      i += 16;
      continue;
    }
    size_t used = decodeVIntGroup4(w, ~cont, out + i);
    if (used != 0) {
      p += used;
      i += 4;
      continue;
    }
    const uint8_t* next = tryDecodeVInt(p, limit, out + i);
    if (next == nullptr) return {i, p};
    p = next;
    ++i;
  }
  return decodeVIntsTail(p, limit, out, n, i);
}

// ---- ByteStreamSplit ----

// 8x8 transpose of 16-bit words across eight registers (in each 128-bit lane).
WIRESTREAM_SIMD_INLINE void transpose8x16(__m128i r[8]) {
  __m128i a0 = _mm_unpacklo_epi16(r[0], r[1]), a1 = _mm_unpackhi_epi16(r[0], r[1]);
  __m128i a2 = _mm_unpacklo_epi16(r[2], r[3]), a3 = _mm_unpackhi_epi16(r[2], r[3]);
  __m128i a4 = _mm_unpacklo_epi16(r[4], r[5]), a5 = _mm_unpackhi_epi16(r[4], r[5]);
  __m128i a6 = _mm_unpacklo_epi16(r[6], r[7]), a7 = _mm_unpackhi_epi16(r[6], r[7]);
  __m128i b0 = _mm_unpacklo_epi32(a0, a2), b1 = _mm_unpackhi_epi32(a0, a2);
  __m128i b2 = _mm_unpacklo_epi32(a1, a3), b3 = _mm_unpackhi_epi32(a1, a3);
  __m128i b4 = _mm_unpacklo_epi32(a4, a6), b5 = _mm_unpackhi_epi32(a4, a6);
  __m128i b6 = _mm_unpacklo_epi32(a5, a7), b7 = _mm_unpackhi_epi32(a5, a7);
  r[0] = _mm_unpacklo_epi64(b0, b4);
  r[1] = _mm_unpackhi_epi64(b0, b4);
  r[2] = _mm_unpacklo_epi64(b1, b5);
  r[3] = _mm_unpackhi_epi64(b1, b5);
  r[4] = _mm_unpacklo_epi64(b2, b6);
  r[5] = _mm_unpackhi_epi64(b2, b6);
  r[6] = _mm_unpacklo_epi64(b3, b7);
  r[7] = _mm_unpackhi_epi64(b3, b7);
}

// 4x4 transpose of 32-bit words across four registers.
WIRESTREAM_SIMD_INLINE void transpose4x32(__m128i r[4]) {
  __m128i t0 = _mm_unpacklo_epi32(r[0], r[1]), t1 = _mm_unpackhi_epi32(r[0], r[1]);
  __m128i t2 = _mm_unpacklo_epi32(r[2], r[3]), t3 = _mm_unpackhi_epi32(r[2], r[3]);
  r[0] = _mm_unpacklo_epi64(t0, t2);
  r[1] = _mm_unpackhi_epi64(t0, t2);
  r[2] = _mm_unpacklo_epi64(t1, t3);
  r[3] = _mm_unpackhi_epi64(t1, t3);
}

// Two doubles (little-endian in memory) -> word k = big-endian byte k of both.
WIRESTREAM_SIMD_INLINE __m128i doublesToWords() {
  return _mm_setr_epi8(7, 15, 6, 14, 5, 13, 4, 12, 3, 11, 2, 10, 1, 9, 0, 8);
}
// The inverse: word k = byte k of both -> two little-endian doubles.
WIRESTREAM_SIMD_INLINE __m128i wordsToDoubles() {
  return _mm_setr_epi8(14, 12, 10, 8, 6, 4, 2, 0, 15, 13, 11, 9, 7, 5, 3, 1);
}
// Four floats -> 32-bit word k = big-endian byte k of the four.
WIRESTREAM_SIMD_INLINE __m128i floatsToWords() {
  return _mm_setr_epi8(3, 7, 11, 15, 2, 6, 10, 14, 1, 5, 9, 13, 0, 4, 8, 12);
}
WIRESTREAM_SIMD_INLINE __m128i wordsToFloats() {
  return _mm_setr_epi8(12, 8, 4, 0, 13, 9, 5, 1, 14, 10, 6, 2, 15, 11, 7, 3);
}

}  // namespace wirestream::simd::internal
