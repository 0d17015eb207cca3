// The string codec of the wire format (§2) over plain memory, never throwing: Java's
// writeString sends each UTF-16 unit on its own as 1, 2 or 3 bytes, so a code point
// above U+FFFF becomes two 3-byte surrogates (CESU-8), while the C++ side speaks UTF-8.
//
// Example (runs: codec_cesu8):
//   const uint8_t s[] = {'h', 0xC3, 0xA9, 0xF0, 0x9F, 0x98, 0x80};  // "hé😀" in UTF-8
//   size_t len = codec::utf8SequenceLength(s, 7, 3);     // 4; 0: invalid UTF-8 at s[3]
//   uint8_t dst[7 + 2];                                  // n + 2 per 4-byte sequence
//   uint8_t* end = codec::encodeUtf8AsWire(dst, s, 7);   // 68 C3 A9 ED A0 BD ED B8 80
//   size_t unit_len = codec::wireUnitAsUtf8Length(dst + 1, 3);  // 2: copy as is
//   size_t surrogate = codec::wireUnitAsUtf8Length(dst + 3, 3);  // 0: look closer
//   std::string out;
//   codec::appendUtf8(out, 0x1F600);                     // F0 9F 98 80
//
// //stream validates, measures, counts and throws (stream/string_codec.h, readString);
// these are the byte rules it applies. Stateless; thread-safe; header-only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace wirestream::codec {

// Length of the strict UTF-8 sequence starting at s[i] (i < n): 1..4, or 0 when it is
// invalid (a stray continuation byte, an overlong form, a surrogate code point, above
// U+10FFFF, or cut by n). Reads nothing at or past s + n.
[[nodiscard]] inline size_t utf8SequenceLength(const uint8_t* s, size_t n, size_t i) {
  const uint8_t b = s[i];
  if (b < 0x80) return 1;
  auto cont = [&](size_t k) { return i + k < n && (s[i + k] & 0xC0) == 0x80; };
  if (b >= 0xC2 && b <= 0xDF) return cont(1) ? 2 : 0;
  if (b >= 0xE0 && b <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    const uint8_t b1 = s[i + 1];
    if (b == 0xE0 && b1 < 0xA0) return 0;   // overlong
    if (b == 0xED && b1 >= 0xA0) return 0;  // surrogate code point
    return 3;
  }
  if (b >= 0xF0 && b <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    const uint8_t b1 = s[i + 1];
    if (b == 0xF0 && b1 < 0x90) return 0;   // overlong
    if (b == 0xF4 && b1 >= 0x90) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

// Writes the wire bytes of valid UTF-8 s[0..n): 1..3-byte sequences as they are (each is
// already the wire form of its one unit), each 4-byte sequence as two 3-byte surrogates.
// dst has room for n plus 2 per 4-byte sequence. Returns the byte after the last.
inline uint8_t* encodeUtf8AsWire(uint8_t* dst, const uint8_t* s, size_t n) {
  size_t i = 0;
  while (i < n) {
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

// For a multi-byte unit on the wire at q (q[0] >= 0x80, `avail` >= 3 bytes readable):
// 2 or 3 when its bytes are already well-formed UTF-8 of one code point that is not a
// surrogate, so a reader may copy them unchanged; 0 when the unit needs the careful path
// (a bad byte, an overlong form, half of a surrogate pair, or fewer than 3 bytes left).
[[nodiscard]] inline size_t wireUnitAsUtf8Length(const uint8_t* q, size_t avail) {
  if (avail < 3) return 0;
  const uint8_t b0 = q[0];
  const uint8_t b1 = q[1];
  if ((b1 & 0xC0) != 0x80) return 0;
  if (b0 >= 0xC2 && b0 <= 0xDF) return 2;
  if (b0 >= 0xE0 && b0 <= 0xEF && (q[2] & 0xC0) == 0x80 && (b0 != 0xE0 || b1 >= 0xA0) &&
      (b0 != 0xED || b1 < 0xA0)) {
    return 3;
  }
  return 0;
}

// Appends the UTF-8 form of code point cp (<= U+10FFFF, not a surrogate).
inline void appendUtf8(std::string& out, uint32_t cp) {
  char buf[4];
  size_t n;
  if (cp < 0x80) {
    buf[0] = static_cast<char>(cp);
    n = 1;
  } else if (cp < 0x800) {
    buf[0] = static_cast<char>(0xC0 | (cp >> 6));
    buf[1] = static_cast<char>(0x80 | (cp & 0x3F));
    n = 2;
  } else if (cp < 0x10000) {
    buf[0] = static_cast<char>(0xE0 | (cp >> 12));
    buf[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    buf[2] = static_cast<char>(0x80 | (cp & 0x3F));
    n = 3;
  } else {
    buf[0] = static_cast<char>(0xF0 | (cp >> 18));
    buf[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    buf[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    buf[3] = static_cast<char>(0x80 | (cp & 0x3F));
    n = 4;
  }
  out.append(buf, n);
}

}  // namespace wirestream::codec
