// ReadLoop without a socket: bytes are "received" into the buffers it asks
// for, in slices of many sizes; checks where reads land (a large frame's
// pages, the probe read after one), the routing and protocol rules, the node
// budget's admission, the read deadline's decisions and the close reasons.
#include "transport/protocol/read_loop.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "stream/bytes_stream_output.h"
#include "stream/errors.h"
#include "transport/frame.h"

namespace wirestream::transport::protocol {
namespace {

const TransportVersion kV8_7 = TransportVersion::fromRelease(8, 7, 0);
const TransportVersion kV8_0 = TransportVersion::fromRelease(8, 0, 0);

struct Body final : Writeable {
  std::vector<uint8_t> bytes;
  void writeTo(StreamOutput& out) const override { out.writeByteArray(bytes); }
};

Body bodyOf(size_t n) {
  Body b;
  b.bytes.resize(n);
  for (size_t i = 0; i < n; ++i) b.bytes[i] = static_cast<uint8_t>(i * 31 + 5);
  return b;
}

std::vector<uint8_t> request(int64_t id, TransportVersion v, size_t body = 8,
                             bool handshake = false) {
  BytesStreamOutput out;
  writeRequestFrame(out, {id, v, handshake}, "test/action", {}, bodyOf(body),
                    CompressionScheme::kNone);
  return out.bytes().toVector();
}

std::vector<uint8_t> response(int64_t id, TransportVersion v, size_t body = 8,
                              bool handshake = false) {
  BytesStreamOutput out;
  writeResponseFrame(out, {id, v, handshake}, {}, bodyOf(body), CompressionScheme::kNone);
  return out.bytes().toVector();
}

const std::vector<uint8_t> kPing(std::begin(kPingFrame), std::end(kPingFrame));

struct Event {
  std::string kind;  // ping, handshake, request, response, refused
  FrameHeader header;
  std::vector<uint8_t> content;
  size_t lease = 0;
  bool answer = false;
  const uint8_t* data = nullptr;  // where the content's first byte was
};

class RecordingSink final : public ReadLoop::Sink {
 public:
  void answerPing() override { events.push_back({"ping", {}, {}, 0, false}); }
  void onHandshakeRequest(DecodedFrame&& f) override { record("handshake", std::move(f), 0); }
  void onVersionAdopted(TransportVersion v) override { adopted = v; }
  void onResponse(DecodedFrame&& f) override { record("response", std::move(f), 0); }
  void onRequest(DecodedFrame&& f, InboundBudget::Lease lease) override {
    record("request", std::move(f), lease.bytes());
    if (keep_leases) leases.push_back(std::move(lease));
  }
  void onRefused(const FrameHeader& h, const CircuitBreakingError& breaker, bool answer) override {
    refusal = breaker.what();
    events.push_back({"refused", h, {}, 0, answer});
  }

  // Names buffers[id] (if any) for the response to request `id`.
  std::span<uint8_t> receiveBuffer(const FrameHeader& h) override {
    asked.push_back(h.request_id);
    auto it = buffers.find(h.request_id);
    return it == buffers.end() ? std::span<uint8_t>() : std::span<uint8_t>(it->second);
  }

  std::vector<Event> events;
  std::map<int64_t, std::vector<uint8_t>> buffers;
  std::vector<int64_t> asked;
  std::vector<InboundBudget::Lease> leases;
  bool keep_leases = false;
  std::string refusal;
  std::optional<TransportVersion> adopted;

