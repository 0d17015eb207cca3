// Byte and text helpers of the aggregations' renderings: UTF-8 checks for
// keys that are arbitrary bytes, and hex for bytes that are not text.
//
// Example (runs: text_util):
//   #include <cassert>
//   assert(text_util::toUtf8Lossy("a\xff") == "a\xEF\xBF\xBD");  // U+FFFD
//   assert(text_util::fromHex("0aff") == "\x0a\xff");  // CorruptStreamError on bad hex
//
// Stateless; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace wirestream::aggregations::text_util {

// Strings that are valid UTF-8 go to JSON as they are; other bytes as hex.
bool isValidUtf8(std::string_view s);
// `s` with every byte that does not start a valid UTF-8 sequence replaced by
// U+FFFD, as ES's BytesRef.utf8ToString renders a non-UTF-8 sterms key: JSON
// strings must be UTF-8.
std::string toUtf8Lossy(std::string_view s);
std::string toHex(std::string_view bytes);
std::string fromHex(std::string_view hex);  // CorruptStreamError on bad hex

}  // namespace wirestream::aggregations::text_util
