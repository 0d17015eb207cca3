// Bounded reading and streamed writing of the wire JSON (see wire_json.h).
#include "tools/wire_json.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "aggregations/date_histogram.h"
#include "aggregations/histogram.h"
#include "aggregations/json/aggregation_json.h"
#include "aggregations/terms.h"
#include "stream/errors.h"

namespace wirestream::cli {

namespace {

using json = nlohmann::ordered_json;
using aggregations::InternalAggregation;
using aggregations::InternalAggregations;

// ---- reading ----

// Builds the document from SAX events on an explicit stack. Object members
// are appended without the per-insert lookup of ordered_json's operator[]
// (linear in the members, so quadratic for a wide object); duplicates are
// found with a hash set when the object closes.
class LimitedDomBuilder final : public nlohmann::json_sax<json> {
 public:
  json& root() { return root_; }

  bool null() override { return put(json(nullptr)); }
  bool boolean(bool v) override { return put(json(v)); }
  bool number_integer(number_integer_t v) override { return put(json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return put(json(v)); }
  bool number_float(number_float_t v, const string_t&) override { return put(json(v)); }
  bool string(string_t& v) override { return put(json(std::move(v))); }
  bool binary(binary_t&) override { internal::throwCorrupt("binary value in JSON text"); }

  bool start_object(std::size_t) override { return open(json::object()); }
  bool start_array(std::size_t) override { return open(json::array()); }
  bool key(string_t& k) override {
    key_ = std::move(k);
    return true;
  }
  bool end_object() override {
    checkDuplicates(stack_.back().value->get_ref<json::object_t&>());
    stack_.pop_back();
    return true;
  }
  bool end_array() override {
    stack_.pop_back();
    return true;
  }

  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    internal::throwCorrupt("invalid JSON at byte " + std::to_string(position) + " (" + path() +
                           "): " + capEcho(ex.what()));
  }

  // Where the parser is: $, then .key or [index] for each of the outermost
  // `levels` open containers (all by default).
  std::string path(size_t levels = SIZE_MAX) const {
    std::string p = "$";
    for (size_t i = 0; i < stack_.size() && i < levels; ++i) {
      const Open& o = stack_[i];
      if (o.value->is_object()) {
        if (o.has_member) p += "." + o.member;
      } else if (o.value->size() > 0) {
        p += "[" + std::to_string(o.value->size() - 1) + "]";
      }
    }
    return capEcho(p);
  }

 private:
  struct Open {
    json* value;
    std::string member;  // the key of the member being read (objects)
    bool has_member = false;
  };

  // Adds `v` where the parser is; returns where it now lives.
  json* add(json&& v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Open& top = stack_.back();
    if (top.value->is_array()) {
      auto& a = top.value->get_ref<json::array_t&>();
      a.push_back(std::move(v));
      return &a.back();
    }
    // ordered_map is a vector of pairs: append without the lookup.
    auto& members = static_cast<json::object_t::Container&>(top.value->get_ref<json::object_t&>());
    top.member = key_;
    top.has_member = true;
    members.emplace_back(std::move(key_), std::move(v));
    return &members.back().second;
  }

  bool put(json&& v) {
    add(std::move(v));
    return true;
  }

  bool open(json&& container) {
    if (stack_.size() >= kMaxJsonNesting) {
      internal::throwLimitExceeded("JSON nested deeper than " + std::to_string(kMaxJsonNesting) +
                                   " at " + path());
    }
    json* where = add(std::move(container));
    stack_.push_back({where, {}, false});
    return true;
  }

  void checkDuplicates(const json::object_t& object) {
    const json::object_t::Container& members = object;
    auto duplicate = [&](const std::string& k) {
      internal::throwCorrupt("duplicate key [" + capEcho(k) + "] in the object at " +
                             path(stack_.size() - 1));
    };
    if (members.size() <= 8) {
      for (size_t i = 0; i < members.size(); ++i) {
        for (size_t j = 0; j < i; ++j) {
          if (members[i].first == members[j].first) duplicate(members[i].first);
        }
      }
      return;
    }
    std::unordered_set<std::string_view> seen;
    seen.reserve(members.size());
    for (const auto& [k, v] : members) {
      if (!seen.insert(k).second) duplicate(k);
    }
  }

  json root_;
  std::vector<Open> stack_;
  std::string key_;
};

// ---- writing ----

// Prints JSON as nlohmann's dump(2) does, one token at a time.
class PrettyWriter {
 public:
  explicit PrettyWriter(std::ostream& out) : out_(out) {}

