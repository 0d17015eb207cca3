// Byte and text helpers; nothing here touches the wire or JSON.
#include "aggregations/text_util.h"

#include <stdexcept>

#include "stream/errors.h"
#include "stream/string_codec.h"

namespace wirestream::aggregations::text_util {

bool isValidUtf8(std::string_view s) {
  try {
    measureUtf8(s);
    return true;
  } catch (const std::invalid_argument&) {
    return false;
  }
}

std::string toUtf8Lossy(std::string_view s) {
  if (isValidUtf8(s)) return std::string(s);
  std::string out;
  out.reserve(s.size() + 8);
  size_t i = 0;
  while (i < s.size()) {
    size_t len = 0;
    for (size_t n = 1; n <= 4 && i + n <= s.size() && len == 0; ++n) {
      if (isValidUtf8(s.substr(i, n))) len = n;
    }
    if (len == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      len = 1;
    } else {
      out.append(s.substr(i, len));
    }
    i += len;
  }
  return out;
}

std::string toHex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

std::string fromHex(std::string_view hex) {
  auto digit = [&](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    internal::throwCorrupt("bad hex digit in [" + std::string(hex) + "]");
  };
  if (hex.size() % 2) internal::throwCorrupt("odd-length hex [" + std::string(hex) + "]");
  std::string out;
  out.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    out.push_back(static_cast<char>(digit(hex[i]) * 16 + digit(hex[i + 1])));
  }
  return out;
}

}  // namespace wirestream::aggregations::text_util
