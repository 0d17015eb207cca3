// The JSON forms of generic values (metadata and any value inside it) that
// the renderers use: lossless tagged JSON for `wirestream decode` / `encode`,
// and the plain JSON of an ES response.
//
// Example (runs: metadata_json):
//   #include <cassert>
//   GenericValue m = GenericValue::ofMap({{"color", "blue"}});
//   nlohmann::ordered_json j = genericToTaggedJson(m);
//   assert(j.dump() == R"({"map":[["color","blue"]]})");
//   assert(genericFromTaggedJson(j) == m);                // CorruptStreamError if malformed
//   nlohmann::ordered_json plain = genericToPlainJson(m);
//   assert(plain.dump() == R"({"color":"blue"})");
//
// Stateless functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include "stream/structured/generic_value.h"

namespace wirestream::aggregations {

// Lossless JSON of a generic value: null, strings and booleans as themselves,
// every other kind as {"<kind name>": payload}, e.g. {"long": 2},
// {"map": [[key, value], ...]}, {"byte array": "<hex>"}, {"double": "NaN"},
// {"zoned date time": [epoch millis, "Europe/Paris"]} (and "joda date time"),
// {"big integer": "-123"}, {"offset time": [nano of day, "+05:30"]}.
nlohmann::ordered_json genericToTaggedJson(const GenericValue& v);
// The reverse; CorruptStreamError on anything else.
GenericValue genericFromTaggedJson(const nlohmann::ordered_json& j);

// Plain JSON as in an ES response: numbers, arrays, objects (keys as strings).
// Date-times as epoch millis (as dates), offset times as "09:30+05:30", big
// integers as numbers, or as their decimal string beyond 64 bits.
nlohmann::ordered_json genericToPlainJson(const GenericValue& v);

}  // namespace wirestream::aggregations
