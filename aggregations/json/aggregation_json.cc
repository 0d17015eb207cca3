// The dispatch of aggregation_json.h: the common fields of every aggregation
// (type, name, metadata; "meta" in a response), then the type's codec found
// by its type name.
#include "aggregations/json/aggregation_json.h"

#include <stdexcept>
#include <utility>
#include <vector>

#include "aggregations/json/json_codecs.h"
#include "aggregations/json/json_util.h"
#include "aggregations/json/metadata_json.h"
#include "stream/errors.h"

namespace wirestream::aggregations {

namespace {

using json = nlohmann::ordered_json;

// Depth of aggregationsFromWireJson calls on this thread (the stream path
// counts in StreamInput's NestingScope instead).
thread_local int json_depth = 0;

struct DepthGuard {
  DepthGuard() {
    if (++json_depth > kMaxJsonDepth) {
      --json_depth;
      internal::throwLimitExceeded("aggregations nested deeper than " +
                                   std::to_string(kMaxJsonDepth));
    }
  }
  ~DepthGuard() { --json_depth; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;
};

const AggregationJsonCodec& codecOf(const InternalAggregation& agg,
                                    const AggregationJsonRegistry& registry) {
  const AggregationJsonCodec* codec = registry.find(agg.getWriteableName());
  if (codec == nullptr) {
    throw std::invalid_argument("no JSON codec for aggregation type [" +
                                std::string(agg.getWriteableName()) + "]");
  }
  return *codec;
}

}  // namespace

void AggregationJsonRegistry::add(std::string type, AggregationJsonCodec codec) {
  std::string shown = type;
  if (!codecs_.emplace(std::move(type), codec).second) {
    throw std::invalid_argument("JSON codec for [" + shown + "] is already registered");
  }
}

const AggregationJsonCodec* AggregationJsonRegistry::find(std::string_view type) const {
  auto it = codecs_.find(type);
  return it == codecs_.end() ? nullptr : &it->second;
}

void registerAggregationJson(AggregationJsonRegistry& registry) {
  registerTermsJson(registry);
  registerHistogramJson(registry);
  registerMetricsJson(registry);
}

const AggregationJsonRegistry& defaultJsonRegistry() {
  static const AggregationJsonRegistry registry = [] {
    AggregationJsonRegistry r;
    registerAggregationJson(r);
    return r;
  }();
  return registry;
}

namespace {

// The members every aggregation's response document opens with.
json responseCommon(const InternalAggregation& agg) {
  json j = json::object();
  if (!agg.getMetadata().isNull()) j["meta"] = genericToPlainJson(agg.getMetadata());
  return j;
}

// The members every aggregation's wire document opens with.
json wireCommon(const InternalAggregation& agg) {
  json j = json::object();
  j["type"] = std::string(agg.getWriteableName());
  j["name"] = agg.getName();
  j["metadata"] = genericToTaggedJson(agg.getMetadata());
  return j;
}

}  // namespace

json toResponseJson(const InternalAggregation& agg, const AggregationJsonRegistry& registry) {
  const AggregationJsonCodec& codec = codecOf(agg, registry);
  json j = responseCommon(agg);
  codec.response_fields(agg, j, registry);
  return j;
}

json toResponseJsonHead(const InternalAggregation& agg, const BucketJsonHook& hook) {
  json j = responseCommon(agg);
  hook.response_head(agg, j);
  return j;
}

json toWireJsonHead(const InternalAggregation& agg, const BucketJsonHook& hook) {
  json j = wireCommon(agg);
  hook.wire_head(agg, j);
  return j;
}

json toResponseJson(const InternalAggregations& aggs, const AggregationJsonRegistry& registry) {
  json j = json::object();
  for (const auto& a : aggs.list()) j[a->getName()] = toResponseJson(*a, registry);
  return j;
}

json toWireJson(const InternalAggregation& agg, const AggregationJsonRegistry& registry) {
  const AggregationJsonCodec& codec = codecOf(agg, registry);
  json j = wireCommon(agg);
  codec.wire_fields(agg, j, registry);
  return j;
}

json toWireJson(const InternalAggregations& aggs, const AggregationJsonRegistry& registry) {
  json j = json::array();
  for (const auto& a : aggs.list()) j.push_back(toWireJson(*a, registry));
  return j;
}

namespace {

std::unique_ptr<InternalAggregation> readAggregation(const json& j,
                                                     const AggregationJsonRegistry& registry) {
  std::string type = json_util::getString(j, "type");
  const AggregationJsonCodec* codec = registry.find(type);
  if (codec == nullptr) {
    internal::throwCorrupt("Unknown NamedWriteable [InternalAggregation][" + type + "]");
  }
  std::string name = json_util::getString(j, "name");
  Metadata metadata = genericFromTaggedJson(json_util::field(j, "metadata"));
  if (!metadata.isNull() && !metadata.isMap()) {
    internal::throwCorrupt("aggregation metadata must be a map or null");
  }
  return codec->from_wire(j, std::move(name), std::move(metadata), registry);
}

InternalAggregations readAggregations(const json& j, const AggregationJsonRegistry& registry) {
  DepthGuard guard;
  if (!j.is_array()) internal::throwCorrupt("aggregations must be a JSON array");
  std::vector<InternalAggregations::Ptr> aggs;
  for (const auto& e : j) aggs.push_back(readAggregation(e, registry));
  return InternalAggregations(std::move(aggs));
}

// read(j) under a StrictRead: at the outermost call, unknown members are
// refused and an error says where in j it happened.
template <class Read>
auto readStrictly(const json& j, Read read) -> decltype(read(j)) {
  json_util::StrictRead strict(j);
  if (!strict.outermost()) return read(j);
  decltype(read(j)) result;
  try {
    result = read(j);
  } catch (const StreamError& e) {
    strict.rethrowLocated(e);
  }
  strict.refuseUnread();
  return result;
}

}  // namespace

std::unique_ptr<InternalAggregation> aggregationFromWireJson(
    const json& j, const AggregationJsonRegistry& registry) {
  return readStrictly(j, [&](const json& x) { return readAggregation(x, registry); });
}

InternalAggregations aggregationsFromWireJson(const json& j,
                                              const AggregationJsonRegistry& registry) {
  return readStrictly(j, [&](const json& x) { return readAggregations(x, registry); });
}

}  // namespace wirestream::aggregations
