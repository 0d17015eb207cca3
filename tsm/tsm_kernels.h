// The vector kernels of the integer and timestamp blocks (not public API; tsm.h
// says how a target is chosen): delta + zig-zag encoding with the statistics that
// pick the layout, simple8b unpacking fused with zig-zag decoding or scaling
// and the running sums, and RLE's arithmetic sequences. One Highway source (tsm_kernels.cc)
// compiled for every Highway target; the scalar table is the plain loops every target is tested
// against.
//
// Example (runs: tsm_kernels):
//   const uint64_t values[] = {10, 12, 11};
//   uint64_t d[3];
//   const Kernels& k = kernels();
//   Deltas stats = k.zigZagDeltas(values, 3, d);  // d = 20 4 1
//
// The tables are immutable; kernels() reads an atomic pointer.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wirestream::tsm::internal {

// What the encoders need of d[1..n): the OR of them (above simple8b's limit iff
// some d is) and whether they all equal d[1].
struct Deltas {
  uint64_t any_bits;
  bool equal;
};

// A decode in progress: the vector kernels advance it word by word while the
// output has room for their whole-vector stores and the selector is below the
// table's scalar_from; simple8b's scalar loop takes the words they leave.
struct SumsCursor {
  const uint8_t* words;      // next big-endian word, already checked by simple8b::count
  const uint8_t* words_end;  // whole words only
  uint64_t* out;             // next value
  uint64_t* out_end;         // end of the room (the block's value count)
  uint64_t sum;              // the running sum so far
};

struct Kernels {
  const char* name;  // "scalar" or Highway's target name ("AVX2", "NEON", ...)
  // d[0] = zigzag(v[0]); d[i] = zigzag(v[i] - v[i-1]) (wrapping), for n >= 1.
  Deltas (*zigZagDeltas)(const uint64_t* v, size_t n, uint64_t* d);
  // d[0] = v[0]; d[i] = v[i] - v[i-1] (wrapping), for n >= 1.
  Deltas (*deltas)(const uint64_t* v, size_t n, uint64_t* d);
  // For each value x of the words: *out++ = sum += zigzag_decode(x) / x * scale.
  void (*zigZagSums)(SumsCursor& c);
  void (*scaledSums)(SumsCursor& c, uint64_t scale);
  // The first selector the sums kernels stop at (0: they take no word).
  unsigned scalar_from;
  // simple8b::encode: the same words (values <= 2^60 - 1, else invalid_argument).
  size_t (*simple8bEncode)(const uint64_t* values, size_t n, uint8_t* dst);
  // d[i] = first + i * step (wrapping), i < n: an RLE block's whole decode.
  void (*fillArithmetic)(uint64_t* d, size_t n, uint64_t first, uint64_t step);
};

// The table in use (see tsm.h: Highway's best target, or WIRESTREAM_SIMD=scalar).
const Kernels& kernels();

// The scalar table first, then the table of every compiled Highway target this
// CPU runs, best last; sets the one kernels() returns (nullptr: the default).
size_t kernelTableCount();
const Kernels& kernelTable(size_t i);
void useKernels(const Kernels* table);

}  // namespace wirestream::tsm::internal
