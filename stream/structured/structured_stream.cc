// The readers and writers of structured_stream.h that are not templates:
// time values, instants, and the cold helpers of the enum and named
// writeable templates.
//
// Grammar (wire format §2):
//   time value      := zlong duration, byte unit (0 nanos .. 6 days)
//   instant         := long epoch_seconds, int nanos (0..999,999,999)
//   named writeable := string name, body
//   optional X      := bool present [X]
//   enum            := vint ordinal
//   enum set        := vint count, ordinal*
// No version gates here.
#include "stream/structured/structured_stream.h"

#include <stdexcept>

namespace wirestream {

namespace internal {

void throwUnknownOrdinal(std::string_view enum_name, int64_t ordinal) {
  throwCorrupt("Unknown " + std::string(enum_name) + " ordinal [" + std::to_string(ordinal) + "]");
}

void throwBadEnumValue(std::string_view enum_name, int64_t value) {
  throwInvalidArgument("writeEnum: " + std::string(enum_name) + " has no ordinal [" +
                       std::to_string(value) + "]");
}

void throwDuplicateOrdinal(std::string_view enum_name, int64_t ordinal) {
  throwCorrupt("duplicate " + std::string(enum_name) + " ordinal [" + std::to_string(ordinal) +
               "] in enum set");
}

const NamedWriteableRegistry& requireRegistry(const StreamInput& in,
                                              std::string (*category_name)()) {
  const NamedWriteableRegistry* registry = in.namedWriteableRegistry();
  if (registry == nullptr) {
    throwInvalidArgument("can't read named writeable [" + category_name() +
                         "] from a StreamInput without a NamedWriteableRegistry: call "
                         "setNamedWriteableRegistry() or pass the registry");
  }
  return *registry;
}

}  // namespace internal

void writeTimeValue(StreamOutput& out, const TimeValue& value) {
  out.writeZLong(value.duration());
  out.writeByte(static_cast<uint8_t>(value.timeUnit()));
}

void writeOptionalTimeValue(StreamOutput& out, const std::optional<TimeValue>& value) {
  out.writeBoolean(value.has_value());
  if (value) writeTimeValue(out, *value);
}

void writeInstant(StreamOutput& out, const Instant& value) {
  if (!value.valid()) {
    internal::throwInvalidArgument("writeInstant: not a valid Instant [" +
                                   std::to_string(value.epoch_seconds) + "s, " +
                                   std::to_string(value.nanos) + "ns]");
  }
  out.writeLong(value.epoch_seconds);
  out.writeInt(value.nanos);
}

void writeOptionalInstant(StreamOutput& out, const std::optional<Instant>& value) {
  out.writeBoolean(value.has_value());
  if (value) writeInstant(out, *value);
}

TimeValue readTimeValue(StreamInput& in) {
  int64_t duration = in.readZLong();
  uint8_t unit = in.readByte();
  if (unit >= WireEnumTraits<TimeUnit>::kCount) {
    internal::throwUnknownOrdinal(WireEnumTraits<TimeUnit>::kName, unit);
  }
  if (duration < -1) {
    internal::throwCorrupt("duration cannot be negative, was given [" + std::to_string(duration) +
                           "]");
  }
  return TimeValue(duration, static_cast<TimeUnit>(unit));
}

std::optional<TimeValue> readOptionalTimeValue(StreamInput& in) {
  if (!in.readBoolean()) return std::nullopt;
  return readTimeValue(in);
}

Instant readInstant(StreamInput& in) {
  Instant value{in.readLong(), 0};
  value.nanos = in.readInt();
  if (!value.valid()) {
    internal::throwCorrupt("Invalid Instant [" + std::to_string(value.epoch_seconds) + "s, " +
                           std::to_string(value.nanos) + "ns]");
  }
  return value;
}

std::optional<Instant> readOptionalInstant(StreamInput& in) {
  if (!in.readBoolean()) return std::nullopt;
  return readInstant(in);
}

}  // namespace wirestream
