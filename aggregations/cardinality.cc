// Cardinality on the wire (wire format §7), after name and metadata:
//   format      : DocValueFormat (named writeable)
//   has_sketch  : boolean
//   [has_sketch] HyperLogLog++ sketch (hyperloglog_plus_plus.cc)
#include "aggregations/cardinality.h"

#include <limits>

#include "stream/errors.h"

namespace wirestream::aggregations {

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
    std::span<const InternalAggregation* const> aggs, const ReduceContext&) const {
  std::optional<HyperLogLogPlusPlus> merged;
  for (const Cardinality* c : downcast<Cardinality>(aggs)) {
    if (!c->sketch_) continue;
    // As ES's InternalCardinality reduce: a new sketch at the first one's
    // precision, every sketch merged into it in order (so the result is in
    // ES's slot order even for one shard).
    if (!merged) merged.emplace(c->sketch_->precision());
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
