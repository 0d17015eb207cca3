// date_histogram on the wire (wire format §7; ES's InternalDateHistogram),
// after name and metadata:
//   order          : BucketOrder
//   min_doc_count  : VLong
//   [min_doc_count == 0] empty bucket info:
//       rounding := byte id, then 1: byte unit, string zone id
//                                 2: VLong interval (ms), string zone id
//                                 3: rounding (1 or 2), ZLong offset
//       InternalAggregations of an empty bucket
//       optional bounds := boolean, then optional long min, optional long max,
//                          optional string min, optional string max
//   offset         : long
//   format         : DocValueFormat (named writeable)
//   keyed          : boolean
//   [>= V_8_13_0 (8595000), or a patch of V_8_12_1 (8560001)]
//   downsampled_results_offset : boolean
//   buckets        : VInt count, count x (long key, VLong doc_count,
//                    InternalAggregations); read from a V_8_13_0 <= v < V_8_14_0
//                    node they are sorted by key again, as ES does
// A negative doc count or min_doc_count, an unknown rounding id or unit, a
// time interval below 1 ms (ES's constructor refuses it) and an offset
// rounding inside another (ES's builder never nests them; stricter than ES)
// are CorruptStreamError.
#include "aggregations/date_histogram.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <utility>

#include "aggregations/date_format.h"
#include "aggregations/histogram_common.h"
#include "aggregations/time_zone.h"

namespace wirestream::aggregations {

DateHistogram::Unit DateHistogram::unitOf(int64_t id) {
  if (id < 1 || id > 10) {
    internal::throwCorrupt("Unknown date time unit id [" + std::to_string(id) + "]");
  }
  return static_cast<DateHistogram::Unit>(id);
}

void DateHistogram::checkInterval(int64_t interval) {
  if (interval < 1) {
    internal::throwCorrupt("Zero or negative time interval not supported [" +
                           std::to_string(interval) + "]");
  }
}

namespace {

constexpr int8_t kTimeUnitId = 1;
constexpr int8_t kTimeIntervalId = 2;
constexpr int8_t kOffsetId = 3;

DateHistogram::Rounding readRounding(StreamInput& in, bool inside_offset) {
  auto id = static_cast<int8_t>(in.readByte());
  DateHistogram::Rounding r;
  switch (id) {
    case kTimeUnitId:
      r.unit = DateHistogram::unitOf(static_cast<int8_t>(in.readByte()));
      r.zone_id = in.readString();
      return r;
    case kTimeIntervalId:
      r.interval = in.readVLong();
      DateHistogram::checkInterval(r.interval);
      r.zone_id = in.readString();
      return r;
    case kOffsetId:
      if (inside_offset) internal::throwCorrupt("offset rounding inside an offset rounding");
      r = readRounding(in, true);
      r.offset = in.readZLong();
      return r;
    default:
      internal::throwCorrupt("unknown rounding id [" + std::to_string(id) + "]");
  }
}

void writeRounding(StreamOutput& out, const DateHistogram::Rounding& r) {
  if (r.offset) out.writeByte(static_cast<uint8_t>(kOffsetId));
  if (r.unit) {
    out.writeByte(static_cast<uint8_t>(kTimeUnitId));
    out.writeByte(static_cast<uint8_t>(*r.unit));
  } else {
    out.writeByte(static_cast<uint8_t>(kTimeIntervalId));
    out.writeVLong(r.interval);
  }
  out.writeString(r.zone_id);
  if (r.offset) out.writeZLong(*r.offset);
}

int64_t floorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

constexpr int64_t kDay = 86400000;

// The start of the unit holding local time `local` (ms), and the start of the
// next one: java.time's truncation and plus(1 unit) in local time.
int64_t nextUnitStart(DateHistogram::Unit unit, int64_t local) {
  using U = DateHistogram::Unit;
  switch (unit) {
    case U::kSecondOfMinute:
      return floorDiv(local, 1000) * 1000 + 1000;
    case U::kMinutesOfHour:
      return floorDiv(local, 60000) * 60000 + 60000;
    case U::kHourOfDay:
      return floorDiv(local, 3600000) * 3600000 + 3600000;
    case U::kDayOfMonth:
      return floorDiv(local, kDay) * kDay + kDay;
    case U::kWeekOfWeekyear: {
      int64_t day = floorDiv(local, kDay);
      int64_t monday = day - ((day % 7 + 7 + 3) % 7);  // 1970-01-01 was a Thursday
      return (monday + 7) * kDay;
    }
    default: {
      date_format::CivilDate c = date_format::civilFromDays(floorDiv(local, kDay));
      int64_t year = c.year;
      int32_t month = c.month;
      if (unit == U::kYearOfCentury) {
        ++year;
        month = 1;
      } else {
        if (unit == U::kQuarterOfYear) month = (month - 1) / 3 * 3 + 1;
        month += unit == U::kQuarterOfYear ? 3 : 1;
        if (month > 12) {
          month -= 12;
          ++year;
        }
      }
      return date_format::daysFromCivil(year, month, 1) * kDay;
    }
  }
}

// Rounding in a region zone, as ES's java.time roundings (Rounding.java:
// JavaTimeToMidnightRounding, JavaTimeNotToMidnightRounding,
// TimeIntervalRounding.JavaTimeRounding), over the zone's transitions.
class RegionRounding {
 public:
  explicit RegionRounding(const time_zone::ZoneRules& z) : z_(z) {}

