// The non-template readers and writers of StreamOutput / StreamInput for
// bytes references and named writeables, and the cold throw helpers of the
// templated ones (collections, maps, nesting).
//
// Grammar (wire format §2):
//   bytes reference          := vint length, byte*
//   optional bytes reference := vint 0 | vint (length + 1), byte*
//   named writeable          := string name, body
//   optional X               := bool present [X]
//   collection               := vint count, element*
//   map                      := vint size, (key value)*
// No version gates here.
#include <memory>
#include <stdexcept>

#include "stream/bytes_reference.h"
#include "stream/stream_input.h"
#include "stream/stream_output.h"

namespace wirestream {

// ---- StreamOutput ----

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

}  // namespace wirestream
