// Writeable and NamedWriteable: the interfaces of everything that serializes
// itself onto a StreamOutput.
//
// Example (runs: writeable):
//   #include "stream/bytes_stream_output.h"
//   struct Ping : Writeable {
//     int64_t id = 0;
//     void writeTo(StreamOutput& out) const override { out.writeVLong(id); }
//   };
//   Ping ping;
//   ping.id = 7;
//   BytesStreamOutput out;
//   ping.writeTo(out);  // 07
//
// A NamedWriteable is a Writeable that travels with its name so a reader can
// pick the right class from a NamedWriteableRegistry: writeNamedWriteable
// writes writeString(getWriteableName()) and then the body. As in
// Elasticsearch, the writeable name is the *type* ("sterms"); classes that
// also have a user-given name (aggregations) call that one getName().
#pragma once

#include <string_view>

namespace wirestream {

class StreamOutput;

class Writeable {
 public:
  virtual ~Writeable() = default;
  virtual void writeTo(StreamOutput& out) const = 0;
};

class NamedWriteable : public Writeable {
 public:
  // The name this type is registered under, e.g. "sterms" or "raw".
  virtual std::string_view getWriteableName() const = 0;
  // Same as getWriteableName().
  std::string_view name() const { return getWriteableName(); }
};

}  // namespace wirestream
