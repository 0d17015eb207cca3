// The JSON of histogram and date_histogram (aggregation_json.h).
//   response: buckets, an array or (keyed) an object by key_as_string, of
//             {[key_as_string], key, doc_count, <sub-aggregations by name>}
//   wire:     every wire field of §7; empty_bucket_info is present exactly
//             when min_doc_count is 0.
#include <optional>
#include <string>
#include <vector>

#include "aggregations/date_histogram.h"
#include "aggregations/histogram.h"
#include "aggregations/json/aggregation_json.h"
#include "aggregations/json/json_codecs.h"
#include "aggregations/json/json_util.h"
#include "aggregations/json/model_json.h"
#include "stream/errors.h"

namespace wirestream::aggregations {

namespace {

namespace ju = json_util;
using json = nlohmann::ordered_json;

// ---- the bucket list, shared by both types ----

// Reads "min_doc_count" of the lossless JSON into `min_doc_count` and returns
// "empty_bucket_info", which must be non-null exactly when it is 0.
const json& minDocCountFromJson(const json& j, int64_t& min_doc_count) {
  min_doc_count = ju::getLong(j, "min_doc_count");
  if (min_doc_count < 0) internal::throwCorrupt("negative min doc count");
  const json& ej = ju::field(j, "empty_bucket_info");
  if (ej.is_null() != (min_doc_count != 0)) {
    internal::throwCorrupt("empty_bucket_info must be present exactly when min_doc_count is 0");
  }
  return ej;
}

// The lossless JSON of the bucket list: [{key, doc_count, aggregations}].
template <class Buckets, class KeyFromJson>
void bucketsFromWireJson(const json& bs, Buckets& buckets, KeyFromJson key_from_json,
                         const AggregationJsonRegistry& registry) {
  if (!bs.is_array()) internal::throwCorrupt("buckets must be an array");
  for (const json& bj : bs) {
    auto key = key_from_json(bj);
    int64_t doc_count = ju::getLong(bj, "doc_count");
    if (doc_count < 0) internal::throwCorrupt("negative doc count");
    buckets.append(key, doc_count,
                   aggregationsFromWireJson(ju::field(bj, "aggregations"), registry));
  }
}

template <class Buckets, class KeyToJson>
json bucketsToWireJson(const Buckets& buckets, KeyToJson key_to_json,
                       const AggregationJsonRegistry& registry) {
  json bs = json::array();
  for (auto&& b : buckets) {
    json bj = json::object();
    bj["key"] = key_to_json(b.key);
    bj["doc_count"] = b.doc_count;
    bj["aggregations"] = toWireJson(b.aggregations, registry);
    bs.push_back(std::move(bj));
  }
  return bs;
}

// As ES's Bucket.toXContent: key_as_string unless the format is raw, key,
// doc_count, the sub-aggregations by name; the formatted key names a keyed
// bucket.
template <class Buckets, class KeyAsString, class KeyToJson>
json bucketsToResponseJson(const Buckets& buckets, bool keyed, const DocValueFormat& format,
                           KeyAsString key_as_string, KeyToJson key_to_json,
                           const AggregationJsonRegistry& registry) {
  json bs = keyed ? json::object() : json::array();
  for (auto&& b : buckets) {
    std::string text = key_as_string(b.key);
    json bj = json::object();
    if (!format.isRaw()) bj["key_as_string"] = text;
    bj["key"] = key_to_json(b.key);
    bj["doc_count"] = b.doc_count;
    for (const auto& a : b.aggregations.list()) bj[a->getName()] = toResponseJson(*a, registry);
    if (keyed) {
      bs[text] = std::move(bj);
    } else {
      bs.push_back(std::move(bj));
    }
  }
  return bs;
}

json longJson(int64_t k) { return json(k); }

json optionalToJson(const std::optional<int64_t>& v) { return v ? json(*v) : json(nullptr); }
json optionalToJson(const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); }

// ---- histogram ----

void histogramResponse(const InternalAggregation& agg, json& j,
                       const AggregationJsonRegistry& registry) {
  const auto& h = static_cast<const Histogram&>(agg);
  j["buckets"] = bucketsToResponseJson(
      h.buckets(), h.keyed(), h.format(),
      [&](double k) { return h.format().formatDoubleAsString(k); }, ju::fromDouble, registry);
}

void histogramWire(const InternalAggregation& agg, json& j,
                   const AggregationJsonRegistry& registry) {
  const auto& h = static_cast<const Histogram&>(agg);
  j["order"] = bucketOrderToJson(h.order());
  j["min_doc_count"] = h.minDocCount();
  if (h.emptyBucketInfo()) {
    const Histogram::EmptyBucketInfo& e = *h.emptyBucketInfo();
    json ej = json::object();
    ej["interval"] = ju::fromDouble(e.interval);
    ej["offset"] = ju::fromDouble(e.offset);
    ej["min_bound"] = ju::fromDouble(e.min_bound);
    ej["max_bound"] = ju::fromDouble(e.max_bound);
    ej["aggregations"] = toWireJson(e.aggregations, registry);
    j["empty_bucket_info"] = std::move(ej);
  } else {
    j["empty_bucket_info"] = nullptr;
  }
  j["format"] = docValueFormatToJson(h.format());
  j["keyed"] = h.keyed();
  j["buckets"] = bucketsToWireJson(h.buckets(), ju::fromDouble, registry);
}

std::unique_ptr<InternalAggregation> histogramFromWire(const json& j, std::string name,
                                                       Metadata metadata,
                                                       const AggregationJsonRegistry& registry) {
  auto h = std::make_unique<Histogram>(std::move(name), std::move(metadata));
  h->setOrder(bucketOrderFromJson(ju::field(j, "order")));
  int64_t min_doc_count = 0;
  const json& ej = minDocCountFromJson(j, min_doc_count);
  h->setMinDocCount(min_doc_count);
  if (!ej.is_null()) {
    Histogram::EmptyBucketInfo e;
    e.interval = ju::getDouble(ej, "interval");
    Histogram::checkInterval(e.interval);
    e.offset = ju::getDouble(ej, "offset");
    e.min_bound = ju::getDouble(ej, "min_bound");
    e.max_bound = ju::getDouble(ej, "max_bound");
    e.aggregations = aggregationsFromWireJson(ju::field(ej, "aggregations"), registry);
    h->setEmptyBucketInfo(std::move(e));
  }
  h->setFormat(docValueFormatFromJson(ju::field(j, "format")));
  h->setKeyed(ju::getBool(j, "keyed"));
  bucketsFromWireJson(
      ju::field(j, "buckets"), h->buckets(),
      [](const json& bj) { return ju::getDouble(bj, "key"); }, registry);
  return h;
}

// ---- date_histogram ----

json roundingToJson(const DateHistogram::Rounding& r) {
  json j = json::object();
  j["unit"] = r.unit ? json(static_cast<int>(*r.unit)) : json(nullptr);
  j["interval"] = r.unit ? json(nullptr) : json(r.interval);
  j["zone"] = r.zone_id;
  j["offset"] = r.offset ? json(*r.offset) : json(nullptr);
  return j;
}

DateHistogram::Rounding roundingFromJson(const json& j) {
  DateHistogram::Rounding r;
  const bool by_unit = !ju::field(j, "unit").is_null();
  if (by_unit == !ju::field(j, "interval").is_null()) {
    internal::throwCorrupt("a rounding has exactly one of [unit] and [interval]");
  }
  if (by_unit) {
    r.unit = DateHistogram::unitOf(ju::getLong(j, "unit"));
  } else {
    r.interval = ju::getLong(j, "interval");
    DateHistogram::checkInterval(r.interval);
  }
  r.zone_id = ju::getString(j, "zone");
  if (!ju::field(j, "offset").is_null()) r.offset = ju::getLong(j, "offset");
  return r;
}

void dateHistogramResponse(const InternalAggregation& agg, json& j,
                           const AggregationJsonRegistry& registry) {
  const auto& h = static_cast<const DateHistogram&>(agg);
  j["buckets"] = bucketsToResponseJson(
      h.buckets(), h.keyed(), h.format(),
      [&](int64_t k) { return h.format().formatLongAsString(k); }, longJson, registry);
}

void dateHistogramWire(const InternalAggregation& agg, json& j,
                       const AggregationJsonRegistry& registry) {
  const auto& h = static_cast<const DateHistogram&>(agg);
  j["order"] = bucketOrderToJson(h.order());
  j["min_doc_count"] = h.minDocCount();
  if (h.emptyBucketInfo()) {
    const DateHistogram::EmptyBucketInfo& e = *h.emptyBucketInfo();
    json ej = json::object();
    ej["rounding"] = roundingToJson(e.rounding);
    ej["aggregations"] = toWireJson(e.aggregations, registry);
    if (e.bounds) {
      json bj = json::object();
      bj["min"] = optionalToJson(e.bounds->min);
      bj["max"] = optionalToJson(e.bounds->max);
      bj["min_as_str"] = optionalToJson(e.bounds->min_as_str);
      bj["max_as_str"] = optionalToJson(e.bounds->max_as_str);
      ej["bounds"] = std::move(bj);
    } else {
      ej["bounds"] = nullptr;
    }
    j["empty_bucket_info"] = std::move(ej);
  } else {
    j["empty_bucket_info"] = nullptr;
  }
  j["offset"] = h.offset();
  j["format"] = docValueFormatToJson(h.format());
  j["keyed"] = h.keyed();
  j["buckets"] = bucketsToWireJson(h.buckets(), longJson, registry);
}

std::unique_ptr<InternalAggregation> dateHistogramFromWire(
    const json& j, std::string name, Metadata metadata, const AggregationJsonRegistry& registry) {
  auto h = std::make_unique<DateHistogram>(std::move(name), std::move(metadata));
  h->setOrder(bucketOrderFromJson(ju::field(j, "order")));
  int64_t min_doc_count = 0;
  const json& ej = minDocCountFromJson(j, min_doc_count);
  h->setMinDocCount(min_doc_count);
  if (!ej.is_null()) {
    DateHistogram::EmptyBucketInfo e;
    e.rounding = roundingFromJson(ju::field(ej, "rounding"));
    e.aggregations = aggregationsFromWireJson(ju::field(ej, "aggregations"), registry);
    const json& bj = ju::field(ej, "bounds");
    if (!bj.is_null()) {
      DateHistogram::Bounds b;
      if (!ju::field(bj, "min").is_null()) b.min = ju::getLong(bj, "min");
      if (!ju::field(bj, "max").is_null()) b.max = ju::getLong(bj, "max");
      if (!ju::field(bj, "min_as_str").is_null()) b.min_as_str = ju::getString(bj, "min_as_str");
      if (!ju::field(bj, "max_as_str").is_null()) b.max_as_str = ju::getString(bj, "max_as_str");
      e.bounds = std::move(b);
    }
    h->setEmptyBucketInfo(std::move(e));
  }
  h->setOffset(ju::getLong(j, "offset"));
  h->setFormat(docValueFormatFromJson(ju::field(j, "format")));
  h->setKeyed(ju::getBool(j, "keyed"));
  bucketsFromWireJson(
      ju::field(j, "buckets"), h->buckets(), [](const json& bj) { return ju::getLong(bj, "key"); },
      registry);
  return h;
}

}  // namespace

void registerHistogramJson(AggregationJsonRegistry& registry) {
  registry.add(std::string(Histogram::kType),
               {&histogramResponse, &histogramWire, &histogramFromWire});
  registry.add(std::string(DateHistogram::kType),
               {&dateHistogramResponse, &dateHistogramWire, &dateHistogramFromWire});
}

}  // namespace wirestream::aggregations
