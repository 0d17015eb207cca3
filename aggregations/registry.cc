// The default registry: one InternalAggregation reader per type of wire
// format §7, plus every DocValueFormat. Each reader keeps a pointer to the
// registry it is registered in so that it can read sub-aggregations.
#include "aggregations/registry.h"

#include <string>

#include "aggregations/cardinality.h"
#include "aggregations/date_histogram.h"
#include "aggregations/histogram.h"
#include "aggregations/metrics.h"
#include "aggregations/terms.h"
#include "stream/errors.h"

namespace wirestream::aggregations {

namespace {

template <class T>
void addType(NamedWriteableRegistry& r) {
  const NamedWriteableRegistry* self = &r;
  r.registerReader<InternalAggregation>(
      std::string(T::kType), [self](StreamInput& in) { return std::make_unique<T>(in, *self); });
}

template <class... T>
struct TypeList {};

using AllTypes = TypeList<StringTerms, LongTerms, DoubleTerms, Histogram, DateHistogram, Max, Min,
                          Sum, Avg, ValueCount, Stats, Cardinality>;

template <class... T>
void addAll(NamedWriteableRegistry& r, TypeList<T...>) {
  (addType<T>(r), ...);
}

}  // namespace

void registerAggregations(NamedWriteableRegistry& registry) {
  for (std::string_view name : DocValueFormat::allNames()) {
    registry.registerReader<DocValueFormat>(std::string(name), [name](StreamInput& in) {
      return std::make_unique<DocValueFormat>(DocValueFormat::readBody(name, in));
    });
  }
  addAll(registry, AllTypes{});
}

const NamedWriteableRegistry& defaultRegistry() {
  static const NamedWriteableRegistry* registry = [] {
    auto* r = new NamedWriteableRegistry();  // lives for the program, readers point at it
    registerAggregations(*r);
    return r;
  }();
  return *registry;
}

}  // namespace wirestream::aggregations
