// The shuffle tables of the vector decoders (internal.h), built at compile
// time; the instruction-set units see them as ordinary constant data.
#include "simd/internal.h"

namespace wirestream::simd::internal {

namespace {

constexpr VIntShuffleTable makeVIntShuffles() {
  VIntShuffleTable t{};
  for (int idx = 0; idx < 625; ++idx) {
    int lens[4] = {idx % 5 + 1, idx / 5 % 5 + 1, idx / 25 % 5 + 1, idx / 125 + 1};
    int start = 0;
    for (int v = 0; v < 4; ++v) {
      for (int j = 0; j < 4; ++j) {
        t.e[idx].lo[4 * v + j] = j < lens[v] ? static_cast<uint8_t>(start + j) : 0x80;
        t.e[idx].hi[4 * v + j] = 0x80;
      }
      if (lens[v] == 5) t.e[idx].hi[4 * v + 3] = static_cast<uint8_t>(start + 4);
      start += lens[v];
    }
  }
  return t;
}

constexpr VLongShuffleTable makeVLongShuffles() {
  VLongShuffleTable t{};
  for (int idx = 0; idx < 64; ++idx) {
    int lens[2] = {idx / 8 + 1, idx % 8 + 1};
    int start = 0;
    for (int v = 0; v < 2; ++v) {
      for (int j = 0; j < 8; ++j) {
        t.e[idx].lanes[8 * v + j] = j < lens[v] ? static_cast<uint8_t>(start + j) : 0x80;
      }
      start += lens[v];
    }
  }
  return t;
}

}  // namespace

// Built at compile time; the ISA units see them as ordinary constant data.
extern const VIntShuffleTable kVIntShuffles = makeVIntShuffles();
extern const VLongShuffleTable kVLongShuffles = makeVLongShuffles();

}  // namespace wirestream::simd::internal
