// TransportVersion: the protocol version a stream is written or read at.
//
// Ids follow Elasticsearch: major * 1000000 + minor * 10000 + revision * 100 + 99,
// so 7.10.0 is 7100099 and 8.7.0 is 8070099. Writers and readers branch on
// `out.transportVersion().onOrAfter(TransportVersion::V_8_0_0)`; bytes written
// at version X must be read at version X. A value type; thread-safe.
#pragma once

#include <compare>
#include <cstdint>
#include <string>

namespace wirestream {

class TransportVersion {
 public:
  constexpr explicit TransportVersion(int32_t id) : id_(id) {}

  // The version for major.minor.revision, e.g. fromRelease(8, 7, 0).
  [[nodiscard]] static constexpr TransportVersion fromRelease(int major, int minor, int revision) {
    return TransportVersion(major * 1000000 + minor * 10000 + revision * 100 + 99);
  }

  static const TransportVersion V_7_10_0;
  static const TransportVersion V_7_15_0;
  // The oldest version an 8.x node talks to (ES 8's minimum wire-compatible version).
  static const TransportVersion V_7_17_0;
  static const TransportVersion V_8_0_0;
  static const TransportVersion V_8_7_0;

  // The version this build writes by default (8.7.0).
  static constexpr TransportVersion current();

  constexpr int32_t id() const { return id_; }
  constexpr bool onOrAfter(TransportVersion other) const { return id_ >= other.id_; }
  constexpr bool before(TransportVersion other) const { return id_ < other.id_; }
  constexpr auto operator<=>(const TransportVersion&) const = default;

  // "8.7.0" for release ids, the plain id otherwise.
  std::string toString() const;
  // Parses "8.7.0" or a plain id such as "8070099"; std::invalid_argument if neither.
  static TransportVersion parse(const std::string& text);

 private:
  int32_t id_;
};

inline constexpr TransportVersion TransportVersion::V_7_10_0 =
    TransportVersion::fromRelease(7, 10, 0);
inline constexpr TransportVersion TransportVersion::V_7_15_0 =
    TransportVersion::fromRelease(7, 15, 0);
inline constexpr TransportVersion TransportVersion::V_7_17_0 =
    TransportVersion::fromRelease(7, 17, 0);
inline constexpr TransportVersion TransportVersion::V_8_0_0 =
    TransportVersion::fromRelease(8, 0, 0);
inline constexpr TransportVersion TransportVersion::V_8_7_0 =
    TransportVersion::fromRelease(8, 7, 0);

constexpr TransportVersion TransportVersion::current() { return V_8_7_0; }

}  // namespace wirestream
