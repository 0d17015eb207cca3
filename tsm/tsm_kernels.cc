// The vector kernels of tsm_kernels.h: one Highway source, compiled by
// foreach_target.h once per Highway target and picked at run time through
// HWY_DYNAMIC_DISPATCH; the scalar table at the end is the plain loops.
//
// Deltas: a vector of deltas is a load at i minus a load at i - 1; zig-zag is
// (x << 1) ^ -(x >> 63). The OR and the XOR against d[1] accumulate per lane.
//
// Decoding simple8b: a word of selector s >= 2 holds count(s) values of bits(s)
// bits. Every vector of up to 4 lanes is the word shifted right by a per-lane
// amount and masked (lanes past the word's values mask to 0), transformed, and
// prefix-summed in the register (log2(lanes) shifted adds); the carry into the
// next vector is the broadcast last lane, which a zero lane leaves at the total.
// A vector store may run past the word's values into the next word's room, so a
// word is done here only while the block has room for whole vectors; the last
// words go to simple8b's scalar loop, and so do the selectors where vectors do
// not pay (kScalarFrom), except pairs of selector-14 words at 4 lanes.
//
// Encoding simple8b: simple8b_encode-inl.h's selector choice with the OR of a
// word's candidate values and the packing (values shifted per lane, ORed) in
// vectors.
#include "simd/hwy_targets.h"  // first: the one target list of every Highway source

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tsm/tsm_kernels.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

// Per-target parts below include this unit again; these are defined once.
#ifndef WIRESTREAM_CODECS_TSM_KERNELS_ONCE
#define WIRESTREAM_CODECS_TSM_KERNELS_ONCE

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "codec/byte_order.h"
#include "tsm/internal.h"
#include "tsm/simple8b_tables.h"
#include "tsm/tsm_kernels.h"

namespace wirestream::tsm::internal {
namespace {

constexpr size_t kMaxLanes = 8;  // the tables hold vectors of up to 8 lanes
using simple8b::detail::kBits;
using simple8b::detail::kCount;

// Per selector 2..13 and lane i < 64: the shift of value i, and its mask (0 past
// the word's values, so those lanes decode to 0).
struct Unpack {
  alignas(64) uint64_t shift[16][64];
  alignas(64) uint64_t mask[16][64];
};

constexpr Unpack kUnpack = [] {
  Unpack u{};
  for (int s = 2; s < 14; ++s) {
    for (int i = 0; i < 64; ++i) {
      u.shift[s][i] = i < kCount[s] ? uint64_t(i * kBits[s]) : 0;
      u.mask[s][i] = i < kCount[s] ? (uint64_t{1} << kBits[s]) - 1 : 0;
    }
  }
  return u;
}();

// Selector 14 two words at a time (4 lanes): the bytes of each 128-bit block
// in big-endian order, the first word twice then the second twice; the shifts
// of their two values.
alignas(32) constexpr uint8_t kSwapPair[32] = {7, 6, 5,  4,  3,  2,  1,  0,  7,  6,  5,
                                               4, 3, 2,  1,  0,  15, 14, 13, 12, 11, 10,
                                               9, 8, 15, 14, 13, 12, 11, 10, 9,  8};
alignas(32) constexpr uint64_t kShiftPair[4] = {0, 30, 0, 30};

inline uint64_t zigZag(uint64_t x) { return (x << 1) ^ (0 - (x >> 63)); }
inline uint64_t unZigZag(uint64_t z) { return (z >> 1) ^ (0 - (z & 1)); }

}  // namespace
}  // namespace wirestream::tsm::internal

#endif  // WIRESTREAM_CODECS_TSM_KERNELS_ONCE

