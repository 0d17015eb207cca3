#include "search/search_request.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>

#include "stream/structured/java_hash.h"
#include "stream/structured/structured_stream.h"

namespace wirestream::search {
namespace {

using Json = nlohmann::ordered_json;
using aggregations::BucketOrder;

// The ES versions whose gates these writers follow (TransportVersion ids).
constexpr TransportVersion kV7_7_0 = TransportVersion::fromRelease(7, 7, 0);
constexpr TransportVersion kV7_11_0 = TransportVersion::fromRelease(7, 11, 0);
constexpr TransportVersion kV7_12_0 = TransportVersion::fromRelease(7, 12, 0);
constexpr TransportVersion kV7_16_0 = TransportVersion::fromRelease(7, 16, 0);
constexpr TransportVersion kV8_4_0 = TransportVersion::fromRelease(8, 4, 0);

// Whether a shard request has its rank queries (8.8.0 up to 8.9.X only).
bool inRankQueriesRange(TransportVersion v) {
  return v.onOrAfter(TransportVersion::V_8_8_0) && v.before(TransportVersion::V_8_9_X);
}

// Whether a search source has skip_inner_hits at this version (8.16's patch line from
// 8772003, every version from 8791000).
bool skipsInnerHits(TransportVersion v) {
  return v.onOrAfter(TransportVersion::SKIP_INNER_HITS_SEARCH_SOURCE) ||
         v.isPatchFrom(TransportVersion::SKIP_INNER_HITS_SEARCH_SOURCE_BACKPORT_8_16);
}

bool onOrAfter(const StreamOutput& out, TransportVersion v) {
  return out.transportVersion().onOrAfter(v);
}
bool onOrAfter(const StreamInput& in, TransportVersion v) {
  return in.transportVersion().onOrAfter(v);
}

[[noreturn]] void unsupported(const std::string& what) { throw UnsupportedSearchError(what); }
[[noreturn]] void unsupportedWire(const std::string& what) {
  throw UnsupportedWireValueError(what);
}

void writeOptionalZoneId(StreamOutput& out, const std::optional<std::string>& zone) {
  out.writeBoolean(zone.has_value());
  if (zone) out.writeString(*zone);
}
std::optional<std::string> readOptionalZoneId(StreamInput& in) {
  if (!in.readBoolean()) return std::nullopt;
  return in.readString();
}

// writeOptionalWriteable(null) / its read, for fields that are always absent here.
void expectAbsent(StreamInput& in, const char* what) {
  if (in.readBoolean()) unsupportedWire(std::string("search request field ") + what);
}

// ---- JSON to generic values, as ES's parser gives them ----

// parser.objectBytes(): strings become BytesRef (maybeConvertToBytesRef).
GenericValue objectBytes(const Json& v, const std::string& where) {
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    return GenericValue::ofBytesRef(GenericValue::Bytes(s.begin(), s.end()));
  }
  if (v.is_boolean()) return GenericValue(v.get<bool>());
  if (v.is_number_integer()) {
    int64_t x = v.get<int64_t>();
    if (x >= std::numeric_limits<int32_t>::min() && x <= std::numeric_limits<int32_t>::max()) {
      return GenericValue(static_cast<int32_t>(x));
    }
    return GenericValue(x);
  }
  if (v.is_number_float()) return GenericValue(v.get<double>());
  if (v.is_null()) return GenericValue();
  unsupported(where + ": value " + v.dump());
}

// parser.objectText(): strings stay strings.
GenericValue objectText(const Json& v, const std::string& where) {
  if (v.is_string()) return GenericValue(v.get<std::string>());
  return objectBytes(v, where);
}

// parser.map(): an object as a java.util.HashMap (generic tag 10, in its
// table's order), strings as String, integers as Integer (Long past int),
// arrays as ArrayList, objects within as HashMaps.
GenericValue parsedMapValue(const Json& v, const std::string& where) {
  if (v.is_string()) return GenericValue(v.get<std::string>());
  if (v.is_array()) {
    GenericValue::List list;
    for (const Json& x : v) list.push_back(parsedMapValue(x, where));
    return GenericValue::ofList(std::move(list));
  }
  if (v.is_object()) {
    std::vector<std::string_view> keys;
    std::vector<const Json*> values;
    for (auto it = v.begin(); it != v.end(); ++it) {
      keys.push_back(it.key());
      values.push_back(&it.value());
    }
    GenericValue::Entries entries;
    for (size_t i : javaHashMapPutOrder(keys)) {
      entries.emplace_back(GenericValue(std::string(keys[i])), parsedMapValue(*values[i], where));
    }
    return GenericValue::ofMap(std::move(entries));
  }
  return objectBytes(v, where);
}

std::string zoneId(const std::string& z) {
  if (z == "+00:00" || z == "-00:00" || z == "+0" || z == "Z") return "Z";
  return z;
}

// ---- queries ----

QueryBuilder queryFromJson(const Json& q) {
  if (!q.is_object() || q.size() != 1) unsupported("query: expected one query, got " + q.dump());
  const std::string type = q.begin().key();
  const Json& body = q.begin().value();
  QueryBuilder b;
  auto common = [&](const Json& o, const std::string& key) {
    if (key == "boost") {
      b.boost = o.at(key).get<float>();
      return true;
    }
    if (key == "_name") {
      b.query_name = o.at(key).get<std::string>();
      return true;
    }
    return false;
  };
  if (type == "match_all" || type == "match_none") {
    b.kind = type == "match_all" ? QueryBuilder::Kind::kMatchAll : QueryBuilder::Kind::kMatchNone;
    for (auto it = body.begin(); it != body.end(); ++it) {
      if (!common(body, it.key())) unsupported(type + " option [" + it.key() + "]");
    }
    return b;
  }
  if (type == "term") {
    b.kind = QueryBuilder::Kind::kTerm;
    if (!body.is_object() || body.size() != 1) unsupported("term: expected one field");
    b.field = body.begin().key();
    const Json& v = body.begin().value();
    if (v.is_object()) {
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (it.key() == "value") {
          b.value = objectBytes(it.value(), "term");
        } else if (it.key() == "case_insensitive") {
          b.case_insensitive = it.value().get<bool>();
        } else if (!common(v, it.key())) {
          unsupported("term option [" + it.key() + "]");
        }
      }
    } else {
      b.value = objectBytes(v, "term");
    }
    return b;
  }
  if (type == "range") {
    b.kind = QueryBuilder::Kind::kRange;
    if (!body.is_object() || body.size() != 1) unsupported("range: expected one field");
    b.field = body.begin().key();
    const Json& v = body.begin().value();
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string& k = it.key();
      if (k == "gte" || k == "gt") {
        b.from = objectBytes(it.value(), "range");
        b.include_lower = k == "gte";
      } else if (k == "lte" || k == "lt") {
        b.to = objectBytes(it.value(), "range");
        b.include_upper = k == "lte";
      } else if (k == "from") {
        b.from = objectBytes(it.value(), "range");
      } else if (k == "to") {
        b.to = objectBytes(it.value(), "range");
      } else if (k == "include_lower") {
        b.include_lower = it.value().get<bool>();
      } else if (k == "include_upper") {
        b.include_upper = it.value().get<bool>();
      } else if (k == "time_zone") {
        b.time_zone = zoneId(it.value().get<std::string>());
      } else if (k == "format") {
        b.format = it.value().get<std::string>();
      } else if (k == "relation") {
        b.relation = it.value().get<std::string>();
      } else if (!common(v, k)) {
        unsupported("range option [" + k + "]");
      }
    }
    return b;
  }
  unsupported("query [" + type + "]");
}

