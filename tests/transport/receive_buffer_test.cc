// CallContext::receive_buffer over loopback: an answer that fits is received
// into the caller's buffer and read there in place; one that does not, and a
// compressed one, are read from pages; a late answer to a timed-out call
// never touches its buffer; an answer already arriving into a buffer holds
// its call past the call's timeout, and the read deadline still closes a
// stalled one. Run under ASan too: a write into a buffer after its call
// completed is a use after free there (the tests free each buffer as soon
// as its call completed).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <thread>

#include "tests/transport/test_support.h"
#include "transport/transport_service.h"

namespace wirestream::transport {
namespace {

using namespace std::chrono_literals;
using namespace wirestream::transport::testing;  // test_support.h, tls_fixture.h

constexpr uint8_t kUntouched = 0xEE;

// What a reader saw: the body, and whether it was in the buffer in place.
struct Seen {
  std::vector<uint8_t> body;
  bool in_place = false;
};

// Reads a byte array; in place (readInChunk) when the stream holds it in one
// chunk, and says whether that chunk lies in [begin, end).
auto readerFor(const uint8_t* begin, const uint8_t* end) {
  return [begin, end](StreamInput& in) {
    Seen seen;
    const size_t n = static_cast<size_t>(in.readArraySize());
    if (const uint8_t* p = in.readInChunk(n)) {
      seen.body.assign(p, p + n);
      seen.in_place = n > 0 && p >= begin && p + n <= end;
    } else {
      seen.body.resize(n);
      in.readBytes(seen.body);
    }
    return seen;
  };
}

bool untouched(const std::vector<uint8_t>& buffer) {
  for (uint8_t b : buffer) {
    if (b != kUntouched) return false;
  }
  return true;
}

class ReceiveBufferTest : public ::testing::Test {
 protected:
  void startServer(TransportOptions o) {
    server = std::make_unique<TransportService>(std::move(o));
    registerEcho(*server);
    port = server->listen("127.0.0.1", 0);
  }

  // One call with `buffer` lent; its outcome.
  Seen call(TransportService& client, const std::shared_ptr<Connection>& conn,
            const std::string& action, const std::vector<uint8_t>& body,
            std::vector<uint8_t>& buffer, std::chrono::milliseconds timeout = 10s) {
    TransportService::CallContext context;
    context.receive_buffer = buffer;
    return client
        .submitRequest(conn, action, Blob(body),
                       readerFor(buffer.data(), buffer.data() + buffer.size()), timeout, context)
        .get();
  }

