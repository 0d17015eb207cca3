// Helpers shared by the JSON renderers of the aggregations: lossless doubles
// (JSON has no NaN or infinities), typed field access whose failures are
// CorruptStreamError naming the field, so hand-written input (wirestream
// encode) fails like corrupt bytes do, and StrictRead, which refuses the
// members no reader asked for and says where in the document reading stopped.
// Thread-safe: StrictRead's state is per thread.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_set>

#include "aggregations/text_util.h"
#include "stream/errors.h"

namespace wirestream::aggregations::json_util {

using json = nlohmann::ordered_json;

// A finite double as a number; NaN, Infinity, -Infinity as those strings.
// Both JSON forms use it: ES's responses go through Jackson, whose default
// QUOTE_NON_NUMERIC_NUMBERS writes non-finite doubles as these strings.
json fromDouble(double v);

// The member `key` of object `j`; CorruptStreamError when absent.
const json& field(const json& j, std::string_view key);
double getDouble(const json& j, std::string_view key);
int64_t getLong(const json& j, std::string_view key);
int32_t getInt(const json& j, std::string_view key);
bool getBool(const json& j, std::string_view key);
std::string getString(const json& j, std::string_view key);
double toDouble(const json& v, std::string_view what);

// One strict reading of a JSON document on this thread. While it is open,
// field() notes every object it looks into and every member it returns, so:
//  - refuseUnread() finds the members of those objects that no reader asked
//    for (a misspelt or unknown field), as CorruptStreamError
//    "$[0].buckets[1].bogus (sterms [genres]): unknown field [bogus]";
//  - located(e) is e again, of the same type, with the JSON path of where
//    reading stopped in front of its message (the member field() returned
//    last, or the object it did not find one in), and the innermost
//    aggregation there: "$[0].buckets[1].doc_count (sterms [genres]): ...".
// Objects read without field() (metadata, orders) have strict readers of
// their own. A StrictRead opened while another is open on the thread is
// inert (outermost() false): nested readers share the outermost one.
//
// Example (runs: json_util_strict_read):
//   json doc = json::parse(R"({"doc_count": 3})");
//   StrictRead strict(doc);
//   try {
//     int64_t count = getLong(doc, "doc_count");
//     strict.refuseUnread();  // throws if doc had a member no reader asked for
//   } catch (const StreamError& e) {
//     strict.rethrowLocated(e);  // e with the JSON path where reading stopped
//   }
class StrictRead {
 public:
  explicit StrictRead(const json& document);
  ~StrictRead();
  StrictRead(const StrictRead&) = delete;
  StrictRead& operator=(const StrictRead&) = delete;

  bool outermost() const { return outermost_; }
  void refuseUnread() const;
  [[noreturn]] void rethrowLocated(const StreamError& e) const;

  // Called by field().
  static void noteRead(const json& object, const json* member);

 private:
  const json& document_;
  bool outermost_;
  std::unordered_set<const json*> objects_;  // objects field() looked into
  std::unordered_set<const json*> read_;     // members it returned
  const json* last_object_ = nullptr;
  const json* last_member_ = nullptr;
};

// The byte helpers the JSON forms use (text_util.h).
using text_util::fromHex;
using text_util::isValidUtf8;
using text_util::toHex;
using text_util::toUtf8Lossy;

}  // namespace wirestream::aggregations::json_util
