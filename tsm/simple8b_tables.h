// simple8b's selector tables and scalar packing, shared by simple8b.cc and the
// vector kernels of tsm_kernels.cc (not public API; simple8b.h has the format).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "tsm/simple8b.h"

namespace wirestream::tsm::simple8b::detail {

inline constexpr std::array<uint8_t, 16> kCount = {240, 120, 60, 30, 20, 15, 12, 10,
                                                   8,   7,   6,  5,  4,  3,  2,  1};
inline constexpr std::array<uint8_t, 16> kBits = {0, 0, 1,  2,  3,  4,  5,  6,
                                                  7, 8, 10, 12, 15, 20, 30, 60};
inline constexpr uint64_t kPayload = kMaxValue;

// Bits of a word's payload no value uses.
inline constexpr std::array<uint64_t, 16> kUnused = [] {
  std::array<uint64_t, 16> m{};
  for (int s = 0; s < 16; ++s) {
    int used = s < 2 ? 0 : kCount[s] * kBits[s];
    m[s] = kPayload & ~((uint64_t{1} << used) - 1);
  }
  return m;
}();

// The largest value of selector s >= 2.
inline constexpr std::array<uint64_t, 16> kLargest = [] {
  std::array<uint64_t, 16> m{};
  for (int s = 2; s < 16; ++s) m[s] = (uint64_t{1} << kBits[s]) - 1;
  return m;
}();

// Lowest selector >= 2 holding values of `width` bits (width <= 60).
inline constexpr std::array<uint8_t, 61> kSelectorForWidth = [] {
  std::array<uint8_t, 61> t{};
  for (int w = 0; w <= 60; ++w) {
    int s = 2;
    while (kBits[s] < w) ++s;
    t[w] = static_cast<uint8_t>(s);
  }
  return t;
}();

// Lowest selector >= 2 taking at most k values (k in 1..59; none for 0).
inline constexpr std::array<uint8_t, 60> kSelectorForCount = [] {
  std::array<uint8_t, 60> t{};
  t[0] = 16;
  for (int k = 1; k < 60; ++k) {
    int s = 2;
    while (kCount[s] > k) ++s;
    t[k] = static_cast<uint8_t>(s);
  }
  return t;
}();

// Lowest selector >= 2 that needs at most `left` values (left in 1..60).
inline constexpr std::array<uint8_t, 61> kSelectorForLeft = [] {
  std::array<uint8_t, 61> t{};
  for (int left = 1; left <= 60; ++left) {
    int s = 2;
    while (kCount[s] > left) ++s;
    t[left] = static_cast<uint8_t>(s);
  }
  return t;
}();

template <int N, int B>
inline uint64_t pack(const uint64_t* v) {
  uint64_t w = 0;
  for (int i = 0; i < N; ++i) w |= v[i] << (i * B);
  return w;
}

// The word of selector s >= 2 holding v[0..kCount[s]).
inline uint64_t packWord(int s, const uint64_t* v) {
  uint64_t w;
  switch (s) {
    case 2:
      w = pack<60, 1>(v);
      break;
    case 3:
      w = pack<30, 2>(v);
      break;
    case 4:
      w = pack<20, 3>(v);
      break;
    case 5:
      w = pack<15, 4>(v);
      break;
    case 6:
      w = pack<12, 5>(v);
      break;
    case 7:
      w = pack<10, 6>(v);
      break;
    case 8:
      w = pack<8, 7>(v);
      break;
    case 9:
      w = pack<7, 8>(v);
      break;
    case 10:
      w = pack<6, 10>(v);
      break;
    case 11:
      w = pack<5, 12>(v);
      break;
    case 12:
      w = pack<4, 15>(v);
      break;
    case 13:
      w = pack<3, 20>(v);
      break;
    case 14:
      w = pack<2, 30>(v);
      break;
    default:
      w = v[0];
      break;
  }
  return uint64_t(s) << 60 | w;
}

// std::invalid_argument naming v (above kMaxValue).
[[noreturn, gnu::cold]] void throwTooLarge(uint64_t v);

}  // namespace wirestream::tsm::simple8b::detail
