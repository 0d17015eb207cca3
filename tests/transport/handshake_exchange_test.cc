// The handshake's two halves without sockets: the request frame, the
// accepting side's answer or refusal, and the agreed version. The bytes of
// the bodies are checked against ES in handshake_test; these check the frame
// headers ES's TransportHandshaker sets and the decisions.
#include "transport/protocol/handshake_exchange.h"

#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <vector>

#include "transport/frame_decoder.h"
#include "transport/handshake.h"
#include "transport/inbound_message.h"
#include "transport/remote_exception.h"
#include "transport/transport_errors.h"

namespace wirestream::transport::protocol {
namespace {

const TransportVersion kV8_7 = TransportVersion::fromRelease(8, 7, 0);
const TransportVersion kV8_0 = TransportVersion::fromRelease(8, 0, 0);
const TransportVersion kV7_10 = TransportVersion::fromRelease(7, 10, 0);

DecodedFrame decodeOne(const BytesStreamOutput& out) {
  FrameDecoder decoder(1 << 20);
  std::optional<DecodedFrame> frame;
  decoder.feed(out.bytes().toVector(), [&](DecodedFrame&& f) { frame = std::move(f); });
  EXPECT_TRUE(frame.has_value());
  return std::move(*frame);
}

InboundMessage requestFrom(TransportVersion version, TransportVersion minimum) {
  auto frame = handshakeRequestFrame(42, version, minimum);
  return InboundMessage::parse(decodeOne(*frame), 1 << 20);
}

TEST(HandshakeExchange, TheRequestTravelsAtTheMinimumCompatibleVersion) {
  const InboundMessage m = requestFrom(kV8_7, kV7_17_0);
  EXPECT_EQ(m.header.request_id, 42);
  EXPECT_TRUE(m.header.isRequest());
  EXPECT_TRUE(m.header.isHandshake());
  EXPECT_FALSE(m.header.isCompressed());
  EXPECT_EQ(m.header.version(), kV7_17_0);
  EXPECT_EQ(m.action, kHandshakeAction);
  BytesReferenceStreamInput in(m.body());
  in.setTransportVersion(m.header.version());  // as the transport reads it
  EXPECT_EQ(TcpHandshakeRequest::readFrom(in).version, kV8_7);
  EXPECT_EQ(in.available(), 0u);
}

TEST(HandshakeExchange, AnAnswerAgreesOnTheLowerVersionAtTheRequestsVersion) {
  const HandshakeIdentity local{kV8_0, kV7_17_0, "node-a", "127.0.0.1:9300"};
  for (TransportVersion remote : {kV8_7, kV8_0, kV7_17_0}) {
    const HandshakeAnswer a = answerHandshake(requestFrom(remote, kV7_17_0), local);
    ASSERT_TRUE(a.agreed);
    EXPECT_EQ(*a.agreed, std::min(remote, kV8_0));
    EXPECT_TRUE(a.refusal.empty());
    const InboundMessage response = InboundMessage::parse(decodeOne(*a.frame), 1 << 20);
    EXPECT_EQ(response.header.request_id, 42);
    EXPECT_TRUE(response.header.isResponse());
    EXPECT_TRUE(response.header.isHandshake());
    EXPECT_FALSE(response.header.isError());
    EXPECT_EQ(response.header.version(), kV7_17_0);  // the request's
    BytesReferenceStreamInput in(response.body());
    in.setTransportVersion(response.header.version());  // as the transport reads it
    EXPECT_EQ(readHandshakeResponse(in), kV8_0);        // the responder's own version
  }
}

TEST(HandshakeExchange, AnOlderPeerIsRefusedWithAnErrorResponse) {
  const HandshakeIdentity local{kV8_7, kV7_17_0, "node-a", "127.0.0.1:9300"};
  const HandshakeAnswer a = answerHandshake(requestFrom(kV7_10, kV7_10), local);
  EXPECT_FALSE(a.agreed);
  EXPECT_EQ(a.refusal, unsupportedVersionMessage(kV7_10, kV7_17_0));
  const DecodedFrame frame = decodeOne(*a.frame);
  // ES: status response | error, never handshake; at the request's version.
  EXPECT_TRUE(frame.header.isResponse());
  EXPECT_TRUE(frame.header.isError());
  EXPECT_FALSE(frame.header.isHandshake());
  EXPECT_EQ(frame.header.version(), kV7_10);
  const InboundMessage m = InboundMessage::parse(DecodedFrame(frame), 1 << 20);
  BytesReferenceStreamInput in(m.body());
  in.setTransportVersion(kV7_10);
  const std::shared_ptr<const RemoteException> e = readException(in);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->type, "remote_transport_exception");
  EXPECT_EQ(e->messageOrEmpty(), "[node-a][127.0.0.1:9300][internal:tcp/handshake]");
  ASSERT_TRUE(e->cause);
  EXPECT_EQ(e->cause->type, "illegal_state_exception");
  EXPECT_EQ(e->cause->messageOrEmpty(), a.refusal);
}

TEST(HandshakeExchange, TheConnectingSideChecksTheAnswer) {
  EXPECT_EQ(agreedVersion(kV8_7, kV8_0, kV7_17_0), kV8_0);
  EXPECT_EQ(agreedVersion(kV7_17_0, kV8_7, kV7_17_0), kV7_17_0);
  EXPECT_THROW((void)agreedVersion(kV7_10, kV8_7, kV7_17_0), ConnectTransportError);
  // Our version below the peer's own minimum: ES 8.7.1 answers a 7.16.0 handshake (its
  // decoder is lenient for handshakes) and leaves the refusal to the connecting side, as
  // the real-ES harness showed; a 7.x peer takes any version wirestream speaks.
  const TransportVersion v7_16 = TransportVersion::fromRelease(7, 16, 0);
  EXPECT_THROW((void)agreedVersion(TransportVersion(8070199), v7_16, v7_16), ConnectTransportError);
  EXPECT_THROW((void)agreedVersion(kV8_0, kV7_10, kV7_10), ConnectTransportError);
  EXPECT_EQ(agreedVersion(TransportVersion(7172999), kV7_10, kV7_10), kV7_10);
}

TEST(HandshakeExchange, UnreadBytesInTheRequestAreAProtocolError) {
  auto frame = std::make_shared<BytesStreamOutput>();
  struct Padded final : Writeable {
    void writeTo(StreamOutput& out) const override {
      TcpHandshakeRequest{kV8_7}.writeTo(out);
      out.writeByte(0);
    }
  };
  writeRequestFrame(*frame, {1, kV7_17_0, true}, kHandshakeAction, {}, Padded(),
                    CompressionScheme::kNone);
  const InboundMessage m = InboundMessage::parse(decodeOne(*frame), 1 << 20);
  EXPECT_THROW(answerHandshake(m, {kV8_7, kV7_17_0, "n", "a"}), std::runtime_error);
}

}  // namespace
}  // namespace wirestream::transport::protocol

