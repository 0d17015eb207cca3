// BigInteger's decimal conversions. Both directions work on 32-bit limbs,
// least significant first, nine decimal digits at a time: quadratic in the
// length, which kMaxMagnitudeBytes bounds.
#include "stream/structured/big_integer.h"

#include <algorithm>
#include <stdexcept>

namespace wirestream {

namespace {

constexpr uint32_t kChunk = 1000000000;  // 10^9, the most a limb step takes
constexpr int kChunkDigits = 9;

std::vector<uint32_t> toLimbs(std::span<const uint8_t> big_endian) {
  std::vector<uint32_t> limbs((big_endian.size() + 3) / 4, 0);
  for (size_t i = 0; i < big_endian.size(); ++i) {
    size_t from_end = big_endian.size() - 1 - i;
    limbs[from_end / 4] |= static_cast<uint32_t>(big_endian[i]) << (8 * (from_end % 4));
  }
  while (!limbs.empty() && limbs.back() == 0) limbs.pop_back();
  return limbs;
}

[[noreturn, gnu::cold]] void throwTooLarge(size_t bytes) {
  throw std::length_error("BigInteger of " + std::to_string(bytes) +
                          " magnitude bytes is above the limit of " +
                          std::to_string(BigInteger::kMaxMagnitudeBytes));
}

}  // namespace

BigInteger::BigInteger(bool negative, std::span<const uint8_t> magnitude) {
  size_t first = 0;
  while (first < magnitude.size() && magnitude[first] == 0) ++first;
  if (magnitude.size() - first > kMaxMagnitudeBytes) throwTooLarge(magnitude.size() - first);
  magnitude_.assign(magnitude.begin() + static_cast<ptrdiff_t>(first), magnitude.end());
  negative_ = negative && !magnitude_.empty();
}

BigInteger BigInteger::ofInt64(int64_t v) {
  // The magnitude of INT64_MIN does not fit an int64; take it unsigned.
  uint64_t m = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  uint8_t bytes[8];
  for (int i = 7; i >= 0; --i, m >>= 8) bytes[i] = static_cast<uint8_t>(m);
  return BigInteger(v < 0, bytes);
}

BigInteger BigInteger::fromDecimal(std::string_view s) {
  bool negative = !s.empty() && s[0] == '-';
  std::string_view digits = s.substr(negative ? 1 : 0);
  auto refuse = [&](const char* why) {
    constexpr size_t kMaxShown = 40;
    std::string shown(s.substr(0, kMaxShown));
    if (s.size() > kMaxShown) shown += "...";
    throw std::invalid_argument("not a BigInteger as Java writes it (" + std::string(why) + "): [" +
                                shown + "]");
  };
  if (digits.empty()) refuse("no digits");
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    refuse("not an ASCII digit");
  }
  if (digits.size() > 1 && digits[0] == '0') refuse("leading zero");
  if (negative && digits == "0") refuse("negative zero");
  if (digits.size() > kMaxDigits) {
    throw std::length_error("BigInteger of " + std::to_string(digits.size()) +
                            " digits is above the limit of " + std::to_string(kMaxDigits));
  }

  std::vector<uint32_t> limbs;  // least significant first
  size_t at = 0;
  size_t step = digits.size() % kChunkDigits;
  if (step == 0) step = kChunkDigits;
  while (at < digits.size()) {
    uint32_t chunk = 0;
    uint32_t scale = 1;
    for (size_t i = 0; i < step; ++i) {
      chunk = chunk * 10 + static_cast<uint32_t>(digits[at + i] - '0');
      scale *= 10;
    }
    at += step;
    step = kChunkDigits;
    uint64_t carry = chunk;
    for (uint32_t& limb : limbs) {
      uint64_t t = static_cast<uint64_t>(limb) * scale + carry;
      limb = static_cast<uint32_t>(t);
      carry = t >> 32;
    }
    if (carry != 0) limbs.push_back(static_cast<uint32_t>(carry));
  }
  std::vector<uint8_t> bytes(limbs.size() * 4);
  for (size_t i = 0; i < limbs.size(); ++i) {
    for (size_t b = 0; b < 4; ++b) {
      bytes[bytes.size() - 1 - (4 * i + b)] = static_cast<uint8_t>(limbs[i] >> (8 * b));
    }
  }
  return BigInteger(negative, bytes);
}

std::string BigInteger::toDecimal() const {
  if (isZero()) return "0";
  std::vector<uint32_t> limbs = toLimbs(magnitude_);
  std::string reversed;  // least significant digit first
  while (!limbs.empty()) {
    uint64_t rest = 0;
    for (size_t i = limbs.size(); i-- > 0;) {
      uint64_t cur = (rest << 32) | limbs[i];
      limbs[i] = static_cast<uint32_t>(cur / kChunk);
      rest = cur % kChunk;
    }
    while (!limbs.empty() && limbs.back() == 0) limbs.pop_back();
    auto r = static_cast<uint32_t>(rest);
    for (int i = 0; i < kChunkDigits; ++i, r /= 10) {
      reversed += static_cast<char>('0' + r % 10);
      if (limbs.empty() && r / 10 == 0) break;  // no leading zeros on the last chunk
    }
  }
  if (negative_) reversed += '-';
  return std::string(reversed.rbegin(), reversed.rend());
}

}  // namespace wirestream
