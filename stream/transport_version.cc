#include "stream/transport_version.h"

#include <charconv>
#include <stdexcept>

namespace wirestream {

namespace {

// The last release whose id is fromRelease's for every patch: 8.8.x had current()
// 8.8.0's or 8.8.1's id, so from 8.8 on only the table says.
bool byArithmetic(int major, int minor) { return major < 8 || (major == 8 && minor <= 7); }

// Whether a table row's release ("8.19.7") is one fromRelease already names.
bool rowByArithmetic(std::string_view release) {
  int major = 0;
  int minor = 0;
  const char* end = release.data() + release.size();
  auto [dot, ec] = std::from_chars(release.data(), end, major);
  if (ec != std::errc() || dot == end) return false;
  std::from_chars(dot + 1, end, minor);
  return byArithmetic(major, minor);
}

[[noreturn]] void notAVersion(const std::string& text) {
  throw std::invalid_argument("not a transport version: [" + text + "]");
}

}  // namespace

std::string TransportVersion::toString() const {
  if (isReleaseShaped()) {
    int major = id_ / 1000000;
    int minor = id_ / 10000 % 100;
    int revision = id_ / 100 % 100;
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(revision);
  }
  if (auto row = findRelease(*this)) return std::string(row->release);
  return std::to_string(id_);
}

std::optional<TransportVersionRelease> TransportVersion::findRelease(TransportVersion version) {
  for (const TransportVersionRelease& r : releases()) {
    if (r.id == version.id_) return r;
  }
  return std::nullopt;
}

std::optional<TransportVersionRelease> TransportVersion::findRelease(std::string_view release) {
  for (const TransportVersionRelease& r : releases()) {
    if (r.release == release) return r;
  }
  return std::nullopt;
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
  if (p != end || count == 0 || count == 2) notAVersion(text);
  if (count == 1) return TransportVersion(parts[0]);
  if (parts[1] > 99 || parts[2] > 99 || parts[0] > 2000) notAVersion(text);
  if (byArithmetic(parts[0], parts[1])) return fromRelease(parts[0], parts[1], parts[2]);
  std::string name =
      std::to_string(parts[0]) + "." + std::to_string(parts[1]) + "." + std::to_string(parts[2]);
  if (auto row = findRelease(name)) return TransportVersion(row->id);
  std::string known;
  for (const TransportVersionRelease& r : releases()) {
    if (rowByArithmetic(r.release)) continue;
    if (!known.empty()) known += ", ";
    known += r.release;
  }
  throw std::invalid_argument("unknown release [" + text +
                              "]: after 8.7 a release's transport version comes from the "
                              "release table (interop/es-versions.txt), which has " +
                              known);
}

}  // namespace wirestream
