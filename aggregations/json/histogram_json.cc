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

// Bucket i of the lossless bucket list, its "aggregations" `aggregations`.
template <class Buckets, class KeyToJson>
json bucketToWireJson(const Buckets& buckets, size_t i, KeyToJson key_to_json, json aggregations) {
  json bj = json::object();
  bj["key"] = key_to_json(buckets.keyAt(i));
  bj["doc_count"] = buckets.docCountAt(i);
  bj["aggregations"] = std::move(aggregations);
  return bj;
}

template <class Buckets, class KeyToJson>
json bucketsToWireJson(const Buckets& buckets, KeyToJson key_to_json,
                       const AggregationJsonRegistry& registry) {
  json bs = json::array();
  for (size_t i = 0; i < buckets.size(); ++i) {
    bs.push_back(
        bucketToWireJson(buckets, i, key_to_json, toWireJson(buckets.aggregationsAt(i), registry)));
  }
  return bs;
}

// As ES's Bucket.toXContent, but for the sub-aggregations: key_as_string
// unless the format is raw, key, doc_count.
json bucketToResponseJson(const std::string& text, json key, int64_t doc_count,
                          const DocValueFormat& format) {
  json bj = json::object();
  if (!format.isRaw()) bj["key_as_string"] = text;
  bj["key"] = std::move(key);
  bj["doc_count"] = doc_count;
  return bj;
}

// As ES's Bucket.toXContent: those, then the sub-aggregations by name; the
// formatted key names a keyed bucket.
template <class Buckets, class KeyAsString, class KeyToJson>
json bucketsToResponseJson(const Buckets& buckets, bool keyed, const DocValueFormat& format,
                           KeyAsString key_as_string, KeyToJson key_to_json,
                           const AggregationJsonRegistry& registry) {
  json bs = keyed ? json::object() : json::array();
  for (size_t i = 0; i < buckets.size(); ++i) {
    std::string text = key_as_string(buckets.keyAt(i));
    json bj =
        bucketToResponseJson(text, key_to_json(buckets.keyAt(i)), buckets.docCountAt(i), format);
    const auto subs = buckets.aggregationsAt(i);  // held: it may own a list built here
    for (const auto& a : subs.list()) bj[a->getName()] = toResponseJson(*a, registry);
    if (keyed) {
      bs[text] = std::move(bj);
    } else {
      bs.push_back(std::move(bj));
    }
  }
  return bs;
}

json longJson(int64_t k) { return json(k); }

// A sub-aggregation list's wire JSON through `registry`, or [] when it is null
// (a head's, written in its place by a streaming writer).
json listToWireJson(const InternalAggregations& aggs, const AggregationJsonRegistry* registry) {
  return registry != nullptr ? toWireJson(aggs, *registry) : json::array();
}

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

// Every wire field, "buckets" []; the empty bucket's "aggregations" rendered
// through `registry`, or [] when it is null.
void wireHead(const Histogram& h, json& j, const AggregationJsonRegistry* registry) {
  j["order"] = bucketOrderToJson(h.order());
  j["min_doc_count"] = h.minDocCount();
  if (h.emptyBucketInfo()) {
    const Histogram::EmptyBucketInfo& e = *h.emptyBucketInfo();
    json ej = json::object();
    ej["interval"] = ju::fromDouble(e.interval);
    ej["offset"] = ju::fromDouble(e.offset);
    ej["min_bound"] = ju::fromDouble(e.min_bound);
    ej["max_bound"] = ju::fromDouble(e.max_bound);
    ej["aggregations"] = listToWireJson(e.aggregations, registry);
    j["empty_bucket_info"] = std::move(ej);
  } else {
    j["empty_bucket_info"] = nullptr;
  }
  j["format"] = docValueFormatToJson(h.format());
  j["keyed"] = h.keyed();
  j["buckets"] = json::array();
}

