#include "stream/string_codec.h"

#include <cstring>

#include "simd/simd.h"
#include "stream/errors.h"

namespace wirestream {

namespace {

[[noreturn]] void throwInvalidUtf8(std::string_view utf8, size_t at) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "writeString: invalid UTF-8 at byte %zu (0x%02x) of %zu", at,
                static_cast<uint8_t>(utf8[at]), utf8.size());
  internal::throwInvalidArgument(buf);
}

// Length of the UTF-8 sequence starting at i, validated strictly; 0 if invalid.
size_t sequenceLength(const uint8_t* s, size_t n, size_t i) {
  uint8_t b = s[i];
  if (b < 0x80) return 1;
  auto cont = [&](size_t k) { return i + k < n && (s[i + k] & 0xC0) == 0x80; };
  if (b >= 0xC2 && b <= 0xDF) return cont(1) ? 2 : 0;
  if (b >= 0xE0 && b <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    uint8_t b1 = s[i + 1];
    if (b == 0xE0 && b1 < 0xA0) return 0;   // overlong
    if (b == 0xED && b1 >= 0xA0) return 0;  // surrogate code point
    return 3;
  }
  if (b >= 0xF0 && b <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    uint8_t b1 = s[i + 1];
    if (b == 0xF0 && b1 < 0x90) return 0;   // overlong
    if (b == 0xF4 && b1 >= 0x90) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

}  // namespace

// 16 or 32 bytes a step with the SIMD kernels (//simd).
size_t asciiPrefixLength(const uint8_t* p, size_t n) {
  return simd::kernels().asciiPrefixLength(p, n);
}

Utf8Measure measureUtf8(std::string_view utf8) {
  const auto* s = reinterpret_cast<const uint8_t*>(utf8.data());
  size_t n = utf8.size();
  size_t i = asciiPrefixLength(s, n);
  if (i == n) return {n, n, true};
  size_t units = i;
  size_t four_byte = 0;
  const simd::Kernels& kernels = simd::kernels();
  while (i < n) {
    if (s[i] < 0x80) {  // an ASCII run between multi-byte sequences: vector scan
      size_t run = kernels.asciiPrefixLength(s + i, n - i);
      units += run;
      i += run;
      continue;
    }
    size_t len = sequenceLength(s, n, i);
    if (len == 0) throwInvalidUtf8(utf8, i);
    units += len == 4 ? 2 : 1;
    four_byte += len == 4;
    i += len;
  }
  return {units, n + 2 * four_byte, false};
}

uint8_t* encodeUtf8AsWire(uint8_t* dst, std::string_view utf8) {
  const auto* s = reinterpret_cast<const uint8_t*>(utf8.data());
  size_t n = utf8.size();
  size_t i = 0;
  while (i < n) {
    // Copy everything up to the next 4-byte sequence unchanged: 1..3-byte
    // UTF-8 sequences are already the wire form of their single unit.
    size_t run = i;
    while (run < n && s[run] < 0xF0) ++run;
    std::memcpy(dst, s + i, run - i);
    dst += run - i;
    i = run;
    if (i == n) break;
    uint32_t cp = (uint32_t(s[i] & 0x07) << 18) | (uint32_t(s[i + 1] & 0x3F) << 12) |
                  (uint32_t(s[i + 2] & 0x3F) << 6) | uint32_t(s[i + 3] & 0x3F);
    cp -= 0x10000;
    for (uint32_t unit : {0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF)}) {
      *dst++ = static_cast<uint8_t>(0xE0 | (unit >> 12));
      *dst++ = static_cast<uint8_t>(0x80 | ((unit >> 6) & 0x3F));
      *dst++ = static_cast<uint8_t>(0x80 | (unit & 0x3F));
    }
    i += 4;
  }
  return dst;
}

void appendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace wirestream