namespace wirestream::transport::protocol {
namespace {

// What ES 7.17.29 sends when it opens a connection (captured from its Netty4
// transport by the interop harness): the handshake request at 6.8.0, whose
// fixed header has no variable-header size (19 bytes), and what ES 7.17.29
// itself answers that request with (again 19 header bytes, at 6.8.0).
const char* kEs717Request =
    "45530000002d000000000000000108005cc66300000016696e7465726e616c3a7463702f68616e647368616b"
    "65000487e7b503";
const char* kEs717AnswerHeader = "455300000013000000000000000109005cc6630000";

std::vector<uint8_t> fromHex(const std::string& hex) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

TEST(HandshakeExchange, AnEs7HandshakeRequestWithoutHeaderSizeIsAnsweredAsEs7Does) {
  for (size_t slice : {1, 7, 1000}) {
    FrameDecoder decoder(1 << 20);
    std::optional<DecodedFrame> frame;
    const std::vector<uint8_t> bytes = fromHex(kEs717Request);
    for (size_t at = 0; at < bytes.size(); at += slice) {
      decoder.feed(std::span(bytes).subspan(at, std::min(slice, bytes.size() - at)),
                   [&](DecodedFrame&& f) { frame = std::move(f); });
    }
    ASSERT_TRUE(frame.has_value());
    EXPECT_TRUE(frame->header.legacy);
    const InboundMessage m = InboundMessage::parse(std::move(*frame), 1 << 20);
    EXPECT_EQ(m.action, kHandshakeAction);
    EXPECT_EQ(m.header.version(), TransportVersion::fromRelease(6, 8, 0));
    BytesReferenceStreamInput in(m.body());
    in.setTransportVersion(m.header.version());  // as the transport reads it
    EXPECT_EQ(TcpHandshakeRequest::readFrom(in).version, TransportVersion(7172999));

    const HandshakeIdentity local{kV8_7, kV7_17_0, "node-a", "127.0.0.1:9300"};
    const HandshakeAnswer a = answerHandshake(m, local);
    ASSERT_TRUE(a.agreed);
    EXPECT_EQ(*a.agreed, TransportVersion(7172999));
    // ES 7.17.29's own answer, with wirestream's version (8.7.0, d3 c7 ec 03) for ES's.
    std::string hex;
    for (uint8_t b : a.frame->bytes().toVector()) {
      static const char* d = "0123456789abcdef";
      hex += d[b >> 4];
      hex += d[b & 15];
    }
    EXPECT_EQ(hex, std::string(kEs717AnswerHeader) + "d3c7ec03");
  }
}

// A node offering 7.17.29 sends its handshake at 6.8.0 too, and ES 7.17.29 answers with its
// 19-byte header and its own version, 7172999 (87 e7 b5 03): the real-ES harness's
// coordinator check found this answer refused, as if only requests could come so.
TEST(HandshakeExchange, AnEs7AnswerWithoutHeaderSizeIsRead) {
  const TransportVersion v7_17_29(7172999);
  const auto request = handshakeRequestFrame(1, v7_17_29, TransportVersion::fromRelease(6, 8, 0));
  EXPECT_EQ(request->bytes().toVector(), fromHex(kEs717Request));
  for (size_t slice : {1, 5, 1000}) {
    FrameDecoder decoder(1 << 20);
    std::optional<DecodedFrame> frame;
    const std::vector<uint8_t> bytes = fromHex(std::string(kEs717AnswerHeader) + "87e7b503");
    for (size_t at = 0; at < bytes.size(); at += slice) {
      decoder.feed(std::span(bytes).subspan(at, std::min(slice, bytes.size() - at)),
                   [&](DecodedFrame&& f) { frame = std::move(f); });
    }
    ASSERT_TRUE(frame.has_value());
    EXPECT_TRUE(frame->header.legacy);
    const InboundMessage m = InboundMessage::parse(std::move(*frame), 1 << 20);
    EXPECT_FALSE(m.header.isRequest());
    EXPECT_TRUE(m.header.isHandshake());
    BytesReferenceStreamInput in(m.body());
    in.setTransportVersion(m.header.version());
    const TcpHandshakeResponse body = readHandshakeResponseBody(in);
    EXPECT_EQ(body.version, v7_17_29);
    EXPECT_EQ(in.available(), 0u);
    EXPECT_EQ(agreedVersion(body, v7_17_29, TransportVersion::fromRelease(6, 8, 0), "peer"),
              v7_17_29);
  }
}

TEST(HandshakeExchange, AFrameWithoutHeaderSizeIsRefusedUnlessAHandshake) {
  // The same bytes with the handshake bit cleared: a plain request, and a plain answer, at
  // 6.8.0.
  for (uint8_t status : {0x00, 0x01}) {
    std::vector<uint8_t> bytes = fromHex(kEs717Request);
    bytes[14] = status;
    FrameDecoder decoder(1 << 20);
    EXPECT_THROW(decoder.feed(bytes, [](DecodedFrame&&) {}), CorruptStreamError);
  }
}

// ES 9.x's TransportHandshaker.sendHandshake sends at V9_HANDSHAKE_VERSION (8800000), and
// its HandshakeRequest holds the release string there; 8.19's sends at
// V8_HANDSHAKE_VERSION (7170099, with the pre-8.0 features array) without it.
TEST(HandshakeExchange, Es9RequestsTravelAtTheV9HandshakeVersionWithTheRelease) {
  const TransportVersion v95(9458007), v819(8841096);
  InboundMessage m = requestFrom(v95, kV8_19FirstVersion);
  EXPECT_EQ(m.header.version(), kV9HandshakeVersion);
  BytesReferenceStreamInput in(m.body());
  in.setTransportVersion(m.header.version());
  TcpHandshakeRequest r = TcpHandshakeRequest::readFrom(in);
  EXPECT_EQ(r.version, v95);
  EXPECT_EQ(r.release_version, "9.5.3");
  m = requestFrom(v819, kV7_17_0);
  EXPECT_EQ(m.header.version(), kV8HandshakeVersion);
}

// ES 8.19 answering a 9.x request: the version it settled on (its own, the lower) and
// its release string, at the request's header version 8800000.
TEST(HandshakeExchange, Es819AnswersTheSettledVersionWithItsRelease) {
  const TransportVersion v95(9458007), v819(8841096);
  const HandshakeIdentity local{v819, kV7_17_0, "node-a", "127.0.0.1:9300", "peer"};
  const HandshakeAnswer a = answerHandshake(requestFrom(v95, kV8_19FirstVersion), local);
  ASSERT_TRUE(a.agreed);
  EXPECT_EQ(*a.agreed, v819);
  const InboundMessage response = InboundMessage::parse(decodeOne(*a.frame), 1 << 20);
  EXPECT_EQ(response.header.version(), kV9HandshakeVersion);
  BytesReferenceStreamInput in(response.body());
  in.setTransportVersion(response.header.version());
  const TcpHandshakeResponse body = readHandshakeResponseBody(in);
  EXPECT_EQ(body.version, v819);
  EXPECT_EQ(body.release_version, "8.19.21");
  EXPECT_EQ(in.available(), 0u);
  EXPECT_EQ(agreedVersion(body, v95, kV8_19FirstVersion, "peer"), v819);

  // 9.5.3 answering 8.19.21 (header 7170099): the peer's version, no release string.
  const HandshakeIdentity nine{v95, kV8_19FirstVersion, "node-b", "127.0.0.1:9300", "peer"};
  const HandshakeAnswer b = answerHandshake(requestFrom(v819, kV7_17_0), nine);
  ASSERT_TRUE(b.agreed);
  EXPECT_EQ(*b.agreed, v819);
  const InboundMessage r2 = InboundMessage::parse(decodeOne(*b.frame), 1 << 20);
  EXPECT_EQ(r2.header.version(), kV8HandshakeVersion);
  EXPECT_EQ(r2.body().toHex(), "88 cf 9b 04");
}

// ES 9.1+ refuses 8.18 (below 8841000) with ensureCompatibleVersion's
// IllegalStateException, which its InboundHandler logs ("error processing handshake
// version [...] received on [...], closing channel") and answers by closing the channel
// (the real-ES harness saw it close); and a handshake header version outside
// ALLOWED_HANDSHAKE_VERSIONS (6080099 for 9.x) unanswered, as InboundDecoder does.
TEST(HandshakeExchange, Es9RefusesEs818AndA7xHeader) {
  const TransportVersion v95(9458007), v818(8840011);
  const HandshakeIdentity nine{v95, kV8_19FirstVersion, "node-b", "127.0.0.1:9300", "peer"};
  const HandshakeAnswer a = answerHandshake(requestFrom(v818, kV7_17_0), nine);
  EXPECT_FALSE(a.agreed);
  EXPECT_EQ(a.refusal,
            "error processing handshake version [7170099] received on [peer], closing channel: "
            "Rejecting unreadable transport handshake from remote node with version "
            "[8.18.8/8840011] received on [peer] since this node has version [9.5.3/9458007] "
            "which has an incompatible wire format.");
  EXPECT_FALSE(a.frame);

  const HandshakeAnswer b =
      answerHandshake(requestFrom(TransportVersion(7172999), kV7HandshakeVersion), nine);
  EXPECT_FALSE(b.agreed);
  EXPECT_FALSE(b.frame);
  EXPECT_EQ(b.refusal,
            "Received message from unsupported version: [6080099] allowed versions are: "
            "[7170099, 8800000]");
  // The connecting side refuses the same way (an answer below its minimum).
  EXPECT_THROW(
      (void)agreedVersion(TcpHandshakeResponse{v818, "8.18.8"}, v95, kV8_19FirstVersion, "peer"),
      ConnectTransportError);
}

}  // namespace
}  // namespace wirestream::transport::protocol
