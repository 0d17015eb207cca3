// The JSON forms of aggregation results, kept out of the model classes
// (//aggregations knows no JSON): the Elasticsearch response shape
// (docs/wire-format.md §8) and the lossless wire JSON that `wirestream
// decode` prints and `encode` reads (docs/cli.md).
//
// Example (runs: aggregation_json):
//   #include <cassert>
//   #include "aggregations/terms.h"
//   auto genres = std::make_unique<StringTerms>("genres", Metadata());
//   genres->buckets().push_back({"rock", /*doc_count=*/12, /*doc_count_error=*/0, {}});
//   InternalAggregations aggs;
//   aggs.add(std::move(genres));
//   nlohmann::ordered_json body = toResponseJson(aggs);   // {"genres": {...}}
//   nlohmann::ordered_json wire = toWireJson(aggs);       // [{"type": "sterms", ...}]
//   assert(aggregationsFromWireJson(wire) == aggs);
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

#include "aggregations/bucket_columns.h"
#include "aggregations/internal_aggregation.h"

namespace wirestream::aggregations {

class AggregationJsonRegistry;

// A bucketed type's JSON (terms, histogram, date_histogram) in parts, for a
// writer that streams a large aggregation instead of building its document
// (tools/wire_json.cc): a head, then each bucket, its sub-aggregations left
// out for the writer to put in their place. Put back together the parts are
// the document of the codec's wire_fields or response_fields, member for
// member. `agg` is of the codec's type.
struct BucketJsonHook {
  size_t (*bucket_count)(const InternalAggregation& agg);
  // Bucket i's sub-aggregations.
  BucketAggregations (*bucket_aggregations)(const InternalAggregation& agg, size_t i);

  // The wire fields with "buckets" [], and the sub-aggregation list outside
  // the buckets (a histogram's empty_bucket_info.aggregations) [].
  void (*wire_head)(const InternalAggregation& agg, nlohmann::ordered_json& j);
  // That list outside the buckets, or nullptr when the type has none here.
  const InternalAggregations* (*head_aggregations)(const InternalAggregation& agg);
  // Element i of the wire "buckets", with its "aggregations" [].
  nlohmann::ordered_json (*wire_bucket)(const InternalAggregation& agg, size_t i);

  // The response fields with "buckets" empty: [] or, when keyed, {}.
  void (*response_head)(const InternalAggregation& agg, nlohmann::ordered_json& j);
  // Bucket i of the response without its sub-aggregations (in the document
  // they follow its fields, a member each by name).
  nlohmann::ordered_json (*response_bucket)(const InternalAggregation& agg, size_t i);
  // The member name of bucket i in a keyed response's "buckets" object.
  std::string (*response_key)(const InternalAggregation& agg, size_t i);
};

// How one aggregation type goes to JSON and back.
// `agg` is of the codec's type; sub-aggregations go through `registry`.
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
  // Its JSON in parts, for a bucketed type; nullptr for the others.
  const BucketJsonHook* buckets = nullptr;
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

// The head of a bucketed aggregation (its codec's `hook`): toResponseJson's and
// toWireJson's documents with the hook's head fields.
nlohmann::ordered_json toResponseJsonHead(const InternalAggregation& agg,
                                          const BucketJsonHook& hook);
nlohmann::ordered_json toWireJsonHead(const InternalAggregation& agg, const BucketJsonHook& hook);

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
