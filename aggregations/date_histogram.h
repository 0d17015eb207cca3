// DateHistogram: ES's InternalDateHistogram (`date_histogram`), buckets keyed
// by the long start of each calendar or fixed interval.
//
// Example (runs: date_histogram):
//   #include "stream/bytes_stream_output.h"
//   DateHistogram h("per_day", Metadata());
//   h.setFormat(DocValueFormat::dateTime("strict_date_optional_time||epoch_millis", "Z"));
//   h.setMinDocCount(0);
//   DateHistogram::EmptyBucketInfo e;
//   e.rounding = DateHistogram::Rounding::timeUnit(DateHistogram::Unit::kDayOfMonth, "Z");
//   h.setEmptyBucketInfo(std::move(e));
//   h.buckets().push_back({/*key=*/1420070400000, /*doc_count=*/3, {}});
//   BytesStreamOutput out;
//   h.writeTo(out);
//
// Wire format §7 (date_histogram). The reduce merges buckets by key; the
// final reduce drops buckets under minDocCount and, when minDocCount is 0,
// adds the empty buckets between the keys and out to the extended bounds,
// stepping with the rounding's next value as ES does. Every bucket kept or
// filled in, and every bucket of the sub-aggregations copied into the filled
// ones, counts against ReduceContext::max_buckets before it is built
// (TooManyBucketsError beyond), exactly as for Histogram. Stepping needs the
// zone's offsets: fixed-offset zones (date_format.h) and region zones from
// the system tz database (time_zone.h, stepped as ES's java.time roundings,
// DST transitions included); a zone that is neither throws
// UnsupportedTimeZoneError, a malformed tz file TimeZoneDataError (both
// StreamErrors: the zone came off the wire).
// Response JSON: key_as_string (unless the format is raw), key, doc_count.
// Value type with deep-copy semantics; not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "aggregations/bucket_order.h"
#include "aggregations/doc_value_format.h"
#include "aggregations/histogram_buckets.h"
#include "aggregations/internal_aggregation.h"
#include "stream/errors.h"

namespace wirestream::aggregations {

// A rounding in a time zone whose offsets we do not have: neither a fixed
// offset nor a zone of the system tz database.
class UnsupportedTimeZoneError : public StreamError {
 public:
  using StreamError::StreamError;
};

// A rounding wirestream carries but cannot compute (DateTimeUnit ids 9 and 10).
class UnsupportedRoundingError : public StreamError {
 public:
  using StreamError::StreamError;
};

class DateHistogram final : public AggregationBase<DateHistogram> {
 public:
  static constexpr std::string_view kType = "date_histogram";

  // Rounding.DateTimeUnit, by wire id.
  enum class Unit : int8_t {
    kWeekOfWeekyear = 1,
    kYearOfCentury = 2,
    kQuarterOfYear = 3,
    kMonthOfYear = 4,
    kDayOfMonth = 5,
    kHourOfDay = 6,
    kMinutesOfHour = 7,
    kSecondOfMinute = 8,
    // Added after 8.7 (8.19 and 9.x have them, ungated): carried on the wire; their
    // rounding is not implemented, so an empty-bucket fill with one is
    // UnsupportedRoundingError.
    kYearsOfCentury = 9,
    kMonthsOfYear = 10,
  };

  // ES's Rounding: a TimeUnitRounding (id 1) or a TimeIntervalRounding (id 2),
  // optionally inside an OffsetRounding (id 3).
  struct Rounding {
    std::optional<Unit> unit;  // time unit rounding when set
    int64_t interval = 0;      // time interval rounding (ms) otherwise
    std::string zone_id = "Z";
    std::optional<int64_t> offset;  // OffsetRounding around it

    static Rounding timeUnit(Unit u, std::string zone) { return {u, 0, std::move(zone), {}}; }
    static Rounding timeInterval(int64_t ms, std::string zone) {
      return {std::nullopt, ms, std::move(zone), {}};
    }
    // The start of the bucket after the one that starts at `utc_millis`
    // (Rounding.nextRoundingValue); UnsupportedTimeZoneError when the zone is
    // unknown, time_zone::TimeZoneDataError when its tz file is malformed.
    int64_t nextRoundingValue(int64_t utc_millis) const;
    friend bool operator==(const Rounding&, const Rounding&) = default;
  };

  // ES's LongBounds (extended_bounds / hard_bounds).
  struct Bounds {
    std::optional<int64_t> min;
    std::optional<int64_t> max;
    std::optional<std::string> min_as_str;
    std::optional<std::string> max_as_str;
    friend bool operator==(const Bounds&, const Bounds&) = default;
  };

