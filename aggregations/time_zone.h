// Region time zones (java.time's ZoneRules) from the system tz database:
// Debian's tzdata package, TZif v1..v4 files under /usr/share/zoneinfo
// (RFC 8536), read by a small strict reader. date_histogram rounds and
// date formats render with it in zones such as "Europe/Berlin".
//
// Example (runs: time_zone):
//   #include <cassert>
//   std::shared_ptr<const time_zone::ZoneRules> z = time_zone::load("Europe/Berlin");
//   if (z) assert(z->offsetAt(1616893200) == 7200);  // CEST after 2021-03-28T01:00Z
//
// As java.time: a transition is a change of the UTC offset (TZif entries
// that change only the abbreviation or the DST flag are dropped); before the
// first transition the file's first local time type applies; after the last
// one the file's POSIX TZ footer rule does (computed up to the year 2400,
// the last offset beyond). A malformed file, or one past the size limits
// below, is TimeZoneDataError. ZoneRules is immutable; load() is
// thread-safe (a mutex-guarded cache of at most kMaxCachedZones zones).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stream/errors.h"

namespace wirestream::aggregations::time_zone {

// A TZif file that is not well formed (or exceeds the limits below).
class TimeZoneDataError : public CorruptStreamError {
 public:
  using CorruptStreamError::CorruptStreamError;
};

inline constexpr size_t kMaxFileBytes = size_t{256} * 1024;
inline constexpr uint32_t kMaxTransitions = 20000;
inline constexpr size_t kMaxCachedZones = 1024;
inline constexpr int64_t kLastRuleYear = 2400;

class ZoneRules {
 public:
  // Parses a TZif file; `name` only names it in errors.
  static ZoneRules parse(std::span<const uint8_t> tzif, std::string_view name);

  // The offset (seconds east of UTC) at an instant.
  int32_t offsetAt(int64_t epoch_second) const;
  // ZoneRules.getValidOffsets: the offsets at which the local date-time
  // `local_second` (seconds since 1970-01-01T00:00 local) exists: none in a
  // gap, two in an overlap (the earlier offset first), one otherwise.
  std::vector<int32_t> validOffsets(int64_t local_second) const;
  // ZoneRules.getTransition for a local time in a gap: the transition's
  // instant (epoch seconds); nullopt when `local_second` is in no gap.
  std::optional<int64_t> gapTransition(int64_t local_second) const;
  // ZoneRules.previousTransition: the last transition strictly before the
  // instant `epoch_millis`, in epoch seconds.
  std::optional<int64_t> previousTransition(int64_t epoch_millis) const;

  const std::vector<int64_t>& transitions() const { return transitions_; }

 private:
  std::vector<int64_t> transitions_;  // epoch seconds, ascending
  std::vector<int32_t> offsets_;      // [0] before the first; [i + 1] from transitions_[i]
};

// The rules of region zone `zone_id` from /usr/share/zoneinfo, or nullptr
// when the id names no zone file there (ids are checked: letters, digits,
// '_', '-', '+' and '/'-separated parts not starting with '.'). Throws
// TimeZoneDataError when the file is malformed.
std::shared_ptr<const ZoneRules> load(std::string_view zone_id);

}  // namespace wirestream::aggregations::time_zone
