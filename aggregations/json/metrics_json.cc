// The JSON of max, min, sum, avg, value_count, stats and cardinality
// (aggregation_json.h). Response as ES's doXContentBody: {"value": v}, null
// for an empty max/min/avg, value_as_string unless the format is raw; stats
// count, min, max, avg, sum (and their _as_string). Wire: every wire field.
#include <cmath>
#include <optional>
#include <string>

#include "aggregations/cardinality.h"
#include "aggregations/json/aggregation_json.h"
#include "aggregations/json/json_codecs.h"
#include "aggregations/json/json_util.h"
#include "aggregations/json/model_json.h"
#include "aggregations/metrics.h"
#include "stream/errors.h"

namespace wirestream::aggregations {

namespace {

namespace ju = json_util;
using json = nlohmann::ordered_json;

DocValueFormat formatFrom(const json& j) { return docValueFormatFromJson(ju::field(j, "format")); }

// ---- max / min / sum ----

template <class M>
struct SingleDoubleJson {
  static void response(const InternalAggregation& agg, json& j, const AggregationJsonRegistry&) {
    const auto& m = static_cast<const M&>(agg);
    // An empty max/min is ±inf and renders null; any other value goes through
    // Jackson, which quotes NaN and infinities. So value_as_string unless the
    // format is raw (sum: always, min/max: when there is a value).
    bool has_value = M::kType == "sum" || !std::isinf(m.value());
    j["value"] = has_value ? ju::fromDouble(m.value()) : json(nullptr);
    if (has_value && !m.format().isRaw()) {
      j["value_as_string"] = m.format().formatDoubleAsString(m.value());
    }
  }
  static void wire(const InternalAggregation& agg, json& j, const AggregationJsonRegistry&) {
    const auto& m = static_cast<const M&>(agg);
    j["format"] = docValueFormatToJson(m.format());
    j["value"] = ju::fromDouble(m.value());
  }
  static std::unique_ptr<InternalAggregation> fromWire(const json& j, std::string name,
                                                       Metadata metadata,
                                                       const AggregationJsonRegistry&) {
    auto m = std::make_unique<M>(std::move(name), std::move(metadata), 0.0);
    m->setFormat(formatFrom(j));
    m->setValue(ju::getDouble(j, "value"));
    return m;
  }
};

// ---- avg ----

void avgResponse(const InternalAggregation& agg, json& j, const AggregationJsonRegistry&) {
  const auto& a = static_cast<const Avg&>(agg);
  // As ES: null with no values, else sum / count (non-finite quoted).
  j["value"] = a.count() != 0 ? ju::fromDouble(a.value()) : json(nullptr);
  if (a.count() != 0 && !a.format().isRaw()) {
    j["value_as_string"] = a.format().formatDoubleAsString(a.value());
  }
}

void avgWire(const InternalAggregation& agg, json& j, const AggregationJsonRegistry&) {
  const auto& a = static_cast<const Avg&>(agg);
  j["format"] = docValueFormatToJson(a.format());
  j["sum"] = ju::fromDouble(a.sum());
  j["count"] = a.count();
}

std::unique_ptr<InternalAggregation> avgFromWire(const json& j, std::string name, Metadata metadata,
                                                 const AggregationJsonRegistry&) {
  DocValueFormat format = formatFrom(j);
  double sum = ju::getDouble(j, "sum");
  int64_t count = ju::getLong(j, "count");
  if (count < 0) internal::throwCorrupt("negative avg count [" + std::to_string(count) + "]");
  auto a = std::make_unique<Avg>(std::move(name), std::move(metadata), sum, count);
  a->setFormat(std::move(format));
  return a;
}

// ---- value_count (no format) ----

void valueCountFields(const InternalAggregation& agg, json& j, const AggregationJsonRegistry&) {
  j["value"] = static_cast<const ValueCount&>(agg).value();
}

std::unique_ptr<InternalAggregation> valueCountFromWire(const json& j, std::string name,
                                                        Metadata metadata,
                                                        const AggregationJsonRegistry&) {
  int64_t value = ju::getLong(j, "value");
  if (value < 0) internal::throwCorrupt("negative value_count [" + std::to_string(value) + "]");
  return std::make_unique<ValueCount>(std::move(name), std::move(metadata), value);
}

// ---- stats ----

void statsResponse(const InternalAggregation& agg, json& j, const AggregationJsonRegistry&) {
  const auto& s = static_cast<const Stats&>(agg);
  // As ES: with no values, min/max/avg are null and sum is 0.0; otherwise
  // each as it is (non-finite quoted, as Jackson writes them).
  bool empty = s.count() == 0;
  j["count"] = s.count();
  j["min"] = empty ? json(nullptr) : ju::fromDouble(s.min());
  j["max"] = empty ? json(nullptr) : ju::fromDouble(s.max());
  j["avg"] = empty ? json(nullptr) : ju::fromDouble(s.avg());
  j["sum"] = empty ? json(0.0) : ju::fromDouble(s.sum());
  if (!empty && !s.format().isRaw()) {
    j["min_as_string"] = s.format().formatDoubleAsString(s.min());
    j["max_as_string"] = s.format().formatDoubleAsString(s.max());
    j["avg_as_string"] = s.format().formatDoubleAsString(s.avg());
    j["sum_as_string"] = s.format().formatDoubleAsString(s.sum());
  }
}

void statsWire(const InternalAggregation& agg, json& j, const AggregationJsonRegistry&) {
  const auto& s = static_cast<const Stats&>(agg);
  j["format"] = docValueFormatToJson(s.format());
  j["count"] = s.count();
  j["min"] = ju::fromDouble(s.min());
  j["max"] = ju::fromDouble(s.max());
  j["sum"] = ju::fromDouble(s.sum());
}

std::unique_ptr<InternalAggregation> statsFromWire(const json& j, std::string name,
                                                   Metadata metadata,
                                                   const AggregationJsonRegistry&) {
  DocValueFormat format = formatFrom(j);
  int64_t count = ju::getLong(j, "count");
  double min = ju::getDouble(j, "min");
  double max = ju::getDouble(j, "max");
  double sum = ju::getDouble(j, "sum");
  if (count < 0) internal::throwCorrupt("negative stats count [" + std::to_string(count) + "]");
  auto s = std::make_unique<Stats>(std::move(name), std::move(metadata), count, min, max, sum);
  s->setFormat(std::move(format));
  return s;
}

// ---- cardinality ----

void cardinalityResponse(const InternalAggregation& agg, json& j, const AggregationJsonRegistry&) {
  j["value"] = static_cast<const Cardinality&>(agg).value();
}

void cardinalityWire(const InternalAggregation& agg, json& j, const AggregationJsonRegistry&) {
  const auto& c = static_cast<const Cardinality&>(agg);
  j["format"] = docValueFormatToJson(c.format());
  j["sketch"] = c.sketch() ? hllToJson(*c.sketch()) : json(nullptr);
}

std::unique_ptr<InternalAggregation> cardinalityFromWire(const json& j, std::string name,
                                                         Metadata metadata,
                                                         const AggregationJsonRegistry&) {
  DocValueFormat format = formatFrom(j);
  const json& s = ju::field(j, "sketch");
  std::optional<HyperLogLogPlusPlus> sketch;
  if (!s.is_null()) sketch = hllFromJson(s);
  auto c = std::make_unique<Cardinality>(std::move(name), std::move(metadata), std::move(sketch));
  c->setFormat(std::move(format));
  return c;
}

template <class M>
void addSingleDouble(AggregationJsonRegistry& r) {
  using J = SingleDoubleJson<M>;
  r.add(std::string(M::kType), {&J::response, &J::wire, &J::fromWire});
}

}  // namespace

void registerMetricsJson(AggregationJsonRegistry& registry) {
  addSingleDouble<Max>(registry);
  addSingleDouble<Min>(registry);
  addSingleDouble<Sum>(registry);
  registry.add(std::string(Avg::kType), {&avgResponse, &avgWire, &avgFromWire});
  registry.add(std::string(ValueCount::kType),
               {&valueCountFields, &valueCountFields, &valueCountFromWire});
  registry.add(std::string(Stats::kType), {&statsResponse, &statsWire, &statsFromWire});
  registry.add(std::string(Cardinality::kType),
               {&cardinalityResponse, &cardinalityWire, &cardinalityFromWire});
}

}  // namespace wirestream::aggregations
