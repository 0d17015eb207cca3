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

// The bytes pinned below are ES 8.7's (and 7.17's, 8.0's): written and read at
// the version they travel at, never at TransportVersion::current().
template <class T>
std::vector<uint8_t> bytesOf(const T& value, size_t page = 16384,
                             TransportVersion version = TransportVersion::V_8_7_0) {
  return writeAt(
      page, [&](StreamOutput& out) { value.writeTo(out); }, version);
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
      EXPECT_EQ(toHex(bytesOf(TcpHandshakeRequest{c.version}, page, c.version)), c.request);
      EXPECT_EQ(toHex(bytesOf(TcpHandshakeResponse{c.version}, page, c.version)), c.response);
      readAll(
          hexBytes(c.request), page,
          [&](StreamInput& in) { EXPECT_EQ(TcpHandshakeRequest::readFrom(in).version, c.version); },
          c.version);
      readAll(
          hexBytes(c.response), page,
          [&](StreamInput& in) {
            EXPECT_EQ(TcpHandshakeResponse::readFrom(in).version, c.version);
          },
          c.version);
      expectEveryPrefixFails(
          hexBytes(c.request), page,
          [](StreamInput& in) { (void)TcpHandshakeRequest::readFrom(in); }, c.version);
      expectEveryPrefixFails(
          hexBytes(c.response), page,
          [](StreamInput& in) { (void)TcpHandshakeResponse::readFrom(in); }, c.version);
    }
  }
}

// A later version may append fields inside the wrapper; ES reads the version
// and ignores the rest, and so do we.
TEST(TcpHandshake, RequestIgnoresWhatFollowsTheVersionInsideTheWrapper) {
  readAll(
      hexBytes("06 d3 c7 ec 03 aa bb"), 3,
      [](StreamInput& in) {
        EXPECT_EQ(TcpHandshakeRequest::readFrom(in).version, TransportVersion::V_8_7_0);
      },
      TransportVersion::V_8_7_0);
  // An empty wrapper has no version.
  const std::vector<uint8_t> empty = hexBytes("00");
  ByteArrayStreamInput in(empty);
  in.setTransportVersion(TransportVersion::V_8_7_0);
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
    readAll(
        hexBytes(kSampleNodeHex), page,
        [](StreamInput& in) { EXPECT_EQ(DiscoveryNode::readFrom(in), sampleNode()); },
        TransportVersion::V_8_7_0);
    expectEveryPrefixFails(
        hexBytes(kSampleNodeHex), page, [](StreamInput& in) { (void)DiscoveryNode::readFrom(in); },
        TransportVersion::V_8_7_0);
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
    readAll(
        hexBytes(expected), page,
        [&](StreamInput& in) {
          TransportHandshakeResponse back = TransportHandshakeResponse::readFrom(in);
          EXPECT_EQ(back.version, r.version);
          EXPECT_EQ(back.build_hash, "abcd");
          EXPECT_EQ(back.node, r.node);
          EXPECT_EQ(back.cluster_name, "elasticsearch");
        },
        TransportVersion::V_8_7_0);
    expectEveryPrefixFails(
        hexBytes(expected), page,
        [](StreamInput& in) { (void)TransportHandshakeResponse::readFrom(in); },
        TransportVersion::V_8_7_0);
  }
}

// ES 8.19.21's and 9.5.3's TransportHandshaker.HandshakeRequest / HandshakeResponse,
// (TransportVersion.current(), Build.current().version()) written at the two header
// versions they send (V8_HANDSHAKE_VERSION 7170099, V9_HANDSHAKE_VERSION 8800000) by
// each jar; the request after its TaskId (00). From 8800000 the release string follows
// the id, inside the request's wrapper.
struct ReleaseCase {
  TransportVersion version;
  const char* release;
  TransportVersion header;
  const char* request;
  const char* response;
};

