// The JSON of sterms, lterms and dterms (aggregation_json.h).
//   response: doc_count_error_upper_bound, sum_other_doc_count, buckets
//             [{key, [key_as_string], doc_count, [doc_count_error_upper_bound],
//               <sub-aggregations by name>}]
//   wire:     every wire field of §7; a sterms key that is not UTF-8 travels
//             as "key_hex".
#include <optional>
#include <string>
#include <type_traits>

#include "aggregations/json/aggregation_json.h"
#include "aggregations/json/json_codecs.h"
#include "aggregations/json/json_util.h"
#include "aggregations/json/model_json.h"
#include "aggregations/terms.h"
#include "stream/errors.h"

namespace wirestream::aggregations {

namespace {

namespace ju = json_util;
using json = nlohmann::ordered_json;

// A bucket's key in the response, as ES's Bucket.keyToXContent: sterms the
// formatted bytes; lterms and dterms the number and, unless the format is raw,
// key_as_string (lterms under unsigned_long_shifted: the unsigned number only).
template <class Key>
void putResponseKey(json& b, typename Key::View k, const DocValueFormat& format) {
  if constexpr (std::is_same_v<Key, StringKey>) {
    b["key"] = formatBytesJson(format, k);
  } else if constexpr (std::is_same_v<Key, LongKey>) {
    if (format.kind() == DocValueFormat::Kind::kUnsignedLongShifted) {
      b["key"] = formatLongJson(format, k);
      return;
    }
    b["key"] = k;
    if (!format.isRaw()) b["key_as_string"] = format.formatLongAsString(k);
  } else {
    b["key"] = ju::fromDouble(k);
    if (!format.isRaw()) b["key_as_string"] = format.formatDoubleAsString(k);
  }
}

template <class Key>
void putWireKey(json& b, typename Key::View k) {
  if constexpr (std::is_same_v<Key, StringKey>) {
    if (ju::isValidUtf8(k)) {
      b["key"] = std::string(k);
    } else {
      b["key_hex"] = ju::toHex(k);
    }
  } else if constexpr (std::is_same_v<Key, LongKey>) {
    b["key"] = k;
  } else {
    b["key"] = ju::fromDouble(k);
  }
}

template <class Key>
typename Key::Type wireKeyFromJson(const json& b) {
  if constexpr (std::is_same_v<Key, StringKey>) {
    if (b.contains("key_hex")) return ju::fromHex(ju::getString(b, "key_hex"));
    return ju::getString(b, "key");
  } else if constexpr (std::is_same_v<Key, LongKey>) {
    return ju::getLong(b, "key");
  } else {
    return ju::getDouble(b, "key");
  }
}

template <class Key>
struct TermsJson {
  using Terms = InternalTerms<Key>;

  // Bucket i of the response without its sub-aggregations.
  static json responseBucket(const Terms& t, size_t i) {
    const TermsBuckets<Key>& bs = t.buckets();
    json bj = json::object();
    putResponseKey<Key>(bj, bs.keyAt(i), t.format());
    bj["doc_count"] = bs.docCountAt(i);
    if (t.showTermDocCountError()) bj["doc_count_error_upper_bound"] = bs.errorAt(i);
    return bj;
  }

  static void responseHead(const Terms& t, json& j) {
    j["doc_count_error_upper_bound"] = t.docCountError().value_or(0);
    j["sum_other_doc_count"] = t.otherDocCount();
    j["buckets"] = json::array();
  }

  // Fills the "buckets" of a head with bucket(i) for every bucket.
  template <class Bucket>
  static void fillBuckets(const Terms& t, json& j, Bucket bucket) {
    json& bs = j["buckets"];
    for (size_t i = 0; i < t.buckets().size(); ++i) bs.push_back(bucket(i));
  }

  static void response(const InternalAggregation& agg, json& j,
                       const AggregationJsonRegistry& registry) {
    const auto& t = static_cast<const Terms&>(agg);
    responseHead(t, j);
    fillBuckets(t, j, [&](size_t i) {
      json bj = responseBucket(t, i);
      for (const auto& a : t.buckets().aggregationsAt(i).list()) {
        bj[a->getName()] = toResponseJson(*a, registry);  // a stored list
      }
      return bj;
    });
  }

  // Bucket i of the wire JSON, its "aggregations" `aggregations`.
  static json wireBucket(const Terms& t, size_t i, json aggregations) {
    const TermsBuckets<Key>& bs = t.buckets();
    json bj = json::object();
    bj["doc_count"] = bs.docCountAt(i);
    if (t.showTermDocCountError()) bj["doc_count_error"] = bs.errorAt(i);
    bj["aggregations"] = std::move(aggregations);
    putWireKey<Key>(bj, bs.keyAt(i));
    return bj;
  }