// ---- aggregations ----

bool isKeyOrder(const BucketOrder& o) { return o.isKeyOrder(); }

// ES's terms/histogram order(BucketOrder): a single order that is not by key
// gets `_key asc` as tie-breaker (a compound); a compound of several gets it
// when its last order is not by key.
BucketOrder withTieBreak(std::vector<BucketOrder> orders) {
  if (orders.size() == 1 && isKeyOrder(orders[0])) return orders[0];
  if (!isKeyOrder(orders.back())) orders.push_back(BucketOrder::key(true));
  return BucketOrder::compound(std::move(orders));
}

BucketOrder orderFromJson(const Json& j) {
  std::vector<BucketOrder> orders;
  auto one = [&](const Json& o) {
    if (!o.is_object() || o.size() != 1) unsupported("order: " + o.dump());
    const std::string key = o.begin().key();
    const std::string dir = o.begin().value().get<std::string>();
    if (dir != "asc" && dir != "desc") unsupported("order direction [" + dir + "]");
    const bool asc = dir == "asc";
    if (key == "_count") {
      orders.push_back(BucketOrder::count(asc));
    } else if (key == "_key") {
      orders.push_back(BucketOrder::key(asc));
    } else {
      orders.push_back(BucketOrder::aggregation(key, asc));
    }
  };
  if (j.is_array()) {
    for (const Json& o : j) one(o);
  } else {
    one(j);
  }
  if (orders.empty()) unsupported("order: empty");
  return withTieBreak(std::move(orders));
}

// "+3h", "-1d", "90m" or a number of milliseconds: DateHistogramAggregationBuilder's offset.
int64_t parseTimeMillis(const std::string& s) {
  static const std::pair<std::string_view, int64_t> units[] = {
      {"ms", 1}, {"s", 1000}, {"m", 60000}, {"h", 3600000}, {"d", 86400000}};
  for (const auto& [suffix, mult] : units) {
    if (s.size() > suffix.size() && s.ends_with(suffix)) {
      std::string num = s.substr(0, s.size() - suffix.size());
      if (suffix == "s" && num.ends_with('m')) continue;  // "ms"
      size_t used = 0;
      int64_t v = std::stoll(num, &used);
      if (used != num.size()) break;
      return v * mult;
    }
  }
  unsupported("time value [" + s + "]");
}

int64_t dateOffset(const Json& v) {
  if (v.is_number_integer()) return v.get<int64_t>();
  std::string s = v.get<std::string>();
  if (s.starts_with('-')) return -parseTimeMillis(s.substr(1));
  if (s.starts_with('+')) return parseTimeMillis(s.substr(1));
  return parseTimeMillis(s);
}

std::vector<AggregationBuilder> aggsFromJson(const Json& aggs);

