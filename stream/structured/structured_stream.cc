// The structured readers and writers of StreamOutput / StreamInput that are
// not templates: bytes references, time values, instants, named writeables,
// and the cold throw helpers of the templated ones (collections, maps, enums).
//
// Grammar (wire format §2):
//   bytes reference          := vint length, byte*
//   optional bytes reference := vint 0 | vint (length + 1), byte*
//   time value               := zlong duration, byte unit (0 nanos .. 6 days)
//   instant                  := long epoch_seconds, int nanos (0..999,999,999)
//   named writeable          := string name, body
//   optional X               := bool present [X]
//   collection               := vint count, element*
//   map                      := vint size, (key value)*
//   enum                     := vint ordinal      enum set := vint count,
//   ordinal*
// No version gates here.
#include <memory>
#include <stdexcept>

#include "stream/bytes_reference.h"
#include "stream/stream_input.h"
#include "stream/stream_output.h"

namespace wirestream {

namespace internal {

void throwUnknownOrdinal(std::string_view enum_name, int64_t ordinal) {
  throwCorrupt("Unknown " + std::string(enum_name) + " ordinal [" + std::to_string(ordinal) + "]");
}

}  // namespace internal

// ---- StreamOutput ----

void StreamOutput::throwBadEnumValue(std::string_view enum_name, int64_t value) {
  internal::throwInvalidArgument("writeEnum: " + std::string(enum_name) + " has no ordinal [" +
                                 std::to_string(value) + "]");
}

void StreamOutput::throwNullElement() {
  internal::throwInvalidArgument("writeCollection: null element");
}

void StreamOutput::writeBytesReference(const BytesReference& ref) {
  writeArraySize(ref.length());
  for (BytesReference::Piece piece : ref.pieces()) writeBytes(piece);
}

void StreamOutput::writeOptionalBytesReference(const std::optional<BytesReference>& ref) {
  if (!ref) {
    writeVInt(0);
    return;
  }
  writeArraySize(ref->length() + 1);
  for (BytesReference::Piece piece : ref->pieces()) writeBytes(piece);
}

void StreamOutput::writeTimeValue(const TimeValue& value) {
  writeZLong(value.duration());
  writeByte(static_cast<uint8_t>(value.timeUnit()));
}

void StreamOutput::writeOptionalTimeValue(const std::optional<TimeValue>& value) {
  writeBoolean(value.has_value());
  if (value) writeTimeValue(*value);
}

void StreamOutput::writeInstant(const Instant& value) {
  if (!value.valid()) {
    internal::throwInvalidArgument("writeInstant: not a valid Instant [" +
                                   std::to_string(value.epoch_seconds) + "s, " +
                                   std::to_string(value.nanos) + "ns]");
  }
  writeLong(value.epoch_seconds);
  writeInt(value.nanos);
}

void StreamOutput::writeOptionalInstant(const std::optional<Instant>& value) {
  writeBoolean(value.has_value());
  if (value) writeInstant(*value);
}

void StreamOutput::writeNamedWriteable(const NamedWriteable& value) {
  writeString(value.getWriteableName());
  value.writeTo(*this);
}

void StreamOutput::writeOptionalNamedWriteable(const NamedWriteable* value) {
  writeBoolean(value != nullptr);
  if (value != nullptr) writeNamedWriteable(*value);
}

// ---- StreamInput ----

void StreamInput::throwTooDeep() const {
  internal::throwLimitExceeded("nesting depth [" + std::to_string(nesting_depth_ + 1) +
                               "] exceeds the limit of [" + std::to_string(max_nesting_depth_) +
                               "]");
}

void StreamInput::throwDuplicateKey(int32_t index) {
  internal::throwCorrupt("duplicate map key at entry [" + std::to_string(index) + "]");
}

void StreamInput::throwDuplicateOrdinal(std::string_view name, int64_t ordinal) {
  internal::throwCorrupt("duplicate " + std::string(name) + " ordinal [" + std::to_string(ordinal) +
                         "] in enum set");
}

const NamedWriteableRegistry& StreamInput::requireRegistry(std::string (*category_name)()) const {
  if (registry_ == nullptr) {
    internal::throwInvalidArgument("can't read named writeable [" + category_name() +
                                   "] from a StreamInput without a NamedWriteableRegistry: call "
                                   "setNamedWriteableRegistry() or pass the registry");
  }
  return *registry_;
}

namespace {

// `n` bytes from `in` into a BytesReference that owns them; n was validated
// against the bytes left, so the allocation is bounded by the input.
BytesReference readOwnedBytes(StreamInput& in, size_t n) {
  if (n == 0) return BytesReference();
  auto storage = std::make_shared<std::vector<uint8_t>>(n);
  in.readBytes(*storage);
  BytesReference::Piece piece(storage->data(), storage->size());
  return BytesReference(piece, std::move(storage));
}

}  // namespace

BytesReference StreamInput::readBytesReference() {
  return readOwnedBytes(*this, static_cast<size_t>(readArraySize()));
}

std::optional<BytesReference> StreamInput::readOptionalBytesReference() {
  // VInt length + 1: readArraySize() would demand one byte too many.
  int32_t n = readVInt();
  if (n == 0) return std::nullopt;
  if (n < 0) {
    internal::throwCorrupt("array size must be positive but was: " + std::to_string(n));
  }
  auto length = static_cast<size_t>(n) - 1;
  if (length > static_cast<size_t>(maxArraySize())) {
    internal::throwLimitExceeded("array size " + std::to_string(length) +
                                 " is above the limit of " + std::to_string(maxArraySize()));
  }
  if (available() < length) internal::throwEndOfStream(length, available());
  return readOwnedBytes(*this, length);
}

TimeValue StreamInput::readTimeValue() {
  int64_t duration = readZLong();
  uint8_t unit = readByte();
  if (unit >= WireEnumTraits<TimeUnit>::kCount) {
    internal::throwUnknownOrdinal(WireEnumTraits<TimeUnit>::kName, unit);
  }
  if (duration < -1) {
    internal::throwCorrupt("duration cannot be negative, was given [" + std::to_string(duration) +
                           "]");
  }
  return TimeValue(duration, static_cast<TimeUnit>(unit));
}

std::optional<TimeValue> StreamInput::readOptionalTimeValue() {
  if (!readBoolean()) return std::nullopt;
  return readTimeValue();
}

Instant StreamInput::readInstant() {
  Instant value{readLong(), 0};
  value.nanos = readInt();
  if (!value.valid()) {
    internal::throwCorrupt("Invalid Instant [" + std::to_string(value.epoch_seconds) + "s, " +
                           std::to_string(value.nanos) + "ns]");
  }
  return value;
}

std::optional<Instant> StreamInput::readOptionalInstant() {
  if (!readBoolean()) return std::nullopt;
  return readInstant();
}

}  // namespace wirestream
