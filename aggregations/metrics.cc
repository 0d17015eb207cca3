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

namespace wirestream::aggregations {

MetricAggregation::MetricAggregation(StreamInput& in, const NamedWriteableRegistry& registry)
    : InternalAggregation(in), format_(DocValueFormat::readFrom(in, registry)) {}

// ---- max / min / sum ----

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
  auto out = std::make_unique<SingleDoubleMetric>(this->getName(), this->getMetadata(), v);
  out->format_ = this->format_;
  return out;
}

template <class Traits>
double SingleDoubleMetric<Traits>::sortValue(std::string_view metric) const {
  return metric.empty() || metric == "value" ? value_ : std::numeric_limits<double>::quiet_NaN();
}

template class SingleDoubleMetric<MaxTraits>;
template class SingleDoubleMetric<MinTraits>;
template class SingleDoubleMetric<SumTraits>;

// ---- avg ----

Avg::Avg(std::string name, Metadata metadata, double sum, int64_t count)
    : AggregationBase(std::move(name), std::move(metadata)), sum_(sum), count_(count) {}

Avg::Avg(StreamInput& in, const NamedWriteableRegistry& registry) : AggregationBase(in, registry) {
  sum_ = in.readDouble();
  count_ = readNonNegativeVLong(in, "avg count");
}

double Avg::value() const {
  return count_ == 0 ? std::numeric_limits<double>::quiet_NaN()
                     : sum_ / static_cast<double>(count_);
}

void Avg::doWriteTo(StreamOutput& out) const {
  writeFormat(out);
  writeValues(out, sum_, count_);
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

// ---- value_count ----

ValueCount::ValueCount(std::string name, Metadata metadata, int64_t value)
    : AggregationBase(std::move(name), std::move(metadata)), value_(value) {}

ValueCount::ValueCount(StreamInput& in, const NamedWriteableRegistry&)
    : AggregationBase(in, NoFormat{}), value_(readNonNegativeVLong(in, "value_count")) {}

void ValueCount::doWriteTo(StreamOutput& out) const { writeValues(out, value_); }

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

// ---- stats ----

Stats::Stats(std::string name, Metadata metadata, int64_t count, double min, double max, double sum)
    : AggregationBase(std::move(name), std::move(metadata)),
      count_(count),
      min_(min),
      max_(max),
      sum_(sum) {}

Stats::Stats(StreamInput& in, const NamedWriteableRegistry& registry)
    : AggregationBase(in, registry) {
  count_ = readNonNegativeVLong(in, "stats count");
  min_ = in.readDouble();
  max_ = in.readDouble();
  sum_ = in.readDouble();
}

double Stats::avg() const {
  return count_ == 0 ? std::numeric_limits<double>::quiet_NaN()
                     : sum_ / static_cast<double>(count_);
}

void Stats::doWriteTo(StreamOutput& out) const {
  writeFormat(out);
  writeValues(out, count_, min_, max_, sum_);
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

}  // namespace wirestream::aggregations
