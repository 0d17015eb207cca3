// The vector levels' kernels: one Highway source, compiled by foreach_target.h once per
// Highway target and picked at run time through HWY_DYNAMIC_DISPATCH (dispatch.cc).
// Each level is one Highway target: sse4 = HWY_SSE4, avx2 = HWY_AVX2, avx512 =
// HWY_AVX3_DL (the first with VBMI's byte permute), neon = HWY_NEON. Targets that are
// no level of ours are not compiled (HWY_DISABLED_TARGETS) except Highway's baseline,
// whose table is nullptr (dispatch.cc then runs the scalar level).
//
// VInt/VLong encode: two (128-bit) or four values a step; their 7-bit groups are spread
// into 64-bit lanes, continuation bits come from a byte-wise non-zero test smeared
// downwards, lengths from SumsOf8 (psadbw); each lane is stored whole (8 bytes, plus the
// 9th/10th for VLong) and the cursor advances by its length.
// VInt decode: a 16-byte window, the terminators from the sign bits, four lengths index
// a byte shuffle (TableLookupBytesOr0, pshufb) that lays the values' bytes into 32-bit
// lanes. VLong decode: two values from a 16-byte window, or on 256-bit targets four from
// a 32-byte one (two 16-byte groups, the second starting where the first ends). An
// 8-value, 32-byte VInt variant was measured slower: its validity test fails more often.
// ASCII scan and UTF-16 length compare whole vectors of bytes (at most 32: a 64-byte
// scan lost on text with a non-ASCII letter every ~64 bytes, many short calls); the
// avx512 level runs their AVX2 compile (highwayKernelsFor says why).
// ByteStreamSplit: a byte shuffle sorts each 16-byte block by stream, then an unpack
// transpose across registers; AVX3_DL permutes whole 64-byte registers (vpermb).
// NEON keeps the scalar varint loops (the sign-bit mask the windows need is several
// instructions there, not measured) and sorts ByteStreamSplit bytes with uzp1/uzp2.
//
// Where Highway 1.0.3 lacks an x86 operation the kernels need for speed, an
// `#if HWY_ARCH_X86` branch uses the intrinsic on the vector's .raw (each says why).
#include <hwy/detect_compiler_arch.h>

#if HWY_ARCH_X86 || HWY_ARCH_ARM_A64

#include "simd/hwy_targets.h"  // first: the one target list of every Highway source

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/hwy_kernels.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>

#include "simd/internal.h"

// The level this pass's target is, if any.
#undef WIRESTREAM_HWY_LEVEL
#if HWY_TARGET == HWY_SSE4
#define WIRESTREAM_HWY_LEVEL kSse4
#elif HWY_TARGET == HWY_AVX2
#define WIRESTREAM_HWY_LEVEL kAvx2
#elif HWY_TARGET == HWY_AVX3_DL
#define WIRESTREAM_HWY_LEVEL kAvx512
#elif HWY_TARGET == HWY_NEON
#define WIRESTREAM_HWY_LEVEL kNeon
#endif

#undef WIRESTREAM_HWY_X86
#if defined(WIRESTREAM_HWY_LEVEL) && HWY_ARCH_X86
#define WIRESTREAM_HWY_X86 1
#else
#define WIRESTREAM_HWY_X86 0
#endif

HWY_BEFORE_NAMESPACE();
namespace wirestream::simd::internal {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#ifdef WIRESTREAM_HWY_LEVEL

// Byte vectors of at most 32 bytes: the width of the scans and of the x86 varint and
// ByteStreamSplit kernels below AVX3_DL.
using D8 = hn::CappedTag<uint8_t, 32>;

// ---- Text ----

#if WIRESTREAM_HWY_X86
// Sign bits of 16 or 32 bytes. Highway 1.0.3 gets them from a mask, which costs a
// compare first; pmovmskb reads them directly.
template <class D>
HWY_INLINE uint32_t SignBits(D /*d*/, hn::Vec<D> v) {
  if constexpr (hn::MaxLanes(D()) == 16) {
    return static_cast<uint32_t>(_mm_movemask_epi8(v.raw));
  } else {
    return static_cast<uint32_t>(_mm256_movemask_epi8(v.raw));
  }
}
#else
template <class D>
HWY_INLINE uint64_t SignBits(D d, hn::Vec<D> v) {
  const hn::RebindToSigned<D> di;
  uint64_t bits = 0;
  hn::StoreMaskBits(d, hn::RebindMask(d, hn::Lt(hn::BitCast(di, v), hn::Zero(di))),
                    reinterpret_cast<uint8_t*>(&bits));
  return bits;
}
#endif

size_t AsciiPrefixLength(const uint8_t* p, size_t n) {
  const D8 d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    auto bits = SignBits(d, hn::LoadU(d, p + i));  // bytes >= 0x80
    if (bits != 0) {
      // A 32-bit bsf where the bits fit (SSE4 has no tzcnt).
      if constexpr (sizeof(bits) == 4) return i + static_cast<size_t>(__builtin_ctz(bits));
      return i + static_cast<size_t>(__builtin_ctzll(bits));
    }
  }
  return asciiPrefixTail(p, n, i);
}

// Counts in byte lanes (one step adds at most 1 to each), summed every 255 steps:
// cheaper than two popcounts a vector, and SSE4 has no POPCNT in Highway's set.
size_t Utf16Length(const uint8_t* p, size_t n) {
  const hn::CappedTag<int8_t, 32> d;
  const hn::Repartition<uint64_t, decltype(d)> d64;
  const hn::RebindToUnsigned<decltype(d)> du;
  const size_t lanes = hn::Lanes(d);
  const auto cont_end = hn::Set(d, -64);  // 0x80..0xBF are the int8 values below -64
  const auto four_min = hn::Set(d, -17);  // 0xF0..0xFF are -16..-1
  const auto zero = hn::Zero(d);
  size_t units = 0;
  size_t i = 0;
  while (i + lanes <= n) {
    size_t steps = std::min<size_t>((n - i) / lanes, 255);
    auto cont = hn::Zero(d), four = hn::Zero(d);
    for (size_t s = 0; s < steps; ++s, i += lanes) {
      auto v = hn::LoadU(d, reinterpret_cast<const int8_t*>(p + i));
      cont = hn::Sub(cont, hn::VecFromMask(d, hn::Lt(v, cont_end)));
      four = hn::Sub(four, hn::VecFromMask(d, hn::And(hn::Gt(v, four_min), hn::Lt(v, zero))));
    }
    units += steps * lanes;
    units -= hn::GetLane(hn::SumOfLanes(d64, hn::SumsOf8(hn::BitCast(du, cont))));
    units += hn::GetLane(hn::SumOfLanes(d64, hn::SumsOf8(hn::BitCast(du, four))));
  }
  return units + utf16LengthTail(p, n, i);
}

