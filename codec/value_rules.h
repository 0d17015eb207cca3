// The wire format's rules for values, as pure functions (wire format §1): what
// StreamOutput, its Cursor and its Reserved writer (stream/typed_writes.h) and the
// batch writers apply, each from here.
//
// Example (runs: value_rules):
//   #include <cmath>
//   uint32_t f = codec::canonicalFloatBits(std::nanf("7"));  // 0x7fc00000
//   uint64_t d = codec::canonicalDoubleBits(-0.0);           // 0x8000000000000000
//   bool ok = codec::isVLong(-1);                            // false: write it as a ZLong
#pragma once

#include <bit>
#include <cstdint>

namespace wirestream::codec {

// float / double travel as the int / long of their IEEE bits, every NaN as the
// quiet NaN Java's floatToIntBits / doubleToLongBits give (0x7fc00000 /
// 0x7ff8000000000000), so that equal values are equal bytes.
[[nodiscard]] constexpr uint32_t canonicalFloatBits(float v) {
  return v != v ? 0x7fc00000u : std::bit_cast<uint32_t>(v);
}
[[nodiscard]] constexpr uint64_t canonicalDoubleBits(double v) {
  return v != v ? 0x7ff8000000000000ull : std::bit_cast<uint64_t>(v);
}

// A VLong carries a value >= 0: Elasticsearch refuses to write a negative one
// ("Negative longs unsupported"); ZLong and writeVLongNoCheck are the forms for
// negatives.
[[nodiscard]] constexpr bool isVLong(int64_t v) { return v >= 0; }

// A collection size travels as a VInt: at most INT32_MAX.
[[nodiscard]] constexpr bool isArraySize(uint64_t size) { return size <= 0x7fffffffu; }

}  // namespace wirestream::codec
