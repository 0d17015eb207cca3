// The Highway kernels: one source, compiled by foreach_target.h once per Highway target
// and picked at run time through HWY_DYNAMIC_DISPATCH (dispatch.cc). Built for ARM
// (the neon level; NEON is part of every ARMv8-A CPU, Highway still detects it); on x86
// the hand-written sse4/avx2/avx512 units stay, because they are tuned against the
// benchmark and these were not measured there.
//
// ASCII scan and UTF-16 length compare whole vectors of bytes. ByteStreamSplit sorts the
// bytes of one vector of values by position with log2(width) rounds of ConcatEven /
// ConcatOdd (NEON uzp1/uzp2), and back with InterleaveLower / InterleaveUpper (zip1/zip2).
// The varint kernels are the scalar level's per-value loops (codec/varint.h): the
// vector ones need a byte shuffle by a table lookup per group of values, not ported yet.
#include <hwy/detect_compiler_arch.h>

#if HWY_ARCH_ARM_A64
// NEON only: the kernels are written for 128-bit vectors (SVE's are wider).
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128)
#endif

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/hwy_kernels.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "simd/internal.h"

HWY_BEFORE_NAMESPACE();
namespace wirestream::simd::internal {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

size_t AsciiPrefixLength(const uint8_t* p, size_t n) {
  const hn::ScalableTag<int8_t> d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    auto v = hn::LoadU(d, reinterpret_cast<const int8_t*>(p + i));
    intptr_t first = hn::FindFirstTrue(d, hn::Lt(v, hn::Zero(d)));  // bytes >= 0x80
    if (first >= 0) return i + static_cast<size_t>(first);
  }
  return asciiPrefixTail(p, n, i);
}

size_t Utf16Length(const uint8_t* p, size_t n) {
  const hn::ScalableTag<int8_t> d;
  const size_t lanes = hn::Lanes(d);
  const auto cont_end = hn::Set(d, -64);  // 0x80..0xBF are the int8 values below -64
  const auto four_min = hn::Set(d, -17);  // 0xF0..0xFF are -16..-1
  size_t units = 0;
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    auto v = hn::LoadU(d, reinterpret_cast<const int8_t*>(p + i));
    size_t cont = hn::CountTrue(d, hn::Lt(v, cont_end));
    size_t four = hn::CountTrue(d, hn::And(hn::Gt(v, four_min), hn::Lt(v, hn::Zero(d))));
    units += lanes - cont + four;
  }
  return units + utf16LengthTail(p, n, i);
}

// ByteStreamSplit over one step of Lanes(u8) values of kWidth bytes, held in kWidth
// byte vectors: r[j] = bytes j * lanes .. of the values in memory order.
// Unsplit: afterwards r[b] holds little-endian byte b of every value.
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

// T is float or double; NaN is canonicalised as writeFloat/writeDouble send it.
template <typename T, typename Bits>
HWY_INLINE size_t SplitEncode(const T* in, size_t n, uint8_t* out, Bits nan_bits) {
  constexpr int kWidth = sizeof(T);
  const hn::ScalableTag<uint8_t> d8;
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
  const hn::ScalableTag<uint8_t> d8;
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

// This target's table, or nullptr for a target that is no level of ours.
const Kernels* TargetKernels() {
#if HWY_TARGET == HWY_NEON
  static const Kernels kKernels = {
      Level::kNeon,       encodeVIntsScalar,  encodeVLongsScalar, decodeVIntsScalar,
      decodeVLongsScalar, AsciiPrefixLength,  Utf16Length,        SplitEncodeFloats,
      SplitDecodeFloats,  SplitEncodeDoubles, SplitDecodeDoubles,
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
}  // namespace wirestream::simd::internal
#endif  // HWY_ONCE
#endif  // HWY_ARCH_ARM_A64
