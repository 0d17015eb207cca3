// InboundMessage: a decoded frame split into its variable header and body
// (wire format §9), with a compressed body inflated.
//
// Example (runs: inbound_message):
//   #include "transport/zero_copy.h"
//   BytesStreamOutput out;
//   writeRequestFrame(out, {.request_id = 7}, "shard/search", /*headers=*/{}, ByteArrayBody(),
//                     CompressionScheme::kNone);
//   std::vector<uint8_t> bytes = out.bytes().toVector();
//   FrameDecoder decoder(/*max_frame_size=*/1 << 20);
//   decoder.feed(bytes, [](DecodedFrame&& frame) {
//     InboundMessage m = InboundMessage::parse(std::move(frame), /*max_body_size=*/1 << 20);
//     BytesReferenceStreamInput in(m.body());
//     in.setTransportVersion(m.header.version());
//   });
//
// Socket-free, like FrameDecoder. The body is a BytesReference that keeps the
// frame's pages (or the inflated bytes) alive, so a message and copies of its
// body may outlive the decoder. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "stream/bytes_reference.h"
#include "transport/compression.h"
#include "transport/frame.h"
#include "transport/frame_decoder.h"
#include "transport/handshake.h"

namespace wirestream::transport {

class InboundMessage {
 public:
  // Reads the variable header of `frame` (a non-ping frame from FrameDecoder)
  // at the frame's version. Untrusted input: a variable header that does not
  // parse or is not consumed exactly -> CorruptStreamError / EndOfStreamError;
  // a compressed body that does not inflate within `max_body_size` bytes ->
  // CorruptStreamError / LimitExceededError; a request body that does not
  // start with a TaskId -> EndOfStreamError / CorruptStreamError; headers
  // over frame.h's caps -> LimitExceededError. A legacy frame (frame.h) has
  // its variable header measured by reading it. A compressed handshake frame
  // (legacy or not) -> CorruptStreamError before anything is inflated.
  [[nodiscard]] static InboundMessage parse(DecodedFrame&& frame, size_t max_body_size);

  // The action of a request frame from its variable header alone, without
  // touching the body (for a rejection before the body is looked at); "" if
  // the variable header does not parse.
  static std::string peekAction(const DecodedFrame& frame);

  FrameHeader header;
  RequestHeaders request_headers;
  ResponseHeaders response_headers;
  std::string action;  // requests only
  TaskId parent_task;  // requests only: read from the body's start
  // The scheme a compressed body used (kNone when not compressed); ES answers
  // a request in the scheme it came in.
  CompressionScheme compression = CompressionScheme::kNone;

  // The body after the parent TaskId (requests) / the whole body (responses).

  const BytesReference& body() const { return body_; }

 private:
  BytesReference body_;
};

}  // namespace wirestream::transport