const ReleaseCase kReleaseCases[] = {
    {TransportVersion(8841096), "8.19.21", kV8HandshakeVersion, "04 88 cf 9b 04", "88 cf 9b 04"},
    {TransportVersion(8841096), "8.19.21", kV9HandshakeVersion,
     "0c 88 cf 9b 04 07 38 2e 31 39 2e 32 31", "88 cf 9b 04 07 38 2e 31 39 2e 32 31"},
    {TransportVersion(9458007), "9.5.3", kV8HandshakeVersion, "04 d7 a2 c1 04", "d7 a2 c1 04"},
    {TransportVersion(9458007), "9.5.3", kV9HandshakeVersion, "0a d7 a2 c1 04 05 39 2e 35 2e 33",
     "d7 a2 c1 04 05 39 2e 35 2e 33"},
};

TEST(TcpHandshake, BodiesAsEs819AndEs95WriteThem) {
  for (const ReleaseCase& c : kReleaseCases) {
    const bool nine = c.header.onOrAfter(kV9HandshakeVersion);
    for (size_t page : kPageSizes) {
      auto write = [&](const auto& body) {
        return toHex(writeAt(page, [&](StreamOutput& out) {
          out.setTransportVersion(c.header);
          body.writeTo(out);
        }));
      };
      // The release string comes from the table's name for the id, or is given.
      EXPECT_EQ(write(TcpHandshakeRequest{c.version}), c.request);
      EXPECT_EQ(write(TcpHandshakeRequest{c.version, c.release}), c.request);
      EXPECT_EQ(write(TcpHandshakeResponse{c.version}), c.response);
      readAll(
          hexBytes(c.request), page,
          [&](StreamInput& in) {
            TcpHandshakeRequest r = TcpHandshakeRequest::readFrom(in);
            EXPECT_EQ(r.version, c.version);
            EXPECT_EQ(r.release_version, nine ? c.release : "");
          },
          c.header);
      readAll(
          hexBytes(c.response), page,
          [&](StreamInput& in) {
            TcpHandshakeResponse r = TcpHandshakeResponse::readFrom(in);
            EXPECT_EQ(r.version, c.version);
            EXPECT_EQ(r.release_version, nine ? c.release : "");
          },
          c.header);
    }
  }
}

// ES 8.19.21's DiscoveryNode("n1", "id1", "eph1", "host", "127.0.0.1", 127.0.0.1:9300,
// no attributes, no roles, VersionInformation.CURRENT, "n1").writeTo at 8070199 (Version
// alone), V_8_10_X 8500061 (+ min and max IndexVersion) and V_8_18_0 8840000 (+ the
// read-only minimum), and ES 9.5.3's at its own version, from the jars.
TEST(DiscoveryNodeBytes, VersionInformationAsEs819AndEs95WriteIt) {
  const std::string head =
      "02 6e 31 03 69 64 31 04 65 70 68 31 04 68 6f 73 74 09 31 32 37 2e 30 2e 30 2e 31 "
      "04 7f 00 00 01 09 31 32 37 2e 30 2e 30 2e 31 00 00 24 54 00 00 ";
  struct Case {
    TransportVersion node;  // the release the node is
    TransportVersion stream;
    std::string hex;
  };
  const Case cases[] = {
      {TransportVersion(8841096), TransportVersion(8070199), head + "c7 81 f4 03 02 6e 31"},
      {TransportVersion(8841096), TransportVersion::V_8_10_X,
       head + "c7 81 f4 03 a3 a0 ab 03 a8 87 89 04 02 6e 31"},
      {TransportVersion(8841096), TransportVersion::V_8_18_0,
       head + "c7 81 f4 03 a3 a0 ab 03 a3 a0 ab 03 a8 87 89 04 02 6e 31"},
      {TransportVersion(8841096), TransportVersion(8841096),
       head + "c7 81 f4 03 a3 a0 ab 03 a3 a0 ab 03 a8 87 89 04 02 6e 31"},
      {TransportVersion(9458007), TransportVersion(9458007),
       head + "9f b2 a8 04 e3 a4 e8 03 a3 a0 ab 03 d8 8b ac 04 02 6e 31"},
  };
  for (const Case& c : cases) {
    DiscoveryNode n;
    n.name = "n1";
    n.id = "id1";
    n.ephemeral_id = "eph1";
    n.host_name = "host";
    n.host_address = "127.0.0.1";
    n.address = TransportAddress::fromIp("127.0.0.1", 9300);
    n.version = TransportVersion(releaseVersionIdOf(c.node));
    const IndexVersions index = indexVersionsOf(c.node);
    n.min_index_version = index.min_compatible;
    n.min_read_only_index_version = index.min_read_only;
    n.max_index_version = index.max;
    n.external_id = "n1";
    BytesStreamOutput out;
    out.setTransportVersion(c.stream);
    n.writeTo(out);
    EXPECT_EQ(toHex(out.bytes().toVector()), c.hex) << c.stream.toString();
    const std::vector<uint8_t> bytes = hexBytes(c.hex);
    for (size_t page : kPageSizes) {
      readAll(
          bytes, page,
          [&](StreamInput& in) {
            DiscoveryNode back = DiscoveryNode::readFrom(in);
            EXPECT_EQ(back.version, n.version);
            EXPECT_EQ(back.max_index_version,
                      c.stream.onOrAfter(TransportVersion::V_8_10_X) ? index.max : 0);
            EXPECT_EQ(back.min_read_only_index_version,
                      c.stream.onOrAfter(TransportVersion::V_8_18_0) ? index.min_read_only : 0);
            EXPECT_EQ(back.external_id, "n1");
          },
          c.stream);
      expectEveryPrefixFails(
          bytes, page, [](StreamInput& in) { (void)DiscoveryNode::readFrom(in); }, c.stream);
    }
  }
}

