// Metadata: the user's `meta` object an aggregation carries back unchanged.
// Its JSON forms: aggregations/json/metadata_json.h.
//
// Example (runs: metadata):
//   #include <cassert>
//   #include "stream/bytes_stream_output.h"
//   #include "stream/structured/structured_stream.h"
//   Metadata m = GenericValue::ofMap({{"color", "blue"}});
//   BytesStreamOutput out;
//   writeGenericValue(out, m);                   // wire format §3: a map, or null -> FF
//   BytesReferenceStreamInput in(out.bytes());
//   assert(readMetadata(in) == m);               // CorruptStreamError unless map or null
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
