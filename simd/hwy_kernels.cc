// The vector levels' kernels: one Highway source (this file and the kernel families it
// includes: hwy_text.inc, hwy_varint.inc, hwy_byte_stream_split.inc), compiled by
// foreach_target.h once per Highway target and picked at run time through
// HWY_DYNAMIC_DISPATCH (dispatch.cc).
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

#endif  // WIRESTREAM_HWY_LEVEL

// The kernels, one file a family, in this order (the varint kernels use the text
// kernels' SignBits); each is included once per target.
#include "simd/hwy_text.inc"
//
#include "simd/hwy_varint.inc"
//
#include "simd/hwy_byte_stream_split.inc"

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
