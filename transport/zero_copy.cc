#include "transport/zero_copy.h"

#include <memory>
#include <utility>

#include "stream/bytes_stream_output.h"

namespace wirestream::transport {

void writeBytesByReference(StreamOutput& out, const BytesReference& bytes) {
  if (bytes.length() >= kMinReferenceBytes) {
    if (auto* paged = dynamic_cast<BytesStreamOutput*>(&out)) {
      paged->appendReference(bytes);
      return;
    }
  }
  for (BytesReference::Piece piece : bytes.pieces()) out.writeBytes(piece);
}

void writeByteArrayByReference(StreamOutput& out, const BytesReference& bytes) {
  out.writeArraySize(bytes.length());
  writeBytesByReference(out, bytes);
}

void ByteArrayBody::writeTo(StreamOutput& out) const {
  if (by_reference) {
    writeByteArrayByReference(out, bytes);
  } else {
    out.writeBytesReference(bytes);
  }
}

BytesReference releasableReference(std::span<const uint8_t> bytes, std::function<void()> release) {
  // The owner's deleter is the callback: it runs when the last copy goes.
  std::shared_ptr<const void> owner(bytes.data(), [release = std::move(release)](const void*) {
    if (release) release();
  });
  return BytesReference(bytes, std::move(owner));
}

}  // namespace wirestream::transport
