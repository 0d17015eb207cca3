// Reads the variable header and body of frame.cc's grammar; see there.
#include "transport/inbound_message.h"

#include "stream/errors.h"
#include "stream/stream_input.h"
#include "transport/compression.h"

namespace wirestream::transport {

InboundMessage InboundMessage::parse(DecodedFrame&& frame, size_t max_body_size) {
  InboundMessage m;
  m.header = frame.header;
  m.storage_ = std::move(frame.content);
  const size_t variable_size = static_cast<size_t>(m.header.variable_header_size);
  // FrameDecoder guarantees this; a hand-built frame may not.
  if (variable_size > m.storage_.size()) {
    internal::throwCorrupt("variable header size " + std::to_string(variable_size) +
                           " is larger than the frame content of " +
                           std::to_string(m.storage_.size()) + " bytes");
  }
  ByteArrayStreamInput in(std::span<const uint8_t>(m.storage_.data(), variable_size));
  in.setTransportVersion(m.header.version());
  readThreadContext(in, m.request_headers, m.response_headers);
  if (m.header.isRequest()) {
    if (m.header.version().before(TransportVersion::V_8_0_0)) in.readStringArray();
    m.action = in.readString();
  }
  if (in.available() != 0) {
    internal::throwCorrupt("variable header of request id [" +
                           std::to_string(m.header.request_id) + "] has " +
                           std::to_string(in.available()) + " unread bytes");
  }
  std::span<const uint8_t> body(m.storage_.data() + variable_size,
                                m.storage_.size() - variable_size);
  if (m.header.isCompressed()) {
    std::vector<uint8_t> plain = decompressLz4(body, max_body_size);
    m.storage_ = std::move(plain);
    m.body_ = m.storage_;
  } else {
    m.body_ = body;
  }
  return m;
}

}  // namespace wirestream::transport