  LogCapture server_log;
  LogCapture client_log;
  std::unique_ptr<TransportService> server;
  uint16_t port = 0;
};

TEST_F(ReceiveBufferTest, AnAnswerThatFitsIsReadInPlaceInTheBuffer) {
  startServer(nodeOptions("server", server_log.logger()));
  TransportService client(nodeOptions("client", client_log.logger()));
  auto conn = client.connect("127.0.0.1", port);
  for (size_t size : {1, 100, 16383, 16385, 300000, 1 << 20, 3 << 20}) {
    SCOPED_TRACE(size);
    const std::vector<uint8_t> body = pattern(size, static_cast<uint8_t>(size));
    // The content: 2 bytes of empty response headers, the VInt length, the
    // body; a few bytes to spare.
    std::vector<uint8_t> buffer(size + 16, kUntouched);
    Seen seen = call(client, conn, "echo", body, buffer);
    EXPECT_TRUE(seen.in_place);
    EXPECT_EQ(seen.body, body);
    // The body sits in the buffer, after the response headers and length.
    EXPECT_TRUE(std::search(buffer.begin(), buffer.end(), body.begin(), body.end()) <
                buffer.begin() + 8);
  }
  // An empty body fits any buffer, the smallest included.
  std::vector<uint8_t> tiny(3, kUntouched);
  EXPECT_EQ(call(client, conn, "echo", {}, tiny).body, std::vector<uint8_t>{});
}

TEST_F(ReceiveBufferTest, AnAnswerThatDoesNotFitIsReadFromPagesAndLeavesTheBufferAlone) {
  startServer(nodeOptions("server", server_log.logger()));
  TransportService client(nodeOptions("client", client_log.logger()));
  auto conn = client.connect("127.0.0.1", port);
  const std::vector<uint8_t> body = pattern(1 << 20, 5);
  // One byte short of the content: 2 bytes of response headers, a 3-byte
  // VInt length, the body.
  std::vector<uint8_t> buffer(body.size() + 4, kUntouched);
  Seen seen = call(client, conn, "echo", body, buffer);
  EXPECT_FALSE(seen.in_place);
  EXPECT_EQ(seen.body, body);
  EXPECT_TRUE(untouched(buffer));
  // The same buffer one byte larger takes it.
  buffer.assign(body.size() + 5, kUntouched);
  seen = call(client, conn, "echo", body, buffer);
  EXPECT_TRUE(seen.in_place);
  EXPECT_EQ(seen.body, body);
}

TEST_F(ReceiveBufferTest, ACompressedAnswerIsInflatedIntoPages) {
  TransportOptions so = nodeOptions("server", server_log.logger());
  so.compress = true;
  startServer(so);
  TransportOptions co = nodeOptions("client", client_log.logger());
  co.compress = true;  // the server answers in the scheme the request came in
  TransportService client(co);
  auto conn = client.connect("127.0.0.1", port);
  std::vector<uint8_t> body(1 << 20);
  for (size_t i = 0; i < body.size(); ++i) body[i] = static_cast<uint8_t>((i / 64) % 7);
  std::vector<uint8_t> buffer(body.size() + 16, kUntouched);
  Seen seen = call(client, conn, "echo", body, buffer);
  EXPECT_FALSE(seen.in_place);
  EXPECT_EQ(seen.body, body);
  EXPECT_LT(conn->bytesReceived(), body.size() / 4);
}

TEST_F(ReceiveBufferTest, AnErrorAnswerIntoTheBufferFailsTheCallWithItsType) {
  startServer(nodeOptions("server", server_log.logger()));
  server->registerRequestHandler(
      "fail", readBlob, [](const Blob&) -> Blob { throw std::invalid_argument("no such shard"); });
  TransportService client(nodeOptions("client", client_log.logger()));
  auto conn = client.connect("127.0.0.1", port);
  std::vector<uint8_t> buffer(64 * 1024, kUntouched);
  try {
    call(client, conn, "fail", {1}, buffer);
    FAIL() << "no error";
  } catch (const RemoteTransportError& e) {
    EXPECT_EQ(e.type(), "illegal_argument_exception");
    EXPECT_NE(std::string(e.what()).find("no such shard"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(untouched(buffer));  // the error frame's content went there
  EXPECT_EQ(call(client, conn, "echo", {7}, buffer).body, std::vector<uint8_t>{7});
}

// The answer to a call that timed out arrives later: it is dropped and its
// content is read into pages, never into the buffer (freed by then).
TEST_F(ReceiveBufferTest, ALateAnswerToATimedOutCallNeverTouchesItsBuffer) {
  startServer(nodeOptions("server", server_log.logger()));
  std::promise<std::shared_ptr<TransportChannel>> held;
  server->registerAsyncRequestHandler(
      "slow", readBlob, [&](Blob&&, std::shared_ptr<TransportChannel> ch) { held.set_value(ch); });
  TransportService client(nodeOptions("client", client_log.logger()));
  auto conn = client.connect("127.0.0.1", port);
  std::vector<uint8_t> buffer((1 << 20) + 16, kUntouched);
  EXPECT_THROW(call(client, conn, "slow", {1}, buffer, 100ms), ReceiveTimeoutError);
  held.get_future().get()->sendResponse(Blob(pattern(1 << 20, 9)));
  // Answered in order: once this call completed, the late answer was read.
  std::vector<uint8_t> next(64, kUntouched);
  EXPECT_EQ(call(client, conn, "echo", {3}, next).body, std::vector<uint8_t>{3});
  EXPECT_TRUE(untouched(buffer));
  EXPECT_NE(client_log.waitFor({"dropping the response", "no such pending request"}, 5s), "");
}

// A raw peer that answers the first request after the handshake with a
// response frame of `body`, its first `first` bytes, then (after `pause`)
// the rest, or a reset when `reset` is set.
struct SlowPeer {
  RawServer raw;
  std::thread thread;
  void start(std::vector<uint8_t> body, size_t first, std::chrono::milliseconds pause, bool reset) {
    thread = std::thread([this, body = std::move(body), first, pause, reset] {
      try {
        answer(body, first, pause, reset);
      } catch (const std::exception&) {
        // The client closed first (read deadline): nothing more to send.
      }
    });
  }
  void answer(const std::vector<uint8_t>& body, size_t first, std::chrono::milliseconds pause,
              bool reset) {
    {
      RawSocket p = raw.acceptAndHandshake();
      const int64_t id = p.readFrame().header.request_id;
      BytesStreamOutput out;
      writeResponseFrame(out, {id, TransportVersion::current(), false}, {}, Blob(body),
                         CompressionScheme::kNone);
      const std::vector<uint8_t> frame = testing::bytesOf(out);
      p.write(frame.data(), first);
      std::this_thread::sleep_for(pause);
      if (reset) {
        p.reset();
        return;
      }
      p.write(frame.data() + first, frame.size() - first);
      p.waitClosed(5s);
    }
  }
  ~SlowPeer() {
    if (thread.joinable()) thread.join();
  }
};

// Once the answer began to arrive into the buffer, the call's timeout no
// longer applies: the call completes with the answer.
TEST_F(ReceiveBufferTest, AnAnswerArrivingIntoTheBufferHoldsTheCallPastItsTimeout) {
  const std::vector<uint8_t> body = pattern(1 << 20, 4);
  SlowPeer peer;
  peer.start(body, 300 * 1024, 400ms, false);
  {
    TransportService client(nodeOptions("client", client_log.logger()));
    auto conn = client.connect("127.0.0.1", peer.raw.port());
    std::vector<uint8_t> buffer(body.size() + 16, kUntouched);
    const auto start = std::chrono::steady_clock::now();
    Seen seen = call(client, conn, "x", {1}, buffer, 100ms);
    EXPECT_GE(std::chrono::steady_clock::now() - start, 300ms);
    EXPECT_TRUE(seen.in_place);
    EXPECT_EQ(seen.body, body);
    conn->close();
  }
}

// A call without a buffer in the same situation times out (the difference
// the contract documents).
TEST_F(ReceiveBufferTest, WithoutABufferTheSameCallTimesOut) {
  SlowPeer peer;
  peer.start(pattern(1 << 20, 4), 300 * 1024, 400ms, false);
  TransportService client(nodeOptions("client", client_log.logger()));
  auto conn = client.connect("127.0.0.1", peer.raw.port());
  EXPECT_THROW(client.submitRequest(conn, "x", Blob({1}), readBlob, 100ms).get(),
               ReceiveTimeoutError);
  conn->close();
}

// An answer that stalls mid-buffer: the read deadline closes the connection
// and the call fails; the buffer is freed at once, and the peer's further
// bytes never reach it.
TEST_F(ReceiveBufferTest, AStalledAnswerFailsTheCallWhenTheReadDeadlineCloses) {
  SlowPeer peer;
  peer.start(pattern(1 << 20, 6), 200 * 1024, 800ms, false);
  TransportOptions co = nodeOptions("client", client_log.logger());
  co.read_deadline = 300ms;
  TransportService client(co);
  auto conn = client.connect("127.0.0.1", peer.raw.port());
  auto buffer = std::make_unique<std::vector<uint8_t>>((1 << 20) + 16, kUntouched);
  EXPECT_THROW(call(client, conn, "x", {1}, *buffer, 100ms), NodeDisconnectedError);
  buffer.reset();
  EXPECT_NE(client_log.waitFor({"WARN", "read deadline of 300ms exceeded"}, 5s), "");
  EXPECT_FALSE(conn->isOpen());
}

TEST_F(ReceiveBufferTest, APeerResetMidAnswerFailsTheCallOnce) {
  SlowPeer peer;
  peer.start(pattern(1 << 20, 8), 100 * 1024, 300ms, true);
  TransportService client(nodeOptions("client", client_log.logger()));
  auto conn = client.connect("127.0.0.1", peer.raw.port());
  auto buffer = std::make_unique<std::vector<uint8_t>>((1 << 20) + 16, kUntouched);
  EXPECT_THROW(call(client, conn, "x", {1}, *buffer, 100ms), NodeDisconnectedError);
  buffer.reset();
  EXPECT_FALSE(conn->isOpen());
}

// Pipelined calls on one connection sharing one buffer, each reading its
// answer in place before returning (the answers arrive one at a time).
TEST_F(ReceiveBufferTest, PipelinedCallsOnOneConnectionMayShareABuffer) {
  startServer(nodeOptions("server", server_log.logger()));
  TransportService client(nodeOptions("client", client_log.logger()));
  auto conn = client.connect("127.0.0.1", port);
  constexpr int kCalls = 48;
  const size_t sizes[] = {10, 70000, 1 << 20, 300 * 1024};
  std::vector<uint8_t> buffer((1 << 20) + 16, kUntouched);
  TransportService::CallContext context;
  context.receive_buffer = buffer;
  std::mutex mu;
  std::condition_variable cv;
  int done = 0, wrong = 0, in_place = 0;
  for (int i = 0; i < kCalls; ++i) {
    const std::vector<uint8_t> body = pattern(sizes[i % 4], static_cast<uint8_t>(i));
    client.sendRequest(
        conn, "echo", Blob(body), readerFor(buffer.data(), buffer.data() + buffer.size()),
        [&, body](Seen&& seen) {
          std::lock_guard<std::mutex> lock(mu);
          wrong += seen.body != body;
          in_place += seen.in_place;
          ++done;
          cv.notify_all();
        },
        [&](std::exception_ptr) {
          std::lock_guard<std::mutex> lock(mu);
          ++wrong;
          ++done;
          cv.notify_all();
        },
        10s, context);
  }
  std::unique_lock<std::mutex> lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, 30s, [&] { return done == kCalls; }));
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(in_place, kCalls);
}

}  // namespace
}  // namespace wirestream::transport
