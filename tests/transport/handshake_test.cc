// Handshake bodies, TaskId and DiscoveryNode byte for byte. Expected bytes
// follow ES's TaskId.writeTo, TransportHandshaker.HandshakeRequest/Response,
// TransportService.HandshakeResponse, DiscoveryNode and TransportAddress.
#include "transport/handshake.h"

#include <gtest/gtest.h>

#include "stream/bytes_stream_output.h"
#include "stream/errors.h"
#include "tests/stream/test_util.h"
#include "transport/frame.h"
#include "transport/frame_decoder.h"
#include "transport/inbound_message.h"

namespace wirestream::transport {
namespace {

using namespace wirestream::testing;  // tests/stream/test_util.h: bytes, pages, prefixes

template <class T>
std::vector<uint8_t> bytesOf(const T& value, size_t page = 16384) {
  return writeAt(page, [&](StreamOutput& out) { value.writeTo(out); });
}

TEST(TaskId, EmptyIsOneByteAndSetCarriesTheLong) {
  EXPECT_EQ(toHex(bytesOf(TaskId{})), "00");
  EXPECT_EQ(toHex(bytesOf(TaskId{"node1", 5})), "05 6e 6f 64 65 31 00 00 00 00 00 00 00 05");
  for (const std::string& hex : {std::string("00"), std::string("05 6e 6f 64 65 31 00 00 00 00 "
                                                                "00 00 00 05")}) {
    const std::vector<uint8_t> bytes = hexBytes(hex);
    for (size_t page : kPageSizes) {
      readAll(bytes, page,
              [&](StreamInput& in) { EXPECT_EQ(bytesOf(TaskId::readFrom(in)), bytes); });
      expectEveryPrefixFails(bytes, page, [](StreamInput& in) { (void)TaskId::readFrom(in); });
    }
  }
}

struct VersionCase {
  TransportVersion version;
  const char* request;  // after the TaskId
  const char* response;
};

const VersionCase kVersionCases[] = {
    {TransportVersion::fromRelease(7, 17, 0), "04 b3 d0 b5 03", "b3 d0 b5 03"},
    {TransportVersion::V_8_0_0, "04 e3 a4 e8 03", "e3 a4 e8 03"},
    {TransportVersion::V_8_7_0, "04 d3 c7 ec 03", "d3 c7 ec 03"},
};

TEST(TcpHandshake, BodiesAtEachVersion) {
  for (const VersionCase& c : kVersionCases) {
    for (size_t page : kPageSizes) {
      EXPECT_EQ(toHex(bytesOf(TcpHandshakeRequest{c.version}, page)), c.request);
      EXPECT_EQ(toHex(bytesOf(TcpHandshakeResponse{c.version}, page)), c.response);
      readAll(hexBytes(c.request), page, [&](StreamInput& in) {
        EXPECT_EQ(TcpHandshakeRequest::readFrom(in).version, c.version);
      });
      readAll(hexBytes(c.response), page, [&](StreamInput& in) {
        EXPECT_EQ(TcpHandshakeResponse::readFrom(in).version, c.version);
      });
      expectEveryPrefixFails(hexBytes(c.request), page,
                             [](StreamInput& in) { (void)TcpHandshakeRequest::readFrom(in); });
      expectEveryPrefixFails(hexBytes(c.response), page,
                             [](StreamInput& in) { (void)TcpHandshakeResponse::readFrom(in); });
    }
  }
}

// A later version may append fields inside the wrapper; ES reads the version
// and ignores the rest, and so do we.
TEST(TcpHandshake, RequestIgnoresWhatFollowsTheVersionInsideTheWrapper) {
  readAll(hexBytes("06 d3 c7 ec 03 aa bb"), 3, [](StreamInput& in) {
    EXPECT_EQ(TcpHandshakeRequest::readFrom(in).version, TransportVersion::V_8_7_0);
  });
  // An empty wrapper has no version.
  const std::vector<uint8_t> empty = hexBytes("00");
  ByteArrayStreamInput in(empty);
  EXPECT_THROW((void)TcpHandshakeRequest::readFrom(in), EndOfStreamError);
}

// The whole frame an ES 8.7 node sends to open a connection: header version
// 7.17.0 (its minimum compatible), the empty features array before the action
// (below 8.0.0), then TaskId 00 and the wrapped 8.7.0.
TEST(TcpHandshake, RequestFrameAsEs87SendsIt) {
  BytesStreamOutput out;
  writeRequestFrame(out, {1, kV7_17_0, true}, kHandshakeAction, {},
                    BodyOf(TcpHandshakeRequest{TransportVersion::V_8_7_0}),
                    CompressionScheme::kNone);
  const std::string expected =
      "45 53 00 00 00 31 00 00 00 00 00 00 00 01 08 00 6d 68 33 00 00 00 1a "
      "00 00 00 16 69 6e 74 65 72 6e 61 6c 3a 74 63 70 2f 68 61 6e 64 73 68 61 6b 65 "
      "00 04 d3 c7 ec 03";
  EXPECT_EQ(out.bytes().toHex(), expected);

  FrameDecoder decoder(1 << 20);
  std::vector<DecodedFrame> frames;
  decoder.feed(hexBytes(expected), [&](DecodedFrame&& f) { frames.push_back(std::move(f)); });
  ASSERT_EQ(frames.size(), 1u);
  InboundMessage m = InboundMessage::parse(std::move(frames[0]), 1 << 20);
  EXPECT_EQ(m.action, kHandshakeAction);
  EXPECT_FALSE(m.parent_task.isSet());
  EXPECT_EQ(m.body().toHex(), "04 d3 c7 ec 03");
}

// ES answers at the request's header version with its own version in the body.
TEST(TcpHandshake, ResponseFrameAtTheRequestVersion) {
  BytesStreamOutput out;
  writeResponseFrame(out, {1, kV7_17_0, true}, {},
                     BodyOf(TcpHandshakeResponse{TransportVersion::V_8_7_0}),
                     CompressionScheme::kNone);
  EXPECT_EQ(out.bytes().toHex(),
            "45 53 00 00 00 17 00 00 00 00 00 00 00 01 09 00 6d 68 33 00 00 00 02 "
            "00 00 d3 c7 ec 03");
}

TEST(TcpHandshake, UnsupportedVersionMessageIsEsWording) {
  EXPECT_EQ(unsupportedVersionMessage(TransportVersion::V_7_10_0, kV7_17_0),
            "Received message from unsupported version: [7.10.0] minimal compatible version is: "
            "[7.17.0]");
}

DiscoveryNode sampleNode() {
  DiscoveryNode n;
  n.name = "n";
  n.id = "i";
  n.ephemeral_id = "e";
  n.host_name = "h";
  n.host_address = "127.0.0.1";
  n.address = TransportAddress::fromIp("127.0.0.1", 9300);
  n.attributes = {{"zone", "a"}};
  n.roles = {{"data", "d", true}};
  n.version = TransportVersion::V_8_7_0;
  n.external_id = "n";
  return n;
}

const char* kSampleNodeHex =
    "01 6e 01 69 01 65 01 68 09 31 32 37 2e 30 2e 30 2e 31 "     // name, id, eph, host, addr
    "04 7f 00 00 01 09 31 32 37 2e 30 2e 30 2e 31 00 00 24 54 "  // TransportAddress
    "01 04 7a 6f 6e 65 01 61 "                                   // attributes
    "01 04 64 61 74 61 01 64 01 "                                // roles
    "d3 c7 ec 03 "                                               // version
    "01 6e";                                                     // external id (8.3.0)

TEST(DiscoveryNodeBytes, AsEsWritesThem) {
  EXPECT_EQ(toHex(bytesOf(sampleNode())), kSampleNodeHex);
  for (size_t page : kPageSizes) {
    readAll(hexBytes(kSampleNodeHex), page,
            [](StreamInput& in) { EXPECT_EQ(DiscoveryNode::readFrom(in), sampleNode()); });
    expectEveryPrefixFails(hexBytes(kSampleNodeHex), page,
                           [](StreamInput& in) { (void)DiscoveryNode::readFrom(in); });
  }
  EXPECT_EQ(sampleNode().address.toString(), "127.0.0.1:9300");
  EXPECT_EQ(TransportAddress::fromIp("::1", 9300).toString(), "[::1]:9300");
  EXPECT_THROW(TransportAddress::fromIp("localhost", 1), std::invalid_argument);
}

// ES 8.7.1's DiscoveryNode("n1", "id1", "eph1", "host", "127.0.0.1", 127.0.0.1:9300, no
// attributes, no roles, Version.CURRENT).writeTo at 8.7.1 and at 8.2.0, from its jar (the
// interop harness found the external id missing: ES could not read wirestream's handshake).
TEST(DiscoveryNodeBytes, ExternalIdFrom830AsEs871WritesIt) {
  const std::string at_8_2 =
      "02 6e 31 03 69 64 31 04 65 70 68 31 04 68 6f 73 74 09 31 32 37 2e 30 2e 30 2e 31 "
      "04 7f 00 00 01 09 31 32 37 2e 30 2e 30 2e 31 00 00 24 54 00 00 b7 c8 ec 03";
  const std::string at_8_7_1 = at_8_2 + " 02 6e 31";
  DiscoveryNode n;
  n.name = "n1";
  n.id = "id1";
  n.ephemeral_id = "eph1";
  n.host_name = "host";
  n.host_address = "127.0.0.1";
  n.address = TransportAddress::fromIp("127.0.0.1", 9300);
  n.version = TransportVersion(8070199);
  for (auto [version, hex] : {std::pair{TransportVersion(8070199), at_8_7_1},
                              std::pair{TransportVersion::fromRelease(8, 2, 0), at_8_2}}) {
    BytesStreamOutput out;
    out.setTransportVersion(version);
    n.writeTo(out);
    EXPECT_EQ(toHex(out.bytes().toVector()), hex) << version.toString();
    const std::vector<uint8_t> bytes = hexBytes(hex);
    ByteArrayStreamInput in(bytes);
    in.setTransportVersion(version);
    DiscoveryNode back = DiscoveryNode::readFrom(in);
    EXPECT_EQ(back.external_id, version.onOrAfter(kDiscoveryNodeExternalIdVersion) ? "n1" : "");
    EXPECT_EQ(in.available(), 0u);
  }
}

TEST(DiscoveryNodeBytes, AddressLengthOtherThan4Or16IsCorrupt) {
  const std::vector<uint8_t> bytes = hexBytes("05 7f 00 00 01 00 00 00 00 00 00");
  ByteArrayStreamInput in(bytes);
  EXPECT_THROW(TransportAddress::readFrom(in), CorruptStreamError);
}

TEST(TransportHandshake, ResponseAsEs8WritesIt) {
  TransportHandshakeResponse r;
  r.version = TransportVersion::V_8_7_0;
  r.build_hash = "abcd";
  r.node = sampleNode();
  r.cluster_name = "elasticsearch";
  const std::string expected = std::string("d3 c7 ec 03 04 61 62 63 64 ") + kSampleNodeHex +
                               " 0d 65 6c 61 73 74 69 63 73 65 61 72 63 68";
  EXPECT_EQ(toHex(bytesOf(r)), expected);
  for (size_t page : {1, 7, 16384}) {
    readAll(hexBytes(expected), page, [&](StreamInput& in) {
      TransportHandshakeResponse back = TransportHandshakeResponse::readFrom(in);
      EXPECT_EQ(back.version, r.version);
      EXPECT_EQ(back.build_hash, "abcd");
      EXPECT_EQ(back.node, r.node);
      EXPECT_EQ(back.cluster_name, "elasticsearch");
    });
    expectEveryPrefixFails(hexBytes(expected), page,
                           [](StreamInput& in) { (void)TransportHandshakeResponse::readFrom(in); });
  }
}

}  // namespace
}  // namespace wirestream::transport