#endif  // WIRESTREAM_HWY_LEVEL

#if WIRESTREAM_HWY_X86

// ---- VInt / VLong encode ----

// Spreads the low 56 bits of each 64-bit lane into 8 bytes of 7 bits, low group first:
// 28|28 into the 32-bit halves, 14|14 into 16-bit quarters, 7|7 into bytes.
template <class D>
HWY_INLINE hn::Vec<D> Spread56(D d, hn::Vec<D> v) {
  auto x = hn::Or(hn::And(v, hn::Set(d, 0x0FFFFFFFull)),
                  hn::And(hn::ShiftLeft<4>(v), hn::Set(d, 0x0FFFFFFF00000000ull)));
  x = hn::Or(hn::And(x, hn::Set(d, 0x00003FFF00003FFFull)),
             hn::And(hn::ShiftLeft<2>(x), hn::Set(d, 0x3FFF00003FFF0000ull)));
  return hn::Or(hn::And(x, hn::Set(d, 0x007F007F007F007Full)),
                hn::And(hn::ShiftLeft<1>(x), hn::Set(d, 0x7F007F007F007F00ull)));
}

// Continuation bits for spread groups: 0x80 on every byte below the highest non-zero
// one (each byte is <= 0x7F, so byte + 0x7F carries into 0x80 exactly when it is
// non-zero). `top` has bit 63 set when a group above the eight is non-zero. kSmear: 4
// bytes are enough for 32-bit values, 8 for 64-bit.
template <int kSmear, class D>
HWY_INLINE hn::Vec<D> Continuation(D d, hn::Vec<D> x, hn::Vec<D> top) {
  const hn::Repartition<uint8_t, D> d8;
  auto nz = hn::BitCast(
      d, hn::And(hn::Add(hn::BitCast(d8, x), hn::Set(d8, 0x7F)), hn::Set(d8, uint8_t{0x80})));
  auto s = hn::Or(hn::ShiftRight<8>(nz), top);
  s = hn::Or(s, hn::ShiftRight<8>(s));
  s = hn::Or(s, hn::ShiftRight<16>(s));
  if (kSmear > 4) s = hn::Or(s, hn::ShiftRight<32>(s));
  return s;
}

// Encoded lengths minus one: the continuation bytes, counted by psadbw.
template <class D>
HWY_INLINE hn::Vec<D> ContinuationCount(D d, hn::Vec<D> s) {
  const hn::Repartition<uint8_t, D> d8;
  return hn::SumsOf8(hn::BitCast(d8, hn::ShiftRight<7>(s)));
}

// Two values a step on 128-bit targets, four on wider ones.
using D64 = hn::CappedTag<uint64_t, 4>;

uint8_t* EncodeVInts(const int32_t* in, size_t n, uint8_t* dst) {
  const D64 d;
  const hn::Rebind<uint32_t, D64> d32;
  constexpr size_t kLanes = hn::MaxLanes(D64());
  alignas(32) uint64_t bytes[kLanes];
  alignas(32) uint64_t lens[kLanes];
  size_t i = 0;
  // An 8-byte store for value j starts at most at 5 j and must end by 5 n: so the
  // vector loop stops one value before the end of a step's last.
  for (; i + kLanes + 1 <= n; i += kLanes) {
    auto v = hn::PromoteTo(d, hn::LoadU(d32, reinterpret_cast<const uint32_t*>(in + i)));
    auto x = Spread56(d, v);
    auto s = Continuation<4>(d, x, hn::Zero(d));
    hn::Store(hn::Or(x, s), d, bytes);
    hn::Store(hn::Add(ContinuationCount(d, s), hn::Set(d, 1)), d, lens);
    HWY_UNROLL(8)
    for (size_t j = 0; j < kLanes; ++j) {
      std::memcpy(dst, &bytes[j], 8);
      dst += lens[j];
    }
  }
  for (; i < n; ++i) dst = encodeVIntOne(dst, static_cast<uint32_t>(in[i]));
  return dst;
}

uint8_t* EncodeVLongs(const int64_t* in, size_t n, uint8_t* dst) {
  const D64 d;
  constexpr size_t kLanes = hn::MaxLanes(D64());
  alignas(32) uint64_t bytes[kLanes];
  alignas(32) uint64_t lens[kLanes];
  alignas(32) uint64_t tops[kLanes];
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    auto v = hn::LoadU(d, reinterpret_cast<const uint64_t*>(in + i));
    auto x = Spread56(d, v);
    auto top = hn::ShiftRight<56>(v);  // groups 8 and 9: the 9th byte whole
    auto top_set = hn::IfThenZeroElse(hn::Eq(top, hn::Zero(d)), hn::Set(d, 1ull << 63));
    auto s = Continuation<8>(d, x, top_set);
    hn::Store(hn::Or(x, s), d, bytes);
    auto len = hn::Add(ContinuationCount(d, s), hn::Set(d, 1));
    hn::Store(hn::Add(len, hn::ShiftRight<7>(top)), d, lens);  // the 10th byte
    hn::Store(top, d, tops);
    HWY_UNROLL(8)
    for (size_t j = 0; j < kLanes; ++j) {
      std::memcpy(dst, &bytes[j], 8);
      dst[8] = static_cast<uint8_t>(tops[j]);
      dst[9] = static_cast<uint8_t>(tops[j] >> 7);
      dst += lens[j];
    }
  }
  for (; i < n; ++i) dst = encodeVLongOne(dst, static_cast<uint64_t>(in[i]));
  return dst;
}

// ---- VInt / VLong decode ----