  // Opens an object or array: a member's value after key(), an array's
  // element, or the document.
  void begin(bool object) {
    if (inArray()) separate();
    out_ << (object ? '{' : '[');
    levels_.push_back({object});
  }
  void end() {
    Level l = levels_.back();
    levels_.pop_back();
    if (l.count > 0) {
      out_ << '\n';
      indent();
    }
    out_ << (l.object ? '}' : ']');
  }
  // The next member's key (in an object).
  void key(std::string_view k) {
    separate();
    bool plain = std::all_of(k.begin(), k.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
    if (plain) {  // the field names of the wire JSON: nothing to escape
      out_ << '"' << k << "\": ";
    } else {
      out_ << json(std::string(k)).dump(-1, ' ', false, json::error_handler_t::replace) << ": ";
    }
  }
  // A whole value: a member's after key(), or an array's element.
  void value(const json& v) {
    if (inArray()) separate();
    std::string text = v.dump(2, ' ', false, json::error_handler_t::replace);
    // Its inner lines sit one indent deeper than this level's members.
    size_t start = 0;
    for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
      out_.write(text.data() + start, static_cast<std::streamsize>(nl + 1 - start));
      indent();
    }
    out_.write(text.data() + start, static_cast<std::streamsize>(text.size() - start));
  }

 private:
  struct Level {
    bool object;
    size_t count = 0;
  };

  bool inArray() const { return !levels_.empty() && !levels_.back().object; }
  // Before each element of the innermost container: the comma, the newline
  // and the indent.
  void separate() {
    Level& l = levels_.back();
    out_ << (l.count++ > 0 ? ",\n" : "\n");
    indent();
  }
  void indent() {
    for (size_t i = 0; i < levels_.size(); ++i) out_ << "  ";
  }

