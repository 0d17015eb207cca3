// The java.time values generic values carry (wire format §3): a date-time in
// a zone (ZonedDateTime, tag 23; Joda's DateTime of 7.x, tag 13) and a time
// of day at an offset from UTC (OffsetTime, tag 27), with the zone and
// offset ids exactly as java.time's getId() writes them.
//
// Example (runs: java_time):
//   using namespace std::chrono_literals;
//   ZonedDateTime t{ZonedDateTime::Millis(1700000000000ms), "Europe/Paris"};
//   OffsetTime o{9h + 30min, 5h + 30min};       // 09:30+05:30
//   std::string id = o.offsetId();              // "+05:30"
//   std::string text = o.toString();            // "09:30+05:30", as Java's toString()
//
// Ids: an offset id is "Z" or "+hh:mm" / "+hh:mm:ss" (ZoneOffset.getId());
// a zone id is an offset id, "UTC", "GMT" or "UT" alone or followed by a
// nonzero offset id ("UTC+01:00"), or a region id ("Europe/Paris": a
// letter, then letters, digits and ~/._+-). Java also reads other spellings
// ("+5", "+0530", "UTC+1", "+00:00") and rewrites them in this form; they
// are refused here so that a value read and written again keeps its bytes.
// Region ids are checked for their form, not against a time-zone database.
// Value types; thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace wirestream {

struct ZonedDateTime {
  using Millis = std::chrono::sys_time<std::chrono::milliseconds>;

  Millis instant{};  // any int64 count of milliseconds since the epoch
  std::string zone_id = "Z";
  // The nanoseconds below the millisecond, 0..999999: generic tag 23 carries them from
  // V_8_16_0 (epoch seconds and nano of second); below, and in tag 13, they are dropped
  // on writing, as ES's toEpochMilli does.
  int32_t nano_of_milli = 0;

  // Whether `id` is a zone id in the form ZoneId.getId() gives (above).
  static bool isZoneId(std::string_view id);

  friend bool operator==(const ZonedDateTime&, const ZonedDateTime&) = default;
};

struct OffsetTime {
  static constexpr std::chrono::nanoseconds kDay = std::chrono::hours(24);
  static constexpr std::chrono::seconds kMaxOffset = std::chrono::hours(18);

  std::chrono::nanoseconds time_of_day{};  // 0 .. kDay - 1ns
  std::chrono::seconds offset{};           // -kMaxOffset .. kMaxOffset

  bool valid() const {
    return time_of_day.count() >= 0 && time_of_day < kDay && offset >= -kMaxOffset &&
           offset <= kMaxOffset;
  }
  // ZoneOffset.getId(): "Z", "+05:30", "-08:00:15". Requires |offset| <= 18h.
  std::string offsetId() const { return offsetIdOf(offset); }
  // As OffsetTime.toString(): "09:30+05:30", "23:59:59.999999999Z". Requires valid().
  std::string toString() const;

  static std::string offsetIdOf(std::chrono::seconds offset);
  // The offset whose id is exactly `id`; nullopt for any other string.
  [[nodiscard]] static std::optional<std::chrono::seconds> parseOffsetId(std::string_view id);

  friend bool operator==(const OffsetTime&, const OffsetTime&) = default;
};

}  // namespace wirestream