using D128 = hn::Full128<uint8_t>;

// Zero-extends bytes 0..1 (u64) of v. Highway 1.0.3 widens u8 to u64 only through u32
// (two instructions); pmovzxbq does it in one.
HWY_INLINE hn::Vec128<uint64_t> PromoteBytesToU64(hn::Vec128<uint8_t> v) {
  return hn::Vec128<uint64_t>{_mm_cvtepu8_epi64(v.raw)};
}

// ptest: Highway 1.0.3's AllFalse of a compare costs two more instructions.
HWY_INLINE bool TestZero(hn::Vec128<uint8_t> a, hn::Vec128<uint8_t> mask) {
  return _mm_testz_si128(a.raw, mask.raw) != 0;
}

// Four VInts in 32-bit lanes from their shuffled bytes: `lo` holds bytes 0..3 of each
// value (zero past its length), `hi` its 5th byte in byte 3 of the lane.
HWY_INLINE hn::Vec128<uint32_t> GatherVIntx4(hn::Vec128<uint8_t> lo, hn::Vec128<uint8_t> hi) {
  const hn::Full128<uint32_t> d32;
  auto x = hn::BitCast(d32, hn::And(lo, hn::Set(D128(), 0x7F)));
  x = hn::Or(hn::And(x, hn::Set(d32, 0x007F007Fu)),
             hn::ShiftRight<1>(hn::And(x, hn::Set(d32, 0x7F007F00u))));
  x = hn::Or(hn::And(x, hn::Set(d32, 0x00003FFFu)),
             hn::ShiftRight<2>(hn::And(x, hn::Set(d32, 0x3FFF0000u))));
  return hn::Or(x, hn::ShiftLeft<4>(hn::BitCast(d32, hi)));
}

// Gathers 7-bit groups back: the inverse of Spread56 on masked bytes.
template <class D>
HWY_INLINE hn::Vec<D> Gather56(D d, hn::Vec<D> x) {
  const hn::Repartition<uint8_t, D> d8;
  x = hn::And(x, hn::BitCast(d, hn::Set(d8, 0x7F)));
  x = hn::Or(hn::And(x, hn::Set(d, 0x007F007F007F007Full)),
             hn::ShiftRight<1>(hn::And(x, hn::Set(d, 0x7F007F007F007F00ull))));
  x = hn::Or(hn::And(x, hn::Set(d, 0x00003FFF00003FFFull)),
             hn::ShiftRight<2>(hn::And(x, hn::Set(d, 0x3FFF00003FFF0000ull))));
  return hn::Or(hn::And(x, hn::Set(d, 0x0FFFFFFFull)),
                hn::ShiftRight<4>(hn::And(x, hn::Set(d, 0x0FFFFFFF00000000ull))));
}

// Decodes four VInts from the 16 bytes in w, or returns 0 when they do not all end
// inside those bytes, one is longer than 5 bytes, or a 5th byte has a bit of 0xF0 set
// (the caller then takes the per-value path).
HWY_INLINE size_t DecodeVIntGroup4(hn::Vec128<uint8_t> w, uint32_t terminators, int32_t* out) {
  const D128 d;
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
  auto lo = hn::TableLookupBytesOr0(w, hn::Load(d, s.lo));
  auto hi = hn::TableLookupBytesOr0(w, hn::Load(d, s.hi));
  if (!TestZero(hi, hn::BitCast(d, hn::Set(hn::Full128<uint32_t>(), 0xF0000000u)))) return 0;
  hn::StoreU(GatherVIntx4(lo, hi), hn::Full128<uint32_t>(), reinterpret_cast<uint32_t*>(out));
  return e3 + 1;
}

// Two VLongs of at most 8 bytes each from the 16 bytes in w, or 0.
HWY_INLINE size_t DecodeVLongGroup2(hn::Vec128<uint8_t> w, uint32_t terminators, int64_t* out) {
  uint32_t t = terminators & 0xFFFF;
  uint32_t e0 = __builtin_ctz(t | 0x10000);
  t &= t - 1;
  uint32_t e1 = __builtin_ctz(t | 0x10000);
  uint32_t l0 = e0, l1 = e1 - e0 - 1;
  if ((l0 > 7) | (l1 > 7) | (e1 > 15)) return 0;
  const hn::Full128<uint64_t> d64;
  auto x = hn::TableLookupBytesOr0(w, hn::Load(D128(), kVLongShuffles.e[l0 * 8 + l1].lanes));
  hn::StoreU(Gather56(d64, hn::BitCast(d64, x)), d64, reinterpret_cast<uint64_t*>(out));
  return e1 + 1;
}

HWY_INLINE const uint8_t* TryDecode(const uint8_t* p, const uint8_t* limit, int32_t* out) {
  return tryDecodeVInt(p, limit, out);
}
HWY_INLINE const uint8_t* TryDecode(const uint8_t* p, const uint8_t* limit, int64_t* out) {
  return tryDecodeVLong(p, limit, out);
}
HWY_INLINE DecodeBatch DecodeTail(const uint8_t* p, const uint8_t* limit, int32_t* out, size_t n,
                                  size_t i) {
  return decodeVIntsTail(p, limit, out, n, i);
}
HWY_INLINE DecodeBatch DecodeTail(const uint8_t* p, const uint8_t* limit, int64_t* out, size_t n,
                                  size_t i) {
  return decodeVLongsTail(p, limit, out, n, i);
}

// What a group decoder took: values decoded and bytes consumed (0: nothing).
struct Taken {
  size_t values;
  size_t bytes;
};