 private:
  void record(const char* kind, DecodedFrame&& f, size_t lease) {
    const uint8_t* data = f.content.pieces().empty() ? nullptr : f.content.pieces()[0].data();
    events.push_back({kind, f.header, f.content.toVector(), lease, false, data});
  }
};

// Receives `bytes` into the loop's buffers, at most `slice` bytes a read;
// records each read's target.
struct Receiver {
  explicit Receiver(ReadLoop& l) : loop(l) {}
  void receive(const std::vector<uint8_t>& bytes, size_t slice, bool single = false) {
    size_t at = 0;
    while (at < bytes.size()) {
      ReadLoop::Target t = single ? loop.nextSingleRead() : loop.nextRead();
      size_t capacity = 0;
      for (auto s : t.buffers) capacity += s.size();
      targets.push_back({capacity, t.direct});
      size_t n = std::min({slice, capacity, bytes.size() - at});
      size_t copied = 0;
      for (auto s : t.buffers) {
        const size_t k = std::min(s.size(), n - copied);
        std::memcpy(s.data(), bytes.data() + at + copied, k);
        copied += k;
        if (copied == n) break;
      }
      loop.received(n, t.direct);
      at += n;
    }
  }
  struct Read {
    size_t capacity;
    bool direct;
  };
  ReadLoop& loop;
  std::vector<Read> targets;
};

std::vector<uint8_t> concat(std::initializer_list<std::vector<uint8_t>> parts) {
  std::vector<uint8_t> all;
  for (const auto& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}

std::vector<uint8_t> contentOf(const std::vector<uint8_t>& frame) {
  return {frame.begin() + kHeaderSize, frame.end()};
}

const size_t kSlices[] = {1, 7, 23, 100, 4096, 16384, 65536, 1 << 20};

TEST(ReadLoop, OutboundDeliversResponsesInOrderWhateverTheSlicing) {
  for (size_t slice : kSlices) {
    SCOPED_TRACE("slice " + std::to_string(slice));
    RecordingSink sink;
    ReadLoop loop({.direction = Direction::kOutbound, .version = kV8_7}, sink);
    Receiver r(loop);
    const auto hs = response(1, kV8_0, 4, true);
    r.receive(hs, slice);
    ASSERT_EQ(sink.events.size(), 1u);
    EXPECT_EQ(sink.events[0].kind, "response");
    EXPECT_TRUE(sink.events[0].header.isHandshake());
    loop.completeHandshake(kV8_0);
    EXPECT_TRUE(loop.handshakeDone());
    EXPECT_EQ(loop.version(), kV8_0);
    const auto a = response(2, kV8_0, 100), b = response(3, kV8_0, 200 * 1024);
    r.receive(concat({a, kPing, b}), slice);
    ASSERT_EQ(sink.events.size(), 3u);  // the ping is counted, not answered
    EXPECT_EQ(sink.events[1].header.request_id, 2);
    EXPECT_EQ(sink.events[1].content, contentOf(a));
    EXPECT_EQ(sink.events[2].header.request_id, 3);
    EXPECT_EQ(sink.events[2].content, contentOf(b));
    EXPECT_EQ(loop.pingsReceived(), 1u);
    EXPECT_EQ(loop.bytesReceived(), hs.size() + a.size() + kPing.size() + b.size());
  }
}

TEST(ReadLoop, ALargeFrameIsReceivedIntoItsPagesAfterItsHeader) {
  RecordingSink sink;
  ReadLoop loop({.direction = Direction::kOutbound, .version = kV8_7}, sink);
  loop.completeHandshake(kV8_7);
  Receiver r(loop);
  const auto big = response(5, kV8_7, 3 << 20);
  // A first read of the read buffer brings the header and some content; the
  // rest goes into the frame's pages, at most kMaxDirectRead a read.
  r.receive(big, 1 << 20);
  ASSERT_EQ(sink.events.size(), 1u);
  EXPECT_EQ(sink.events[0].content, contentOf(big));
  ASSERT_GE(r.targets.size(), 4u);
  EXPECT_FALSE(r.targets[0].direct);
  EXPECT_EQ(r.targets[0].capacity, ReadLoop::kReadBufferSize);
  size_t direct = 0;
  for (size_t i = 1; i < r.targets.size(); ++i) {
    EXPECT_TRUE(r.targets[i].direct);
    EXPECT_LE(r.targets[i].capacity, ReadLoop::kMaxDirectRead);
    direct += std::min<size_t>(r.targets[i].capacity, 1 << 20);
  }
  EXPECT_GE(direct, big.size() - ReadLoop::kReadBufferSize);
  // After a large frame, a probe read: enough for a header and small frames.
  r.targets.clear();
  const auto small = response(6, kV8_7, 10);
  r.receive(small, 1 << 20);
  ASSERT_EQ(r.targets.size(), 1u);
  EXPECT_EQ(r.targets[0].capacity, ReadLoop::kProbeReadSize);
  EXPECT_FALSE(r.targets[0].direct);
  // After a small one, the whole read buffer again.
  r.targets.clear();
  r.receive(small, 1 << 20);
  EXPECT_EQ(r.targets[0].capacity, ReadLoop::kReadBufferSize);
  ASSERT_EQ(sink.events.size(), 3u);
}

TEST(ReadLoop, ASingleBufferReaderGetsOnePageOfALargeFrame) {
  RecordingSink sink;
  ReadLoop loop({.direction = Direction::kOutbound, .version = kV8_7}, sink);
  loop.completeHandshake(kV8_7);
  Receiver r(loop);
  const auto big = response(5, kV8_7, 1 << 20);
  r.receive(big, 16384, /*single=*/true);
  ASSERT_EQ(sink.events.size(), 1u);
  EXPECT_EQ(sink.events[0].content, contentOf(big));
  for (size_t i = 1; i < r.targets.size(); ++i) {
    if (r.targets[i].direct) {
      EXPECT_LE(r.targets[i].capacity, 16384u);  // one page
    }
  }
}

// Outbound, after the handshake, a response whose content fits the buffer
// the sink names is received there, its large part in direct reads of one
// contiguous span; the handshake's response, a response before the
// handshake and a request's frames on an inbound loop are never asked for.
TEST(ReadLoop, AResponseIsReceivedIntoTheBufferTheSinkNames) {
  for (size_t slice : kSlices) {
    SCOPED_TRACE("slice " + std::to_string(slice));
    RecordingSink sink;
    ReadLoop loop({.direction = Direction::kOutbound, .version = kV8_7}, sink);
    Receiver r(loop);
    const auto hs = response(1, kV8_7, 4, true);
    const auto big = response(2, kV8_7, 3 << 20), small = response(3, kV8_7, 100);
    const auto too_big = response(4, kV8_7, 300 * 1024), unnamed = response(5, kV8_7, 1000);
    sink.buffers[1].resize(1 << 10);
    sink.buffers[2].assign(big.size() - kHeaderSize, 0xEE);
    sink.buffers[3].assign(small.size() - kHeaderSize + 50, 0xEE);
    sink.buffers[4].assign(too_big.size() - kHeaderSize - 1, 0xEE);
    r.receive(hs, slice);
    EXPECT_TRUE(sink.asked.empty());
    loop.completeHandshake(kV8_7);
    r.targets.clear();
    r.receive(concat({big, small, too_big, unnamed}), slice);
    EXPECT_EQ(sink.asked, (std::vector<int64_t>{2, 3, 4, 5}));
    ASSERT_EQ(sink.events.size(), 5u);
    EXPECT_EQ(sink.events[1].data, sink.buffers[2].data());
    EXPECT_EQ(sink.events[1].content, contentOf(big));
    EXPECT_EQ(sink.buffers[2], contentOf(big));
    EXPECT_EQ(sink.events[2].data, sink.buffers[3].data());
    EXPECT_EQ(sink.events[2].content, contentOf(small));
    EXPECT_NE(sink.events[3].data, sink.buffers[4].data());  // does not fit: pages
    EXPECT_EQ(sink.events[3].content, contentOf(too_big));
    EXPECT_EQ(sink.buffers[4], std::vector<uint8_t>(too_big.size() - kHeaderSize - 1, 0xEE));
    EXPECT_EQ(sink.events[4].content, contentOf(unnamed));
    if (slice == (1 << 20)) {
      // After the first read, the big frame's content came in direct reads
      // of up to kMaxDirectRead.
      ASSERT_GE(r.targets.size(), 4u);
      EXPECT_TRUE(r.targets[1].direct);
      EXPECT_EQ(r.targets[1].capacity, ReadLoop::kMaxDirectRead);
    }
  }
  // Requests on an inbound loop: never asked.
  RecordingSink sink;
  ReadLoop loop({.direction = Direction::kInbound, .version = kV8_7}, sink);
  loop.completeHandshake(kV8_7);
  sink.buffers[7].resize(1 << 20);
  Receiver(loop).receive(request(7, kV8_7, 200 * 1024), 65536);
  EXPECT_TRUE(sink.asked.empty());
  ASSERT_EQ(sink.events.size(), 1u);
  EXPECT_NE(sink.events[0].data, sink.buffers[7].data());
}

TEST(ReadLoop, InboundRoutesTheHandshakeRequestsAndPings) {
  InboundBudget budget(1 << 20);
  RecordingSink sink;
  sink.keep_leases = true;
  ReadLoop loop({.direction = Direction::kInbound, .version = kV8_7, .budget = &budget}, sink);
  Receiver r(loop);
  r.receive(concat({kPing, request(1, kV8_0, 4, true)}), 5);
  ASSERT_EQ(sink.events.size(), 2u);
  EXPECT_EQ(sink.events[0].kind, "ping");  // the accepting side answers
  EXPECT_EQ(sink.events[1].kind, "handshake");
  EXPECT_EQ(budget.used(), 0u);  // the handshake's lease is dropped with it
  loop.completeHandshake(kV8_0);
  const auto req = request(2, kV8_0, 1000);
  r.receive(req, 100);
  ASSERT_EQ(sink.events.size(), 3u);
  EXPECT_EQ(sink.events[2].kind, "request");
  EXPECT_EQ(sink.events[2].content, contentOf(req));
  // The request holds its frame's size until answered.
  EXPECT_EQ(sink.events[2].lease, req.size());
  EXPECT_EQ(budget.used(), req.size());
  sink.leases.clear();
  EXPECT_EQ(budget.used(), 0u);
}

struct Violation {
  const char* name;
  Direction direction;
  bool handshake_done;
  std::vector<uint8_t> bytes;
  const char* message;
};

TEST(ReadLoop, ProtocolViolationsThrow) {
  const Violation cases[] = {
      {"response inbound", Direction::kInbound, true, response(7, kV8_7),
       "received a response (request id [7]) on an inbound connection"},
      {"request outbound", Direction::kOutbound, true, request(8, kV8_7),
       "received a request (request id [8]) on an outbound connection"},
      {"request before handshake, too old", Direction::kInbound, false,
       request(9, TransportVersion::fromRelease(7, 10, 0)),
       "received a request at version 7.10.0 before the handshake, outside 7.17.0 to 8.7.0"},
      {"request before handshake, too new", Direction::kInbound, false,
       request(9, TransportVersion(8070199)),
       "received a request at version 8.7.1 before the handshake, outside 7.17.0 to 8.7.0"},
      {"response before handshake", Direction::kOutbound, false, response(9, kV8_7),
       "received a response before the handshake"},
      {"second handshake", Direction::kInbound, true, request(1, kV8_7, 4, true),
       "received a second handshake"},
      {"other version", Direction::kOutbound, true, response(3, kV8_0),
       "frame version 8.0.0 differs from the version agreed in the handshake, 8.7.0"},
  };
  for (const Violation& c : cases) {
    SCOPED_TRACE(c.name);
    RecordingSink sink;
    ReadLoop loop({.direction = c.direction, .version = kV8_7}, sink);
    if (c.handshake_done) loop.completeHandshake(kV8_7);
    Receiver r(loop);
    try {
      r.receive(c.bytes, 1 << 20);
      ADD_FAILURE() << "no ProtocolError";
    } catch (const ProtocolError& e) {
      EXPECT_EQ(std::string(e.what()), c.message);
    }
    EXPECT_TRUE(sink.events.empty());
  }
}

// ES opens several channels to a node and handshakes on the first only; the
// others carry requests at the agreed version (seen against ES 8.7.1 by the
// interop harness's connectToNode). Such a request agrees on its version.
TEST(ReadLoop, AnInboundRequestWithoutHandshakeAgreesOnItsVersion) {
  RecordingSink sink;
  ReadLoop loop({.direction = Direction::kInbound, .version = kV8_7}, sink);
  Receiver r(loop);
  r.receive(request(5, kV8_0), 1 << 20);
  EXPECT_TRUE(loop.handshakeDone());
  EXPECT_EQ(loop.version(), kV8_0);
  ASSERT_EQ(sink.events.size(), 1u);
  EXPECT_EQ(sink.events[0].kind, "request");
  EXPECT_EQ(sink.adopted, kV8_0);
  // From then on the version is the agreed one.
  EXPECT_THROW(r.receive(request(6, kV8_7), 1 << 20), ProtocolError);
}

TEST(ReadLoop, ARefusedHandshakesErrorResponseIsDeliveredBeforeTheHandshake) {
  RecordingSink sink;
  ReadLoop loop({.direction = Direction::kOutbound, .version = kV8_7}, sink);
  BytesStreamOutput out;
  RemoteException cause;
  cause.type = "illegal_state_exception";
  cause.message = "refused";
  writeErrorFrame(out, {1, kV8_7, false}, cause);
  Receiver r(loop);
  r.receive(out.bytes().toVector(), 1 << 20);
  ASSERT_EQ(sink.events.size(), 1u);
  EXPECT_TRUE(sink.events[0].header.isError());
}

TEST(ReadLoop, StreamErrorsPropagate) {
  RecordingSink sink;
  ReadLoop loop({.direction = Direction::kInbound, .version = kV8_7}, sink);
  Receiver r(loop);
  const std::string http = "GET / HTTP/1.1\r\n\r\n";
  EXPECT_THROW(r.receive({http.begin(), http.end()}, 1 << 20), CorruptStreamError);
  ReadLoop small({.direction = Direction::kInbound, .max_frame_size = 100, .version = kV8_7}, sink);
  Receiver r2(small);
  EXPECT_THROW(r2.receive(request(1, kV8_7, 1000, true), 1 << 20), LimitExceededError);
}

TEST(ReadLoop, TheNodeBudgetRefusesFramesAsTheirHeaderArrives) {
  const auto big = request(4, kV8_7, 10000);
  InboundBudget budget(big.size() - 1);
  RecordingSink sink;
  ReadLoop loop({.direction = Direction::kInbound, .version = kV8_7, .budget = &budget}, sink);
  Receiver r(loop);
  // Before the handshake a refusal is not answered; a refused handshake closes.
  EXPECT_THROW(r.receive(request(1, kV8_7, 20000, true), 4096), ProtocolError);
  ASSERT_EQ(sink.events.size(), 1u);
  EXPECT_EQ(sink.events[0].kind, "refused");
  EXPECT_FALSE(sink.events[0].answer);

  RecordingSink sink2;
  ReadLoop loop2({.direction = Direction::kInbound, .version = kV8_7, .budget = &budget}, sink2);
  loop2.completeHandshake(kV8_7);
  Receiver r2(loop2);
  const auto fits = request(5, kV8_7, 10);
  r2.receive(concat({big, fits}), 1000);
  // Refused at its header (answered: a request at the agreed version), its
  // content dropped; the next frame goes through.
  ASSERT_EQ(sink2.events.size(), 2u);
  EXPECT_EQ(sink2.events[0].kind, "refused");
  EXPECT_TRUE(sink2.events[0].answer);
  EXPECT_EQ(sink2.events[0].header.request_id, 4);
  // ES's in-flight breaker wording, with the generic label (no action yet).
  EXPECT_EQ(sink2.refusal.rfind("[inflight_requests] Data too large, data for "
                                "[<transport_request>] would be [" +
                                    std::to_string(big.size()) + "/",
                                0),
            0u)
      << sink2.refusal;
  EXPECT_NE(sink2.refusal.find("the limit of [" + std::to_string(big.size() - 1) + "/"),
            std::string::npos);
  EXPECT_EQ(sink2.events[1].kind, "request");
  EXPECT_EQ(sink2.events[1].header.request_id, 5);
  EXPECT_EQ(budget.used(), 0u);
  // A refused frame at another version is not answered (the version check
  // then closes the connection).
  EXPECT_THROW(r2.receive(request(6, kV8_0, 10000), 1000), ProtocolError);
  EXPECT_FALSE(sink2.events.back().answer);
}

TEST(ReadLoop, ClosingGivesThePartialFramesBudgetBackAndAdmitsNoMore) {
  InboundBudget budget(1 << 20);
  RecordingSink sink;
  ReadLoop loop({.direction = Direction::kInbound, .version = kV8_7, .budget = &budget}, sink);
  loop.completeHandshake(kV8_7);
  Receiver r(loop);
  const auto req = request(2, kV8_7, 1000);
  r.receive({req.begin(), req.begin() + 100}, 100);
  EXPECT_EQ(budget.used(), req.size());
  loop.close();
  EXPECT_EQ(budget.used(), 0u);
  r.receive(request(3, kV8_7, 10), 1 << 20);  // the rest of 2 completes; 3 refused
  EXPECT_EQ(budget.used(), 0u);
}

TEST(ReadLoop, TheReadDeadlineFollowsTheFrameInProgress) {
  RecordingSink sink;
  ReadLoop loop({.direction = Direction::kOutbound, .version = kV8_7}, sink);
  loop.completeHandshake(kV8_7);
  Receiver r(loop);
  using D = ReadLoop::Deadline;
  EXPECT_EQ(loop.deadlineAfterRead(), D::kKeep);  // nothing armed, nothing to arm
  const auto a = response(1, kV8_7, 1000);
  r.receive({a.begin(), a.begin() + 10}, 10);
  EXPECT_EQ(loop.deadlineAfterRead(), D::kArm);
  EXPECT_EQ(loop.deadlineFrameStart(), 0u);
  EXPECT_TRUE(loop.deadlineExpired(0));
  EXPECT_EQ(loop.deadlineReason(std::chrono::milliseconds(30000)),
            "read deadline of 30000ms exceeded: received 10 of " + std::to_string(a.size()) +
                " bytes of a frame");
  r.receive({a.begin() + 10, a.begin() + 500}, 1 << 20);
  EXPECT_EQ(loop.deadlineAfterRead(), D::kKeep);  // the same frame
  // The rest and the start of the next frame: a new deadline for that one.
  const auto b = response(2, kV8_7, 10);
  r.receive(concat({{a.begin() + 500, a.end()}, {b.begin(), b.begin() + 3}}), 1 << 20);
  EXPECT_EQ(loop.deadlineAfterRead(), D::kArm);
  EXPECT_EQ(loop.deadlineFrameStart(), a.size());
  EXPECT_FALSE(loop.deadlineExpired(0));  // the first frame's timer fires late: ignored
  r.receive({b.begin() + 3, b.end()}, 1 << 20);
  EXPECT_EQ(loop.deadlineAfterRead(), D::kCancel);
  EXPECT_FALSE(loop.deadlineExpired(a.size()));
  EXPECT_EQ(loop.deadlineAfterRead(), D::kKeep);
  EXPECT_EQ(sink.events.size(), 2u);
}

TEST(ReadLoop, CloseReasonsNameACutFrame) {
  RecordingSink sink;
  ReadLoop loop({.direction = Direction::kOutbound, .version = kV8_7}, sink);
  bool warn = true;
  EXPECT_EQ(loop.closeReason(true, "", warn), "the peer closed the connection");
  EXPECT_FALSE(warn);
  EXPECT_EQ(loop.closeReason(false, "Connection reset by peer", warn),
            "read failed: Connection reset by peer");
  EXPECT_FALSE(warn);
  Receiver r(loop);
  const auto a = response(1, kV8_7, 1000);
  r.receive({a.begin(), a.begin() + 30}, 1 << 20);
  EXPECT_EQ(loop.closeReason(true, "", warn),
            "the peer closed the connection in the middle of a frame (received 30 of " +
                std::to_string(a.size()) + " bytes)");
  EXPECT_TRUE(warn);
}

}  // namespace
}  // namespace wirestream::transport::protocol