  struct EmptyBucketInfo {
    Rounding rounding;
    InternalAggregations aggregations;  // the sub-aggregations of an empty bucket
    std::optional<Bounds> bounds;
    friend bool operator==(const EmptyBucketInfo& a, const EmptyBucketInfo& b) {
      return a.rounding == b.rounding && a.aggregations == b.aggregations && a.bounds == b.bounds;
    }
  };

  struct Bucket {
    int64_t key = 0;
    int64_t doc_count = 0;
    InternalAggregations aggregations;

    int64_t docCount() const { return doc_count; }
    int compareKey(const Bucket& o) const { return key < o.key ? -1 : (key == o.key ? 0 : 1); }
    double sortValue(std::string_view path) const { return aggregations.sortValue(path); }
    friend bool operator==(const Bucket& a, const Bucket& b) {
      return a.key == b.key && a.doc_count == b.doc_count && a.aggregations == b.aggregations;
    }
  };

  DateHistogram(std::string name, Metadata metadata)
      : AggregationBase(std::move(name), std::move(metadata)) {}
  DateHistogram(StreamInput& in, const NamedWriteableRegistry& registry);
  // The unit of ES's DateTimeUnit id 1..10; CorruptStreamError otherwise.
  static Unit unitOf(int64_t id);
  // CorruptStreamError unless a fixed interval (ms) is at least 1.
  static void checkInterval(int64_t interval);

  const BucketOrder& order() const { return order_; }
  void setOrder(BucketOrder o) { order_ = std::move(o); }
  int64_t minDocCount() const { return min_doc_count_; }
  // writeTo throws std::invalid_argument when minDocCount is 0 and there is
  // no EmptyBucketInfo (ES writes it exactly then).
  void setMinDocCount(int64_t v) { min_doc_count_ = v; }
  const std::optional<EmptyBucketInfo>& emptyBucketInfo() const { return empty_bucket_info_; }
  std::optional<EmptyBucketInfo>& emptyBucketInfo() { return empty_bucket_info_; }
  void setEmptyBucketInfo(std::optional<EmptyBucketInfo> e) { empty_bucket_info_ = std::move(e); }
  int64_t offset() const { return offset_; }
  void setOffset(int64_t v) { offset_ = v; }
  const DocValueFormat& format() const { return format_; }
  void setFormat(DocValueFormat f) { format_ = std::move(f); }
  bool keyed() const { return keyed_; }
  void setKeyed(bool v) { keyed_ = v; }
  // ES's downsampledResultsOffset (a date_histogram over downsampled data whose offset
  // follows the time zone): on the wire from V_8_13_0, or a patch of V_8_12_1, after
  // keyed (dropped below, as ES does); the response then says
  // "downsampled_results_offset": true.
  bool downsampledResultsOffset() const { return downsampled_results_offset_; }
  void setDownsampledResultsOffset(bool v) { downsampled_results_offset_ = v; }
  // Whether `v` carries downsampledResultsOffset (ES's versionSupportsDownsamplingTimezone).
  static bool hasDownsampledResultsOffset(TransportVersion v) {
    return v.onOrAfter(TransportVersion::V_8_13_0) || v.isPatchFrom(TransportVersion::V_8_12_1);
  }
  // The buckets as columns (histogram_buckets.h): a vector-like view whose
  // elements are proxies (`auto&&`, or the Bucket they convert to).
  using Buckets = HistogramBuckets<LongKey, Bucket>;
  Buckets& buckets() { return buckets_; }
  const Buckets& buckets() const { return buckets_; }

  std::unique_ptr<InternalAggregation> reduce(std::span<const InternalAggregation* const> aggs,
                                              const ReduceContext& context) const override;
  int64_t bucketCount() const override;

 protected:
  void doWriteTo(StreamOutput& out) const override;
  bool doEquals(const InternalAggregation& other) const override;

 private:
  void addEmptyBuckets(Buckets& buckets, const ReduceContext& context) const;

  BucketOrder order_ = BucketOrder::key(true);
  int64_t min_doc_count_ = 1;
  std::optional<EmptyBucketInfo> empty_bucket_info_;
  int64_t offset_ = 0;
  DocValueFormat format_;
  bool keyed_ = false;
  bool downsampled_results_offset_ = false;
  Buckets buckets_;
};

}  // namespace wirestream::aggregations
