#include "transport/protocol/handshake_exchange.h"

#include <algorithm>
#include <stdexcept>

#include "transport/frame.h"
#include "transport/handshake.h"
#include "transport/remote_exception.h"
#include "transport/transport_errors.h"

namespace wirestream::transport::protocol {

std::shared_ptr<BytesStreamOutput> handshakeRequestFrame(int64_t request_id,
                                                         TransportVersion version,
                                                         TransportVersion minimum_compatible) {
  auto frame = std::make_shared<BytesStreamOutput>();
  const TcpHandshakeRequest request{version};
  writeRequestFrame(*frame,
                    {request_id, handshakeRequestHeaderVersion(version, minimum_compatible), true},
                    kHandshakeAction, {}, BodyOf(request), CompressionScheme::kNone);
  return frame;
}

TransportVersion readHandshakeResponse(StreamInput& in) {
  return TcpHandshakeResponse::readFrom(in).version;
}

TcpHandshakeResponse readHandshakeResponseBody(StreamInput& in) {
  return TcpHandshakeResponse::readFrom(in);
}

TransportVersion agreedVersion(const TcpHandshakeResponse& remote, TransportVersion local,
                               TransportVersion minimum_compatible, const std::string& channel) {
  if (local.before(TransportVersion::V_8_18_0))
    return agreedVersion(remote.version, local, minimum_compatible);
  HandshakeNegotiation n = negotiateHandshakeVersion(local, minimum_compatible, remote.version,
                                                     remote.release_version, channel);
  if (!n.agreed) throw ConnectTransportError(n.refusal);
  return *n.agreed;
}

TransportVersion agreedVersion(TransportVersion remote, TransportVersion local,
                               TransportVersion minimum_compatible) {
  if (remote.before(minimum_compatible)) {
    throw ConnectTransportError(unsupportedVersionMessage(remote, minimum_compatible));
  }
  // The peer's minimum, by ES's rule: an 8.x node takes 7.17.0 and later; a
  // 7.x node takes 6.8.0 and later, older than any version wirestream speaks.
  if (!remote.before(TransportVersion::V_8_0_0) && local.before(kV7_17_0)) {
    throw ConnectTransportError(unsupportedVersionMessage(remote, minimum_compatible));
  }
  return std::min(local, remote);
}

HandshakeAnswer answerHandshake(const InboundMessage& request, const HandshakeIdentity& local) {
  const int64_t id = request.header.request_id;
  // Answers and refusals go out at the request's version, which the peer can
  // read whatever its own version is.
  const TransportVersion request_version = request.header.version();
  BytesReferenceStreamInput in(request.body());
  in.setTransportVersion(request_version);
  HandshakeAnswer answer;
  // ES 8.18 and later close the connection on a handshake header version they
  // do not list, before reading the body and without an answer.
  answer.refusal = handshakeHeaderRefusal(local.version, request_version);
  if (!answer.refusal.empty()) return answer;
  const TcpHandshakeRequest request_body = TcpHandshakeRequest::readFrom(in);
  const TransportVersion remote = request_body.version;
  if (in.available() != 0) throw std::runtime_error("handshake request has unread bytes");
  answer.frame = std::make_shared<BytesStreamOutput>();
  if (local.version.onOrAfter(TransportVersion::V_8_18_0)) {
    // ES 8.18 and later answer the version they settled on (or refuse), with
    // their release string at a V9 header version.
    HandshakeNegotiation n =
        negotiateHandshakeVersion(local.version, local.minimum_compatible, remote,
                                  request_body.release_version, local.peer_address);
    answer.warning = !n.warning.empty() ? n.warning : n.deprecation;
    if (!n.agreed) {
      // ES 8.18+'s InboundHandler answers nothing: it logs "error processing
      // handshake version [...]" with the refusal and closes the channel.
      answer.frame.reset();
      answer.refusal = "error processing handshake version [" +
                       std::to_string(request_version.id()) + "] received on [" +
                       local.peer_address + "], closing channel: " + n.refusal;
      return answer;
    }
    answer.agreed = n.agreed;
    const TcpHandshakeResponse response{*n.agreed, releaseNameOf(local.version)};
    writeResponseFrame(*answer.frame, {id, request_version, true}, {}, BodyOf(response),
                       CompressionScheme::kNone);
    return answer;
  }
  if (remote.before(local.minimum_compatible)) {
    answer.refusal = unsupportedVersionMessage(remote, local.minimum_compatible);
    const auto wrapped = wrapInRemoteTransport(
        local.node_name, local.local_address, std::string(kHandshakeAction),
        exceptionFromTypeAndMessage("illegal_state_exception", answer.refusal));
    writeErrorFrame(*answer.frame, {id, request_version, false}, *wrapped);
    return answer;
  }
  answer.agreed = std::min(local.version, remote);
  const TcpHandshakeResponse response{local.version};
  writeResponseFrame(*answer.frame, {id, request_version, true}, {}, BodyOf(response),
                     CompressionScheme::kNone);
  return answer;
}

}  // namespace wirestream::transport::protocol
