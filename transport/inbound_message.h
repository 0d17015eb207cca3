// InboundMessage: a decoded frame split into its variable header and body
// (wire format §9), with a compressed body inflated.
//
//   InboundMessage m = InboundMessage::parse(std::move(frame), max_frame_size);
//   ByteArrayStreamInput in(m.body());
//   in.setTransportVersion(m.header.version());
//
// Socket-free, like FrameDecoder. Owns its bytes; body() is valid while the
// message lives. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "transport/frame.h"
#include "transport/frame_decoder.h"

namespace wirestream::transport {

class InboundMessage {
 public:
  // Reads the variable header of `frame` (a non-ping frame from FrameDecoder)
  // at the frame's version. Untrusted input: a variable header that does not
  // parse or is not consumed exactly -> CorruptStreamError / EndOfStreamError;
  // a compressed body that does not inflate within `max_body_size` bytes ->
  // CorruptStreamError / LimitExceededError.
  static InboundMessage parse(DecodedFrame&& frame, size_t max_body_size);

  InboundMessage() = default;
  // body() points into storage_, whose buffer a move keeps; a copy would not.
  InboundMessage(InboundMessage&&) = default;
  InboundMessage& operator=(InboundMessage&&) = default;
  InboundMessage(const InboundMessage&) = delete;
  InboundMessage& operator=(const InboundMessage&) = delete;

  FrameHeader header;
  RequestHeaders request_headers;
  ResponseHeaders response_headers;
  std::string action;  // requests only

  std::span<const uint8_t> body() const { return body_; }

 private:
  std::vector<uint8_t> storage_;
  std::span<const uint8_t> body_;
};

}  // namespace wirestream::transport
