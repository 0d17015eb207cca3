// Metadata: the user's `meta` object an aggregation carries back unchanged,
// and the JSON forms of generic values used by the renderers.
//
//   Metadata m = GenericValue::ofMap({{"color", "blue"}});
//   writeGenericValue(out, m);                   // wire format §3: a map, or null -> FF
//   Metadata back = readMetadata(in);           // CorruptStreamError unless map or null
//   nlohmann::ordered_json j = genericToTaggedJson(m);   // lossless, for `decode`
//
// Stateless functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include "stream/generic_value.h"
#include "stream/stream_input.h"

namespace wirestream::aggregations {

// A map, or null when the aggregation has none.
using Metadata = GenericValue;

// readGenericValue(), refusing anything but a map or null.
Metadata readMetadata(StreamInput& in);

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
