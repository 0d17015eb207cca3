// Frames byte for byte (wire format §9), the variable header at both sides of
// the 8.0.0 gate, and LZ4 bodies.
#include "transport/frame.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "stream/bytes_stream_output.h"
#include "stream/errors.h"
#include "tests/transport/frame_bytes.h"
#include "transport/compression.h"
#include "transport/frame_decoder.h"
#include "transport/inbound_message.h"
#include "transport/remote_exception.h"

namespace wirestream::transport {
namespace {

using testing::RawBody;

std::string hexOf(BytesStreamOutput& out) { return out.bytes().toHex(); }

TEST(Frame, PingBytes) {
  EXPECT_EQ(BytesReference::copyOf(kPingFrame).toHex(), "45 53 ff ff ff ff");
}

TEST(Frame, RequestFrameBytes) {
  BytesStreamOutput out;
  size_t n = writeRequestFrame(out, {1, TransportVersion::V_8_7_0, false}, "a", {}, RawBody({0x05}),
                               CompressionScheme::kNone);
  // The body starts with the parent TaskId, 00 = none (ES's TransportRequest).
  EXPECT_EQ(n, 29u);
  EXPECT_EQ(hexOf(out),
            "45 53 00 00 00 17 00 00 00 00 00 00 00 01 00 00 7b 23 d3 00 00 00 04 "
            "00 00 01 61 00 05");
}

TEST(Frame, RequestFrameBefore800CarriesEmptyFeatures) {
  BytesStreamOutput out;
  writeRequestFrame(out, {1, TransportVersion::V_7_10_0, false}, "a", {}, RawBody({0x05}),
                    CompressionScheme::kNone);
  EXPECT_EQ(hexOf(out),
            "45 53 00 00 00 18 00 00 00 00 00 00 00 01 00 00 6c 56 c3 00 00 00 05 "
            "00 00 00 01 61 00 05");
}

TEST(Frame, RequestHeadersAndHandshakeBit) {
  BytesStreamOutput out;
  writeRequestFrame(out, {0x0102030405060708, TransportVersion::V_8_7_0, true}, "a", {{"k", "v"}},
                    RawBody({}), CompressionScheme::kNone);
  EXPECT_EQ(hexOf(out),
            "45 53 00 00 00 1a 01 02 03 04 05 06 07 08 08 00 7b 23 d3 00 00 00 08 "
            "01 01 6b 01 76 00 01 61 00");
}

TEST(Frame, ResponseFrameBytes) {
  BytesStreamOutput out;
  writeResponseFrame(out, {1, TransportVersion::V_8_7_0, false}, {{"w", {"x", "y"}}},
                     RawBody({0x05}), CompressionScheme::kNone);
  EXPECT_EQ(hexOf(out),
            "45 53 00 00 00 1b 00 00 00 00 00 00 00 01 01 00 7b 23 d3 00 00 00 09 "
            "00 01 01 77 02 01 78 01 79 05");
}

// ES's OutboundHandler.sendErrorResponse: status 03, the exception in a
// RemoteTransportException (103) named after node, address and action.
TEST(Frame, ErrorFrameBytes) {
  BytesStreamOutput out;
  writeErrorFrame(
      out, {1, TransportVersion::V_8_7_0, true},
      *wrapInRemoteTransport("n", "1.2.3.4:5", "a", exceptionFromTypeAndMessage("exception", "m")));
  EXPECT_EQ(hexOf(out),
            "45 53 00 00 00 38 00 00 00 00 00 00 00 01 03 00 7b 23 d3 00 00 00 02 "
            "00 00 01 00 67 01 11 5b 6e 5d 5b 31 2e 32 2e 33 2e 34 3a 35 5d 5b 61 5d "
            "01 00 44 01 01 6d 00 00 00 00 00 00 00 00 00");
}

// A frame whose body spans many pages is the same bytes whatever the page
// size; its header is filled in after the body.
TEST(Frame, HeaderFilledInAcrossPageSizes) {
  std::vector<uint8_t> body(1000);
  for (size_t i = 0; i < body.size(); ++i) body[i] = static_cast<uint8_t>(i * 7);
  BytesStreamOutput reference;
  writeRequestFrame(reference, {42, TransportVersion::V_8_7_0, false}, "act", {}, RawBody(body),
                    CompressionScheme::kNone);
  for (size_t page : {1, 2, 3, 5, 7, 13, 32, 1024, 16384}) {
    PageRecycler recycler(page);
    BytesStreamOutput out(recycler);
    writeRequestFrame(out, {42, TransportVersion::V_8_7_0, false}, "act", {}, RawBody(body),
                      CompressionScheme::kNone);
    EXPECT_EQ(out.bytes(), reference.bytes()) << "page size " << page;
  }
}

InboundMessage decodeOne(BytesStreamOutput& out) {
  FrameDecoder decoder(1 << 30);
  std::vector<DecodedFrame> frames;
  std::vector<uint8_t> bytes = out.bytes().toVector();
  decoder.feed(bytes, [&](DecodedFrame&& f) { frames.push_back(std::move(f)); });
  EXPECT_EQ(frames.size(), 1u);
  return InboundMessage::parse(std::move(frames.at(0)), 1 << 30);
}

TEST(Frame, RequestRoundTripAtBothSidesOfTheGate) {
  for (TransportVersion v : {TransportVersion::V_7_10_0, TransportVersion::V_8_7_0}) {
    BytesStreamOutput out;
    writeRequestFrame(out, {9, v, false}, "indices:data/read/search",
                      {{"a", "1"}, {"\xC3\xA9", ""}}, RawBody({1, 2, 3}), CompressionScheme::kNone);
    InboundMessage m = decodeOne(out);
    EXPECT_EQ(m.header.request_id, 9);
    EXPECT_EQ(m.header.version(), v);
    EXPECT_EQ(m.action, "indices:data/read/search");
    EXPECT_EQ(m.request_headers, (RequestHeaders{{"a", "1"}, {"\xC3\xA9", ""}}));
    EXPECT_EQ(m.body().toVector(), (std::vector<uint8_t>{1, 2, 3}));
  }
}

TEST(Frame, CompressedBodyRoundTrip) {
  std::mt19937 rng(7);
  // Compressible like real responses: 64-byte words from a small vocabulary.
  std::vector<std::vector<uint8_t>> words(16, std::vector<uint8_t>(64));
  for (auto& w : words)
    for (auto& b : w) b = static_cast<uint8_t>(rng());
  std::vector<uint8_t> body;
  while (body.size() < 300000) {
    const auto& w = words[rng() % words.size()];
    body.insert(body.end(), w.begin(), w.end());
  }
  BytesStreamOutput out;
  size_t size = writeResponseFrame(out, {3, TransportVersion::V_8_7_0, false}, {}, RawBody(body),
                                   CompressionScheme::kLz4);
  EXPECT_LT(size, body.size() / 2);
  EXPECT_EQ(out.bytes()[14], status::kResponse | status::kCompressed);
  // The variable header stays plain; the body starts with ES's LZ4 marker.
  EXPECT_EQ(out.bytes().slice(23, 6).toHex(), "00 00 4c 5a 34 00");
  InboundMessage m = decodeOne(out);
  EXPECT_EQ(m.body().toVector(), body);
  EXPECT_EQ(m.compression, CompressionScheme::kLz4);
}

// ES reads the headers into HashMaps (ThreadContext.readHeadersFromStream):
// a repeated key keeps the last value, and a response header's values are a
// set.
TEST(InboundMessage, RepeatedHeaderKeyKeepsTheLast) {
  // Request headers {"k": "v", "k": "w"}, hand-written: no writer makes them.
  std::vector<uint8_t> var = {0x02, 0x01, 'k', 0x01, 'v', 0x01, 'k', 0x01, 'w', 0x00, 0x01, 'a'};
  FrameHeader h;
  h.length = static_cast<int32_t>(kMinFrameLength + var.size() + 1);
  h.request_id = 1;
  h.version_id = TransportVersion::current().id();
  h.variable_header_size = static_cast<int32_t>(var.size());
  std::vector<uint8_t> content = var;
  content.push_back(0x00);  // the body: the empty parent TaskId
  DecodedFrame frame;
  frame.header = h;
  frame.content = BytesReference::copyOf(content);
  InboundMessage m = InboundMessage::parse(std::move(frame), 1 << 20);
  EXPECT_EQ(m.request_headers, (RequestHeaders{{"k", "w"}}));
  EXPECT_EQ(m.action, "a");
  EXPECT_EQ(m.body().length(), 0u);

  // Response headers {"r": ["x", "y", "x"], "s": [], "r": ["z", "z"]}.
  std::vector<uint8_t> resp = {0x00, 0x03, 0x01, 'r',  0x03, 0x01, 'x',  0x01, 'y',  0x01, 'x',
                               0x01, 's',  0x00, 0x01, 'r',  0x02, 0x01, 'z',  0x01, 'z'};
  FrameHeader rh = h;
  rh.status = status::kResponse;
  rh.length = static_cast<int32_t>(kMinFrameLength + resp.size());
  rh.variable_header_size = static_cast<int32_t>(resp.size());
  DecodedFrame response;
  response.header = rh;
  response.content = BytesReference::copyOf(resp);
  InboundMessage r = InboundMessage::parse(std::move(response), 1 << 20);
  EXPECT_EQ(r.response_headers, (ResponseHeaders{{"r", {"z"}}, {"s", {}}}));
}

// A header's repeated values collapse to their first occurrences, in order,
// against a plain reference (std::find per value) on random values.
TEST(InboundMessage, RepeatedHeaderValuesKeepTheFirstInOrder) {
  const uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  std::vector<std::string> values;
  for (int i = 0; i < 3000; ++i) values.push_back("w" + std::to_string(rng() % 400));
  std::vector<std::string> expected;
  for (const std::string& v : values) {
    if (std::find(expected.begin(), expected.end(), v) == expected.end()) expected.push_back(v);
  }
  BytesStreamOutput out;
  writeResponseFrame(out, {1, TransportVersion::V_8_7_0, false}, {{"Warning", values}}, RawBody({}),
                     CompressionScheme::kNone);
  EXPECT_EQ(decodeOne(out).response_headers.at("Warning"), expected);
}

// One frame of many header values cost time quadratic in their number (a
// 0.84 MB frame held the I/O thread 22.5 s): the count is capped, and the
// reader stops at the first string over it.
TEST(InboundMessage, HeaderStringsOverTheCapAreRefusedAtOnce) {
  std::vector<std::string> values;
  for (int i = 0; i < 200000; ++i) values.push_back(std::to_string(i));
  BytesStreamOutput out;
  writeResponseFrame(out, {1, TransportVersion::V_8_7_0, false}, {{"Warning", values}}, RawBody({}),
                     CompressionScheme::kNone);
  const auto start = std::chrono::steady_clock::now();
  try {
    decodeOne(out);
    FAIL() << "200000 header values were read";
  } catch (const LimitExceededError& e) {
    EXPECT_NE(std::string(e.what()).find("more than 4096 header strings"), std::string::npos)
        << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));