// The loop of every varint decoder. While at least kMin values remain and a whole
// window of D's bytes lies before `limit`: a window without continuation bits (with
// room for one value per byte) goes to `ones(w, out)`; else `groups(w, terminators, p,
// out)` decodes the values it can prove inside the window; else one value by the per-value rules,
// stopping where those fail.
template <size_t kMin, class D, typename T, class Ones, class Groups>
HWY_INLINE DecodeBatch DecodeWindows(D d, const uint8_t* p, const uint8_t* limit, T* out, size_t n,
                                     Ones ones, Groups groups) {
  constexpr size_t kWindow = hn::MaxLanes(D());
  size_t i = 0;
  while (n - i >= kMin && limit - p >= static_cast<ptrdiff_t>(kWindow)) {
    auto w = hn::LoadU(d, p);
    uint32_t cont = SignBits(d, w);
    if (cont == 0 && n - i >= kWindow) {
      ones(w, out + i);
      p += kWindow;
      i += kWindow;
      continue;
    }
    Taken taken = groups(w, ~cont, p, out + i);
    if (taken.bytes != 0) {
      p += taken.bytes;
      i += taken.values;
      continue;
    }
    const uint8_t* next = TryDecode(p, limit, out + i);
    if (next == nullptr) return {i, p};
    p = next;
    ++i;
  }
  return DecodeTail(p, limit, out, n, i);
}

// 16 one-byte values at once, else a group of four.
DecodeBatch DecodeVInts(const uint8_t* p, const uint8_t* limit, int32_t* out, size_t n) {
  const D128 d;
  const hn::Full128<uint32_t> d32;
  auto ones = [d32](hn::Vec128<uint8_t> w, int32_t* o) HWY_ATTR {
    auto* o32 = reinterpret_cast<uint32_t*>(o);
    hn::StoreU(hn::PromoteTo(d32, hn::LowerHalf(hn::LowerHalf(w))), d32, o32);
    hn::StoreU(hn::PromoteTo(d32, hn::LowerHalf(hn::LowerHalf(hn::ShiftRightBytes<4>(D128(), w)))),
               d32, o32 + 4);
    hn::StoreU(hn::PromoteTo(d32, hn::LowerHalf(hn::LowerHalf(hn::ShiftRightBytes<8>(D128(), w)))),
               d32, o32 + 8);
    hn::StoreU(hn::PromoteTo(d32, hn::LowerHalf(hn::LowerHalf(hn::ShiftRightBytes<12>(D128(), w)))),
               d32, o32 + 12);
  };
  auto groups = [](hn::Vec128<uint8_t> w, uint32_t terminators, const uint8_t*, int32_t* o)
                    HWY_ATTR -> Taken {
    size_t used = DecodeVIntGroup4(w, terminators, o);
    return {used != 0 ? 4u : 0u, used};
  };
  return DecodeWindows<4>(d, p, limit, out, n, ones, groups);
}

#if HWY_TARGET == HWY_SSE4
// 16 one-byte values at once, else a pair.
DecodeBatch DecodeVLongs(const uint8_t* p, const uint8_t* limit, int64_t* out, size_t n) {
  auto ones = [](hn::Vec128<uint8_t> w, int64_t* o) HWY_ATTR {
    auto* o64 = reinterpret_cast<uint64_t*>(o);
    HWY_UNROLL(8)
    for (int k = 0; k < 8; ++k) {
      hn::StoreU(PromoteBytesToU64(w), hn::Full128<uint64_t>(), o64 + 2 * k);
      w = hn::ShiftRightBytes<2>(D128(), w);
    }
  };
  auto groups = [](hn::Vec128<uint8_t> w, uint32_t terminators, const uint8_t*, int64_t* o)
                    HWY_ATTR -> Taken {
    size_t used = DecodeVLongGroup2(w, terminators, o);
    return {used != 0 ? 2u : 0u, used};
  };
  return DecodeWindows<2>(D128(), p, limit, out, n, ones, groups);
}
#else   // 256-bit vectors: 32 one-byte values, else four values, else a pair
DecodeBatch DecodeVLongs(const uint8_t* p, const uint8_t* limit, int64_t* out, size_t n) {
  const hn::Full256<uint8_t> d;
  const hn::Full256<uint64_t> d64;
  auto ones = [d64](hn::Vec256<uint8_t> w, int64_t* o) HWY_ATTR {
    auto* o64 = reinterpret_cast<uint64_t*>(o);
    __m128i lo = hn::LowerHalf(w).raw, hi = hn::UpperHalf(D128(), w).raw;
    HWY_UNROLL(8)
    for (int k = 0; k < 4; ++k) {
      // pmovzxbq as in PromoteBytesToU64.
      hn::StoreU(hn::Vec256<uint64_t>{_mm256_cvtepu8_epi64(lo)}, d64, o64 + 4 * k);
      hn::StoreU(hn::Vec256<uint64_t>{_mm256_cvtepu8_epi64(hi)}, d64, o64 + 16 + 4 * k);
      lo = _mm_srli_si128(lo, 4);
      hi = _mm_srli_si128(hi, 4);
    }
  };
  auto groups = [d, d64](hn::Vec256<uint8_t> w, uint32_t terminators, const uint8_t* at, int64_t* o)
                    HWY_ATTR -> Taken {
    uint64_t t = terminators;
    uint32_t e[4];
    HWY_UNROLL(8)
    for (int k = 0; k < 4; ++k) {
      e[k] = static_cast<uint32_t>(__builtin_ctzll(t | (1ull << 32)));
      t &= t - 1;
    }
    uint32_t l0 = e[0], l1 = e[1] - e[0] - 1, l2 = e[2] - e[1] - 1, l3 = e[3] - e[2] - 1;
    bool ok = ((l0 > 7) | (l1 > 7) | (l2 > 7) | (l3 > 7) | (e[1] > 15) | (e[3] > 31) |
               (e[3] - e[1] > 16)) == 0;
    if (ok) {
      // The second group's 16 bytes start where the first group ends.
      auto win = hn::Combine(d, hn::LoadU(D128(), at + e[1] + 1), hn::LowerHalf(w));
      auto idx = hn::Combine(d, hn::Load(D128(), kVLongShuffles.e[l2 * 8 + l3].lanes),
                             hn::Load(D128(), kVLongShuffles.e[l0 * 8 + l1].lanes));
      auto x = hn::TableLookupBytesOr0(win, idx);
      hn::StoreU(Gather56(d64, hn::BitCast(d64, x)), d64, reinterpret_cast<uint64_t*>(o));
      return {4, e[3] + 1};
    }
    size_t used = DecodeVLongGroup2(hn::LowerHalf(w), terminators, o);
    return {used != 0 ? 2u : 0u, used};
  };
  return DecodeWindows<4>(d, p, limit, out, n, ones, groups);
}
#endif  // HWY_TARGET == HWY_SSE4

