#include "stream/transport_version.h"

#include <charconv>
#include <stdexcept>

namespace wirestream {

std::string TransportVersion::toString() const {
  if (id_ < 0 || id_ % 100 != 99) return std::to_string(id_);
  int major = id_ / 1000000;
  int minor = id_ / 10000 % 100;
  int revision = id_ / 100 % 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(revision);
}

TransportVersion TransportVersion::parse(const std::string& text) {
  int parts[3] = {0, 0, 0};
  int count = 0;
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end && count < 3) {
    auto [next, ec] = std::from_chars(p, end, parts[count]);
    if (ec != std::errc() || next == p || parts[count] < 0) break;
    ++count;
    p = next;
    if (p < end && *p == '.')
      ++p;
    else
      break;
  }
  if (p != end || count == 0 || count == 2) {
    throw std::invalid_argument("not a transport version: [" + text + "]");
  }
  if (count == 1) return TransportVersion(parts[0]);
  if (parts[1] > 99 || parts[2] > 99 || parts[0] > 2000) {
    throw std::invalid_argument("not a transport version: [" + text + "]");
  }
  return fromRelease(parts[0], parts[1], parts[2]);
}

}  // namespace wirestream
