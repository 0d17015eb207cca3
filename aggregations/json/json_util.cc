// JSON helpers; nothing here touches the wire.
#include "aggregations/json/json_util.h"

#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "stream/errors.h"

namespace wirestream::aggregations::json_util {

namespace {

thread_local StrictRead* strict_read = nullptr;

// Where a value is in the document: its JSON path and the innermost
// aggregation object on the way, as "$[0].buckets[1].key (sterms [genres])".
struct Spot {
  std::string where;
  std::string key;  // the member's name when the value is an object member
};

// Walks `doc` depth first in document order with its own stack (a hostile
// document may be deep) and returns the spot of the first value for which
// match(value, parent_object_or_null) is true.
template <class Match>
std::optional<Spot> locate(const json& doc, Match match) {
  struct Frame {
    const json* node;
    json::const_iterator it;
    size_t index;
    std::string step;  // how its parent reaches node: ".key", "[3]", or "" for the root
  };
  // A wire aggregation is the root object, or an element of the root array or
  // of an "aggregations" array.
  auto describe = [&](const std::vector<Frame>& frames, const json& target,
                      const std::string& target_step) {
    std::string path = "$", agg;
    const json* parent = nullptr;
    std::string_view parent_step;
    auto visit = [&](const json& node, const std::string& step) {
      path += step;
      bool is_agg = node.is_object() &&
                    (parent == nullptr ? true
                                       : parent->is_array() &&
                                             (parent == &doc || parent_step == ".aggregations"));
      if (is_agg) {
        auto text = [&](const char* k) {
          auto it = node.find(k);
          if (it == node.end() || !it->is_string()) return std::string("?");
          const std::string& t = it->get_ref<const std::string&>();
          return t.size() <= 200 ? t : t.substr(0, 200) + "...";
        };
        agg = " (" + text("type") + " [" + text("name") + "])";
      }
      parent = &node;
      parent_step = step;
    };
    for (const Frame& f : frames) visit(*f.node, f.step);
    if (&target != parent) visit(target, target_step);
    return path + agg;
  };
  std::vector<Frame> frames;
  if (match(doc, nullptr)) return Spot{describe(frames, doc, ""), ""};
  if (doc.is_structured()) frames.push_back({&doc, doc.cbegin(), 0, ""});
  while (!frames.empty()) {
    Frame& f = frames.back();
    if (f.it == f.node->cend()) {
      frames.pop_back();
      continue;
    }
    const json& child = *f.it;
    const json* parent = f.node->is_object() ? f.node : nullptr;
    std::string key = parent != nullptr ? f.it.key() : "";
    std::string step = parent != nullptr ? "." + key : "[" + std::to_string(f.index) + "]";
    ++f.it;
    ++f.index;
    if (match(child, parent)) return Spot{describe(frames, child, step), key};
    if (child.is_structured()) frames.push_back({&child, child.cbegin(), 0, std::move(step)});
  }
  return std::nullopt;
}

}  // namespace

StrictRead::StrictRead(const json& document)
    : document_(document), outermost_(strict_read == nullptr) {
  if (outermost_) strict_read = this;
}

StrictRead::~StrictRead() {
  if (outermost_) strict_read = nullptr;
}

void StrictRead::noteRead(const json& object, const json* member) {
  StrictRead* s = strict_read;
  if (s == nullptr) return;
  s->objects_.insert(&object);
  if (member != nullptr) s->read_.insert(member);
  s->last_object_ = &object;
  s->last_member_ = member;
}

void StrictRead::refuseUnread() const {
  if (!outermost_) return;
  auto spot = locate(document_, [&](const json& v, const json* parent) {
    return parent != nullptr && objects_.count(parent) != 0 && read_.count(&v) == 0;
  });
  if (spot) internal::throwCorrupt(spot->where + ": unknown field [" + spot->key + "]");
}

void StrictRead::rethrowLocated(const StreamError& e) const {
  if (!outermost_) throw;
  const json* target = last_member_ != nullptr ? last_member_ : last_object_;
  std::string where = "$";
  if (target != nullptr) {
    auto spot = locate(document_, [&](const json& v, const json*) { return &v == target; });
    if (spot) where = spot->where;
  }
  // Echoed input in a message stays short: a 1 MiB type name is not repeated.
  std::string_view what = e.what();
  constexpr size_t kMaxMessage = 400;
  std::string message = where + ": " + std::string(what.substr(0, kMaxMessage));
  if (what.size() > kMaxMessage) {
    message += "... (" + std::to_string(what.size() - kMaxMessage) + " more characters)";
  }
  if (dynamic_cast<const EndOfStreamError*>(&e)) throw EndOfStreamError(message);
  if (dynamic_cast<const TooManyBucketsError*>(&e)) throw;
  if (dynamic_cast<const LimitExceededError*>(&e)) throw LimitExceededError(message);
  if (dynamic_cast<const CorruptStreamError*>(&e)) throw CorruptStreamError(message);
  throw StreamError(message);
}

json fromDouble(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  return v;
}

const json& field(const json& j, std::string_view key) {
  if (!j.is_object()) {
    StrictRead::noteRead(j, nullptr);
    internal::throwCorrupt("expected a JSON object holding [" + std::string(key) + "]");
  }
  auto it = j.find(key);
  StrictRead::noteRead(j, it == j.end() ? nullptr : &*it);
  if (it == j.end()) internal::throwCorrupt("missing field [" + std::string(key) + "]");
  return *it;
}

double toDouble(const json& v, std::string_view what) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
  }
  internal::throwCorrupt("field [" + std::string(what) + "] is not a double: " + v.dump());
}

double getDouble(const json& j, std::string_view key) { return toDouble(field(j, key), key); }

int64_t getLong(const json& j, std::string_view key) {
  const json& v = field(j, key);
  if (!v.is_number_integer()) {
    internal::throwCorrupt("field [" + std::string(key) + "] is not an integer: " + v.dump());
  }
  if (v.is_number_unsigned() &&
      v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    internal::throwCorrupt("field [" + std::string(key) + "] is out of range: " + v.dump());
  }
  return v.get<int64_t>();
}

int32_t getInt(const json& j, std::string_view key) {
  int64_t v = getLong(j, key);
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    internal::throwCorrupt("field [" + std::string(key) +
                           "] is out of int range: " + std::to_string(v));
  }
  return static_cast<int32_t>(v);
}

bool getBool(const json& j, std::string_view key) {
  const json& v = field(j, key);
  if (!v.is_boolean()) internal::throwCorrupt("field [" + std::string(key) + "] is not a boolean");
  return v.get<bool>();
}

std::string getString(const json& j, std::string_view key) {
  const json& v = field(j, key);
  if (!v.is_string()) internal::throwCorrupt("field [" + std::string(key) + "] is not a string");
  return v.get<std::string>();
}

}  // namespace wirestream::aggregations::json_util