#endif  // WIRESTREAM_HWY_X86

#if WIRESTREAM_HWY_X86 && HWY_TARGET != HWY_AVX3_DL

// ---- ByteStreamSplit, 16 values per 128-bit block ----
// Block b of register j holds values 16 b + (16 / width) j ..; a byte shuffle sorts
// each block by stream, an unpack transpose of 32-bit (floats) or 16-bit (doubles)
// words across the registers then gives register k stream k of the step's values.

// Loads register j of a step: one block per 16 values (p points at block 0's part).
template <class D, typename T>
HWY_INLINE hn::Vec<D> LoadBlocks(D d, const T* p) {
  if constexpr (hn::MaxLanes(D()) == 16) {
    return hn::BitCast(d, hn::LoadU(hn::Repartition<T, D>(), p));
  } else {
    const hn::Full128<T> dh;
    return hn::BitCast(
        d, hn::Combine(hn::Repartition<T, D>(), hn::LoadU(dh, p + 16), hn::LoadU(dh, p)));
  }
}

template <class D, typename T>
HWY_INLINE void StoreBlocks(D d, hn::Vec<D> v, T* p) {
  const hn::Repartition<T, D> dt;
  if constexpr (hn::MaxLanes(D()) == 16) {
    hn::StoreU(hn::BitCast(dt, v), dt, p);
  } else {
    const hn::Full128<T> dh;
    auto x = hn::BitCast(dt, v);
    hn::StoreU(hn::LowerHalf(x), dh, p);
    hn::StoreU(hn::UpperHalf(dh, x), dh, p + 16);
  }
}

// 4x4 transpose of 32-bit words across four registers (in each block).
template <class D>
HWY_INLINE void Transpose4x32(D d, hn::Vec<D>* r) {
  const hn::Repartition<uint32_t, D> d32;
  const hn::Repartition<uint64_t, D> d64;
  auto r0 = hn::BitCast(d32, r[0]), r1 = hn::BitCast(d32, r[1]);
  auto r2 = hn::BitCast(d32, r[2]), r3 = hn::BitCast(d32, r[3]);
  auto t0 = hn::BitCast(d64, hn::InterleaveLower(d32, r0, r1));
  auto t1 = hn::BitCast(d64, hn::InterleaveUpper(d32, r0, r1));
  auto t2 = hn::BitCast(d64, hn::InterleaveLower(d32, r2, r3));
  auto t3 = hn::BitCast(d64, hn::InterleaveUpper(d32, r2, r3));
  r[0] = hn::BitCast(d, hn::InterleaveLower(d64, t0, t2));
  r[1] = hn::BitCast(d, hn::InterleaveUpper(d64, t0, t2));
  r[2] = hn::BitCast(d, hn::InterleaveLower(d64, t1, t3));
  r[3] = hn::BitCast(d, hn::InterleaveUpper(d64, t1, t3));
}

// 8x8 transpose of 16-bit words across eight registers (in each block).
template <class D>
HWY_INLINE void Transpose8x16(D d, hn::Vec<D>* r) {
  const hn::Repartition<uint16_t, D> d16;
  const hn::Repartition<uint32_t, D> d32;
  const hn::Repartition<uint64_t, D> d64;
  hn::Vec<decltype(d32)> a[8];
  HWY_UNROLL(8)
  for (int j = 0; j < 4; ++j) {
    auto x = hn::BitCast(d16, r[2 * j]), y = hn::BitCast(d16, r[2 * j + 1]);
    a[2 * j] = hn::BitCast(d32, hn::InterleaveLower(d16, x, y));
    a[2 * j + 1] = hn::BitCast(d32, hn::InterleaveUpper(d16, x, y));
  }
  // b[0..7] = unpack{lo,hi}_epi32 of (a0,a2), (a1,a3), (a4,a6), (a5,a7).
  hn::Vec<decltype(d64)> b[8];
  HWY_UNROLL(8)
  for (int j = 0; j < 2; ++j) {
    HWY_UNROLL(8)
    for (int h = 0; h < 2; ++h) {
      auto x = a[4 * j + h], y = a[4 * j + h + 2];
      b[4 * j + 2 * h] = hn::BitCast(d64, hn::InterleaveLower(d32, x, y));
      b[4 * j + 2 * h + 1] = hn::BitCast(d64, hn::InterleaveUpper(d32, x, y));
    }
  }
  HWY_UNROLL(8)
  for (int j = 0; j < 4; ++j) {
    r[2 * j] = hn::BitCast(d, hn::InterleaveLower(d64, b[j], b[j + 4]));
    r[2 * j + 1] = hn::BitCast(d, hn::InterleaveUpper(d64, b[j], b[j + 4]));
  }
}

// Byte shuffles per block. Four floats -> 32-bit word k = big-endian byte k of the four.
alignas(16) constexpr uint8_t kFloatsToWords[16] = {3, 7, 11, 15, 2, 6, 10, 14,
                                                    1, 5, 9,  13, 0, 4, 8,  12};
alignas(16) constexpr uint8_t kWordsToFloats[16] = {12, 8,  4, 0, 13, 9,  5, 1,
                                                    14, 10, 6, 2, 15, 11, 7, 3};
// Two doubles (little-endian in memory) -> 16-bit word k = big-endian byte k of both.
alignas(16) constexpr uint8_t kDoublesToWords[16] = {7, 15, 6, 14, 5, 13, 4, 12,
                                                     3, 11, 2, 10, 1, 9,  0, 8};
alignas(16) constexpr uint8_t kWordsToDoubles[16] = {14, 12, 10, 8, 6, 4, 2, 0,
                                                     15, 13, 11, 9, 7, 5, 3, 1};

