#include "stream/structured/time_value.h"

#include <limits>
#include <stdexcept>

namespace wirestream {

namespace {

constexpr int64_t kNanosPer[] = {
    1,                   // nanos
    1000,                // micros
    1000000,             // millis
    1000000000,          // seconds
    60'000'000'000,      // minutes
    3'600'000'000'000,   // hours
    86'400'000'000'000,  // days
};

// d * factor, saturating like java.util.concurrent.TimeUnit conversions.
int64_t scaleSaturating(int64_t d, int64_t factor) {
  int64_t r;
  if (__builtin_mul_overflow(d, factor, &r)) {
    return d < 0 ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
  }
  return r;
}

}  // namespace

TimeValue::TimeValue(int64_t duration, TimeUnit unit) : duration_(duration), unit_(unit) {
  if (duration < -1) {
    throw std::invalid_argument("duration cannot be negative, was given [" +
                                std::to_string(duration) + "]");
  }
  if (static_cast<int>(unit) >= WireEnumTraits<TimeUnit>::kCount) {
    throw std::invalid_argument("not a TimeUnit [" + std::to_string(static_cast<int>(unit)) + "]");
  }
}

int64_t TimeValue::nanos() const {
  return scaleSaturating(duration_, kNanosPer[static_cast<int>(unit_)]);
}

int64_t TimeValue::millis() const {
  int64_t per = kNanosPer[static_cast<int>(unit_)];
  if (per >= 1000000) return scaleSaturating(duration_, per / 1000000);
  return duration_ / (1000000 / per);
}

std::string_view timeUnitSuffix(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kNanoseconds:
      return "nanos";
    case TimeUnit::kMicroseconds:
      return "micros";
    case TimeUnit::kMilliseconds:
      return "ms";
    case TimeUnit::kSeconds:
      return "s";
    case TimeUnit::kMinutes:
      return "m";
    case TimeUnit::kHours:
      return "h";
    case TimeUnit::kDays:
      return "d";
  }
  return "?";
}

std::string TimeValue::toString() const {
  if (duration_ < 0) return std::to_string(duration_);
  return std::to_string(duration_) + std::string(timeUnitSuffix(unit_));
}

}  // namespace wirestream