HWY_BEFORE_NAMESPACE();
namespace wirestream::tsm::internal {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The fallback targets (one lane, or 128 bits emulated) would be the scalar
// loops again, slower: their table is the scalar one.
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
const Kernels* TargetKernels() { return nullptr; }
#else

// The sums kernels run 4 lanes at most: with 8 (AVX-512) the cross-block
// permutes of the prefix sums cost more than the wider stores save (measured
// per selector by BM_TsmSimple8bSums_*). The delta kernels take 8.
using D = hn::CappedTag<uint64_t, 4>;
using V = hn::Vec<D>;
using DWide = hn::CappedTag<uint64_t, kMaxLanes>;

// The first selector left to the scalar loop. With 4 lanes every selector up to
// 13 (3 values a word) beats the scalar loop; with 2 (SSE4, NEON) only the runs
// of ones do, a word's two-lane vectors costing as much as its scalar values.
constexpr unsigned kScalarFrom = hn::MaxLanes(D()) >= 4 ? 14 : 2;

// The lane-shifting steps of one target, built once per kernel call.
using Indices = decltype(hn::SetTableIndices(D(), static_cast<const int64_t*>(nullptr)));

// Lane i of the result is lane i - k (clamped to 0; FirstN(k) masks those).
HWY_INLINE Indices UpBy(D d, size_t k) {
  HWY_ALIGN int64_t idx[kMaxLanes];
  for (size_t i = 0; i < hn::Lanes(d); ++i) idx[i] = i >= k ? int64_t(i - k) : 0;
  return hn::SetTableIndices(d, idx);
}

HWY_INLINE Indices LastLane(D d) {
  HWY_ALIGN int64_t idx[kMaxLanes];
  for (size_t i = 0; i < hn::Lanes(d); ++i) idx[i] = int64_t(hn::Lanes(d) - 1);
  return hn::SetTableIndices(d, idx);
}

// The lane-shifting steps of one target, built once per kernel call. Every
// member is built in the constructor: the vector types' default constructors
// are target-specific and an implicit one would lack the target (NEON).
struct PrefixSteps {
  explicit PrefixSteps(D d)
      : up1(UpBy(d, 1)),
        up2(UpBy(d, 2)),
        low1(hn::FirstN(d, 1)),
        low2(hn::FirstN(d, 2)),
        last(LastLane(d)) {}
  Indices up1, up2;        // lane i from i - 1, i - 2
  hn::Mask<D> low1, low2;  // lanes below 1, 2
  Indices last;            // every lane from the last
};

// Inclusive prefix sums of the lanes (at most 4).
HWY_INLINE V PrefixSum(D d, const PrefixSteps& s, V v) {
  constexpr size_t kLanes = hn::MaxLanes(D());
  static_assert(kLanes <= 4, "two shifted adds");
  if constexpr (kLanes == 1) {
    return v;
  } else if constexpr (kLanes == 2) {
    return hn::Add(v, hn::ShiftLeftLanes<1>(d, v));
  } else {
    v = hn::Add(v, hn::IfThenZeroElse(s.low1, hn::TableLookupLanes(v, s.up1)));
    return hn::Add(v, hn::IfThenZeroElse(s.low2, hn::TableLookupLanes(v, s.up2)));
  }
}

template <class DT, class VT>
HWY_INLINE VT ZigZag(DT d, VT x) {
  return hn::Xor(hn::ShiftLeft<1>(x), hn::Sub(hn::Zero(d), hn::ShiftRight<63>(x)));
}

HWY_INLINE V UnZigZag(D d, V z) {
  return hn::Xor(hn::ShiftRight<1>(z), hn::Sub(hn::Zero(d), hn::And(z, hn::Set(d, 1))));
}

// The OR of the lanes.
template <class DT>
HWY_INLINE uint64_t OrOfLanes(DT d, hn::Vec<DT> v) {
  HWY_ALIGN uint64_t lanes[kMaxLanes];
  hn::Store(v, d, lanes);
  uint64_t r = 0;
  for (size_t i = 0; i < hn::Lanes(d); ++i) r |= lanes[i];
  return r;
}

// a * b modulo 2^64 from 32 x 32 -> 64-bit products (no 64-bit lane multiply in
// Highway 1.0): lo*lo + ((hi(a)*lo(b) + lo(a)*hi(b)) << 32).
HWY_INLINE V Mul64(V a, V b) {
  const hn::Repartition<uint32_t, D> d32;
  const V b_hi = hn::ShiftRight<32>(b);
  const V a_hi = hn::ShiftRight<32>(a);
  const V lo = hn::MulEven(hn::BitCast(d32, a), hn::BitCast(d32, b));
  const V cross = hn::Add(hn::MulEven(hn::BitCast(d32, a_hi), hn::BitCast(d32, b)),
                          hn::MulEven(hn::BitCast(d32, a), hn::BitCast(d32, b_hi)));
  return hn::Add(lo, hn::ShiftLeft<32>(cross));
}

template <bool kZigZag>
HWY_INLINE Deltas DeltasT(const uint64_t* v, size_t n, uint64_t* d) {
  d[0] = kZigZag ? zigZag(v[0]) : v[0];
  if (n < 2) return {0, true};
  const DWide dv;
  const size_t lanes = hn::Lanes(dv);
  const uint64_t first = kZigZag ? zigZag(v[1] - v[0]) : v[1] - v[0];
  const auto vfirst = hn::Set(dv, first);
  auto any = hn::Zero(dv);
  auto diff = hn::Zero(dv);
  size_t i = 1;
  for (; i + lanes <= n; i += lanes) {
    auto x = hn::Sub(hn::LoadU(dv, v + i), hn::LoadU(dv, v + i - 1));
    if constexpr (kZigZag) x = ZigZag(dv, x);
    hn::StoreU(x, dv, d + i);
    any = hn::Or(any, x);
    diff = hn::Or(diff, hn::Xor(x, vfirst));
  }
  uint64_t any_s = OrOfLanes(dv, any);
  uint64_t diff_s = OrOfLanes(dv, diff);
  for (; i < n; ++i) {
    uint64_t x = v[i] - v[i - 1];
    if constexpr (kZigZag) x = zigZag(x);
    d[i] = x;
    any_s |= x;
    diff_s |= x ^ first;
  }
  return {any_s, diff_s == 0};
}

Deltas ZigZagDeltas(const uint64_t* v, size_t n, uint64_t* d) { return DeltasT<true>(v, n, d); }
Deltas PlainDeltas(const uint64_t* v, size_t n, uint64_t* d) { return DeltasT<false>(v, n, d); }

// Unpacks words into running sums of f(value); see the file comment.
template <typename VecF>
HWY_INLINE void Sums(SumsCursor& c, VecF vf) {
  const D d;
  const size_t lanes = hn::Lanes(d);
  const PrefixSteps steps(d);
  // Runs of ones: f(1), 2 f(1), ... then a step of lanes * f(1) a vector.
  const V ramp = PrefixSum(d, steps, vf(hn::Set(d, 1)));
  const V ramp_step = hn::TableLookupLanes(ramp, steps.last);
  const uint8_t* p = c.words;
  uint64_t* out = c.out;
  V carry = hn::Set(d, c.sum);
  while (p != c.words_end) {
    const uint64_t w = codec::loadBig64(p);
    const unsigned s = unsigned(w >> 60);
    if constexpr (hn::MaxLanes(D()) == 4) {
      // Two words of selector 14 (two 30-bit values each) fill one vector:
      // both words in each 128-bit block, byte-swapped into lanes w0 w0 w1 w1.
      if (s == 14) {
        if (p + 16 > c.words_end || (p[8] >> 4) != 14 || out + 4 > c.out_end) break;
        const hn::Repartition<uint8_t, D> d8;
        const V pair =
            hn::BitCast(d, hn::TableLookupBytes(hn::LoadDup128(d8, p), hn::Load(d8, kSwapPair)));
        const V x = hn::And(pair >> hn::Load(d, kShiftPair), hn::Set(d, (uint64_t{1} << 30) - 1));
        const V sums = PrefixSum(d, steps, vf(x));
        hn::StoreU(hn::Add(carry, sums), d, out);
        carry = hn::Add(carry, hn::TableLookupLanes(sums, steps.last));
        out += 4;
        p += 16;
        continue;
      }
    }
    if (s >= kScalarFrom) break;
    const size_t vectors = (kCount[s] + lanes - 1) / lanes;
    if (out + vectors * lanes > c.out_end) break;
    if (s < 2) {
      for (size_t k = 0; k < vectors; ++k) {
        hn::StoreU(hn::Add(carry, ramp), d, out + k * lanes);
        carry = hn::Add(carry, ramp_step);
      }
    } else {
      const V word = hn::Set(d, w);
      const uint64_t* shift = kUnpack.shift[s];
      const uint64_t* mask = kUnpack.mask[s];
      for (size_t k = 0; k < vectors; ++k) {
        V x = hn::And(word >> hn::Load(d, shift + k * lanes), hn::Load(d, mask + k * lanes));
        V sums = PrefixSum(d, steps, vf(x));
        hn::StoreU(hn::Add(carry, sums), d, out + k * lanes);
        carry = hn::Add(carry, hn::TableLookupLanes(sums, steps.last));
      }
    }
    out += kCount[s];
    p += 8;
  }
  c.words = p;
  c.out = out;
  c.sum = hn::GetLane(carry);
}

void ZigZagSums(SumsCursor& c) {
  const D d;
  Sums(c, [d](V x) { return UnZigZag(d, x); });
}

void ScaledSums(SumsCursor& c, uint64_t scale) {
  const D d;
  if (scale == 1) {
    Sums(c, [](V x) { return x; });
    return;
  }
  const V vscale = hn::Set(d, scale);
  Sums(c, [vscale](V x) { return Mul64(x, vscale); });
}

#include "tsm/simple8b_encode-inl.h"

// The OR of v[from..to): whole vectors, then the rest one by one.
HWY_INLINE uint64_t OrOfRange(const uint64_t* v, size_t from, size_t to) {
  const D d;
  const size_t lanes = hn::Lanes(d);
  size_t k = from;
  uint64_t r = 0;
  if (k + lanes <= to) {
    V acc = hn::LoadU(d, v + k);
    for (k += lanes; k + lanes <= to; k += lanes) acc = hn::Or(acc, hn::LoadU(d, v + k));
    r = OrOfLanes(d, acc);
  }
  for (; k < to; ++k) r |= v[k];
  return r;
}

// The word of selector s: each value shifted to its place, ORed together.
// Lanes past the word's values are masked off; a vector that would read past
// the `left` values goes the scalar way.
HWY_INLINE uint64_t PackWord(int s, const uint64_t* v, size_t left) {
  const D d;
  const size_t lanes = hn::Lanes(d);
  const size_t vectors = (kCount[s] + lanes - 1) / lanes;
  if (s >= 14) return uint64_t(s) << 60 | (s == 14 ? v[0] | v[1] << 30 : v[0]);
  if (s >= int(kScalarFrom) || vectors * lanes > left) return simple8b::detail::packWord(s, v);
  const uint64_t* shift = kUnpack.shift[s];
  const uint64_t* mask = kUnpack.mask[s];
  V w = hn::Zero(d);
  for (size_t k = 0; k < vectors; ++k) {
    V x = hn::And(hn::LoadU(d, v + k * lanes), hn::Load(d, mask + k * lanes));
    w = hn::Or(w, x << hn::Load(d, shift + k * lanes));
  }
  return uint64_t(s) << 60 | OrOfLanes(d, w);
}

size_t Simple8bEncode(const uint64_t* values, size_t n, uint8_t* dst) {
  return EncodeWords(values, n, dst, OrOfRange, PackWord);
}

// RLE: the widest vectors (AVX2's 4 lanes, AVX-512's 8), two of them an iteration so
// that the stores, one a cycle, never wait on an add. The SSE2 loop (the scalar
// table's) is store-bound at 2 values a cycle; this is 4 or 8.
void FillArithmetic(uint64_t* d, size_t n, uint64_t first, uint64_t step) {
  const DWide dw;
  const size_t lanes = hn::Lanes(dw);
  size_t i = 0;
  if (n >= 2 * lanes) {
    HWY_ALIGN uint64_t start[kMaxLanes];
    for (size_t j = 0; j < lanes; ++j) start[j] = first + j * step;
    auto a = hn::Load(dw, start);
    auto b = hn::Add(a, hn::Set(dw, lanes * step));
    const auto advance = hn::Set(dw, 2 * lanes * step);
    for (; i + 2 * lanes <= n; i += 2 * lanes) {
      hn::StoreU(a, dw, d + i);
      hn::StoreU(b, dw, d + i + lanes);
      a = hn::Add(a, advance);
      b = hn::Add(b, advance);
    }
  }
  for (; i < n; ++i) d[i] = first + static_cast<uint64_t>(i) * step;
}

// This target's table.
const Kernels* TargetKernels() {
  static const Kernels kKernels = {hwy::TargetName(HWY_TARGET),
                                   ZigZagDeltas,
                                   PlainDeltas,
                                   ZigZagSums,
                                   ScaledSums,
                                   kScalarFrom,
                                   Simple8bEncode,
                                   FillArithmetic};
  return &kKernels;
}

#endif  // vector targets
}  // namespace HWY_NAMESPACE
}  // namespace wirestream::tsm::internal
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace wirestream::tsm::internal {
namespace {

template <bool kZigZag>
Deltas scalarDeltas(const uint64_t* v, size_t n, uint64_t* d) {
  d[0] = kZigZag ? zigZag(v[0]) : v[0];
  uint64_t any = 0;
  bool equal = true;
  for (size_t i = 1; i < n; ++i) {
    uint64_t x = v[i] - v[i - 1];
    if constexpr (kZigZag) x = zigZag(x);
    d[i] = x;
    any |= x;
    equal &= x == d[1];
  }
  return {any, equal};
}

// The scalar decoders leave every word to simple8b's loop.
void scalarZigZagSums(SumsCursor&) {}
void scalarScaledSums(SumsCursor&, uint64_t) {}

// d[i] = first + i * step in 16-byte vectors (SSE2 and NEON registers, which every
// x86-64 and aarch64 has; gcc spills wider ones without AVX): four adds and four stores
// for eight values. Explicit, not left to the auto-vectorizer: gcc 12 at -O3
// miscompiles scalar interleaved running sums (its SLP vectorizer stored 7 4 7 4 for
// 7, step -3). The tail is the product.
void scalarFillArithmetic(uint64_t* d, size_t n, uint64_t first, uint64_t step) {
  using Pair = uint64_t __attribute__((vector_size(16)));
  size_t i = 0;
  if (n >= 8) {
    Pair a = {first, first + step};
    Pair b = a + 2 * step;
    Pair c = a + 4 * step;
    Pair e = a + 6 * step;
    const uint64_t eight = 8 * step;
    for (; i + 8 <= n; i += 8) {
      std::memcpy(d + i, &a, sizeof a);
      std::memcpy(d + i + 2, &b, sizeof b);
      std::memcpy(d + i + 4, &c, sizeof c);
      std::memcpy(d + i + 6, &e, sizeof e);
      a += eight;
      b += eight;
      c += eight;
      e += eight;
    }
  }
  for (; i < n; ++i) d[i] = first + static_cast<uint64_t>(i) * step;
}

const Kernels kScalar = {
    "scalar", scalarDeltas<true>,   scalarDeltas<false>, scalarZigZagSums, scalarScaledSums,
    0,        simple8bEncodeScalar, scalarFillArithmetic};

HWY_EXPORT(TargetKernels);

// The Highway tables this CPU runs, best last.
std::vector<const Kernels*> highwayTables() {
  std::vector<const Kernels*> tables;
  std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  for (auto it = targets.rbegin(); it != targets.rend(); ++it) {  // lowest bit = best
#if (HWY_TARGETS & (HWY_TARGETS - 1)) == 0
    const Kernels* k = HWY_STATIC_DISPATCH(TargetKernels)();
#else
    // HWY_DYNAMIC_DISPATCH's index for this target: its bit in the shifted
    // mask, or the last entry for the fallback (EMU128 or SCALAR).
    uint64_t bit = static_cast<uint64_t>(HWY_CHOSEN_TARGET_SHIFT(*it));
    size_t index = bit != 0 ? hwy::Num0BitsBelowLS1Bit_Nonzero64(bit) : HWY_MAX_DYNAMIC_TARGETS + 1;
    const Kernels* k = HWY_DISPATCH_TABLE(TargetKernels)[index]();
#endif
    if (k != nullptr) tables.push_back(k);
  }
  return tables;
}

const std::vector<const Kernels*>& allTables() {
  static const std::vector<const Kernels*> tables = [] {
    std::vector<const Kernels*> t = {&kScalar};
    for (const Kernels* k : highwayTables()) t.push_back(k);
    return t;
  }();
  return tables;
}

// WIRESTREAM_SIMD=scalar, else Highway's choice; decided on first use.
const Kernels* defaultTable() {
  static const Kernels* const kDefault = [] {
    const char* env = std::getenv("WIRESTREAM_SIMD");
    if (env != nullptr && std::strcmp(env, "scalar") == 0) return &kScalar;
    const Kernels* best = HWY_DYNAMIC_DISPATCH(TargetKernels)();
    return best != nullptr ? best : &kScalar;
  }();
  return kDefault;
}

std::atomic<const Kernels*> g_chosen{nullptr};

}  // namespace

const Kernels& kernels() {
  const Kernels* k = g_chosen.load(std::memory_order_acquire);
  return k != nullptr ? *k : *defaultTable();
}

size_t kernelTableCount() { return allTables().size(); }
const Kernels& kernelTable(size_t i) { return *allTables().at(i); }

void useKernels(const Kernels* table) { g_chosen.store(table, std::memory_order_release); }

}  // namespace wirestream::tsm::internal
#endif  // HWY_ONCE