  // TimeUnitRounding.nextRoundingValue.
  int64_t nextUnit(DateHistogram::Unit unit, int64_t utc) const {
    using U = DateHistogram::Unit;
    if (unit == U::kHourOfDay || unit == U::kMinutesOfHour || unit == U::kSecondOfMinute) {
      int64_t unit_ms = unit == U::kHourOfDay ? 3600000 : unit == U::kMinutesOfHour ? 60000 : 1000;
      int64_t once = roundNotToMidnight(unit_ms, utc + unit_ms);
      return utc < once ? once : roundNotToMidnight(unit_ms, utc + 2 * unit_ms);
    }
    // The next local midnight that starts a unit, at its first instant.
    return firstTimeOnDay(nextUnitStart(unit, local(utc)));
  }

  // TimeIntervalRounding's JavaTimeRounding.nextRoundingValue: the smallest
  // rounded value above round(utc), found with round() as a black box.
  int64_t nextInterval(int64_t interval, int64_t utc) const {
    int64_t prev = roundInterval(interval, utc);
    int64_t increment = interval;
    int64_t from = prev;
    for (int iterations = 1; iterations < 100; ++iterations) {
      from += increment;
      int64_t rounded = roundInterval(interval, from);
      if (rounded <= prev) {
        if (increment < 0) increment = -increment / 2;
        continue;
      }
      if (roundInterval(interval, rounded - 1) > prev) {
        if (increment > 0) increment = -increment / 2;
        continue;
      }
      return rounded;
    }
    return roundInterval(interval, from);
  }

 private:
  int64_t offsetMs(int64_t utc) const { return int64_t{z_.offsetAt(floorDiv(utc, 1000))} * 1000; }
  int64_t local(int64_t utc) const { return utc + offsetMs(utc); }
  std::vector<int32_t> validOffsets(int64_t local_ms) const {
    return z_.validOffsets(floorDiv(local_ms, 1000));
  }
  // The instant of a local time in a gap: the transition's.
  int64_t gapStart(int64_t local_ms) const {
    std::optional<int64_t> t = z_.gapTransition(floorDiv(local_ms, 1000));
    return t ? *t * 1000 : local_ms - offsetMs(local_ms);
  }

  // The first instant of a local day: midnight at its first valid offset,
  // or, when midnight falls in a gap, the transition that skips it.
  int64_t firstTimeOnDay(int64_t local_midnight) const {
    std::vector<int32_t> offsets = validOffsets(local_midnight);
    if (!offsets.empty()) return local_midnight - int64_t{offsets.front()} * 1000;
    return gapStart(local_midnight);
  }

  // The local truncation of `instant` as an instant no later than it (the
  // latest offset that allows that), or nullopt when the truncated local
  // time does not exist.
  std::optional<int64_t> truncateAsLocal(int64_t unit_ms, int64_t instant) const {
    int64_t truncated = floorDiv(local(instant), unit_ms) * unit_ms;
    std::vector<int32_t> offsets = validOffsets(truncated);
    for (size_t i = offsets.size(); i-- > 0;) {
      int64_t result = truncated - int64_t{offsets[i]} * 1000;
      if (result <= instant) return result;
    }
    return std::nullopt;
  }

  // Rounds down to the hour, minute or second; a truncation that would cross
  // the previous transition rounds from just before that transition instead.
  int64_t roundNotToMidnight(int64_t unit_ms, int64_t utc) const {
    int64_t instant = utc;
    for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
      std::optional<int64_t> truncated = truncateAsLocal(unit_ms, instant);
      std::optional<int64_t> previous = z_.previousTransition(instant);
      if (!previous) return truncated.value_or(instant);
      if (truncated && *previous * 1000 <= *truncated) return *truncated;
      instant = *previous * 1000 - 1;
    }
    throwTooManyTransitions(utc);
  }