  // At the cap exactly: one key and 4095 values are read.
  values.resize(kMaxThreadContextEntries - 1);
  BytesStreamOutput ok;
  writeResponseFrame(ok, {1, TransportVersion::V_8_7_0, false}, {{"Warning", values}}, RawBody({}),
                     CompressionScheme::kNone);
  EXPECT_EQ(decodeOne(ok).response_headers.at("Warning").size(), kMaxThreadContextEntries - 1);
}

TEST(InboundMessage, HeaderBytesOverTheCapAreRefused) {
  const std::string big(400 * 1024, 'x');
  BytesStreamOutput out;
  writeRequestFrame(out, {1, TransportVersion::V_8_7_0, false}, "a",
                    {{"a", big}, {"b", big}, {"c", big}}, RawBody({}), CompressionScheme::kNone);
  try {
    decodeOne(out);
    FAIL() << "1.2 MB of headers were read";
  } catch (const LimitExceededError& e) {
    EXPECT_NE(std::string(e.what()).find("more than 1048576"), std::string::npos) << e.what();
  }
}

// ES never compresses a handshake; one that comes compressed is refused
// before its body is inflated.
TEST(InboundMessage, CompressedHandshakeIsRefusedBeforeInflating) {
  BytesStreamOutput out;
  writeRequestFrame(out, {1, TransportVersion::V_8_7_0, true}, kHandshakeAction, {},
                    RawBody(std::vector<uint8_t>(1 << 20)), CompressionScheme::kDeflate);
  try {
    decodeOne(out);
    FAIL() << "a compressed handshake was read";
  } catch (const CorruptStreamError& e) {
    EXPECT_NE(std::string(e.what()).find("compressed handshake frame"), std::string::npos)
        << e.what();
  }
}

TEST(InboundMessage, VariableHeaderMustBeConsumedExactly) {
  BytesStreamOutput out;
  writeResponseFrame(out, {1, TransportVersion::V_8_7_0, false}, {}, RawBody({5}),
                     CompressionScheme::kNone);
  std::vector<uint8_t> bytes = out.bytes().toVector();
  bytes[22] = 3;  // variable header claims the body byte too
  FrameDecoder decoder(1 << 20);
  std::vector<DecodedFrame> frames;
  decoder.feed(bytes, [&](DecodedFrame&& f) { frames.push_back(std::move(f)); });
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_THROW(InboundMessage::parse(std::move(frames[0]), 1 << 20), CorruptStreamError);
}

}  // namespace
}  // namespace wirestream::transport
