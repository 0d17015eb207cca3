// Bounded reading and streamed writing of the wire JSON (see wire_json.h).
#include "tools/wire_json.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "aggregations/json/aggregation_json.h"
#include "stream/errors.h"
#include "stream/transport_version.h"

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

void writeList(PrettyWriter& w, const InternalAggregations& aggs, size_t batch);

// The parts of `a`'s JSON when it is to be streamed: a bucketed type (its
// codec has a hook) with more than `batch` buckets or an encoding over
// `whole_bytes`. nullptr when it is rendered whole (a metric, a small one,
// or a type written whole); rendering many small aggregations whole is also
// the fast way, their header rendered once, not twice.
const aggregations::BucketJsonHook* streamedHook(const InternalAggregation& a, size_t batch,
                                                 size_t whole_bytes) {
  const aggregations::AggregationJsonCodec* codec =
      aggregations::defaultJsonRegistry().find(a.getWriteableName());
  if (codec == nullptr || codec->buckets == nullptr) return nullptr;
  // A size estimate, at a version that writes every generic kind wirestream reads (a
  // metadata's tag 30 needs 8.11).
  if (a.bucketCount() <= static_cast<int64_t>(batch) &&
      a.encodedSize(TransportVersion::V_8_18_0) <= whole_bytes) {
    return nullptr;
  }
  return codec->buckets;
}

// The members of a rendered object that are written from the aggregations
// themselves instead of from the rendering.
struct Streamed {
  const InternalAggregations* subs = nullptr;        // "aggregations"
  const InternalAggregations* empty_subs = nullptr;  // "empty_bucket_info"."aggregations"
  std::function<void()> buckets;                     // "buckets"
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

// A bucketed aggregation through its codec's hook: its head, then its
// buckets one at a time, each followed by its sub-aggregations, streamed in
// turn in place of its "aggregations" (as are those of a histogram's empty
// bucket).
void writeBucketed(PrettyWriter& w, const InternalAggregation& a,
                   const aggregations::BucketJsonHook& hook, size_t batch) {
  auto write_buckets = [&] {
    for (size_t i = 0, n = hook.bucket_count(a); i < n; ++i) {
      aggregations::BucketAggregations subs = hook.bucket_aggregations(a, i);
      writeFields(w, hook.wire_bucket(a, i), {&subs.ref(), nullptr, {}}, batch);
    }
  };
  writeFields(w, toWireJsonHead(a, hook), {nullptr, hook.head_aggregations(a), write_buckets},
              batch);
}

// Aggregations whose encoding is at most this large are rendered whole when
// they have few buckets: their document is small.
constexpr size_t kWholeBytes = size_t{64} * 1024;

void writeAggregation(PrettyWriter& w, const InternalAggregation& a, size_t batch) {
  if (const aggregations::BucketJsonHook* hook = streamedHook(a, batch, kWholeBytes)) {
    return writeBucketed(w, a, *hook, batch);
  }
  w.value(toWireJson(a));
}

void writeList(PrettyWriter& w, const InternalAggregations& aggs, size_t batch) {
  for (size_t i = 0; i < aggs.size(); ++i) writeAggregation(w, aggs[i], batch);
}

// ---- the response JSON ----

void writeResponseAggregation(PrettyWriter& w, const InternalAggregation& a, size_t batch);

// One member of a response object: a rendered value, or an aggregation
// written in its place.
struct Member {
  std::string_view name;
  const json* value = nullptr;
  const InternalAggregation* agg = nullptr;
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
      writeResponseAggregation(w, *m.agg, batch);
    }
  }
  w.end();
}

// Appends the members for `aggs`, by name, to `members`.
void addAggregationMembers(std::vector<Member>& members, const InternalAggregations& aggs) {
  for (size_t i = 0; i < aggs.size(); ++i) {
    const InternalAggregation& a = aggs[i];
    members.push_back({a.getName(), nullptr, &a});
  }
}

// The buckets of a keyed response to write, in order: the last bucket of
// each key text, in the place of the first (as in the rendered document,
// where a repeated key keeps its first place and the last bucket's value).
std::vector<size_t> keyedOrder(const InternalAggregation& a,
                               const aggregations::BucketJsonHook& hook) {
  const size_t n = hook.bucket_count(a);
  // Hashes, not texts, are kept: the texts may be as long as the pattern allows.
  std::unordered_multimap<size_t, size_t> firsts;
  std::vector<size_t> first_list;
  std::vector<size_t> last(n);
  for (size_t i = 0; i < n; ++i) {
    std::string t = hook.response_key(a, i);
    size_t h = std::hash<std::string>{}(t);
    bool found = false;
    for (auto [it, end] = firsts.equal_range(h); it != end; ++it) {
      if (hook.response_key(a, it->second) == t) {
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
  std::vector<size_t> order;
  order.reserve(first_list.size());
  for (size_t f : first_list) order.push_back(last[f]);
  return order;
}

// A bucketed aggregation of the response through its codec's hook: its head,
// then its buckets one at a time, each with its sub-aggregations as members
// by name, streamed in turn. A keyed histogram's buckets are an object by
// key_as_string.
void writeResponseBucketed(PrettyWriter& w, const InternalAggregation& a,
                           const aggregations::BucketJsonHook& hook, size_t batch) {
  auto write_buckets = [&](bool keyed) {
    std::vector<size_t> order;
    if (keyed) {
      order = keyedOrder(a, hook);
    } else {
      order.resize(hook.bucket_count(a));
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    }
    std::vector<Member> members;
    for (size_t i : order) {
      const json bucket = hook.response_bucket(a, i);
      members.clear();
      for (const auto& [name, v] : bucket.items()) members.push_back({name, &v});
      const aggregations::BucketAggregations subs = hook.bucket_aggregations(a, i);
      addAggregationMembers(members, subs.ref());
      if (keyed) w.key(hook.response_key(a, i));
      writeMembers(w, members, batch);
    }
  };
  const json head = toResponseJsonHead(a, hook);
  w.begin(true);
  for (const auto& [k, v] : head.items()) {
    w.key(k);
    if (k == "buckets" && (v.is_array() || v.is_object())) {
      w.begin(v.is_object());
      write_buckets(v.is_object());
      w.end();
    } else {
      w.value(v);
    }
  }
  w.end();
}

// Aggregations whose encoding is at most this large and that have at most a
// batch of buckets are rendered whole: with a format pattern within it, their
// key texts stay within a few MiB.
constexpr size_t kWholeResponseBytes = 4096;

void writeResponseAggregation(PrettyWriter& w, const InternalAggregation& a, size_t batch) {
  if (const aggregations::BucketJsonHook* hook = streamedHook(a, batch, kWholeResponseBytes)) {
    return writeResponseBucketed(w, a, *hook, batch);
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

void writeWireJson(std::ostream& out, const InternalAggregations& aggs, size_t bucket_batch) {
  if (bucket_batch == 0)
    throw std::invalid_argument("writeWireJson: bucket_batch must be positive");
  PrettyWriter w(out);
  w.begin(false);
  writeList(w, aggs, bucket_batch);
  w.end();
}

void writeResponseJson(std::ostream& out, const InternalAggregations& aggs, size_t bucket_batch) {
  if (bucket_batch == 0)
    throw std::invalid_argument("writeResponseJson: bucket_batch must be positive");
  PrettyWriter w(out);
  std::vector<Member> members;
  addAggregationMembers(members, aggs);
  writeMembers(w, members, bucket_batch);
}

}  // namespace wirestream::cli
