// The single-pass numeric metrics: Max, Min, Sum, Avg, ValueCount, Stats.
//
// Example (runs: metrics):
//   #include <cassert>
//   auto max = std::make_unique<Max>("max_price", Metadata(), 42.5);
//   auto avg = std::make_unique<Avg>("avg_price", Metadata(), /*sum=*/85.0, /*count=*/2);
//   assert(max->value() == 42.5 && avg->value() == 42.5);
//
// Each starts its body with its DocValueFormat (wire format §7). Reduce as ES:
// max/min of the values (an empty max is -inf, an empty min +inf), sums with
// Kahan compensation (CompensatedSum), counts added. Response JSON as ES:
// {"value": v} (null for an empty max/min/avg); stats renders count, min,
// max, avg, sum (aggregations/json). Value types with deep-copy semantics;
// not thread-safe.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "aggregations/doc_value_format.h"
#include "aggregations/internal_aggregation.h"
#include "aggregations/java_double.h"

namespace wirestream::aggregations {

// Base of the metrics: the format comes first in every body but value_count's.
class MetricAggregation : public InternalAggregation {
 public:
  const DocValueFormat& format() const { return format_; }
  // value_count has no format on the wire: setting one there is not kept.
  void setFormat(DocValueFormat f) { format_ = std::move(f); }
  bool mustReduceOnSingleInternalAgg() const final { return false; }

 protected:
  MetricAggregation(std::string name, Metadata metadata)
      : InternalAggregation(std::move(name), std::move(metadata)) {}
  MetricAggregation(StreamInput& in, const NamedWriteableRegistry& registry);
  // For a body without a format (value_count): the format is raw.
  struct NoFormat {};
  MetricAggregation(StreamInput& in, NoFormat) : InternalAggregation(in) {}

  void writeFormat(StreamOutput& out) const { format_.writeNamed(out); }

  DocValueFormat format_;
};

// A metric holding one double (max, min, sum); `Traits` picks the type name,
// the empty value and how two values combine.
template <class Traits>
class SingleDoubleMetric final
    : public AggregationBase<SingleDoubleMetric<Traits>, MetricAggregation> {
  using Super = AggregationBase<SingleDoubleMetric<Traits>, MetricAggregation>;

 public:
  static constexpr std::string_view kType = Traits::kType;

  SingleDoubleMetric(std::string name, Metadata metadata, double value)
      : Super(std::move(name), std::move(metadata)), value_(value) {}
  SingleDoubleMetric(StreamInput& in, const NamedWriteableRegistry& registry)
      : Super(in, registry), value_(in.readDouble()) {}

  double value() const { return value_; }
  void setValue(double v) { value_ = v; }

  // The body after the format (ES's field order): the one home of these
  // bytes, for the object and for a metric column's row alike.
  static void writeValues(StreamOutput& out, double value) { out.writeDouble(value); }

  std::unique_ptr<InternalAggregation> reduce(std::span<const InternalAggregation* const> aggs,
                                              const ReduceContext& context) const override;
  double sortValue(std::string_view metric) const override;

 protected:
  void doWriteTo(StreamOutput& out) const override {
    this->writeFormat(out);
    writeValues(out, value_);
  }
  bool doEquals(const InternalAggregation& other) const override {
    return sameDouble(value_, static_cast<const SingleDoubleMetric&>(other).value_);
  }

 private:
  double value_;
};

struct MaxTraits {
  static constexpr std::string_view kType = "max";
};
struct MinTraits {
  static constexpr std::string_view kType = "min";
};
struct SumTraits {
  static constexpr std::string_view kType = "sum";
};

using Max = SingleDoubleMetric<MaxTraits>;
using Min = SingleDoubleMetric<MinTraits>;
using Sum = SingleDoubleMetric<SumTraits>;

extern template class SingleDoubleMetric<MaxTraits>;
extern template class SingleDoubleMetric<MinTraits>;
extern template class SingleDoubleMetric<SumTraits>;

class Avg final : public AggregationBase<Avg, MetricAggregation> {
 public:
  static constexpr std::string_view kType = "avg";

  Avg(std::string name, Metadata metadata, double sum, int64_t count);
  Avg(StreamInput& in, const NamedWriteableRegistry& registry);

  double sum() const { return sum_; }
  int64_t count() const { return count_; }
  void setSum(double v) { sum_ = v; }
  void setCount(int64_t v) { count_ = v; }
  // sum / count; NaN when count is 0 (rendered null).
  double value() const;

  // The body after the format: double sum, VLong count.
  static void writeValues(StreamOutput& out, double sum, int64_t count) {
    out.writeDouble(sum);
    out.writeVLong(count);
  }

  std::unique_ptr<InternalAggregation> reduce(std::span<const InternalAggregation* const> aggs,
                                              const ReduceContext& context) const override;
  double sortValue(std::string_view metric) const override;

 protected:
  void doWriteTo(StreamOutput& out) const override;
  bool doEquals(const InternalAggregation& other) const override;

 private:
  double sum_;
  int64_t count_;
};

// No format on the wire (ES's InternalValueCount writes the count alone), so
// format() is always raw.
class ValueCount final : public AggregationBase<ValueCount, MetricAggregation> {
 public:
  static constexpr std::string_view kType = "value_count";

  ValueCount(std::string name, Metadata metadata, int64_t value);
  ValueCount(StreamInput& in, const NamedWriteableRegistry& registry);

  int64_t value() const { return value_; }
  void setValue(int64_t v) { value_ = v; }

  // The whole body: VLong value.
  static void writeValues(StreamOutput& out, int64_t value) { out.writeVLong(value); }

  std::unique_ptr<InternalAggregation> reduce(std::span<const InternalAggregation* const> aggs,
                                              const ReduceContext& context) const override;
  double sortValue(std::string_view metric) const override;

 protected:
  void doWriteTo(StreamOutput& out) const override;
  bool doEquals(const InternalAggregation& other) const override;

 private:
  int64_t value_;
};

class Stats final : public AggregationBase<Stats, MetricAggregation> {
 public:
  static constexpr std::string_view kType = "stats";

  Stats(std::string name, Metadata metadata, int64_t count, double min, double max, double sum);
  Stats(StreamInput& in, const NamedWriteableRegistry& registry);

  int64_t count() const { return count_; }
  double min() const { return min_; }
  double max() const { return max_; }
  double sum() const { return sum_; }
  double avg() const;
  void setCount(int64_t v) { count_ = v; }
  void setMin(double v) { min_ = v; }
  void setMax(double v) { max_ = v; }
  void setSum(double v) { sum_ = v; }

  // The body after the format: VLong count, double min, max, sum.
  static void writeValues(StreamOutput& out, int64_t count, double min, double max, double sum) {
    out.writeVLong(count);
    out.writeDouble(min);
    out.writeDouble(max);
    out.writeDouble(sum);
  }

  std::unique_ptr<InternalAggregation> reduce(std::span<const InternalAggregation* const> aggs,
                                              const ReduceContext& context) const override;
  // "count", "min", "max", "avg", "sum".
  double sortValue(std::string_view metric) const override;

 protected:
  void doWriteTo(StreamOutput& out) const override;
  bool doEquals(const InternalAggregation& other) const override;

 private:
  int64_t count_;
  double min_;
  double max_;
  double sum_;
};

}  // namespace wirestream::aggregations
