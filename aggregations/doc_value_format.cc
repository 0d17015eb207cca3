// DocValueFormat on the wire (wire format §7):
//   format := string name ("raw"), then the body of that format (raw: none)
#include "aggregations/doc_value_format.h"

#include <string>

namespace wirestream::aggregations {

DocValueFormat DocValueFormat::fromName(std::string_view name) {
  if (name != kRawName) {
    internal::throwCorrupt("Unknown NamedWriteable [DocValueFormat][" + std::string(name) + "]");
  }
  return raw();
}

DocValueFormat DocValueFormat::readFrom(StreamInput& in, const NamedWriteableRegistry& registry) {
  return *in.readNamedWriteable<DocValueFormat>(registry);
}

}  // namespace wirestream::aggregations