AggregationBuilder aggFromJson(const std::string& name, const Json& def) {
  AggregationBuilder b;
  b.name = name;
  const Json* body = nullptr;
  for (auto it = def.begin(); it != def.end(); ++it) {
    if (it.key() == "aggs" || it.key() == "aggregations") {
      b.subs = aggsFromJson(it.value());
    } else if (it.key() == "meta") {
      if (!it.value().is_object()) unsupported("aggregation [" + name + "]: meta not an object");
      b.metadata = parsedMapValue(it.value(), "aggregation [" + name + "] meta");
    } else {
      if (body != nullptr) unsupported("aggregation [" + name + "]: two types");
      b.type = it.key();
      body = &it.value();
    }
  }
  if (body == nullptr) unsupported("aggregation [" + name + "]: no type");
  static const char* kMetrics[] = {"avg", "max", "min", "sum", "stats", "cardinality"};
  bool metric = false;
  for (const char* m : kMetrics) metric |= b.type == m;
  if (metric && !b.subs.empty()) {
    throw std::invalid_argument("Aggregator [" + name + "] of type [" + b.type +
                                "] cannot accept sub-aggregations");
  }
  const bool histo = b.type == "histogram" || b.type == "date_histogram";
  if (histo) b.min_doc_count = 0;
  if (b.type == "terms") b.order = withTieBreak({BucketOrder::count(false)});
  bool has_interval = false;
  for (auto it = body->begin(); it != body->end(); ++it) {
    const std::string& k = it.key();
    const Json& v = it.value();
    const std::string where = b.type + " [" + name + "] option [" + k + "]";
    if (k == "field") {
      b.field = v.get<std::string>();
    } else if (k == "format") {
      b.format = v.get<std::string>();
    } else if (k == "missing") {
      b.missing = objectText(v, where);
    } else if (k == "time_zone" && (b.type == "date_histogram")) {
      b.time_zone = zoneId(v.get<std::string>());
    } else if (b.type == "terms" && k == "size") {
      b.size = v.get<int32_t>();
    } else if (b.type == "terms" && k == "shard_size") {
      b.shard_size = v.get<int32_t>();
    } else if ((b.type == "terms" || histo) && k == "min_doc_count") {
      b.min_doc_count = v.get<int64_t>();
    } else if (b.type == "terms" && k == "shard_min_doc_count") {
      b.shard_min_doc_count = v.get<int64_t>();
    } else if (b.type == "terms" && k == "show_term_doc_count_error") {
      b.show_term_doc_count_error = v.get<bool>();
    } else if (b.type == "terms" && k == "execution_hint") {
      b.execution_hint = v.get<std::string>();
    } else if ((b.type == "terms" || histo) && k == "order") {
      b.order = orderFromJson(v);
    } else if (histo && k == "keyed") {
      b.keyed = v.get<bool>();
    } else if (b.type == "histogram" && k == "interval") {
      b.interval = v.get<double>();
      has_interval = true;
    } else if (b.type == "histogram" && k == "offset") {
      b.offset = v.get<double>();
    } else if (b.type == "histogram" && (k == "extended_bounds" || k == "hard_bounds")) {
      DoubleBounds d;
      if (v.contains("min")) d.min = v.at("min").get<double>();
      if (v.contains("max")) d.max = v.at("max").get<double>();
      (k == "extended_bounds" ? b.extended_bounds : b.hard_bounds) = d;
    } else if (b.type == "date_histogram" && (k == "fixed_interval" || k == "calendar_interval")) {
      if (has_interval) unsupported(where + ": a second interval");
      b.date_interval = v.get<std::string>();
      b.interval_type = k == "fixed_interval" ? 1 : 2;
      has_interval = true;
    } else if (b.type == "date_histogram" && k == "offset") {
      b.date_offset = dateOffset(v);
    } else if (b.type == "date_histogram" && (k == "extended_bounds" || k == "hard_bounds")) {
      LongBounds d;
      for (const char* side : {"min", "max"}) {
        if (!v.contains(side)) continue;
        const Json& x = v.at(side);
        const bool min = std::string_view(side) == "min";
        if (x.is_string()) {  // parsed on the shard, in the field's format
          (min ? d.min_as_str : d.max_as_str) = x.get<std::string>();
        } else if (x.is_number_integer()) {
          (min ? d.min : d.max) = x.get<int64_t>();
        } else if (!x.is_null()) {
          unsupported(where + ": a bound that is neither a date string nor epoch millis");
        }
      }
      (k == "extended_bounds" ? b.date_extended_bounds : b.date_hard_bounds) = d;
    } else if (b.type == "cardinality" && k == "precision_threshold") {
      b.precision_threshold = v.get<int64_t>();
    } else {
      unsupported(where);
    }
  }
  if (!metric && b.type != "terms" && !histo) unsupported("aggregation type [" + b.type + "]");
  if (histo && !has_interval) {
    throw std::invalid_argument(b.type + " [" + name + "]: an interval is required");
  }
  return b;
}

std::vector<AggregationBuilder> aggsFromJson(const Json& aggs) {
  std::vector<AggregationBuilder> out;
  for (auto it = aggs.begin(); it != aggs.end(); ++it)
    out.push_back(aggFromJson(it.key(), it.value()));
  return out;
}

void writeAggs(StreamOutput& out, const std::vector<AggregationBuilder>& aggs) {
  out.writeVInt(static_cast<int32_t>(aggs.size()));
  for (const AggregationBuilder& a : aggs) a.writeNamed(out);
  out.writeVInt(0);  // pipeline aggregations: none modelled
}

