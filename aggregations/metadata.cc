// Metadata is read with readGenericValue (wire format §3) and checked to be a
// map or null; it is written by InternalAggregation::writeTo. Its JSON forms
// are in aggregations/json/metadata_json.h.
#include "aggregations/metadata.h"

#include "stream/errors.h"
#include "stream/structured/structured_stream.h"

namespace wirestream::aggregations {

Metadata readMetadata(StreamInput& in) {
  GenericValue v = readGenericValue(in);
  if (!v.isNull() && !v.isMap()) {
    internal::throwCorrupt("aggregation metadata must be a map or null but was a " +
                           std::string(GenericValue::kindName(v.kind())));
  }
  return v;
}

}  // namespace wirestream::aggregations
