// Cardinality on the wire (wire format §7), after name and metadata:
//   format      : DocValueFormat (named writeable)
//   has_sketch  : boolean
//   [has_sketch] HyperLogLog++ sketch (hyperloglog_plus_plus.cc)
#include "aggregations/cardinality.h"

#include <limits>

#include "stream/errors.h"

namespace wirestream::aggregations {

namespace {
// The sparse table ES's reduce at `v` builds its result in (hyperloglog_plus_plus.h).
// Read off the jars: 8.19.21 and 9.3.4 start the reduced sketch's table at 32 slots and
// grow it (HyperLogLogPlusPlus.LinearCountingCell); 8.19.7 and earlier, 9.0.x, 9.1.x
// have the fixed table, and 9.2.8 and 9.5.3 give bucket ordinals below 10 (the reduced
// sketch is ordinal 0) the whole table from the start, which lists as the fixed one.
// The first patch of 8.19 and 9.3 with it is not known (no jar between 8.19.7 and
// 8.19.21 is pinned), so the gate is those releases' ids and their later patches.
HyperLogLogPlusPlus::SparseTable reducedTable(TransportVersion v) {
  static constexpr TransportVersion k8_19_21(8841096);
  static constexpr TransportVersion k9_3_4(9250011);
  return v.isPatchFrom(k8_19_21) || v.isPatchFrom(k9_3_4)
             ? HyperLogLogPlusPlus::SparseTable::kGrowing
             : HyperLogLogPlusPlus::SparseTable::kFixed;
}
}  // namespace

Cardinality::Cardinality(StreamInput& in, const NamedWriteableRegistry& registry)
    : AggregationBase(in, registry) {
  if (in.readBoolean()) sketch_ = HyperLogLogPlusPlus::readFrom(in);
}

void Cardinality::doWriteTo(StreamOutput& out) const {
  writeFormat(out);
  out.writeBoolean(sketch_.has_value());
  if (sketch_) sketch_->writeTo(out);
}

bool Cardinality::doEquals(const InternalAggregation& other) const {
  return sketch_ == static_cast<const Cardinality&>(other).sketch_;
}

std::unique_ptr<InternalAggregation> Cardinality::reduce(
    std::span<const InternalAggregation* const> aggs, const ReduceContext& context) const {
  std::optional<HyperLogLogPlusPlus> merged;
  for (const Cardinality* c : downcast<Cardinality>(aggs)) {
    if (!c->sketch_) continue;
    // As ES's InternalCardinality reduce: a new sketch at the first one's
    // precision, every sketch merged into it in order (so the result is in
    // ES's slot order even for one shard). ES 8.19.21 and later clone the result
    // (AbstractHyperLogLogPlusPlus.clone: a read-only sparse sketch filled in the
    // result's order), which keeps the order.
    if (!merged) merged.emplace(c->sketch_->precision(), reducedTable(context.version));
    // merge() calls differing precisions a caller error; from shards they
    // are bad input (see InternalAggregations::reduce).
    if (merged->precision() != c->sketch_->precision()) {
      internal::throwCorrupt("cardinality [" + getName() + "] has precision [" +
                             std::to_string(merged->precision()) + "] in one result and [" +
                             std::to_string(c->sketch_->precision()) + "] in another");
    }
    merged->merge(*c->sketch_);
  }
  auto out = std::make_unique<Cardinality>(getName(), getMetadata(), std::move(merged));
  out->format_ = format_;
  return out;
}

double Cardinality::sortValue(std::string_view metric) const {
  return metric.empty() || metric == "value" ? static_cast<double>(value())
                                             : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace wirestream::aggregations