void histogramWire(const InternalAggregation& agg, json& j,
                   const AggregationJsonRegistry& registry) {
  const auto& h = static_cast<const Histogram&>(agg);
  wireHead(h, j, &registry);
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

// The response members after "buckets" (a date_histogram's flag over downsampled data),
// as dateHistogramResponse and the streaming hook below write them.
void responseAfterBuckets(const Histogram&, json&) {}
void responseAfterBuckets(const DateHistogram& h, json& j) {
  if (h.downsampledResultsOffset()) j["downsampled_results_offset"] = true;
}

void dateHistogramResponse(const InternalAggregation& agg, json& j,
                           const AggregationJsonRegistry& registry) {
  const auto& h = static_cast<const DateHistogram&>(agg);
  j["buckets"] = bucketsToResponseJson(
      h.buckets(), h.keyed(), h.format(),
      [&](int64_t k) { return h.format().formatLongAsString(k); }, longJson, registry);
  responseAfterBuckets(h, j);
}

// As wireHead(const Histogram&, ...).
void wireHead(const DateHistogram& h, json& j, const AggregationJsonRegistry* registry) {
  j["order"] = bucketOrderToJson(h.order());
  j["min_doc_count"] = h.minDocCount();
  if (h.emptyBucketInfo()) {
    const DateHistogram::EmptyBucketInfo& e = *h.emptyBucketInfo();
    json ej = json::object();
    ej["rounding"] = roundingToJson(e.rounding);
    ej["aggregations"] = listToWireJson(e.aggregations, registry);
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
  if (h.downsampledResultsOffset()) j["downsampled_results_offset"] = true;
  j["buckets"] = json::array();
}

void dateHistogramWire(const InternalAggregation& agg, json& j,
                       const AggregationJsonRegistry& registry) {
  const auto& h = static_cast<const DateHistogram&>(agg);
  wireHead(h, j, &registry);
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
  if (j.contains("downsampled_results_offset")) {
    h->setDownsampledResultsOffset(ju::getBool(j, "downsampled_results_offset"));
  }
  bucketsFromWireJson(
      ju::field(j, "buckets"), h->buckets(), [](const json& bj) { return ju::getLong(bj, "key"); },
      registry);
  return h;
}

// ---- in parts (BucketJsonHook), for both ----

// A key's JSON and its text (key_as_string, and a keyed bucket's name).
template <class H>
struct Keys;
template <>
struct Keys<Histogram> {
  static json toJson(double k) { return ju::fromDouble(k); }
  static std::string text(const Histogram& h, double k) {
    return h.format().formatDoubleAsString(k);
  }
};
template <>
struct Keys<DateHistogram> {
  static json toJson(int64_t k) { return longJson(k); }
  static std::string text(const DateHistogram& h, int64_t k) {
    return h.format().formatLongAsString(k);
  }
};

template <class H>
struct HistogramHook {
  static const H& of(const InternalAggregation& agg) { return static_cast<const H&>(agg); }

  static constexpr BucketJsonHook kHook = {
      [](const InternalAggregation& agg) { return of(agg).buckets().size(); },
      [](const InternalAggregation& agg, size_t i) { return of(agg).buckets().aggregationsAt(i); },
      [](const InternalAggregation& agg, json& j) { wireHead(of(agg), j, nullptr); },
      [](const InternalAggregation& agg) -> const InternalAggregations* {
        const H& h = of(agg);
        return h.emptyBucketInfo() ? &h.emptyBucketInfo()->aggregations : nullptr;
      },
      [](const InternalAggregation& agg, size_t i) {
        return bucketToWireJson(of(agg).buckets(), i, Keys<H>::toJson, json::array());
      },
      [](const InternalAggregation& agg, json& j) {
        j["buckets"] = of(agg).keyed() ? json::object() : json::array();
        responseAfterBuckets(of(agg), j);
      },
      [](const InternalAggregation& agg, size_t i) {
        const H& h = of(agg);
        auto k = h.buckets().keyAt(i);
        return bucketToResponseJson(Keys<H>::text(h, k), Keys<H>::toJson(k),
                                    h.buckets().docCountAt(i), h.format());
      },
      [](const InternalAggregation& agg, size_t i) {
        const H& h = of(agg);
        return Keys<H>::text(h, h.buckets().keyAt(i));
      },
  };
};

}  // namespace

void registerHistogramJson(AggregationJsonRegistry& registry) {
  registry.add(
      std::string(Histogram::kType),
      {&histogramResponse, &histogramWire, &histogramFromWire, &HistogramHook<Histogram>::kHook});
  registry.add(std::string(DateHistogram::kType),
               {&dateHistogramResponse, &dateHistogramWire, &dateHistogramFromWire,
                &HistogramHook<DateHistogram>::kHook});
}

}  // namespace wirestream::aggregations