std::vector<AggregationBuilder> readAggs(StreamInput& in) {
  std::vector<AggregationBuilder> aggs;
  const int32_t n = in.readArraySize();
  for (int32_t i = 0; i < n; ++i) aggs.push_back(AggregationBuilder::readNamed(in));
  if (in.readArraySize() != 0) unsupportedWire("pipeline aggregation builders");
  return aggs;
}

bool isMetric(const std::string& t) {
  return t == "avg" || t == "max" || t == "min" || t == "sum" || t == "stats" || t == "cardinality";
}

}  // namespace

// ---- QueryBuilder ----

std::string QueryBuilder::writeableName() const {
  switch (kind) {
    case Kind::kMatchAll:
      return "match_all";
    case Kind::kMatchNone:
      return "match_none";
    case Kind::kTerm:
      return "term";
    case Kind::kRange:
      return "range";
  }
  return "";
}

void QueryBuilder::writeNamed(StreamOutput& out) const {
  out.writeString(writeableName());
  out.writeFloat(boost);
  out.writeOptionalString(query_name);
  switch (kind) {
    case Kind::kMatchAll:
    case Kind::kMatchNone:
      break;
    case Kind::kTerm:
      out.writeString(field);
      writeGenericValue(out, value);
      if (onOrAfter(out, TransportVersion::V_7_10_0)) {
        out.writeBoolean(case_insensitive);
      } else if (case_insensitive) {
        throw std::invalid_argument("term case_insensitive needs 7.10 or later");
      }
      break;
    case Kind::kRange:
      out.writeString(field);
      writeGenericValue(out, from);
      writeGenericValue(out, to);
      out.writeBoolean(include_lower);
      out.writeBoolean(include_upper);
      writeOptionalZoneId(out, time_zone);
      out.writeOptionalString(format);
      out.writeOptionalString(relation);
      break;
  }
}

QueryBuilder QueryBuilder::readNamed(StreamInput& in) {
  const std::string name = in.readString();
  QueryBuilder b;
  if (name == "match_all") {
    b.kind = Kind::kMatchAll;
  } else if (name == "match_none") {
    b.kind = Kind::kMatchNone;
  } else if (name == "term") {
    b.kind = Kind::kTerm;
  } else if (name == "range") {
    b.kind = Kind::kRange;
  } else {
    unsupportedWire("query builder [" + name + "]");
  }
  b.boost = in.readFloat();
  b.query_name = in.readOptionalString();
  if (b.kind == Kind::kTerm) {
    b.field = in.readString();
    b.value = readGenericValue(in);
    if (onOrAfter(in, TransportVersion::V_7_10_0)) b.case_insensitive = in.readBoolean();
  } else if (b.kind == Kind::kRange) {
    b.field = in.readString();
    b.from = readGenericValue(in);
    b.to = readGenericValue(in);
    b.include_lower = in.readBoolean();
    b.include_upper = in.readBoolean();
    b.time_zone = readOptionalZoneId(in);
    b.format = in.readOptionalString();
    b.relation = in.readOptionalString();
  }
  return b;
}

// ---- AggregationBuilder ----

void AggregationBuilder::writeNamed(StreamOutput& out) const {
  out.writeString(type);
  out.writeString(name);
  writeAggs(out, subs);
  writeGenericValue(out, metadata);
  // ValuesSourceAggregationBuilder: terms and cardinality still carry the
  // target value type, always null.
  if (type == "terms" || type == "cardinality") out.writeBoolean(false);
  out.writeOptionalString(field);
  out.writeBoolean(false);  // script: none modelled
  out.writeBoolean(false);  // value type hint: none
  out.writeOptionalString(format);
  writeGenericValue(out, missing);
  writeOptionalZoneId(out, time_zone);
  if (type == "terms") {
    out.writeInt(size);
    out.writeInt(shard_size);
    out.writeLong(min_doc_count);
    out.writeLong(shard_min_doc_count);
    out.writeBoolean(false);  // collect mode
    out.writeOptionalString(execution_hint);
    out.writeBoolean(false);  // include/exclude
    order.writeTo(out);
    out.writeBoolean(show_term_doc_count_error);
    // From 8.14: exclude_deleted_docs (ES's default, false; its JSON is not parsed here).
    if (onOrAfter(out, TransportVersion::V_8_14_0)) out.writeBoolean(false);
  } else if (type == "histogram") {
    order.writeTo(out);
    out.writeBoolean(keyed);
    out.writeVLong(min_doc_count);
    out.writeDouble(interval);
    out.writeDouble(offset);
    if (onOrAfter(out, TransportVersion::V_7_10_0)) {
      for (const auto* bounds : {&extended_bounds, &hard_bounds}) {
        out.writeBoolean(bounds->has_value());
        if (*bounds) {
          out.writeOptionalDouble((*bounds)->min);
          out.writeOptionalDouble((*bounds)->max);
        }
      }
    } else {
      if (hard_bounds) throw std::invalid_argument("histogram hard_bounds needs 7.10 or later");
      out.writeDouble(extended_bounds && extended_bounds->min
                          ? *extended_bounds->min
                          : std::numeric_limits<double>::infinity());
      out.writeDouble(extended_bounds && extended_bounds->max
                          ? *extended_bounds->max
                          : -std::numeric_limits<double>::infinity());
    }
  } else if (type == "date_histogram") {
    order.writeTo(out);
    out.writeBoolean(keyed);
    out.writeVLong(min_doc_count);
    out.writeOptionalString(date_interval);  // writeOptionalWriteable(DateHistogramInterval)
    out.writeVInt(interval_type);
    out.writeLong(date_offset);
    auto writeBounds = [&](const std::optional<LongBounds>& b) {
      out.writeBoolean(b.has_value());
      if (b) {
        out.writeOptionalLong(b->min);
        out.writeOptionalLong(b->max);
        out.writeOptionalString(b->min_as_str);
        out.writeOptionalString(b->max_as_str);
      }
    };
    writeBounds(date_extended_bounds);
    if (onOrAfter(out, TransportVersion::V_7_10_0)) {
      writeBounds(date_hard_bounds);
    } else if (date_hard_bounds) {
      throw std::invalid_argument("date_histogram hard_bounds needs 7.10 or later");
    }
  } else if (type == "cardinality") {
    out.writeBoolean(precision_threshold.has_value());
    if (precision_threshold) out.writeLong(*precision_threshold);
    if (onOrAfter(out, kV8_4_0)) out.writeOptionalString(std::nullopt);  // execution hint
  } else if (!isMetric(type)) {
    throw std::invalid_argument("aggregation builder type [" + type + "] is not modelled");
  }
}