  int64_t roundInterval(int64_t interval, int64_t original) const {
    int64_t utc = original;
    for (int attempt = 0; attempt < kMaxAttempts;) {
      int64_t rounded = floorDiv(local(utc), interval) * interval;
      std::vector<int32_t> offsets = validOffsets(rounded);
      if (offsets.empty()) return gapStart(rounded);
      // The latest rounded instant no later than utc, unless that rounds back
      // across a transition: then round from just before the transition.
      std::optional<int64_t> previous = z_.previousTransition(utc + 1);
      bool retry = false;
      for (size_t i = offsets.size(); i-- > 0;) {
        int64_t instant = rounded - int64_t{offsets[i]} * 1000;
        if (previous && instant < *previous * 1000) {
          ++attempt;
          utc = *previous * 1000 - 1;
          retry = true;
          break;
        }
        if (instant <= utc) return instant;
      }
      if (!retry) return rounded - int64_t{offsets.front()} * 1000;
    }
    throwTooManyTransitions(original);
  }

  [[noreturn]] static void throwTooManyTransitions(int64_t utc) {
    internal::throwLimitExceeded("failed to round [" + std::to_string(utc) +
                                 "] down: transitioned backwards through too many daylight "
                                 "savings time transitions");
  }

  static constexpr int kMaxAttempts = 5000;
  const time_zone::ZoneRules& z_;
};

}  // namespace

int64_t DateHistogram::Rounding::nextRoundingValue(int64_t utc_millis) const {
  if (unit && (*unit == Unit::kYearsOfCentury || *unit == Unit::kMonthsOfYear)) {
    throw UnsupportedRoundingError("date_histogram rounding unit id [" +
                                   std::to_string(static_cast<int>(*unit)) +
                                   "] (YEARS_OF_CENTURY, MONTHS_OF_YEAR, after 8.7) is carried, "
                                   "not computed");
  }
  auto zone_offset = date_format::fixedOffsetSeconds(zone_id);
  std::shared_ptr<const time_zone::ZoneRules> region;
  if (!zone_offset) {
    region = time_zone::load(zone_id);
    if (!region) {
      throw UnsupportedTimeZoneError("date_histogram time zone [" + zone_id +
                                     "] is neither a fixed offset nor in the tz database");
    }
  }
  // Far outside any date (2^61 ms is 73 million years) there is no next
  // value: INT64_MAX ends every walk without overflowing.
  constexpr int64_t kLimit = int64_t{1} << 61;
  int64_t shift = offset.value_or(0);
  int64_t t;
  if (__builtin_sub_overflow(utc_millis, shift, &t) || t > kLimit || t < -kLimit) {
    return INT64_MAX;
  }
  int64_t next;
  if (region) {
    if (!unit && interval > kLimit) return INT64_MAX;
    RegionRounding r(*region);
    next = unit ? r.nextUnit(*unit, t) : r.nextInterval(interval, t);
  } else if (unit) {
    int64_t off = int64_t{*zone_offset} * 1000;
    next = nextUnitStart(*unit, t + off) - off;
  } else if (__builtin_add_overflow(t, interval, &next)) {
    return INT64_MAX;  // TimeIntervalRounding: a fixed zone's offset cancels out
  }
  int64_t result;
  return __builtin_add_overflow(next, shift, &result) ? INT64_MAX : result;
}

DateHistogram::DateHistogram(StreamInput& in, const NamedWriteableRegistry& registry)
    : AggregationBase(in) {
  order_ = BucketOrder::readFrom(in);
  min_doc_count_ = readNonNegativeVLong(in, "min doc count");
  if (min_doc_count_ == 0) {
    EmptyBucketInfo e;
    e.rounding = readRounding(in, false);
    e.aggregations = InternalAggregations::readFrom(in, registry);
    if (in.readBoolean()) {
      Bounds b;
      b.min = in.readOptionalLong();
      b.max = in.readOptionalLong();
      b.min_as_str = in.readOptionalString();
      b.max_as_str = in.readOptionalString();
      e.bounds = std::move(b);
    }
    empty_bucket_info_ = std::move(e);
  }
  offset_ = in.readLong();
  format_ = DocValueFormat::readFrom(in, registry);
  keyed_ = in.readBoolean();
  if (hasDownsampledResultsOffset(in.transportVersion())) {
    downsampled_results_offset_ = in.readBoolean();
  }
  histogram_common::readBuckets(in, registry, buckets_);
  histogram_common::resortFrom813(in.transportVersion(), buckets_);
}

