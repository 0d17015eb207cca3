// Large byte ranges into a frame by reference: the frame's iovec points at the
// caller's bytes instead of a copy of them in the frame's pages (ES composes
// its outputs of ReleasableBytesReference pieces for the same reason).
//
// Example (runs: zero_copy):
//   #include <cstdlib>
//   #include "stream/bytes_stream_output.h"
//   struct Chunk final : Writeable {
//     BytesReference data;  // made with an owner, or releasableReference()
//     void writeTo(StreamOutput& out) const override {
//       writeByteArrayByReference(out, data);  // VInt length + the bytes
//     }
//   };
//   auto* buf = static_cast<uint8_t*>(std::calloc(1, kMinReferenceBytes));
//   Chunk chunk;
//   chunk.data = releasableReference({buf, kMinReferenceBytes}, [buf] { std::free(buf); });
//   BytesStreamOutput out;
//   chunk.writeTo(out);  // `buf` is a piece of out.bytes(), freed once out lets go of it
//   // or as a whole message: channel->sendResponse(ByteArrayBody(chunk.data))
//
// The bytes on the wire are exactly those of out.writeBytesReference(data).
// A range goes by reference when `out` is a BytesStreamOutput (every frame
// the transport builds is one) and it has at least kMinReferenceBytes; else
// it is copied, as when the body is compressed (the compressor reads it).
//
// Lifetime: the output keeps a copy of the BytesReference, so its owner, until
// the output is reset or destroyed; a transport frame is destroyed once the
// kernel has taken all of its bytes, or when its connection is destroyed
// after closing. A release callback therefore runs exactly once, on whichever
// thread drops the last copy (an I/O thread, or the sender's). The bytes must
// not change until then. A BytesReference without an owner (a view, such as
// BytesStreamOutput::bytes()) gives no such guarantee: its storage must then
// outlive the send, which a caller answering from a handler cannot know, so
// give large bodies an owner.
//
// Thread-safety: free functions; `out` is used by one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <utility>

#include "stream/bytes_reference.h"
#include "stream/stream_output.h"
#include "stream/writeable.h"

namespace wirestream::transport {

// Below this a copy costs less than an iovec and a reference count.
inline constexpr size_t kMinReferenceBytes = 16 * 1024;

// The bytes of `bytes` with no length prefix.
void writeBytesByReference(StreamOutput& out, const BytesReference& bytes);

// A byte array (VInt length, then the bytes), as StreamOutput::writeBytesReference.
void writeByteArrayByReference(StreamOutput& out, const BytesReference& bytes);

// A message that is one byte array, written by reference, or copied
// (writeBytesReference) when `by_reference` is false: the same bytes either way.
struct ByteArrayBody final : Writeable {
  BytesReference bytes;
  bool by_reference = true;
  ByteArrayBody() = default;
  explicit ByteArrayBody(BytesReference b, bool by_ref = true)
      : bytes(std::move(b)), by_reference(by_ref) {}
  void writeTo(StreamOutput& out) const override;
};

// A reference to caller-owned bytes that calls `release` once no output or
// copy of the reference holds them any more. `release` must not throw.
BytesReference releasableReference(std::span<const uint8_t> bytes, std::function<void()> release);

}  // namespace wirestream::transport