// T is float or double; NaN is canonicalised as writeFloat/writeDouble send it.
template <typename T, typename Bits>
HWY_INLINE size_t SplitEncode(const T* in, size_t n, uint8_t* out, Bits nan_bits,
                              const uint8_t* table) {
  constexpr int kWidth = sizeof(T);
  const D8 d;
  const hn::Repartition<T, D8> dt;
  const hn::Repartition<Bits, D8> db;
  constexpr size_t kStep = hn::MaxLanes(D8());  // values a step
  const auto to_words = hn::LoadDup128(d, table);
  const auto nan = hn::BitCast(dt, hn::Set(db, nan_bits));
  size_t i = 0;
  for (; i + kStep <= n; i += kStep) {
    hn::Vec<D8> r[kWidth];
    HWY_UNROLL(8)
    for (int j = 0; j < kWidth; ++j) {
      auto f = hn::BitCast(dt, LoadBlocks(d, in + i + (16 / kWidth) * j));
      f = hn::IfThenElse(hn::IsNaN(f), nan, f);
      r[j] = hn::TableLookupBytes(hn::BitCast(d, f), to_words);
    }
    if constexpr (kWidth == 4) {
      Transpose4x32(d, r);
    } else {
      Transpose8x16(d, r);
    }
    HWY_UNROLL(8)
    for (int k = 0; k < kWidth; ++k) hn::StoreU(r[k], d, out + k * n + i);
  }
  return i;
}

template <typename T>
HWY_INLINE size_t SplitDecode(const uint8_t* in, size_t n, T* out, const uint8_t* table) {
  constexpr int kWidth = sizeof(T);
  const D8 d;
  constexpr size_t kStep = hn::MaxLanes(D8());
  const auto to_values = hn::LoadDup128(d, table);
  size_t i = 0;
  for (; i + kStep <= n; i += kStep) {
    hn::Vec<D8> r[kWidth];
    HWY_UNROLL(8)
    for (int k = 0; k < kWidth; ++k) r[k] = hn::LoadU(d, in + k * n + i);
    if constexpr (kWidth == 4) {
      Transpose4x32(d, r);
    } else {
      Transpose8x16(d, r);
    }
    HWY_UNROLL(8)
    for (int j = 0; j < kWidth; ++j) {
      StoreBlocks(d, hn::TableLookupBytes(r[j], to_values), out + i + (16 / kWidth) * j);
    }
  }
  return i;
}

void SplitEncodeFloats(const float* in, size_t n, uint8_t* out) {
  splitEncodeFloatsTail(in, n, out, SplitEncode(in, n, out, uint32_t{0x7fc00000u}, kFloatsToWords));
}
void SplitDecodeFloats(const uint8_t* in, size_t n, float* out) {
  splitDecodeFloatsTail(in, n, out, SplitDecode(in, n, out, kWordsToFloats));
}
void SplitEncodeDoubles(const double* in, size_t n, uint8_t* out) {
  splitEncodeDoublesTail(in, n, out,
                         SplitEncode(in, n, out, uint64_t{0x7ff8000000000000ull}, kDoublesToWords));
}
void SplitDecodeDoubles(const uint8_t* in, size_t n, double* out) {
  splitDecodeDoublesTail(in, n, out, SplitDecode(in, n, out, kWordsToDoubles));
}

#elif HWY_TARGET == HWY_AVX3_DL

// ---- ByteStreamSplit, 64 values a step ----
// vpermb sorts each 64-byte register by stream in one instruction, then a transpose of
// 128-bit lanes (floats) or 64-bit words (doubles) across the registers puts each
// stream's 64 bytes in one register. Highway 1.0.3 has no 8-bit TableLookupLanes, no
// 128-bit-lane shuffle and no two-table 64-bit lookup on AVX-512, hence the intrinsics.

using D512 = hn::Full512<uint8_t>;

HWY_INLINE hn::Vec512<uint8_t> PermuteBytes(hn::Vec512<uint8_t> idx, hn::Vec512<uint8_t> v) {
  return hn::Vec512<uint8_t>{_mm512_permutexvar_epi8(idx.raw, v.raw)};
}

// Byte indexes for vpermb over 64 bytes of kWidth-byte values: encode moves stream k
// (big-endian byte k, little-endian byte kWidth - 1 - k) of value i to byte
// (64 / kWidth) k + i; decode moves it back. Built at compile time: one load a call.
struct StreamIndexTable {
  alignas(64) uint8_t idx[64];
};

template <int kWidth, bool kEncode>
constexpr StreamIndexTable MakeStreamIndexes() {
  constexpr int kValues = 64 / kWidth;
  StreamIndexTable t{};
  for (int k = 0; k < kWidth; ++k) {
    for (int i = 0; i < kValues; ++i) {
      int stream_byte = kValues * k + i, value_byte = kWidth * i + (kWidth - 1 - k);
      t.idx[kEncode ? stream_byte : value_byte] =
          static_cast<uint8_t>(kEncode ? value_byte : stream_byte);
    }
  }
  return t;
}

template <int kWidth, bool kEncode>
HWY_INLINE hn::Vec512<uint8_t> StreamIndexes() {
  static constexpr StreamIndexTable kTable = MakeStreamIndexes<kWidth, kEncode>();
  return hn::Load(D512(), kTable.idx);
}

// r[j] lane k <-> r[k] lane j (lanes of 128 bits); its own inverse.
HWY_INLINE void TransposeLanes4(hn::Vec512<uint8_t>* r) {
  __m512i t0 = _mm512_shuffle_i64x2(r[0].raw, r[1].raw, _MM_SHUFFLE(1, 0, 1, 0));
  __m512i t1 = _mm512_shuffle_i64x2(r[0].raw, r[1].raw, _MM_SHUFFLE(3, 2, 3, 2));
  __m512i t2 = _mm512_shuffle_i64x2(r[2].raw, r[3].raw, _MM_SHUFFLE(1, 0, 1, 0));
  __m512i t3 = _mm512_shuffle_i64x2(r[2].raw, r[3].raw, _MM_SHUFFLE(3, 2, 3, 2));
  r[0].raw = _mm512_shuffle_i64x2(t0, t2, _MM_SHUFFLE(2, 0, 2, 0));
  r[1].raw = _mm512_shuffle_i64x2(t0, t2, _MM_SHUFFLE(3, 1, 3, 1));
  r[2].raw = _mm512_shuffle_i64x2(t1, t3, _MM_SHUFFLE(2, 0, 2, 0));
  r[3].raw = _mm512_shuffle_i64x2(t1, t3, _MM_SHUFFLE(3, 1, 3, 1));
}

