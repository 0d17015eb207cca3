// The transport handshake's two halves as socket-free steps (the bodies are
// in handshake.h; docs/transport.md "Connections, handshake, direction"):
//
// Example (runs: handshake_exchange):
//   TransportVersion local = TransportVersion::current();
//   TransportVersion minimum = TransportVersion::fromRelease(7, 17, 0);
//   auto parse = [](const BytesStreamOutput& frame) {  // what the read loop does
//     std::optional<InboundMessage> m;
//     std::vector<uint8_t> bytes = frame.bytes().toVector();
//     FrameDecoder(/*max_frame_size=*/1 << 20).feed(bytes, [&](DecodedFrame&& f) {
//       m = InboundMessage::parse(std::move(f), /*max_body_size=*/1 << 20);
//     });
//     return std::move(*m);
//   };
//   // connecting side
//   std::shared_ptr<BytesStreamOutput> frame = handshakeRequestFrame(1, local, minimum);
//   // accepting side, on a handshake request frame
//   HandshakeIdentity identity{local, minimum, "node-1", "127.0.0.1:9300"};
//   HandshakeAnswer a = answerHandshake(parse(*frame), identity);
//   // it sends a.frame, then completes at *a.agreed, or closes (a.refusal) after the send
//   // connecting side, when the response arrives
//   InboundMessage response = parse(*a.frame);
//   BytesReferenceStreamInput in(response.body());
//   TransportVersion agreed = agreedVersion(readHandshakeResponse(in), local, minimum);
//
// Versions: the request travels at the sender's minimum compatible version so
// that any compatible peer can read it (a 9.x sender's at V9_HANDSHAKE_VERSION);
// the response and a refusal travel at the request's version; both sides then
// use the lower of the two versions (from 8.18 as ES settles it:
// negotiateHandshakeVersion in handshake.h). A peer older than the minimum
// compatible version is refused: an error response (ES's
// IllegalStateException), then the accepting side closes.
//
// Thread-safety: free functions over their arguments.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "stream/bytes_stream_output.h"
#include "stream/stream_input.h"
#include "stream/transport_version.h"
#include "transport/handshake.h"
#include "transport/inbound_message.h"

namespace wirestream::transport::protocol {

// The connecting side's request frame (status kHandshake, action
// internal:tcp/handshake, body: `version`, and at a V9 header its release
// string), at handshakeRequestHeaderVersion(): `minimum_compatible` up to 8.x,
// V9_HANDSHAKE_VERSION (8800000) for a 9.x `version`.
[[nodiscard]] std::shared_ptr<BytesStreamOutput> handshakeRequestFrame(
    int64_t request_id, TransportVersion version, TransportVersion minimum_compatible);

// Reads a handshake response body: the peer's version.
[[nodiscard]] TransportVersion readHandshakeResponse(StreamInput& in);
// The whole body: the version and, at a V9 header version, the release string.
[[nodiscard]] TcpHandshakeResponse readHandshakeResponseBody(StreamInput& in);

// The version both sides use: the lower of the two; ConnectTransportError
// when the peer's is below `minimum_compatible`, or ours below the peer's own
// minimum (ES's Version.isCompatible holds both ways: a 7.16 node refuses an
// 8.x answer, whose minimum is 7.17.0, though the 8.x node answered it).
[[nodiscard]] TransportVersion agreedVersion(TransportVersion remote, TransportVersion local,
                                             TransportVersion minimum_compatible);
// As ES 8.18 and later settle it (negotiateHandshakeVersion) for a `local`
// from 8.18 on, with ES's "Rejecting unreadable transport handshake" refusal
// as the ConnectTransportError; the 3-argument rule above for older ones.
// `channel` names the connection in the message.
[[nodiscard]] TransportVersion agreedVersion(const TcpHandshakeResponse& remote,
                                             TransportVersion local,
                                             TransportVersion minimum_compatible,
                                             const std::string& channel);

// What the accepting side answers a handshake with.
struct HandshakeIdentity {
  TransportVersion version;
  TransportVersion minimum_compatible;
  // For the RemoteTransportException("[node][address][action]") of a refusal.
  std::string node_name;
  std::string local_address;
  // The peer, for ES 8.18+'s messages ("received on [...]").
  std::string peer_address{};
};

struct HandshakeAnswer {
  // The response, or the refusal; null when the request is refused unanswered:
  // a node offering 8.18 or later closes the connection on every refusal, as
  // ES 8.18+ does (a header version it does not accept, or a version
  // ensureCompatibleVersion refuses).
  std::shared_ptr<BytesStreamOutput> frame;
  std::optional<TransportVersion> agreed;  // unset: refused
  std::string refusal;                     // why, when refused
  // ES's WARN line (a chronologically-newer peer) or 8.19's deprecation warning.
  std::string warning{};
};

// The accepting side's answer to a parsed handshake request. Throws
// CorruptStreamError / EndOfStreamError on a body that does not read, and
// std::runtime_error (the connection's protocol error) on unread bytes.
[[nodiscard]] HandshakeAnswer answerHandshake(const InboundMessage& request,
                                              const HandshakeIdentity& local);

}  // namespace wirestream::transport::protocol
