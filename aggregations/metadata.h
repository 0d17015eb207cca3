// Metadata: the user's `meta` object an aggregation carries back unchanged.
// Its JSON forms: aggregations/json/metadata_json.h.
//
//   Metadata m = GenericValue::ofMap({{"color", "blue"}});
//   writeGenericValue(out, m);                   // wire format §3: a map, or null -> FF
//   Metadata back = readMetadata(in);           // CorruptStreamError unless map or null
//
// Stateless functions; thread-safe.
#pragma once

#include "stream/stream_input.h"
#include "stream/structured/generic_value.h"

namespace wirestream::aggregations {

// A map, or null when the aggregation has none.
using Metadata = GenericValue;

// readGenericValue(), refusing anything but a map or null.
Metadata readMetadata(StreamInput& in);

}  // namespace wirestream::aggregations
