// The JSON forms of aggregation results, kept out of the model classes
// (//aggregations knows no JSON): the Elasticsearch response shape
// (docs/wire-format.md §8) and the lossless wire JSON that `wirestream
// decode` prints and `encode` reads (docs/cli.md).
//
//   nlohmann::ordered_json body = toResponseJson(total);  // {"genres": {...}}
//   nlohmann::ordered_json wire = toWireJson(aggs);       // [{"type": "sterms", ...}]
//   InternalAggregations back = aggregationsFromWireJson(wire);
//
// Each type's JSON is found by its type name ("sterms", "histogram", ...) in
// an AggregationJsonRegistry; defaultJsonRegistry() has every type of
// //aggregations' defaultRegistry(). A result whose type has no JSON codec is
// std::invalid_argument (a setup mistake); an unknown type in wire JSON is
// CorruptStreamError "Unknown NamedWriteable [InternalAggregation][type]", bad
// fields are CorruptStreamError naming the field, a member no reader knows is
// CorruptStreamError "unknown field [k]", and nesting deeper than kMaxJsonDepth
// is LimitExceededError; every reading error starts with the JSON path of where
// it happened and the innermost aggregation there (json_util.h's StrictRead):
// "$[0].buckets[1].doc_count (lterms [t]): field [doc_count] is not an integer".
//
// Stateless functions; the default registry is built once and is safe to
// share between threads.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "aggregations/internal_aggregation.h"

namespace wirestream::aggregations {

// How one aggregation type goes to JSON and back.
// `agg` is of the codec's type; sub-aggregations go through `registry`.
class AggregationJsonRegistry;
struct AggregationJsonCodec {
  // Adds the type's fields of the ES response (after "meta") to `j`.
  void (*response_fields)(const InternalAggregation& agg, nlohmann::ordered_json& j,
                          const AggregationJsonRegistry& registry);
  // Adds the type's wire fields (after type, name, metadata) to `j`.
  void (*wire_fields)(const InternalAggregation& agg, nlohmann::ordered_json& j,
                      const AggregationJsonRegistry& registry);
  // The aggregation from its wire JSON, named `name` with `metadata`.
  std::unique_ptr<InternalAggregation> (*from_wire)(const nlohmann::ordered_json& j,
                                                    std::string name, Metadata metadata,
                                                    const AggregationJsonRegistry& registry);
};

// Type name -> codec. Not thread-safe while being filled; const use is.
class AggregationJsonRegistry {
 public:
  // A second codec for the same type is std::invalid_argument.
  void add(std::string type, AggregationJsonCodec codec);
  // nullptr when `type` has no codec.
  const AggregationJsonCodec* find(std::string_view type) const;

 private:
  std::map<std::string, AggregationJsonCodec, std::less<>> codecs_;
};

// Adds the codecs of every type of wire format §7 to `registry`.
void registerAggregationJson(AggregationJsonRegistry& registry);
const AggregationJsonRegistry& defaultJsonRegistry();

// The ES response body of one aggregation (without its name): "meta" first
// when there is metadata, then the type's fields.
nlohmann::ordered_json toResponseJson(
    const InternalAggregation& agg,
    const AggregationJsonRegistry& registry = defaultJsonRegistry());
// {"<name>": <response body>, ...}
nlohmann::ordered_json toResponseJson(
    const InternalAggregations& aggs,
    const AggregationJsonRegistry& registry = defaultJsonRegistry());

// Every wire field: {"type": ..., "name": ..., "metadata": ..., ...}.
nlohmann::ordered_json toWireJson(const InternalAggregation& agg,
                                  const AggregationJsonRegistry& registry = defaultJsonRegistry());
// [<wire json>, ...]
nlohmann::ordered_json toWireJson(const InternalAggregations& aggs,
                                  const AggregationJsonRegistry& registry = defaultJsonRegistry());

// Nesting deeper than this is LimitExceededError.
inline constexpr int kMaxJsonDepth = StreamInput::kDefaultMaxNestingDepth;
// One {"type": ..., "name": ...} object of the wire JSON.
std::unique_ptr<InternalAggregation> aggregationFromWireJson(
    const nlohmann::ordered_json& j,
    const AggregationJsonRegistry& registry = defaultJsonRegistry());
// A list of them.
InternalAggregations aggregationsFromWireJson(
    const nlohmann::ordered_json& j,
    const AggregationJsonRegistry& registry = defaultJsonRegistry());

}  // namespace wirestream::aggregations
