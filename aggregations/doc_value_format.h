// DocValueFormat: how an aggregation formats its keys and values for display.
// On the wire it is a NamedWriteable (wire format §7); the only format is
// `raw` ("raw", no body). Unknown format names are CorruptStreamError
// "Unknown NamedWriteable [DocValueFormat][name]".
//
//   DocValueFormat::raw().writeTo(out);             // 03 72 61 77
//   DocValueFormat f = DocValueFormat::readFrom(in);
//
// A value type; thread-safe.
#pragma once

#include <string_view>

#include "stream/named_writeable_registry.h"
#include "stream/stream_input.h"
#include "stream/stream_output.h"
#include "stream/writeable.h"

namespace wirestream::aggregations {

class DocValueFormat final : public NamedWriteable {
 public:
  static constexpr std::string_view kWriteableCategory = "DocValueFormat";
  static constexpr std::string_view kRawName = "raw";

  static DocValueFormat raw() { return DocValueFormat(); }

  std::string_view getWriteableName() const override { return kRawName; }
  // The body: raw has none. writeNamedWriteable adds the name.
  void writeTo(StreamOutput& out) const override {}

  // Writes the name, then the body (writeNamedWriteable, without the virtual call).
  void writeNamed(StreamOutput& out) const { out.writeString(kRawName); }
  // Reads the name and the body through `registry` (category DocValueFormat).
  static DocValueFormat readFrom(StreamInput& in, const NamedWriteableRegistry& registry);
  // From the name alone (JSON input); CorruptStreamError when unknown.
  static DocValueFormat fromName(std::string_view name);

  bool operator==(const DocValueFormat&) const { return true; }
};

}  // namespace wirestream::aggregations