  static void wireHead(const Terms& t, json& j) {
    j["reduce_order"] = bucketOrderToJson(t.reduceOrder());
    j["order"] = bucketOrderToJson(t.order());
    j["required_size"] = t.requiredSize();
    j["min_doc_count"] = t.minDocCount();
    j["doc_count_error"] = t.docCountError() ? json(*t.docCountError()) : json(nullptr);
    j["format"] = docValueFormatToJson(t.format());
    j["shard_size"] = t.shardSize();
    j["show_term_doc_count_error"] = t.showTermDocCountError();
    j["other_doc_count"] = t.otherDocCount();
    j["buckets"] = json::array();
  }

  static void wire(const InternalAggregation& agg, json& j,
                   const AggregationJsonRegistry& registry) {
    const auto& t = static_cast<const Terms&>(agg);
    wireHead(t, j);
    fillBuckets(t, j, [&](size_t i) {
      return wireBucket(t, i, toWireJson(t.buckets().aggregationsAt(i), registry));
    });
  }

  static constexpr BucketJsonHook kHook = {
      [](const InternalAggregation& agg) {
        return static_cast<const Terms&>(agg).buckets().size();
      },
      [](const InternalAggregation& agg, size_t i) {
        return BucketAggregations(static_cast<const Terms&>(agg).buckets().aggregationsAt(i));
      },
      [](const InternalAggregation& agg, json& j) { wireHead(static_cast<const Terms&>(agg), j); },
      [](const InternalAggregation&) -> const InternalAggregations* { return nullptr; },
      [](const InternalAggregation& agg, size_t i) {
        return wireBucket(static_cast<const Terms&>(agg), i, json::array());
      },
      [](const InternalAggregation& agg, json& j) {
        responseHead(static_cast<const Terms&>(agg), j);
      },
      [](const InternalAggregation& agg, size_t i) {
        return responseBucket(static_cast<const Terms&>(agg), i);
      },
      [](const InternalAggregation&, size_t) -> std::string { return {}; },  // never keyed
  };

  static std::unique_ptr<InternalAggregation> fromWire(const json& j, std::string name,
                                                       Metadata metadata,
                                                       const AggregationJsonRegistry& registry) {
    auto t = std::make_unique<Terms>(std::move(name), std::move(metadata));
    t->setReduceOrder(bucketOrderFromJson(ju::field(j, "reduce_order")));
    t->setOrder(bucketOrderFromJson(ju::field(j, "order")));
    t->setRequiredSize(ju::getInt(j, "required_size"));
    t->setShardSize(ju::getInt(j, "shard_size"));
    t->setMinDocCount(ju::getLong(j, "min_doc_count"));
    const json& err = ju::field(j, "doc_count_error");
    t->setDocCountError(err.is_null() ? std::nullopt
                                      : std::optional<int64_t>(ju::getLong(j, "doc_count_error")));
    t->setFormat(docValueFormatFromJson(ju::field(j, "format")));
    t->setShowTermDocCountError(ju::getBool(j, "show_term_doc_count_error"));
    t->setOtherDocCount(ju::getLong(j, "other_doc_count"));
    if (t->requiredSize() < 0 || t->shardSize() < 0 || t->minDocCount() < 0 ||
        t->otherDocCount() < 0) {
      internal::throwCorrupt("negative size or count in [" + t->getName() + "]");
    }
    const json& bs = ju::field(j, "buckets");
    if (!bs.is_array()) internal::throwCorrupt("buckets must be an array");
    for (const json& bj : bs) {
      typename Terms::Bucket b;
      b.doc_count = ju::getLong(bj, "doc_count");
      if (b.doc_count < 0)
        internal::throwCorrupt("negative doc count [" + std::to_string(b.doc_count) + "]");
      if (t->showTermDocCountError()) b.doc_count_error = ju::getLong(bj, "doc_count_error");
      b.aggregations = aggregationsFromWireJson(ju::field(bj, "aggregations"), registry);
      b.key = wireKeyFromJson<Key>(bj);
      t->buckets().push_back(std::move(b));
    }
    return t;
  }
};

template <class Key>
void addTerms(AggregationJsonRegistry& r) {
  using J = TermsJson<Key>;
  r.add(std::string(Key::kType), {&J::response, &J::wire, &J::fromWire, &J::kHook});
}

}  // namespace

void registerTermsJson(AggregationJsonRegistry& registry) {
  addTerms<StringKey>(registry);
  addTerms<LongKey>(registry);
  addTerms<DoubleKey>(registry);
}

}  // namespace wirestream::aggregations