AggregationBuilder AggregationBuilder::readNamed(StreamInput& in) {
  AggregationBuilder b;
  b.type = in.readString();
  if (b.type != "terms" && b.type != "histogram" && b.type != "date_histogram" &&
      !isMetric(b.type)) {
    unsupportedWire("aggregation builder [" + b.type + "]");
  }
  b.name = in.readString();
  b.subs = readAggs(in);
  b.metadata = readGenericValue(in);
  if (b.type == "terms" || b.type == "cardinality") expectAbsent(in, "value type");
  b.field = in.readOptionalString();
  expectAbsent(in, "script");
  expectAbsent(in, "value type hint");
  b.format = in.readOptionalString();
  b.missing = readGenericValue(in);
  b.time_zone = readOptionalZoneId(in);
  if (b.type == "terms") {
    b.size = in.readInt();
    b.shard_size = in.readInt();
    b.min_doc_count = in.readLong();
    b.shard_min_doc_count = in.readLong();
    expectAbsent(in, "collect mode");
    b.execution_hint = in.readOptionalString();
    expectAbsent(in, "include/exclude");
    b.order = BucketOrder::readFrom(in);
    b.show_term_doc_count_error = in.readBoolean();
    if (onOrAfter(in, TransportVersion::V_8_14_0) && in.readBoolean()) {
      unsupportedWire("terms exclude_deleted_docs");
    }
  } else if (b.type == "histogram") {
    b.order = BucketOrder::readFrom(in);
    b.keyed = in.readBoolean();
    b.min_doc_count = in.readVLong();
    b.interval = in.readDouble();
    b.offset = in.readDouble();
    if (onOrAfter(in, TransportVersion::V_7_10_0)) {
      for (auto* bounds : {&b.extended_bounds, &b.hard_bounds}) {
        if (in.readBoolean()) {
          DoubleBounds d;
          d.min = in.readOptionalDouble();
          d.max = in.readOptionalDouble();
          *bounds = d;
        }
      }
    } else {
      double lo = in.readDouble(), hi = in.readDouble();
      if (!(std::isinf(lo) && lo > 0 && std::isinf(hi) && hi < 0)) b.extended_bounds = {lo, hi};
    }
  } else if (b.type == "date_histogram") {
    b.order = BucketOrder::readFrom(in);
    b.keyed = in.readBoolean();
    b.min_doc_count = in.readVLong();
    b.date_interval = in.readOptionalString();
    b.interval_type = in.readVInt();
    if (b.interval_type < 0 || b.interval_type > 4) {
      internal::throwCorrupt("date_histogram interval type ordinal " +
                             std::to_string(b.interval_type));
    }
    b.date_offset = in.readLong();
    auto readBounds = [&]() -> std::optional<LongBounds> {
      if (!in.readBoolean()) return std::nullopt;
      LongBounds d;
      d.min = in.readOptionalLong();
      d.max = in.readOptionalLong();
      d.min_as_str = in.readOptionalString();
      d.max_as_str = in.readOptionalString();
      return d;
    };
    b.date_extended_bounds = readBounds();
    if (onOrAfter(in, TransportVersion::V_7_10_0)) b.date_hard_bounds = readBounds();
  } else if (b.type == "cardinality") {
    if (in.readBoolean()) b.precision_threshold = in.readLong();
    if (onOrAfter(in, kV8_4_0) && in.readOptionalString()) {
      unsupportedWire("cardinality execution hint");
    }
  }
  return b;
}

// ---- SearchSource ----