// ES 9.5.3's TransportService.HandshakeResponse(Version.CURRENT, "abcd", the node above,
// ClusterName("c")) at its own version: the Version is the release's (9.5.3: 9050399).
TEST(TransportHandshake, ResponseAsEs95WritesIt) {
  TransportHandshakeResponse r;
  const TransportVersion v(9458007);
  r.version = TransportVersion(releaseVersionIdOf(v));
  r.build_hash = "abcd";
  r.node.name = "n1";
  r.node.id = "id1";
  r.node.ephemeral_id = "eph1";
  r.node.host_name = "host";
  r.node.host_address = "127.0.0.1";
  r.node.address = TransportAddress::fromIp("127.0.0.1", 9300);
  r.node.version = r.version;
  const IndexVersions index = indexVersionsOf(v);
  r.node.min_index_version = index.min_compatible;
  r.node.min_read_only_index_version = index.min_read_only;
  r.node.max_index_version = index.max;
  r.cluster_name = "c";
  BytesStreamOutput out;
  out.setTransportVersion(v);
  r.writeTo(out);
  EXPECT_EQ(toHex(out.bytes().toVector()),
            "9f b2 a8 04 04 61 62 63 64 02 6e 31 03 69 64 31 04 65 70 68 31 04 68 6f 73 74 09 31 "
            "32 37 2e 30 2e 30 2e 31 04 7f 00 00 01 09 31 32 37 2e 30 2e 30 2e 31 00 00 24 54 00 "
            "00 9f b2 a8 04 e3 a4 e8 03 a3 a0 ab 03 d8 8b ac 04 02 6e 31 01 63");
}

// Version.CURRENT.id and minimumCompatible() of each jar (8.19.21: 8192199, 7170099;
// 9.5.3: 9050399, 8841000), and the release table's names.
TEST(ReleaseVersions, VersionIdsAndMinimumsFollowTheRelease) {
  EXPECT_EQ(releaseVersionIdOf(TransportVersion(8841096)), 8192199);
  EXPECT_EQ(releaseVersionIdOf(TransportVersion(9458007)), 9050399);
  EXPECT_EQ(releaseVersionIdOf(TransportVersion(9000009)), 9000099);
  EXPECT_EQ(releaseVersionIdOf(TransportVersion::V_8_7_0), 8070099);
  EXPECT_EQ(releaseVersionIdOf(TransportVersion(9458008)), 9050399);  // no release's: the row below
  EXPECT_EQ(releaseNameOf(TransportVersion(9458007)), "9.5.3");
  EXPECT_EQ(minimumCompatibleFor(TransportVersion(9458007)), kV8_19FirstVersion);
  EXPECT_EQ(minimumCompatibleFor(TransportVersion(9000009)), TransportVersion(8825000));
  EXPECT_EQ(minimumCompatibleFor(TransportVersion(8841096)), kV7_17_0);
  EXPECT_EQ(minimumCompatibleFor(TransportVersion::V_8_7_0), kV7_17_0);
  EXPECT_EQ(minimumCompatibleFor(TransportVersion(7172999)), kV7HandshakeVersion);
  EXPECT_EQ(handshakeRequestHeaderVersion(TransportVersion(9458007), kV8_19FirstVersion),
            kV9HandshakeVersion);
  EXPECT_EQ(handshakeRequestHeaderVersion(TransportVersion(8841096), kV7_17_0),
            kV8HandshakeVersion);
  EXPECT_EQ(handshakeRequestHeaderVersion(TransportVersion::V_8_7_0, kV7_17_0), kV7_17_0);
}