void DateHistogram::doWriteTo(StreamOutput& out) const {
  order_.writeTo(out);
  out.writeVLong(min_doc_count_);
  if (min_doc_count_ == 0) {
    if (!empty_bucket_info_) {
      throw std::invalid_argument("date_histogram [" + getName() +
                                  "] has min_doc_count 0 but no empty bucket info");
    }
    const EmptyBucketInfo& e = *empty_bucket_info_;
    writeRounding(out, e.rounding);
    e.aggregations.writeTo(out);
    out.writeBoolean(e.bounds.has_value());
    if (e.bounds) {
      out.writeOptionalLong(e.bounds->min);
      out.writeOptionalLong(e.bounds->max);
      out.writeOptionalString(e.bounds->min_as_str);
      out.writeOptionalString(e.bounds->max_as_str);
    }
  }
  out.writeLong(offset_);
  format_.writeNamed(out);
  out.writeBoolean(keyed_);
  if (hasDownsampledResultsOffset(out.transportVersion())) {
    out.writeBoolean(downsampled_results_offset_);
  }
  histogram_common::writeBuckets(out, buckets_);
}

bool DateHistogram::doEquals(const InternalAggregation& other) const {
  const auto& o = static_cast<const DateHistogram&>(other);
  return order_ == o.order_ && min_doc_count_ == o.min_doc_count_ &&
         empty_bucket_info_ == o.empty_bucket_info_ && offset_ == o.offset_ &&
         format_ == o.format_ && keyed_ == o.keyed_ &&
         downsampled_results_offset_ == o.downsampled_results_offset_ && buckets_ == o.buckets_;
}

std::unique_ptr<InternalAggregation> DateHistogram::reduce(
    std::span<const InternalAggregation* const> aggs, const ReduceContext& context) const {
  const auto& first = *static_cast<const DateHistogram*>(aggs[0]);
  Buckets buckets = histogram_common::mergeByKey<DateHistogram>(aggs, first.min_doc_count_, context,
                                                                std::less<int64_t>());
  if (context.final_reduce) {
    if (first.min_doc_count_ == 0 && first.empty_bucket_info_) {
      first.addEmptyBuckets(buckets, context);
    }
    histogram_common::orderFinal(buckets, first.order_);
  }
  auto out = std::make_unique<DateHistogram>(first.getName(), first.getMetadata());
  out->order_ = first.order_;
  out->min_doc_count_ = first.min_doc_count_;
  out->empty_bucket_info_ = first.empty_bucket_info_;
  out->offset_ = first.offset_;
  out->format_ = first.format_;
  out->keyed_ = first.keyed_;
  out->downsampled_results_offset_ = first.downsampled_results_offset_;
  out->buckets_ = std::move(buckets);
  return out;
}

// As ES's InternalDateHistogram.iterateEmptyBuckets: from the bounds' min to
// the first key, between the keys, and from the last key to the bounds' max,
// each step nextKey(k) = rounding.nextRoundingValue(k - offset) + offset.
void DateHistogram::addEmptyBuckets(Buckets& buckets, const ReduceContext& context) const {
  const EmptyBucketInfo& e = *empty_bucket_info_;
  auto next = [&](int64_t k) {
    int64_t shifted, result;
    if (__builtin_sub_overflow(k, offset_, &shifted)) return INT64_MAX;
    int64_t n = e.rounding.nextRoundingValue(shifted);
    return __builtin_add_overflow(n, offset_, &result) ? INT64_MAX : result;
  };
  // ES adds the offset to the bounds (saturating here instead of wrapping).
  auto shifted = [&](int64_t v) {
    int64_t r;
    if (!__builtin_add_overflow(v, offset_, &r)) return r;
    return offset_ > 0 ? INT64_MAX : INT64_MIN;
  };
  histogram_common::FillRange<int64_t> range;
  if (e.bounds && e.bounds->min) range.min = shifted(*e.bounds->min);
  if (e.bounds && e.bounds->max) range.max = shifted(*e.bounds->max);
  if (range.min && range.max) range.when_empty = std::pair(*range.min, *range.max);
  histogram_common::addEmptyBuckets(buckets, e.aggregations, context, range, next);
}

int64_t DateHistogram::bucketCount() const { return buckets_.bucketCount(); }

}  // namespace wirestream::aggregations