void SearchSource::writeTo(StreamOutput& out) const {
  out.writeBoolean(has_aggregations);
  if (has_aggregations) writeAggs(out, aggregations);
  out.writeOptionalBoolean(std::nullopt);  // explain
  out.writeBoolean(false);                 // fetch source context
  out.writeBoolean(false);                 // doc value fields
  out.writeBoolean(false);                 // stored fields
  out.writeVInt(from);
  out.writeBoolean(false);               // highlight
  out.writeVInt(0);                      // index boosts
  out.writeOptionalFloat(std::nullopt);  // min_score
  out.writeBoolean(false);               // post filter
  // From 8.9.X: sub_searches, a count (0 or 1 here) then each one's query; the same bytes.
  out.writeBoolean(query.has_value());
  if (query) query->writeNamed(out);
  out.writeBoolean(false);  // rescorers
  out.writeBoolean(false);  // script fields
  out.writeVInt(size);
  out.writeBoolean(false);  // sorts
  out.writeBoolean(false);  // stats groups
  out.writeBoolean(false);  // suggest
  out.writeVInt(terminate_after);
  if (timeout_millis) {
    writeOptionalTimeValue(out, TimeValue::timeValueMillis(*timeout_millis));
  } else {
    out.writeBoolean(false);
  }
  out.writeBoolean(false);                 // track_scores
  out.writeOptionalBoolean(std::nullopt);  // version
  out.writeOptionalBoolean(std::nullopt);  // seq_no_primary_term
  out.writeVInt(0);                        // ext builders
  out.writeBoolean(false);                 // profile
  out.writeBoolean(false);                 // search_after
  out.writeBoolean(false);                 // slice
  out.writeBoolean(false);                 // collapse
  out.writeOptionalInt(track_total_hits_up_to);
  if (onOrAfter(out, TransportVersion::V_7_10_0)) {
    out.writeBoolean(false);  // fetch fields
    out.writeBoolean(false);  // point in time
  }
  if (onOrAfter(out, kV7_11_0)) {
    writeGenericValue(out, GenericValue::ofMap({}));  // runtime mappings: an empty map
  }
  if (onOrAfter(out, kV8_4_0)) {
    if (out.transportVersion().before(TransportVersion::V_8_7_0)) {
      out.writeBoolean(false);  // one optional knn search
    } else {
      out.writeVInt(0);  // knn searches
    }
  }
  if (onOrAfter(out, TransportVersion::V_8_8_0)) out.writeBoolean(false);  // rank builder
  if (skipsInnerHits(out.transportVersion())) out.writeBoolean(false);     // skip_inner_hits
}

SearchSource SearchSource::readFrom(StreamInput& in) {
  SearchSource s;
  s.has_aggregations = in.readBoolean();
  if (s.has_aggregations) s.aggregations = readAggs(in);
  if (in.readOptionalBoolean()) unsupportedWire("search source explain");
  expectAbsent(in, "_source");
  expectAbsent(in, "docvalue_fields");
  expectAbsent(in, "stored_fields");
  s.from = in.readVInt();
  expectAbsent(in, "highlight");
  if (in.readArraySize() != 0) unsupportedWire("indices_boost");
  if (in.readOptionalFloat()) unsupportedWire("min_score");
  expectAbsent(in, "post_filter");
  // From 8.9.X the query travels as sub_searches: a count, then each one's query (here 0 or
  // 1, the same bytes as the optional query before).
  if (onOrAfter(in, TransportVersion::V_8_9_X)) {
    const int32_t n = in.readArraySize();
    if (n > 1) unsupportedWire("sub_searches");
    if (n == 1) s.query = QueryBuilder::readNamed(in);
  } else if (in.readBoolean()) {
    s.query = QueryBuilder::readNamed(in);
  }
  expectAbsent(in, "rescore");
  expectAbsent(in, "script_fields");
  s.size = in.readVInt();
  expectAbsent(in, "sort");
  expectAbsent(in, "stats");
  expectAbsent(in, "suggest");
  s.terminate_after = in.readVInt();
  if (auto t = readOptionalTimeValue(in)) s.timeout_millis = t->millis();
  if (in.readBoolean()) unsupportedWire("track_scores");
  if (in.readOptionalBoolean()) unsupportedWire("version");
  if (in.readOptionalBoolean()) unsupportedWire("seq_no_primary_term");
  if (in.readArraySize() != 0) unsupportedWire("ext");
  if (in.readBoolean()) unsupportedWire("profile");
  expectAbsent(in, "search_after");
  expectAbsent(in, "slice");
  expectAbsent(in, "collapse");
  s.track_total_hits_up_to = in.readOptionalInt();
  if (onOrAfter(in, TransportVersion::V_7_10_0)) {
    expectAbsent(in, "fields");
    expectAbsent(in, "pit");
  }
  if (onOrAfter(in, kV7_11_0)) {
    GenericValue runtime = readGenericValue(in);
    if (!runtime.isNull() && !(runtime == GenericValue::ofMap({})) &&
        !(runtime == GenericValue::ofOrderedMap({}))) {
      unsupportedWire("runtime_mappings");
    }
  }
  if (onOrAfter(in, kV8_4_0)) {
    if (in.transportVersion().before(TransportVersion::V_8_7_0)) {
      expectAbsent(in, "knn");
    } else if (in.readArraySize() != 0) {
      unsupportedWire("knn");
    }
  }
  if (onOrAfter(in, TransportVersion::V_8_8_0)) expectAbsent(in, "rank");
  if (skipsInnerHits(in.transportVersion()) && in.readBoolean()) {
    unsupportedWire("skip_inner_hits");
  }
  return s;
}

