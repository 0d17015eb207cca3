// Java's double semantics, which reduce and equality follow so that results sort and
// compare exactly as in Elasticsearch. The bottom of //aggregations: no other include.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace wirestream::aggregations {

// Java's Double.compare: -0.0 < 0.0, NaN equal to itself and above every other value.
inline int javaDoubleCompare(double a, double b) {
  if (a < b) return -1;
  if (a > b) return 1;
  auto bits = [](double v) {
    return std::isnan(v) ? int64_t{0x7ff8000000000000} : std::bit_cast<int64_t>(v);
  };
  int64_t x = bits(a), y = bits(b);
  return x < y ? -1 : (x == y ? 0 : 1);
}

// Bitwise equality that treats every NaN as equal (the wire canonicalises NaN).
inline bool sameDouble(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

}  // namespace wirestream::aggregations
