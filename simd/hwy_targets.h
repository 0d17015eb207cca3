// The Highway targets every Highway source of wirestream compiles (simd/hwy_kernels.cc,
// tsm/tsm_kernels.cc). Each such source includes this first, before any hwy header.
//
// Why one list: Highway chooses one target per process, and each source's dispatch table
// is indexed through hwy::ChosenTarget::GetIndex(), an inline function that masks by the
// HWY_TARGETS of its translation unit. Built without optimization it is not inlined, and
// the linker keeps one copy for every source: sources built for different target sets
// would then index each other's tables wrongly (a null entry: a crash on first dispatch).
//
// The set: the targets that are //simd levels (HWY_SSE4, HWY_AVX2, HWY_AVX3_DL, HWY_NEON)
// plus Highway's baseline. AVX3 without VBMI and SSSE3 would be copies nobody dispatches
// to; SVE's vectors are scalable while the kernels are written for fixed widths.
#pragma once

#include <hwy/detect_compiler_arch.h>

#if HWY_ARCH_X86 && !defined(HWY_WANT_AVX3_DL)
#define HWY_WANT_AVX3_DL  // not in Highway 1.0.3's default set
#endif
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS \
  (HWY_SSSE3 | HWY_AVX3 | HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128)
#endif
