// Date rendering for DocValueFormat.DateTime and date_histogram keys: what
// ES's DateFormatter.format(instant.atZone(zone)) prints, for the patterns and
// zones listed below, plus the calendar arithmetic date_histogram's rounding
// needs (civil dates from epoch days, and back).
//
// Example (runs: date_format):
//   #include <cassert>
//   std::optional<std::string> s =
//       date_format::format("strict_date_optional_time", "Z", 1420070400, 0);
//   assert(s == "2015-01-01T00:00:00.000Z");
//   assert(!date_format::format("strict_date_optional_time", "Mars/Olympus", 0, 0));
//
// Patterns (the first of "a||b" is the printer, as in ES):
//   - built-in names, with or without "strict_": date_optional_time,
//     date_optional_time_nanos, date_time, date_time_no_millis, date,
//     date_hour_minute_second, date_hour_minute_second_millis,
//     date_hour_minute_second_fraction, date_hour_minute, date_hour,
//     hour_minute_second, hour_minute, year_month_day, year_month, year,
//     basic_date, epoch_millis, epoch_second;
//   - java.time patterns built from the letters y u M L d D H h k K m s S a E
//     Z X x V (VV) and 'quoted' literals (Locale.ROOT names: "Jan", "Monday").
// Zones: fixed offsets ("Z", "+01:00", "-0530", "+1"), "UTC", "GMT", "UT",
// those prefixes with an offset ("UTC+01:00"), "Etc/UTC", "Etc/GMT", and
// region zones ("Europe/Berlin") from the system tz database (time_zone.h).
// Anything else (a zone with no tz file, a malformed tz file, an unknown
// letter) is not rendered: format() returns nullopt and callers print the
// raw value.
// Thread-safe (region zones come from time_zone::load's cache).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace wirestream::aggregations::date_format {

// The fixed offset of a zone id in seconds east of UTC, or nullopt when the
// id is not one of the fixed zones above.
std::optional<int32_t> fixedOffsetSeconds(std::string_view zone_id);

// The offset of `zone_id` at an instant: fixed zones as above, region zones
// from the tz database; nullopt when the zone is unknown. Throws
// time_zone::TimeZoneDataError when the zone's tz file is malformed.
std::optional<int32_t> offsetAt(std::string_view zone_id, int64_t epoch_seconds);

// Whether format() can print `pattern` (in a supported zone).
bool isSupportedPattern(std::string_view pattern);

// The instant epoch_seconds + nanos (0..999999999) in `zone_id`, printed with
// `pattern`; nullopt if the pattern or the zone is not supported.
std::optional<std::string> format(std::string_view pattern, std::string_view zone_id,
                                  int64_t epoch_seconds, int32_t nanos);
// As above for a formatter with a locale (Java's Locale.toString: "" is ROOT, "de_DE").
// Numbers print the same in every locale (java.time keeps Latin digits unless asked);
// names (month and day text, AM/PM) are known for ROOT and English only, so a pattern
// with a name in another locale is not supported: nullopt, never another language's
// name.
std::optional<std::string> format(std::string_view pattern, std::string_view locale,
                                  std::string_view zone_id, int64_t epoch_seconds, int32_t nanos);

// Proleptic Gregorian calendar (Howard Hinnant's algorithms).
struct CivilDate {
  int64_t year;
  int32_t month;  // 1..12
  int32_t day;    // 1..31
};
CivilDate civilFromDays(int64_t epoch_day);
int64_t daysFromCivil(int64_t year, int32_t month, int32_t day);

}  // namespace wirestream::aggregations::date_format