// TransportHandshaker.ensureCompatibleVersion of 8.19.21 and 9.5.3 (javap), and
// InboundDecoder.checkHandshakeVersionCompatibility's ALLOWED_HANDSHAKE_VERSIONS.
TEST(HandshakeNegotiation, AsEs819AndEs95SettleOrRefuse) {
  const TransportVersion v95(9458007), v819(8841096), v818(8840011);
  // A newer peer: this node's own.
  HandshakeNegotiation n = negotiateHandshakeVersion(v819, kV7_17_0, v95, "9.5.3", "ch");
  EXPECT_EQ(n.agreed, v819);
  EXPECT_EQ(n.warning, "");
  // An older known peer: the peer's.
  n = negotiateHandshakeVersion(v95, kV8_19FirstVersion, v819, "8.19.21", "ch");
  EXPECT_EQ(n.agreed, v819);
  EXPECT_EQ(n.warning, "");
  EXPECT_EQ(n.deprecation, "");
  // 9.1+ refuses 8.18.
  n = negotiateHandshakeVersion(v95, kV8_19FirstVersion, v818, "8.18.8", "ch");
  EXPECT_FALSE(n.agreed);
  EXPECT_EQ(n.refusal,
            "Rejecting unreadable transport handshake from remote node with version "
            "[8.18.8/8840011] received on [ch] since this node has version [9.5.3/9458007] which "
            "has an incompatible wire format.");
  // 8.19 accepts 8.18 and 8.7 with its deprecation warning.
  n = negotiateHandshakeVersion(v819, kV7_17_0, TransportVersion::V_8_7_0, "", "ch");
  EXPECT_EQ(n.agreed, TransportVersion::V_8_7_0);
  EXPECT_EQ(n.deprecation,
            "Performed a handshake with a remote node with version [8.7.0/8070099] received on "
            "[ch] which will be incompatible after this node on version [8.19.21/8841096] is "
            "upgraded to >= 9.1.");
  // An unknown id below this node's (a later 8.19 patch): the newest known below it.
  n = negotiateHandshakeVersion(v95, kV8_19FirstVersion, TransportVersion(8841097), "8.19.22",
                                "ch");
  EXPECT_EQ(n.agreed, v819);
  EXPECT_NE(n.warning.find("[8.19.22/8841097] received on [ch] which appears to be from a "
                           "chronologically-newer release with a numerically-older version"),
            std::string::npos)
      << n.warning;
  EXPECT_NE(n.warning.find("Falling back to transport protocol version [8841096]."),
            std::string::npos);
  // Nothing known between the minimum and the peer's id: unreadable.
  n = negotiateHandshakeVersion(v95, kV8_19FirstVersion, TransportVersion(8841001), "x", "ch");
  EXPECT_FALSE(n.agreed);

  EXPECT_EQ(handshakeHeaderRefusal(v95, kV7HandshakeVersion),
            "Received message from unsupported version: [6080099] allowed versions are: "
            "[7170099, 8800000]");
  EXPECT_EQ(handshakeHeaderRefusal(v95, kV8HandshakeVersion), "");
  EXPECT_EQ(handshakeHeaderRefusal(v95, kV9HandshakeVersion), "");
  EXPECT_EQ(handshakeHeaderRefusal(v819, kV7HandshakeVersion), "");
  EXPECT_EQ(handshakeHeaderRefusal(v819, TransportVersion(8841096)),
            "Received message from unsupported version: [8841096] allowed versions are: "
            "[6080099, 7170099, 8800000]");
  EXPECT_EQ(handshakeHeaderRefusal(TransportVersion::V_8_7_0, TransportVersion(8070099)), "");
}

}  // namespace
}  // namespace wirestream::transport
