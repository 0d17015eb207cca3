// BigInteger: an integer of any size as java.math.BigInteger holds it, a sign
// and a big-endian magnitude. Generic values carry it as tag 26, written as
// its decimal string (wire format §3).
//
// Example (runs: big_integer):
//   BigInteger b = BigInteger::fromDecimal("-18446744073709551616");
//   bool negative = b.negative();                   // true
//   std::vector<uint8_t> magnitude = b.magnitude();  // 01 00 00 00 00 00 00 00 00
//                                                   // (big-endian, no leading zero byte)
//   std::string decimal = b.toDecimal();  // "-18446744073709551616", as Java's toString()
//
// Always canonical: the magnitude has no leading zero byte and zero is never
// negative, so == is equality of values and a value has one decimal form.
// The magnitude is at most kMaxMagnitudeBytes (32,768 bits, about 9,865
// decimal digits): conversion to and from decimal is quadratic, and a bound
// keeps a hostile string from costing more than a bounded multiple of its
// length. Java has no such bound; values above it are refused (stricter).
// A value type; thread-safe for concurrent reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wirestream {

class BigInteger {
 public:
  static constexpr size_t kMaxMagnitudeBytes = 4096;
  // Every decimal of up to kMaxDigits - 1 digits fits; none of more fits.
  static constexpr size_t kMaxDigits = 9865;

  BigInteger() = default;  // zero
  // Leading zero bytes are dropped and a negative zero is zero.
  // std::length_error if the magnitude is longer than kMaxMagnitudeBytes
  // once its leading zeros are dropped.
  BigInteger(bool negative, std::span<const uint8_t> magnitude);
  [[nodiscard]] static BigInteger ofInt64(int64_t v);

  // Parses the form Java's toString() writes: "0", or an optional '-' and
  // ASCII digits with no leading zero. std::invalid_argument for anything
  // else (Java's BigInteger(String) also takes '+', leading zeros, "-0" and
  // non-ASCII digits: stricter, so that a value has one form);
  // std::length_error for values above kMaxMagnitudeBytes.
  [[nodiscard]] static BigInteger fromDecimal(std::string_view s);
  std::string toDecimal() const;

  bool negative() const { return negative_; }
  bool isZero() const { return magnitude_.empty(); }
  // -1, 0 or 1, as Java's signum().
  int signum() const { return isZero() ? 0 : negative_ ? -1 : 1; }
  // Big-endian, empty for zero.
  const std::vector<uint8_t>& magnitude() const { return magnitude_; }

  friend bool operator==(const BigInteger&, const BigInteger&) = default;

 private:
  bool negative_ = false;
  std::vector<uint8_t> magnitude_;
};

}  // namespace wirestream