// r[j] word k <-> r[k] word j (64-bit words); its own inverse. Each stage pairs
// registers d apart and interleaves blocks of d words.
HWY_INLINE void TransposeWords8(hn::Vec512<uint8_t>* r) {
  const hn::Full512<uint64_t> d64;
  hn::Vec512<uint64_t> a[8];
  HWY_UNROLL(8)
  for (int j = 0; j < 8; j += 2) {
    auto x = hn::BitCast(d64, r[j]), y = hn::BitCast(d64, r[j + 1]);
    a[j] = hn::InterleaveLower(d64, x, y);
    a[j + 1] = hn::InterleaveUpper(d64, x, y);
  }
  const __m512i lo2 = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);
  const __m512i hi2 = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
  __m512i b[8];
  HWY_UNROLL(8)
  for (int j : {0, 1, 4, 5}) {
    b[j] = _mm512_permutex2var_epi64(a[j].raw, lo2, a[j + 2].raw);
    b[j + 2] = _mm512_permutex2var_epi64(a[j].raw, hi2, a[j + 2].raw);
  }
  const __m512i lo4 = _mm512_setr_epi64(0, 1, 2, 3, 8, 9, 10, 11);
  const __m512i hi4 = _mm512_setr_epi64(4, 5, 6, 7, 12, 13, 14, 15);
  HWY_UNROLL(8)
  for (int j = 0; j < 4; ++j) {
    r[j].raw = _mm512_permutex2var_epi64(b[j], lo4, b[j + 4]);
    r[j + 4].raw = _mm512_permutex2var_epi64(b[j], hi4, b[j + 4]);
  }
}

// cmpunord on the register: Highway's IsNaN is vfpclass, into which gcc folds a second
// load of the values (measured 10% slower on 1K floats).
HWY_INLINE hn::Mask512<float> IsNaN512(hn::Vec512<float> v) {
  return hn::Mask512<float>{_mm512_cmp_ps_mask(v.raw, v.raw, _CMP_UNORD_Q)};
}
HWY_INLINE hn::Mask512<double> IsNaN512(hn::Vec512<double> v) {
  return hn::Mask512<double>{_mm512_cmp_pd_mask(v.raw, v.raw, _CMP_UNORD_Q)};
}

template <typename T, typename Bits>
HWY_INLINE void SplitEncode512(const T* in, size_t n, uint8_t* out, Bits nan_bits) {
  constexpr int kWidth = sizeof(T);
  const auto idx = StreamIndexes<kWidth, true>();
  const D512 d;
  const hn::Full512<T> dt;
  const auto nan = hn::BitCast(dt, hn::Set(hn::Full512<Bits>(), nan_bits));
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    hn::Vec512<uint8_t> r[kWidth];
    HWY_UNROLL(8)
    for (int j = 0; j < kWidth; ++j) {
      auto f = hn::LoadU(dt, in + i + (64 / kWidth) * j);
      r[j] = PermuteBytes(idx, hn::BitCast(d, hn::IfThenElse(IsNaN512(f), nan, f)));
    }
    if constexpr (kWidth == 4) {
      TransposeLanes4(r);
    } else {
      TransposeWords8(r);
    }
    HWY_UNROLL(8)
    for (int k = 0; k < kWidth; ++k) hn::StoreU(r[k], d, out + k * n + i);
  }
  if constexpr (kWidth == 4) {
    splitEncodeFloatsTail(in, n, out, i);
  } else {
    splitEncodeDoublesTail(in, n, out, i);
  }
}

template <typename T>
HWY_INLINE void SplitDecode512(const uint8_t* in, size_t n, T* out) {
  constexpr int kWidth = sizeof(T);
  const auto idx = StreamIndexes<kWidth, false>();
  const D512 d;
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    hn::Vec512<uint8_t> r[kWidth];
    HWY_UNROLL(8)
    for (int k = 0; k < kWidth; ++k) r[k] = hn::LoadU(d, in + k * n + i);
    if constexpr (kWidth == 4) {
      TransposeLanes4(r);
    } else {
      TransposeWords8(r);
    }
    auto* bytes = reinterpret_cast<uint8_t*>(out + i);
    HWY_UNROLL(8)
    for (int j = 0; j < kWidth; ++j) hn::StoreU(PermuteBytes(idx, r[j]), d, bytes + 64 * j);
  }
  if constexpr (kWidth == 4) {
    splitDecodeFloatsTail(in, n, out, i);
  } else {
    splitDecodeDoublesTail(in, n, out, i);
  }
}

void SplitEncodeFloats(const float* in, size_t n, uint8_t* out) {
  SplitEncode512(in, n, out, uint32_t{0x7fc00000u});
}
void SplitDecodeFloats(const uint8_t* in, size_t n, float* out) { SplitDecode512(in, n, out); }
void SplitEncodeDoubles(const double* in, size_t n, uint8_t* out) {
  SplitEncode512(in, n, out, uint64_t{0x7ff8000000000000ull});
}
void SplitDecodeDoubles(const uint8_t* in, size_t n, double* out) { SplitDecode512(in, n, out); }

#elif HWY_TARGET == HWY_NEON

// ---- ByteStreamSplit on NEON ----
// Sorts the bytes of one vector of values by position with log2(width) rounds of
// ConcatEven / ConcatOdd (uzp1/uzp2), and back with InterleaveLower / InterleaveUpper
// (zip1/zip2).

// r[j] = bytes j * lanes .. of the values in memory order; afterwards r[b] holds
// little-endian byte b of every value.
template <int kWidth, class D, class V>
HWY_INLINE void SortBytesByPosition(D d, V* r) {
  for (int round = 1; round < kWidth; round *= 2) {
    V t[kWidth];
    for (int j = 0; j < kWidth / 2; ++j) {
      t[j] = hn::ConcatEven(d, r[2 * j + 1], r[2 * j]);
      t[j + kWidth / 2] = hn::ConcatOdd(d, r[2 * j + 1], r[2 * j]);
    }
    for (int j = 0; j < kWidth; ++j) r[j] = t[j];
  }
}

