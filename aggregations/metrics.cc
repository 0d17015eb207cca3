// The metrics on the wire (wire format §7); every body but value_count's
// starts with the format:
//   max | min | sum := format, double value   (empty max -inf, empty min +inf)
//   avg             := format, double sum, VLong count
//   value_count     := VLong value (no format: ES's InternalValueCount)
//   stats           := format, VLong count, double min, double max, double sum
// Counts are VLongs; a negative one (10-byte form) is CorruptStreamError.
#include "aggregations/metrics.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "aggregations/compensated_sum.h"
#include "aggregations/json_util.h"

namespace wirestream::aggregations {

namespace ju = json_util;
using json = nlohmann::ordered_json;

MetricAggregation::MetricAggregation(StreamInput& in, const NamedWriteableRegistry& registry)
    : InternalAggregation(in), format_(DocValueFormat::readFrom(in, registry)) {}

MetricAggregation::MetricAggregation(const json& j)
    : InternalAggregation(j), format_(DocValueFormat::fromJson(ju::field(j, "format"))) {}

// ---- max / min / sum ----

template <class Traits>
SingleDoubleMetric<Traits>::SingleDoubleMetric(const json& j)
    : MetricAggregation(j), value_(ju::getDouble(j, "value")) {}

template <class Traits>
std::unique_ptr<InternalAggregation> SingleDoubleMetric<Traits>::reduce(
    std::span<const InternalAggregation* const> aggs, const ReduceContext&) const {
  double v;
  if constexpr (Traits::kType == "max") {
    v = -std::numeric_limits<double>::infinity();
    for (const auto* a : downcast<SingleDoubleMetric>(aggs)) v = std::max(v, a->value_);
  } else if constexpr (Traits::kType == "min") {
    v = std::numeric_limits<double>::infinity();
    for (const auto* a : downcast<SingleDoubleMetric>(aggs)) v = std::min(v, a->value_);
  } else {
    CompensatedSum s;
    for (const auto* a : downcast<SingleDoubleMetric>(aggs)) s.add(a->value_);
    v = s.value();
  }
  auto out = std::make_unique<SingleDoubleMetric>(getName(), getMetadata(), v);
  out->format_ = format_;
  return out;
}

template <class Traits>
double SingleDoubleMetric<Traits>::sortValue(std::string_view metric) const {
  return metric.empty() || metric == "value" ? value_ : std::numeric_limits<double>::quiet_NaN();
}

template <class Traits>
void SingleDoubleMetric<Traits>::responseFieldsToJson(json& j) const {
  // As ES's doXContentBody: an empty max/min is ±inf and renders null; any
  // other value goes through Jackson, which quotes NaN and infinities. So
  // value_as_string unless the format is raw (sum: always, min/max: when
  // there is a value).
  bool has_value = Traits::kType == "sum" || !std::isinf(value_);
  j["value"] = has_value ? ju::fromDouble(value_) : json(nullptr);
  if (has_value && !format_.isRaw()) j["value_as_string"] = format_.formatDoubleAsString(value_);
}

template <class Traits>
void SingleDoubleMetric<Traits>::wireFieldsToJson(json& j) const {
  j["format"] = format_.toJson();
  j["value"] = ju::fromDouble(value_);
}

template class SingleDoubleMetric<MaxTraits>;
template class SingleDoubleMetric<MinTraits>;
template class SingleDoubleMetric<SumTraits>;

// ---- avg ----

Avg::Avg(std::string name, Metadata metadata, double sum, int64_t count)
    : MetricAggregation(std::move(name), std::move(metadata)), sum_(sum), count_(count) {}

Avg::Avg(StreamInput& in, const NamedWriteableRegistry& registry)
    : MetricAggregation(in, registry) {
  sum_ = in.readDouble();
  count_ = readNonNegativeVLong(in, "avg count");
}

Avg::Avg(const json& j)
    : MetricAggregation(j), sum_(ju::getDouble(j, "sum")), count_(ju::getLong(j, "count")) {
  if (count_ < 0) internal::throwCorrupt("negative avg count [" + std::to_string(count_) + "]");
}

double Avg::value() const {
  return count_ == 0 ? std::numeric_limits<double>::quiet_NaN()
                     : sum_ / static_cast<double>(count_);
}

void Avg::doWriteTo(StreamOutput& out) const {
  writeFormat(out);
  out.writeDouble(sum_);
  out.writeVLong(count_);
}

bool Avg::doEquals(const InternalAggregation& other) const {
  const auto& o = static_cast<const Avg&>(other);
  return sameDouble(sum_, o.sum_) && count_ == o.count_;
}

std::unique_ptr<InternalAggregation> Avg::reduce(std::span<const InternalAggregation* const> aggs,
                                                 const ReduceContext&) const {
  CompensatedSum s;
  int64_t count = 0;
  for (const Avg* a : downcast<Avg>(aggs)) {
    s.add(a->sum_);
    count = checkedAdd(count, a->count_, "avg count");
  }
  auto out = std::make_unique<Avg>(getName(), getMetadata(), s.value(), count);
  out->format_ = format_;
  return out;
}

double Avg::sortValue(std::string_view metric) const {
  return metric.empty() || metric == "value" ? value() : std::numeric_limits<double>::quiet_NaN();
}

void Avg::responseFieldsToJson(json& j) const {
  // As ES: null with no values, else sum / count (non-finite quoted).
  j["value"] = count_ != 0 ? ju::fromDouble(value()) : json(nullptr);
  if (count_ != 0 && !format_.isRaw()) j["value_as_string"] = format_.formatDoubleAsString(value());
}

void Avg::wireFieldsToJson(json& j) const {
  j["format"] = format_.toJson();
  j["sum"] = ju::fromDouble(sum_);
  j["count"] = count_;
}

// ---- value_count ----

ValueCount::ValueCount(std::string name, Metadata metadata, int64_t value)
    : MetricAggregation(std::move(name), std::move(metadata)), value_(value) {}

ValueCount::ValueCount(StreamInput& in, const NamedWriteableRegistry&)
    : MetricAggregation(in, NoFormat{}), value_(readNonNegativeVLong(in, "value_count")) {}

ValueCount::ValueCount(const json& j)
    : MetricAggregation(j, NoFormat{}), value_(ju::getLong(j, "value")) {
  if (value_ < 0) internal::throwCorrupt("negative value_count [" + std::to_string(value_) + "]");
}

void ValueCount::doWriteTo(StreamOutput& out) const { out.writeVLong(value_); }

bool ValueCount::doEquals(const InternalAggregation& other) const {
  return value_ == static_cast<const ValueCount&>(other).value_;
}

std::unique_ptr<InternalAggregation> ValueCount::reduce(
    std::span<const InternalAggregation* const> aggs, const ReduceContext&) const {
  int64_t total = 0;
  for (const ValueCount* a : downcast<ValueCount>(aggs))
    total = checkedAdd(total, a->value_, "value_count");
  auto out = std::make_unique<ValueCount>(getName(), getMetadata(), total);
  out->format_ = format_;
  return out;
}

double ValueCount::sortValue(std::string_view metric) const {
  return metric.empty() || metric == "value" ? static_cast<double>(value_)
                                             : std::numeric_limits<double>::quiet_NaN();
}

void ValueCount::responseFieldsToJson(json& j) const { j["value"] = value_; }

void ValueCount::wireFieldsToJson(json& j) const { j["value"] = value_; }

// ---- stats ----

Stats::Stats(std::string name, Metadata metadata, int64_t count, double min, double max, double sum)
    : MetricAggregation(std::move(name), std::move(metadata)),
      count_(count),
      min_(min),
      max_(max),
      sum_(sum) {}

Stats::Stats(StreamInput& in, const NamedWriteableRegistry& registry)
    : MetricAggregation(in, registry) {
  count_ = readNonNegativeVLong(in, "stats count");
  min_ = in.readDouble();
  max_ = in.readDouble();
  sum_ = in.readDouble();
}

Stats::Stats(const json& j)
    : MetricAggregation(j),
      count_(ju::getLong(j, "count")),
      min_(ju::getDouble(j, "min")),
      max_(ju::getDouble(j, "max")),
      sum_(ju::getDouble(j, "sum")) {
  if (count_ < 0) internal::throwCorrupt("negative stats count [" + std::to_string(count_) + "]");
}

double Stats::avg() const {
  return count_ == 0 ? std::numeric_limits<double>::quiet_NaN()
                     : sum_ / static_cast<double>(count_);
}

void Stats::doWriteTo(StreamOutput& out) const {
  writeFormat(out);
  out.writeVLong(count_);
  out.writeDouble(min_);
  out.writeDouble(max_);
  out.writeDouble(sum_);
}

bool Stats::doEquals(const InternalAggregation& other) const {
  const auto& o = static_cast<const Stats&>(other);
  return count_ == o.count_ && sameDouble(min_, o.min_) && sameDouble(max_, o.max_) &&
         sameDouble(sum_, o.sum_);
}

std::unique_ptr<InternalAggregation> Stats::reduce(std::span<const InternalAggregation* const> aggs,
                                                   const ReduceContext&) const {
  int64_t count = 0;
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  CompensatedSum sum;
  for (const Stats* s : downcast<Stats>(aggs)) {
    count = checkedAdd(count, s->count_, "stats count");
    min = std::min(min, s->min_);
    max = std::max(max, s->max_);
    sum.add(s->sum_);
  }
  auto out = std::make_unique<Stats>(getName(), getMetadata(), count, min, max, sum.value());
  out->format_ = format_;
  return out;
}

double Stats::sortValue(std::string_view metric) const {
  if (metric == "count") return static_cast<double>(count_);
  if (metric == "min") return min_;
  if (metric == "max") return max_;
  if (metric == "avg") return avg();
  if (metric == "sum") return sum_;
  return std::numeric_limits<double>::quiet_NaN();
}

void Stats::responseFieldsToJson(json& j) const {
  // As ES: with no values, min/max/avg are null and sum is 0.0; otherwise
  // each as it is (non-finite quoted, as Jackson writes them).
  bool empty = count_ == 0;
  j["count"] = count_;
  j["min"] = empty ? json(nullptr) : ju::fromDouble(min_);
  j["max"] = empty ? json(nullptr) : ju::fromDouble(max_);
  j["avg"] = empty ? json(nullptr) : ju::fromDouble(avg());
  j["sum"] = empty ? json(0.0) : ju::fromDouble(sum_);
  if (!empty && !format_.isRaw()) {
    j["min_as_string"] = format_.formatDoubleAsString(min_);
    j["max_as_string"] = format_.formatDoubleAsString(max_);
    j["avg_as_string"] = format_.formatDoubleAsString(avg());
    j["sum_as_string"] = format_.formatDoubleAsString(sum_);
  }
}

void Stats::wireFieldsToJson(json& j) const {
  j["format"] = format_.toJson();
  j["count"] = count_;
  j["min"] = ju::fromDouble(min_);
  j["max"] = ju::fromDouble(max_);
  j["sum"] = ju::fromDouble(sum_);
}

}  // namespace wirestream::aggregations
