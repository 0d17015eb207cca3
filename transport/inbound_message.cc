// Reads the variable header and body of frame.cc's grammar; see there.
#include "transport/inbound_message.h"

#include <memory>
#include <vector>

#include "stream/errors.h"
#include "stream/stream_input.h"
#include "transport/compression.h"

namespace wirestream::transport {

namespace {

// A legacy frame (frame.h) has no variable-header size: the variable header
// is as long as reading it takes. Handshakes only (FrameDecoder admits no other):
// a request's has the thread context, features and action, a response's the context.
size_t legacyVariableSize(const FrameHeader& h, const BytesReference& content) {
  BytesReferenceStreamInput in(content);
  in.setTransportVersion(h.version());
  RequestHeaders request_headers;
  ResponseHeaders response_headers;
  readThreadContext(in, request_headers, response_headers);
  if (h.isRequest()) {
    (void)in.readStringArray();  // features
    (void)in.readString();       // action
  }
  return content.length() - in.available();
}

}  // namespace

std::string InboundMessage::peekAction(const DecodedFrame& frame) {
  if (!frame.header.isRequest()) return "";
  size_t variable_size = static_cast<size_t>(frame.header.variable_header_size);
  try {
    if (frame.header.legacy) variable_size = legacyVariableSize(frame.header, frame.content);
  } catch (const StreamError&) {
    return "";
  }
  if (variable_size > frame.content.length()) return "";
  try {
    BytesReferenceStreamInput in(frame.content.slice(0, variable_size));
    in.setTransportVersion(frame.header.version());
    RequestHeaders request_headers;
    ResponseHeaders response_headers;
    readThreadContext(in, request_headers, response_headers);
    if (frame.header.version().before(TransportVersion::V_8_0_0)) (void)in.readStringArray();
    return in.readString();
  } catch (const StreamError&) {
    return "";
  }
}

InboundMessage InboundMessage::parse(DecodedFrame&& frame, size_t max_body_size) {
  InboundMessage m;
  m.header = frame.header;
  const BytesReference content = std::move(frame.content);
  // ES never compresses a handshake; refusing one before inflating its body
  // keeps a peer that has not handshaken from spending the node's CPU.
  if ((m.header.isHandshake() || m.header.legacy) && m.header.isCompressed()) {
    internal::throwCorrupt("a compressed handshake frame (request id [" +
                           std::to_string(m.header.request_id) + "]) at version " +
                           m.header.version().toString());
  }
  if (m.header.legacy) {
    m.header.variable_header_size = static_cast<int32_t>(legacyVariableSize(m.header, content));
  }
  const size_t variable_size = static_cast<size_t>(m.header.variable_header_size);
  // FrameDecoder guarantees this; a hand-built frame may not.
  if (variable_size > content.length()) {
    internal::throwCorrupt("variable header size " + std::to_string(variable_size) +
                           " is larger than the frame content of " +
                           std::to_string(content.length()) + " bytes");
  }
  BytesReferenceStreamInput in(content.slice(0, variable_size));
  in.setTransportVersion(m.header.version());
  readThreadContext(in, m.request_headers, m.response_headers);
  if (m.header.isRequest()) {
    if (m.header.version().before(TransportVersion::V_8_0_0)) (void)in.readStringArray();
    m.action = in.readString();
  }
  if (in.available() != 0) {
    internal::throwCorrupt("variable header of request id [" + std::to_string(m.header.request_id) +
                           "] has " + std::to_string(in.available()) + " unread bytes");
  }
  BytesReference body = content.slice(variable_size, content.length() - variable_size);
  if (m.header.isCompressed()) {
    const std::vector<uint8_t> packed = body.toVector();
    auto plain = std::make_shared<std::vector<uint8_t>>(
        decompressBody(packed, max_body_size, &m.compression));
    BytesReference::Piece piece(plain->data(), plain->size());
    m.body_ = BytesReference(piece, std::move(plain));
  } else {
    m.body_ = std::move(body);
  }
  if (m.header.isRequest()) {
    BytesReferenceStreamInput body_in(m.body_);
    body_in.setTransportVersion(m.header.version());
    m.parent_task = TaskId::readFrom(body_in);
    const size_t prefix = m.body_.length() - body_in.available();
    m.body_ = m.body_.slice(prefix, m.body_.length() - prefix);
  }
  return m;
}

}  // namespace wirestream::transport