// The inverse of SortBytesByPosition.
template <int kWidth, class D, class V>
HWY_INLINE void InterleaveBytes(D d, V* r) {
  for (int round = 1; round < kWidth; round *= 2) {
    V t[kWidth];
    for (int j = 0; j < kWidth / 2; ++j) {
      t[2 * j] = hn::InterleaveLower(d, r[j], r[j + kWidth / 2]);
      t[2 * j + 1] = hn::InterleaveUpper(d, r[j], r[j + kWidth / 2]);
    }
    for (int j = 0; j < kWidth; ++j) r[j] = t[j];
  }
}

template <typename T, typename Bits>
HWY_INLINE size_t SplitEncode(const T* in, size_t n, uint8_t* out, Bits nan_bits) {
  constexpr int kWidth = sizeof(T);
  const hn::Full128<uint8_t> d8;
  const hn::Repartition<T, decltype(d8)> df;
  const hn::Repartition<Bits, decltype(d8)> db;
  const size_t lanes = hn::Lanes(d8);  // values a step
  const size_t per = hn::Lanes(df);    // values a vector
  const auto nan = hn::BitCast(df, hn::Set(db, nan_bits));
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    hn::Vec<decltype(d8)> r[kWidth];
    for (int j = 0; j < kWidth; ++j) {
      auto f = hn::LoadU(df, in + i + j * per);
      r[j] = hn::BitCast(d8, hn::IfThenElse(hn::IsNaN(f), nan, f));
    }
    SortBytesByPosition<kWidth>(d8, r);
    for (int b = 0; b < kWidth; ++b) hn::StoreU(r[b], d8, out + (kWidth - 1 - b) * n + i);
  }
  return i;
}

template <typename T>
HWY_INLINE size_t SplitDecode(const uint8_t* in, size_t n, T* out) {
  constexpr int kWidth = sizeof(T);
  const hn::Full128<uint8_t> d8;
  const size_t lanes = hn::Lanes(d8);
  auto* bytes = reinterpret_cast<uint8_t*>(out);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    hn::Vec<decltype(d8)> r[kWidth];
    for (int b = 0; b < kWidth; ++b) r[b] = hn::LoadU(d8, in + (kWidth - 1 - b) * n + i);
    InterleaveBytes<kWidth>(d8, r);
    for (int j = 0; j < kWidth; ++j) hn::StoreU(r[j], d8, bytes + i * kWidth + j * lanes);
  }
  return i;
}

void SplitEncodeFloats(const float* in, size_t n, uint8_t* out) {
  splitEncodeFloatsTail(in, n, out, SplitEncode(in, n, out, uint32_t{0x7fc00000u}));
}
void SplitDecodeFloats(const uint8_t* in, size_t n, float* out) {
  splitDecodeFloatsTail(in, n, out, SplitDecode(in, n, out));
}
void SplitEncodeDoubles(const double* in, size_t n, uint8_t* out) {
  splitEncodeDoublesTail(in, n, out, SplitEncode(in, n, out, uint64_t{0x7ff8000000000000ull}));
}
void SplitDecodeDoubles(const uint8_t* in, size_t n, double* out) {
  splitDecodeDoublesTail(in, n, out, SplitDecode(in, n, out));
}

// The vector varint kernels need the window's sign bits as an integer (one pmovmskb on
// x86, several instructions on NEON): NEON runs the scalar loops, not measured otherwise.
uint8_t* EncodeVInts(const int32_t* in, size_t n, uint8_t* dst) {
  return encodeVIntsScalar(in, n, dst);
}
uint8_t* EncodeVLongs(const int64_t* in, size_t n, uint8_t* dst) {
  return encodeVLongsScalar(in, n, dst);
}
DecodeBatch DecodeVInts(const uint8_t* p, const uint8_t* limit, int32_t* out, size_t n) {
  return decodeVIntsScalar(p, limit, out, n);
}
DecodeBatch DecodeVLongs(const uint8_t* p, const uint8_t* limit, int64_t* out, size_t n) {
  return decodeVLongsScalar(p, limit, out, n);
}

#endif  // ByteStreamSplit per target

// This target's table, or nullptr for a target that is no level of ours.
const Kernels* TargetKernels() {
#ifdef WIRESTREAM_HWY_LEVEL
  static const Kernels kKernels = {
      Level::WIRESTREAM_HWY_LEVEL,
      EncodeVInts,
      EncodeVLongs,
      DecodeVInts,
      DecodeVLongs,
      AsciiPrefixLength,
      Utf16Length,
      SplitEncodeFloats,
      SplitDecodeFloats,
      SplitEncodeDoubles,
      SplitDecodeDoubles,
  };
  return &kKernels;
#else
  return nullptr;
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace wirestream::simd::internal
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace wirestream::simd::internal {
HWY_EXPORT(TargetKernels);

const Kernels* highwayKernels() { return HWY_DYNAMIC_DISPATCH(TargetKernels)(); }

const Kernels* highwayKernelsFor(Level level) {
  switch (level) {
#if HWY_TARGETS & HWY_SSE4
    case Level::kSse4:
      return N_SSE4::TargetKernels();
#endif
#if HWY_TARGETS & HWY_AVX2
    case Level::kAvx2:
      return N_AVX2::TargetKernels();
#endif
#if (HWY_TARGETS & HWY_AVX3_DL) && (HWY_TARGETS & HWY_AVX2)
    case Level::kAvx512: {
      // AVX3_DL's kernels but AVX2's ASCII scan and UTF-16 count: the AVX3_DL compile
      // of the same 256-bit loop (EVEX loads) measured 45% slower in writeString of 64
      // KiB of text with a 2-byte letter every ~64 bytes (many short calls).
      static const Kernels kAvx512 = [] {
        Kernels k = *N_AVX3_DL::TargetKernels();
        k.asciiPrefixLength = N_AVX2::AsciiPrefixLength;
        k.utf16Length = N_AVX2::Utf16Length;
        return k;
      }();
      return &kAvx512;
    }
#endif
#if HWY_TARGETS & HWY_NEON
    case Level::kNeon:
      return N_NEON::TargetKernels();
#endif
    default:
      return nullptr;
  }
}
}  // namespace wirestream::simd::internal
#endif  // HWY_ONCE
#endif  // HWY_ARCH_X86 || HWY_ARCH_ARM_A64
