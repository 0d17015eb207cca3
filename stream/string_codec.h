// Strings on the wire (wire format §2): a VInt count of UTF-16 code units,
// then each unit on its own as 1, 2 or 3 bytes. Code points above U+FFFF
// become two surrogate units of 3 bytes each (CESU-8 style). The C++ side
// always speaks ordinary UTF-8.
//
// These helpers work over plain memory; StreamOutput::writeString and
// StreamInput::readString drive them. The byte rules live in codec/cesu8.h; this
// layer adds the SIMD scans and the errors. Stateless; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "codec/cesu8.h"

namespace wirestream {

struct Utf8Measure {
  size_t utf16_units = 0;  // the count written before the bytes
  size_t wire_bytes = 0;   // bytes of the encoded units
  bool ascii = false;      // every byte < 0x80: the wire bytes are the input
};

// Validates strict UTF-8 (no overlong forms, no surrogates, nothing above
// U+10FFFF) and measures its wire form. std::invalid_argument on invalid input.
Utf8Measure measureUtf8(std::string_view utf8);

// Writes the wire bytes of a string measured by measureUtf8 (no count prefix).
// `dst` has room for measure.wire_bytes. Returns the byte after the last.
inline uint8_t* encodeUtf8AsWire(uint8_t* dst, std::string_view utf8) {
  return codec::encodeUtf8AsWire(dst, reinterpret_cast<const uint8_t*>(utf8.data()), utf8.size());
}

// Length of the run of ASCII bytes at the start of [p, p + n) (a SIMD scan).
size_t asciiPrefixLength(const uint8_t* p, size_t n);

// Appends the UTF-8 form of code point cp (<= U+10FFFF, not a surrogate).
using codec::appendUtf8;

}  // namespace wirestream