SearchSource SearchSource::fromJson(const std::string& text) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(std::string("search JSON: ") + e.what());
  }
  if (!j.is_object()) throw std::invalid_argument("search JSON: not an object");
  SearchSource s;
  try {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& k = it.key();
      if (k == "size") {
        s.size = it.value().get<int32_t>();
        if (s.size != 0)
          unsupported("size " + std::to_string(s.size) + " (only size 0: no fetch phase)");
      } else if (k == "query") {
        s.query = queryFromJson(it.value());
      } else if (k == "aggs" || k == "aggregations") {
        s.aggregations = aggsFromJson(it.value());
        s.has_aggregations = true;
      } else if (k == "track_total_hits") {
        if (it.value().is_boolean()) {
          s.track_total_hits_up_to =
              it.value().get<bool>() ? std::numeric_limits<int32_t>::max() : -1;
        } else {
          s.track_total_hits_up_to = it.value().get<int32_t>();
        }
      } else if (k == "terminate_after") {
        s.terminate_after = it.value().get<int32_t>();
      } else {
        unsupported("search option [" + k + "]");
      }
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(std::string("search JSON: ") + e.what());
  }
  if (s.size != 0) unsupported("size must be 0");
  return s;
}

// ---- the request ----

void ShardId::writeTo(StreamOutput& out) const {
  out.writeString(index_name);
  out.writeString(index_uuid);
  out.writeVInt(id);
}

ShardId ShardId::readFrom(StreamInput& in) {
  ShardId s;
  s.index_name = in.readString();
  s.index_uuid = in.readString();
  s.id = in.readVInt();
  return s;
}

// IndicesOptions.Option's ALLOW_SELECTORS (from 8.18; 6 and 8 are the failure store's).
constexpr int32_t kAllowSelectors = 7;

void IndicesOptions::writeTo(StreamOutput& out) const {
  const bool selectors = allow_selectors && onOrAfter(out, TransportVersion::V_8_18_0);
  out.writeVInt(static_cast<int32_t>(options.size()) + (selectors ? 1 : 0));
  for (int32_t o : options) out.writeVInt(o);
  if (selectors) out.writeVInt(kAllowSelectors);
  out.writeVInt(static_cast<int32_t>(wildcard_states.size()));
  for (int32_t w : wildcard_states) out.writeVInt(w);
  // 9.x: the cross-project mode options (false: not cross-project).
  if (onOrAfter(out, TransportVersion::INDICES_OPTIONS_RESOLUTION_MODE)) out.writeBoolean(false);
}

IndicesOptions IndicesOptions::readFrom(StreamInput& in) {
  IndicesOptions o;
  o.options.clear();
  o.wildcard_states.clear();
  const bool selectors = onOrAfter(in, TransportVersion::V_8_18_0);
  if (selectors) o.allow_selectors = false;
  const int32_t n = in.readArraySize();
  for (int32_t i = 0; i < n; ++i) {
    int32_t v = in.readVInt();
    if (selectors && v == kAllowSelectors) {
      o.allow_selectors = true;
      continue;
    }
    if (selectors && (v == 6 || v == 8)) unsupportedWire("failure store indices options");
    if (v < 0 || v > 5)
      internal::throwCorrupt("IndicesOptions.Option ordinal " + std::to_string(v));
    o.options.push_back(v);
  }
  const int32_t m = in.readArraySize();
  for (int32_t i = 0; i < m; ++i) {
    int32_t v = in.readVInt();
    if (v < 0 || v > 2) internal::throwCorrupt("WildcardStates ordinal " + std::to_string(v));
    o.wildcard_states.push_back(v);
  }
  if (onOrAfter(in, TransportVersion::INDICES_OPTIONS_RESOLUTION_MODE) && in.readBoolean()) {
    unsupportedWire("cross-project indices options");
  }
  return o;
}

void OriginalIndices::writeTo(StreamOutput& out) const {
  out.writeStringArray(indices);  // writeStringArrayNullable: null is written as empty
  options.writeTo(out);
}

OriginalIndices OriginalIndices::readFrom(StreamInput& in) {
  OriginalIndices o;
  o.indices = in.readStringArray();
  o.options = IndicesOptions::readFrom(in);
  return o;
}

void ShardSearchContextId::writeTo(StreamOutput& out) const {
  out.writeLong(id);
  if (onOrAfter(out, kV7_7_0)) out.writeString(session_id);
  if (onOrAfter(out, kV7_12_0)) out.writeOptionalString(searcher_id);
}

ShardSearchContextId ShardSearchContextId::readFrom(StreamInput& in) {
  ShardSearchContextId c;
  c.id = in.readLong();
  if (onOrAfter(in, kV7_7_0)) c.session_id = in.readString();
  if (onOrAfter(in, kV7_12_0)) c.searcher_id = in.readOptionalString();
  return c;
}

