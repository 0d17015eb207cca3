// TimeValue: a duration with its unit, as Elasticsearch's TimeValue travels.
//
// Example (runs: time_value):
//   #include "stream/bytes_stream_output.h"
//   #include "stream/structured/structured_stream.h"
//   TimeValue t = TimeValue::timeValueDays(100);
//   BytesStreamOutput out;
//   writeTimeValue(out, t);                 // C8 01 06: ZLong 100, unit byte 6
//   std::string text = t.toString();        // "100d"
//
// The unit is kept (not normalised) because it is on the wire: 60s and 1m are
// different values with different bytes, and operator== tells them apart.
// A duration below -1 is rejected (-1 is Elasticsearch's "unset"). A value
// type; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "stream/structured/wire_enum.h"

namespace wirestream {

// Java's TimeUnit, in ordinal order: the unit byte on the wire.
enum class TimeUnit : uint8_t {
  kNanoseconds = 0,
  kMicroseconds = 1,
  kMilliseconds = 2,
  kSeconds = 3,
  kMinutes = 4,
  kHours = 5,
  kDays = 6,
};

template <>
struct WireEnumTraits<TimeUnit> {
  static constexpr std::string_view kName = "TimeUnit";
  static constexpr int32_t kCount = 7;
};

class TimeValue {
 public:
  // std::invalid_argument if duration < -1 (Elasticsearch's rule).
  TimeValue(int64_t duration, TimeUnit unit);
  // Milliseconds, as Elasticsearch's TimeValue(long millis).
  explicit TimeValue(int64_t millis) : TimeValue(millis, TimeUnit::kMilliseconds) {}

  [[nodiscard]] static TimeValue timeValueNanos(int64_t v) { return {v, TimeUnit::kNanoseconds}; }
  [[nodiscard]] static TimeValue timeValueMillis(int64_t v) { return {v, TimeUnit::kMilliseconds}; }
  [[nodiscard]] static TimeValue timeValueSeconds(int64_t v) { return {v, TimeUnit::kSeconds}; }
  [[nodiscard]] static TimeValue timeValueMinutes(int64_t v) { return {v, TimeUnit::kMinutes}; }
  [[nodiscard]] static TimeValue timeValueHours(int64_t v) { return {v, TimeUnit::kHours}; }
  [[nodiscard]] static TimeValue timeValueDays(int64_t v) { return {v, TimeUnit::kDays}; }
  static TimeValue minusOne() { return {-1, TimeUnit::kMilliseconds}; }

  int64_t duration() const { return duration_; }
  TimeUnit timeUnit() const { return unit_; }

  // The duration in nanoseconds, saturating at INT64_MIN / INT64_MAX like
  // java.util.concurrent.TimeUnit.toNanos.
  int64_t nanos() const;
  int64_t millis() const;

  // Elasticsearch's getStringRep(): "100d", "30s", "5ms", "7nanos", "-1".
  std::string toString() const;

  friend bool operator==(const TimeValue&, const TimeValue&) = default;

 private:
  int64_t duration_;
  TimeUnit unit_;
};

// The suffix getStringRep() uses for a unit: "nanos", "micros", "ms", "s", "m",
// "h", "d".
std::string_view timeUnitSuffix(TimeUnit unit);

}  // namespace wirestream