  std::ostream& out_;
  std::vector<Level> levels_;
};

void writeList(PrettyWriter& w, InternalAggregations& aggs, size_t batch);

// The members of a rendered object that are written from the aggregations
// themselves instead of from the rendering.
struct Streamed {
  InternalAggregations* subs = nullptr;        // "aggregations"
  InternalAggregations* empty_subs = nullptr;  // "empty_bucket_info"."aggregations"
  std::function<void()> buckets;               // "buckets"
};

// Writes the object `fields` member by member, the Streamed ones streamed.
void writeFields(PrettyWriter& w, const json& fields, const Streamed& streamed, size_t batch) {
  w.begin(true);
  for (const auto& [k, v] : fields.items()) {
    w.key(k);
    if (streamed.subs != nullptr && k == "aggregations") {
      w.begin(false);
      writeList(w, *streamed.subs, batch);
      w.end();
    } else if (streamed.buckets && k == "buckets" && v.is_array()) {
      w.begin(false);
      streamed.buckets();
      w.end();
    } else if (streamed.empty_subs != nullptr && k == "empty_bucket_info" && v.is_object()) {
      writeFields(w, v, {streamed.empty_subs, nullptr, {}}, batch);
    } else {
      w.value(v);
    }
  }
  w.end();
}

// A bucketed aggregation: its own fields from a toWireJson with no buckets,
// then its buckets `batch` at a time, from a toWireJson holding just those,
// without their sub-aggregations (streamed in their place) and with the heavy
// header parts (metadata, a histogram's empty bucket info) moved out
// meanwhile. A histogram's empty bucket sub-aggregations are streamed too.
template <class T>
struct EmptyInfoOf {
  using type = int;  // terms: none
};
template <class T>
requires requires { typename T::EmptyBucketInfo; }
struct EmptyInfoOf<T> {
  using type = typename T::EmptyBucketInfo;
};

template <class T>
void writeBucketed(PrettyWriter& w, T& agg, size_t batch) {
  constexpr bool kHistogram =
      std::is_same_v<T, aggregations::Histogram> || std::is_same_v<T, aggregations::DateHistogram>;
  auto buckets = std::move(agg.buckets());
  agg.buckets().clear();
  InternalAggregations empty_subs;
  if constexpr (kHistogram) {
    if (agg.emptyBucketInfo()) empty_subs = std::move(agg.emptyBucketInfo()->aggregations);
  }
  auto restore_empty_subs = [&] {
    if constexpr (kHistogram) {
      if (agg.emptyBucketInfo()) agg.emptyBucketInfo()->aggregations = std::move(empty_subs);
    }
  };
  json head;
  try {
    head = toWireJson(agg);
  } catch (...) {
    agg.buckets() = std::move(buckets);
    restore_empty_subs();
    throw;
  }
  restore_empty_subs();
  aggregations::Metadata metadata = agg.getMetadata();
  agg.setMetadata(aggregations::Metadata());
  std::optional<typename EmptyInfoOf<T>::type> empty_info;
  if constexpr (kHistogram) {
    empty_info = std::move(agg.emptyBucketInfo());
    agg.setEmptyBucketInfo(std::nullopt);
  }
  auto restore = [&] {
    agg.buckets() = std::move(buckets);
    agg.setMetadata(std::move(metadata));
    if constexpr (kHistogram) agg.setEmptyBucketInfo(std::move(empty_info));
  };

  auto write_buckets = [&] {
    std::vector<InternalAggregations> subs;
    for (size_t at = 0; at < buckets.size(); at += batch) {
      size_t n = std::min(batch, buckets.size() - at);
      subs.clear();
      for (size_t i = 0; i < n; ++i) {
        subs.push_back(std::move(buckets[at + i].aggregations));
        buckets[at + i].aggregations = InternalAggregations();
        agg.buckets().push_back(std::move(buckets[at + i]));
      }
      json rendered_batch = toWireJson(agg);
      for (size_t i = 0; i < n; ++i) {
        // (Terms buckets are copied in and stay; histogram buckets moved.)
        if constexpr (kHistogram) buckets[at + i] = std::move(agg.buckets()[i]);
        buckets[at + i].aggregations = std::move(subs[i]);
      }
      agg.buckets().clear();
      const json& rendered = rendered_batch.at("buckets");
      for (size_t i = 0; i < n; ++i) {
        writeFields(w, rendered.at(i), {&buckets[at + i].aggregations, nullptr, {}}, batch);
      }
    }
  };
  InternalAggregations* empty_stream = nullptr;
  if constexpr (kHistogram) {
    if (empty_info) empty_stream = &empty_info->aggregations;
  }
  try {
    writeFields(w, head, {nullptr, empty_stream, write_buckets}, batch);
  } catch (...) {
    restore();
    throw;
  }
  restore();
}

// Aggregations whose encoding is at most this large are rendered whole when
// they have few buckets: their document is small.
constexpr size_t kWholeBytes = size_t{64} * 1024;

void writeAggregation(PrettyWriter& w, InternalAggregation& a, size_t batch) {
  // Rendering many small aggregations whole is also the fast way: their
  // header is rendered once, not twice.
  if (a.bucketCount() <= static_cast<int64_t>(batch) && a.encodedSize() <= kWholeBytes) {
    return w.value(toWireJson(a));
  }
  if (auto* t = dynamic_cast<aggregations::StringTerms*>(&a)) return writeBucketed(w, *t, batch);
  if (auto* t = dynamic_cast<aggregations::LongTerms*>(&a)) return writeBucketed(w, *t, batch);
  if (auto* t = dynamic_cast<aggregations::DoubleTerms*>(&a)) return writeBucketed(w, *t, batch);
  if (auto* h = dynamic_cast<aggregations::Histogram*>(&a)) return writeBucketed(w, *h, batch);
  if (auto* h = dynamic_cast<aggregations::DateHistogram*>(&a)) return writeBucketed(w, *h, batch);
  // A metric, or a type written whole.
  w.value(toWireJson(a));
}

void writeList(PrettyWriter& w, InternalAggregations& aggs, size_t batch) {
  for (size_t i = 0; i < aggs.size(); ++i) writeAggregation(w, aggs[i], batch);
}

// ---- the response JSON ----

void writeResponseAggregation(PrettyWriter& w, InternalAggregation* mutable_agg,
                              const InternalAggregation& a, size_t batch);

// One member of a response object: a rendered value, or an aggregation
// written in its place (modifiable when `agg` is set).
struct Member {
  std::string_view name;
  const json* value = nullptr;
  InternalAggregation* agg = nullptr;
  const InternalAggregation* const_agg = nullptr;
};

// Writes the members as the ordered_json object built from them with
// operator[] holds them: a repeated name (two sub-aggregations named alike,
// or one named "doc_count") stays where it first appeared, with its last value.
void writeMembers(PrettyWriter& w, const std::vector<Member>& members, size_t batch) {
  std::vector<size_t> last(members.size());
  std::vector<bool> first(members.size(), true);
  std::unordered_map<std::string_view, size_t> seen;
  for (size_t i = 0; i < members.size(); ++i) {
    auto [it, fresh] = seen.try_emplace(members[i].name, i);
    last[i] = i;
    if (!fresh) {
      first[i] = false;
      last[it->second] = i;
    }
  }
  w.begin(true);
  for (size_t i = 0; i < members.size(); ++i) {
    if (!first[i]) continue;
    const Member& m = members[last[i]];
    w.key(members[i].name);
    if (m.value != nullptr) {
      w.value(*m.value);
    } else {
      writeResponseAggregation(w, m.agg, *m.const_agg, batch);
    }
  }
  w.end();
}

// Appends the members for `aggs`, by name, to `members`.
void addAggregationMembers(std::vector<Member>& members, InternalAggregations* mutable_aggs,
                           const InternalAggregations& aggs) {
  for (size_t i = 0; i < aggs.size(); ++i) {
    const InternalAggregation& a = *aggs.list()[i];
    members.push_back({a.getName(), nullptr, mutable_aggs ? &(*mutable_aggs)[i] : nullptr, &a});
  }
}

// Bucket i's sub-aggregations when they can be modified without building
// them (terms' column, a histogram's objects); nullptr when they are metric
// columns or absent, which are read through the const container instead.
template <class Buckets>
InternalAggregations* storedSubs(Buckets& b, size_t i) {
  if constexpr (requires { b.hasAggregationsColumn(); }) {
    return b.hasAggregationsColumn() ? &b.mutableAggregations(i) : nullptr;
  } else {
    return !b.metrics().active() && b.hasObjects() ? &b[i].aggregations : nullptr;
  }
}

// A response bucket's rendered key text per bucket estimated at most this
// many bytes per pattern byte (a "VV" zone id is the widest date field).
constexpr size_t kKeyExpansion = 16;
// Rendered buckets held at a time, in estimated bytes.
constexpr size_t kResponseBatchBytes = size_t{1} << 20;

// A bucketed aggregation of the response: its own fields from a
// toResponseJson with no buckets, then its buckets a batch at a time from a
// toResponseJson holding just their keys and counts (few at a time when the
// format's pattern makes each key_as_string long), each followed by its
// sub-aggregations, streamed in turn. A keyed histogram's buckets are an
// object by key_as_string, where a repeated key keeps its first place and the
// last bucket's value, as in the rendered document.
template <class T>
void writeResponseBucketed(PrettyWriter& w, T& agg, size_t batch) {
  constexpr bool kHistogram =
      std::is_same_v<T, aggregations::Histogram> || std::is_same_v<T, aggregations::DateHistogram>;
  auto buckets = std::move(agg.buckets());
  agg.buckets().clear();
  json head;
  try {
    head = toResponseJson(agg);
  } catch (...) {
    agg.buckets() = std::move(buckets);
    throw;
  }
  aggregations::Metadata metadata = agg.getMetadata();
  agg.setMetadata(aggregations::Metadata());
  auto restore = [&] {
    agg.buckets() = std::move(buckets);
    agg.setMetadata(std::move(metadata));
  };

  bool keyed = false;
  if constexpr (kHistogram) keyed = agg.keyed();
  // The buckets to write, in order (keyed: the last bucket of each key text).
  std::vector<size_t> order;
  if constexpr (kHistogram) {
    if (keyed) {
      // The key text as histogram_json.cc renders it.
      auto text = [&](size_t i) {
        if constexpr (std::is_same_v<T, aggregations::Histogram>) {
          return agg.format().formatDoubleAsString(buckets.keyAt(i));
        } else {
          return agg.format().formatLongAsString(buckets.keyAt(i));
        }
      };
      // Hashes, not texts, are kept: the texts may be as long as the pattern allows.
      std::unordered_multimap<size_t, size_t> firsts;
      std::vector<size_t> first_list;
      std::vector<size_t> last(buckets.size());
      for (size_t i = 0; i < buckets.size(); ++i) {
        std::string t = text(i);
        size_t h = std::hash<std::string>{}(t);
        bool found = false;
        for (auto [it, end] = firsts.equal_range(h); it != end; ++it) {
          if (text(it->second) == t) {
            last[it->second] = i;
            found = true;
            break;
          }
        }
        if (!found) {
          firsts.emplace(h, i);
          first_list.push_back(i);
          last[i] = i;
        }
      }
      for (size_t f : first_list) order.push_back(last[f]);
    }
  }
  if (!keyed) {
    order.resize(buckets.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  }
  size_t per_bucket =
      64 + kKeyExpansion * (agg.format().pattern().size() + agg.format().zoneId().size());
  size_t n_batch = std::clamp<size_t>(kResponseBatchBytes / per_bucket, 1, batch);

  auto write_buckets = [&] {
    std::vector<Member> members;
    for (size_t at = 0; at < order.size(); at += n_batch) {
      size_t n = std::min(n_batch, order.size() - at);
      for (size_t k = 0; k < n; ++k) {
        size_t i = order[at + k];
        if constexpr (kHistogram) {
          agg.buckets().append(buckets.keyAt(i), buckets.docCountAt(i), InternalAggregations());
        } else {
          agg.buckets().append(buckets.keyAt(i), buckets.docCountAt(i), buckets.errorAt(i),
                               InternalAggregations());
        }
      }
      json rendered;
      try {
        rendered = toResponseJson(agg);
      } catch (...) {
        agg.buckets().clear();
        throw;
      }
      agg.buckets().clear();
      const json& rendered_buckets = rendered.at("buckets");
      auto item = rendered_buckets.items().begin();
      for (size_t k = 0; k < n; ++k, ++item) {
        size_t i = order[at + k];
        members.clear();
        for (const auto& [name, v] : item.value().items()) members.push_back({name, &v});
        InternalAggregations* stored = storedSubs(buckets, i);
        decltype(auto) holder = std::as_const(buckets).aggregationsAt(i);
        const InternalAggregations& subs = stored ? *stored : holder;
        addAggregationMembers(members, stored, subs);
        if (keyed) w.key(item.key());
        writeMembers(w, members, batch);
      }
    }
  };
  try {
    w.begin(true);
    for (const auto& [k, v] : head.items()) {
      w.key(k);
      if (k == "buckets" && (v.is_array() || v.is_object())) {
        w.begin(v.is_object());
        write_buckets();
        w.end();
      } else {
        w.value(v);
      }
    }
    w.end();
  } catch (...) {
    restore();
    throw;
  }
  restore();
}

// Aggregations whose encoding is at most this large and that have at most a
// batch of buckets are rendered whole: with a format pattern within it, their
// key texts stay within a few MiB.
constexpr size_t kWholeResponseBytes = 4096;

void writeResponseAggregation(PrettyWriter& w, InternalAggregation* mutable_agg,
                              const InternalAggregation& a, size_t batch) {
  // Metric columns' rows are metrics, rendered whole.
  InternalAggregation* m = mutable_agg;
  if (m == nullptr ||
      (a.bucketCount() <= static_cast<int64_t>(batch) && a.encodedSize() <= kWholeResponseBytes)) {
    return w.value(toResponseJson(a));
  }
  if (auto* t = dynamic_cast<aggregations::StringTerms*>(m)) {
    return writeResponseBucketed(w, *t, batch);
  }
  if (auto* t = dynamic_cast<aggregations::LongTerms*>(m)) {
    return writeResponseBucketed(w, *t, batch);
  }
  if (auto* t = dynamic_cast<aggregations::DoubleTerms*>(m)) {
    return writeResponseBucketed(w, *t, batch);
  }
  if (auto* h = dynamic_cast<aggregations::Histogram*>(m)) {
    return writeResponseBucketed(w, *h, batch);
  }
  if (auto* h = dynamic_cast<aggregations::DateHistogram*>(m)) {
    return writeResponseBucketed(w, *h, batch);
  }
  w.value(toResponseJson(a));
}

}  // namespace

std::string capEcho(std::string_view text, size_t max) {
  if (text.size() <= max) return std::string(text);
  return std::string(text.substr(0, max)) + "... (" + std::to_string(text.size() - max) +
         " more characters)";
}

json parseJsonLimited(std::string_view text) {
  LimitedDomBuilder builder;
  json::sax_parse(text.begin(), text.end(), &builder);
  return std::move(builder.root());
}

InternalAggregations aggregationsFromWireJsonText(std::string_view text) {
  json j = parseJsonLimited(text);
  return aggregations::aggregationsFromWireJson(j);
}

void writeWireJson(std::ostream& out, InternalAggregations& aggs, size_t bucket_batch) {
  if (bucket_batch == 0)
    throw std::invalid_argument("writeWireJson: bucket_batch must be positive");
  PrettyWriter w(out);
  w.begin(false);
  writeList(w, aggs, bucket_batch);
  w.end();
}

void writeResponseJson(std::ostream& out, InternalAggregations& aggs, size_t bucket_batch) {
  if (bucket_batch == 0)
    throw std::invalid_argument("writeResponseJson: bucket_batch must be positive");
  PrettyWriter w(out);
  std::vector<Member> members;
  addAggregationMembers(members, &aggs, aggs);
  writeMembers(w, members, bucket_batch);
}

}  // namespace wirestream::cli
