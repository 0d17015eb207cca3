// Cardinality: the approximate count of distinct values, a HyperLogLog++
// sketch per shard merged on reduce.
//
// Example (runs: cardinality):
//   #include <cassert>
//   HyperLogLogPlusPlus sketch(14);
//   for (int64_t user : {7, 8, 7}) sketch.collect(HyperLogLogPlusPlus::hashLong(user));
//   Cardinality c("distinct_users", Metadata(), std::move(sketch));
//   assert(c.value() == 2);                      // the estimate (exact while this small)
//
// Wire format §7: format, boolean hasSketch, the sketch. Reduce merges every
// sketch present (CorruptStreamError if their precisions differ: sketches come
// off the wire). Value type; not thread-safe.
#pragma once

#include <optional>

#include "aggregations/hyperloglog_plus_plus.h"
#include "aggregations/metrics.h"

namespace wirestream::aggregations {

class Cardinality final : public AggregationBase<Cardinality, MetricAggregation> {
 public:
  static constexpr std::string_view kType = "cardinality";

  Cardinality(std::string name, Metadata metadata, std::optional<HyperLogLogPlusPlus> sketch)
      : AggregationBase(std::move(name), std::move(metadata)), sketch_(std::move(sketch)) {}
  Cardinality(StreamInput& in, const NamedWriteableRegistry& registry);

  const std::optional<HyperLogLogPlusPlus>& sketch() const { return sketch_; }
  std::optional<HyperLogLogPlusPlus>& sketch() { return sketch_; }
  // The estimate; 0 without a sketch.
  int64_t value() const { return sketch_ ? sketch_->cardinality() : 0; }

  std::unique_ptr<InternalAggregation> reduce(std::span<const InternalAggregation* const> aggs,
                                              const ReduceContext& context) const override;
  double sortValue(std::string_view metric) const override;

 protected:
  void doWriteTo(StreamOutput& out) const override;
  bool doEquals(const InternalAggregation& other) const override;

 private:
  std::optional<HyperLogLogPlusPlus> sketch_;
};

}  // namespace wirestream::aggregations