void ShardSearchRequest::writeTo(StreamOutput& out) const {
  shard_id.writeTo(out);
  out.writeByte(static_cast<uint8_t>(search_type));
  if (onOrAfter(out, kV7_11_0)) out.writeVInt(shard_request_index);
  out.writeVInt(number_of_shards);
  out.writeBoolean(false);  // scroll
  out.writeBoolean(source.has_value());
  if (source) source->writeTo(out);
  if (inRankQueriesRange(out.transportVersion())) out.writeVInt(0);                // rank queries
  if (out.transportVersion().before(TransportVersion::V_8_0_0)) out.writeVInt(0);  // types
  out.writeStringArray(alias_filter_aliases);
  out.writeBoolean(false);  // alias filter query
  out.writeFloat(index_boost);
  out.writeVLong(now_in_millis);
  out.writeOptionalBoolean(request_cache);
  out.writeOptionalString(cluster_alias);
  out.writeBoolean(allow_partial_search_results);
  if (out.transportVersion().before(kV7_11_0)) {
    out.writeVInt(0);                       // indexRoutings
    out.writeOptionalString(std::nullopt);  // preference
  }
  if (onOrAfter(out, kV7_7_0)) {
    out.writeBoolean(can_return_null_response_if_match_no_docs);
    if (onOrAfter(out, TransportVersion::SHARD_RESULTS_SKIP_SHARD_SEARCH_REQUEST)) {
      out.writeBoolean(enable_shard_results_skip_request);
    }
    out.writeBoolean(false);  // bottom sort values
    out.writeBoolean(reader_id.has_value());
    if (reader_id) reader_id->writeTo(out);
    out.writeBoolean(false);  // keep alive
  }
  out.writeVInt(channel_version);
  if (onOrAfter(out, kV7_16_0)) {
    out.writeLong(wait_for_checkpoint);
    out.writeZLong(wait_for_checkpoints_timeout);
    out.writeByte(wait_for_checkpoints_timeout_unit);
  }
  if (onOrAfter(out, kV8_4_0)) out.writeBoolean(force_synthetic_source);
  if (onOrAfter(out, TransportVersion::SEARCH_SLICE_ROUTING_STATE_VERSION)) {
    out.writeOptionalString(std::nullopt);  // slice routing
  }
  if (onOrAfter(out, TransportVersion::SHARD_SEARCH_REQUEST_RESHARD_SHARD_COUNT_SUMMARY)) {
    out.writeVInt(0);  // split shard count summary: UNSET
  }
  original_indices.writeTo(out);
  if (onOrAfter(out, TransportVersion::CHUNKED_FETCH_PHASE))
    out.writeBoolean(false);  // chunked fetch
}

ShardSearchRequest ShardSearchRequest::readFrom(StreamInput& in) {
  ShardSearchRequest r;
  r.shard_id = ShardId::readFrom(in);
  r.search_type = static_cast<int8_t>(in.readByte());
  r.shard_request_index = onOrAfter(in, kV7_11_0) ? in.readVInt() : -1;
  r.number_of_shards = in.readVInt();
  expectAbsent(in, "scroll");
  if (in.readBoolean()) r.source = SearchSource::readFrom(in);
  if (inRankQueriesRange(in.transportVersion()) && in.readArraySize() != 0) {
    unsupportedWire("rank queries");
  }
  if (in.transportVersion().before(TransportVersion::V_8_0_0) && in.readArraySize() != 0) {
    unsupportedWire("search request types");
  }
  r.alias_filter_aliases = in.readStringArray();
  if (in.readBoolean()) unsupportedWire("alias filter query");
  r.index_boost = in.readFloat();
  r.now_in_millis = in.readVLong();
  r.request_cache = in.readOptionalBoolean();
  r.cluster_alias = in.readOptionalString();
  r.allow_partial_search_results = in.readBoolean();
  if (in.transportVersion().before(kV7_11_0)) {
    (void)in.readStringArray();
    (void)in.readOptionalString();
  }
  if (onOrAfter(in, kV7_7_0)) {
    r.can_return_null_response_if_match_no_docs = in.readBoolean();
    if (onOrAfter(in, TransportVersion::SHARD_RESULTS_SKIP_SHARD_SEARCH_REQUEST)) {
      r.enable_shard_results_skip_request = in.readBoolean();
    }
    expectAbsent(in, "bottom sort values");
    if (in.readBoolean()) r.reader_id = ShardSearchContextId::readFrom(in);
    if (readOptionalTimeValue(in)) unsupportedWire("search request keep alive");
  }
  r.channel_version = in.readVInt();
  if (onOrAfter(in, kV7_16_0)) {
    r.wait_for_checkpoint = in.readLong();
    r.wait_for_checkpoints_timeout = in.readZLong();
    r.wait_for_checkpoints_timeout_unit = in.readByte();
    if (r.wait_for_checkpoints_timeout_unit > 6) {
      internal::throwCorrupt("TimeUnit ordinal " +
                             std::to_string(r.wait_for_checkpoints_timeout_unit));
    }
  }
  if (onOrAfter(in, kV8_4_0)) r.force_synthetic_source = in.readBoolean();
  if (onOrAfter(in, TransportVersion::SEARCH_SLICE_ROUTING_STATE_VERSION) &&
      in.readOptionalString()) {
    unsupportedWire("slice routing");
  }
  if (onOrAfter(in, TransportVersion::SHARD_SEARCH_REQUEST_RESHARD_SHARD_COUNT_SUMMARY) &&
      in.readVInt() != 0) {
    unsupportedWire("split shard count summary");
  }
  r.original_indices = OriginalIndices::readFrom(in);
  if (onOrAfter(in, TransportVersion::CHUNKED_FETCH_PHASE)) expectAbsent(in, "chunked fetch");
  return r;
}

}  // namespace wirestream::search
