// TransportService over loopback: round trips, handshake, errors, timeouts,
// compression, budgets, and each fault with its expected outcome. Every wait
// is bounded.
#include "transport/transport_service.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <future>
#include <set>

#include "stream/errors.h"
#include "tests/stream/test_util.h"
#include "tests/transport/test_support.h"
#include "transport/inbound_message.h"
#include "transport/remote_exception.h"

namespace wirestream::transport {
namespace {

using namespace std::chrono_literals;
using namespace wirestream::transport::testing;  // test_support.h, tls_fixture.h

class TransportTest : public ::testing::Test {
 protected:
  TransportOptions serverOptions() { return nodeOptions("server", server_log.logger(), 2); }
  TransportOptions clientOptions() { return nodeOptions("client", client_log.logger()); }
  void startServer(TransportOptions o) {
    server = std::make_unique<TransportService>(std::move(o));
    registerEcho(*server);
    port = server->listen("127.0.0.1", 0);
  }
  void startServer() { startServer(serverOptions()); }
  void startClient(TransportOptions o) {
    client = std::make_unique<TransportService>(std::move(o));
  }
  void startClient() { startClient(clientOptions()); }

  // A fresh client connection still gets answers: the server kept serving.
  void expectServerStillServes() {
    TransportService other(clientOptions());
    auto c = other.connect("127.0.0.1", port);
    Blob r = other.submitRequest(c, "echo", Blob({1, 2, 3}), readBlob, 5s).get();
    EXPECT_EQ(r.bytes, (std::vector<uint8_t>{1, 2, 3}));
  }

  LogCapture server_log;
  LogCapture client_log;
  std::unique_ptr<TransportService> server;
  std::unique_ptr<TransportService> client;
  uint16_t port = 0;
};

TEST_F(TransportTest, RequestResponseRoundTrip) {
  startServer();
  startClient();
  auto conn = client->connect("127.0.0.1", port);
  EXPECT_EQ(conn->version(), TransportVersion::current());
  for (size_t size : {0, 1, 100, 16384, 16385, 1 << 20}) {
    Blob r = client->submitRequest(conn, "echo", Blob(pattern(size, 3)), readBlob, 5s).get();
    EXPECT_EQ(r.bytes, pattern(size, 3)) << size;
  }
  EXPECT_GT(conn->bytesSent(), 1u << 20);
  EXPECT_GT(conn->bytesReceived(), 1u << 20);
}

TEST_F(TransportTest, CallbackApiCompletesOnce) {
  startServer();
  startClient();
  auto conn = client->connect("127.0.0.1", port);
  std::promise<std::vector<uint8_t>> got;
  std::atomic<int> calls{0};
  client->sendRequest(
      conn, "echo", Blob({9}), readBlob,
      [&](Blob&& b) {
        ++calls;
        got.set_value(b.bytes);
      },
      [&](std::exception_ptr) { ++calls; }, 5s);
  auto f = got.get_future();
  ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
  EXPECT_EQ(f.get(), std::vector<uint8_t>{9});
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(calls.load(), 1);
}

// An asynchronous caller keeps a window of calls in flight by sending the
// next request from each response callback, on the client's I/O thread (no
// thread hop per response): every call completes, in the order sent (one
// connection, answered in order), with bodies large enough that the sends
// from the I/O thread fill the socket's buffer.
TEST_F(TransportTest, RequestsSentFromResponseCallbacksKeepAPipelineGoing) {
  startServer();
  startClient();
  auto conn = client->connect("127.0.0.1", port);
  constexpr int kCalls = 120;
  constexpr int kWindow = 8;
  const size_t sizes[] = {0, 10, 16385, 300 * 1024};
  std::mutex mu;
  std::condition_variable cv;
  std::vector<int> order;
  std::set<std::thread::id> callback_threads;
  int failures = 0;
  // Taking an index and sending are one step, so that the frames go out in
  // index order whichever thread sends (the first window is sent from here).
  std::mutex send_mu;
  int next = 0;
  std::function<void()> send_next = [&] {
    std::lock_guard<std::mutex> send_lock(send_mu);
    const int i = next++;
    if (i >= kCalls) return;
    const std::vector<uint8_t> body = pattern(sizes[i % 4], static_cast<uint8_t>(i));
    client->sendRequest(
        conn, "echo", Blob(body), readBlob,
        [&, i, body](Blob&& b) {
          send_next();
          std::lock_guard<std::mutex> lock(mu);
          if (b.bytes != body) ++failures;
          order.push_back(i);
          callback_threads.insert(std::this_thread::get_id());
          cv.notify_all();
        },
        [&](std::exception_ptr) {
          std::lock_guard<std::mutex> lock(mu);
          ++failures;
          order.push_back(-1);
          cv.notify_all();
        },
        10s);
  };
  for (int i = 0; i < kWindow; ++i) send_next();
  std::unique_lock<std::mutex> lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, 30s, [&] { return order.size() == kCalls; }));
  EXPECT_EQ(failures, 0);
  for (int i = 0; i < kCalls; ++i) EXPECT_EQ(order[i], i);
  EXPECT_EQ(callback_threads.size(), 1u);
  EXPECT_EQ(callback_threads.count(std::this_thread::get_id()), 0u);
  lock.unlock();
  client->stop();  // no callback may run on once the locals above are gone
}

// Two 8.x nodes (offering 8.7.1, talking to 7.17 and later) agree on the older one's.
TEST_F(TransportTest, HandshakeAgreesOnTheLowerVersion) {
  for (bool server_older : {true, false}) {
    TransportOptions so = offering("8.7.1", serverOptions());
    TransportOptions co = offering("8.7.1", clientOptions());
    (server_older ? so : co).version = TransportVersion::V_8_0_0;
    server = std::make_unique<TransportService>(so);
    std::atomic<int32_t> seen_by_handler{0};
    server->registerAsyncRequestHandler("version", readBlob,
                                        [&](Blob&& b, std::shared_ptr<TransportChannel> ch) {
                                          seen_by_handler = ch->version().id();
                                          ch->sendResponse(b);
                                        });
    port = server->listen();
    startClient(co);
    auto conn = client->connect("127.0.0.1", port);
    EXPECT_EQ(conn->version(), TransportVersion::V_8_0_0);
    client->submitRequest(conn, "version", Blob({1}), readBlob, 5s).get();
    EXPECT_EQ(seen_by_handler.load(), TransportVersion::V_8_0_0.id());
    conn.reset();
    client.reset();
    server.reset();
  }
}

TEST_F(TransportTest, LaterFramesCarryTheAgreedVersion) {
  startServer(offering("8.7.1", serverOptions()));  // a node that talks to 8.0
  RawSocket s = testing::handshakenClient(port, TransportVersion::V_8_0_0);
  s.write(testing::requestFrame(2, "echo", Blob({4}), TransportVersion::V_8_0_0));
  DecodedFrame f = s.readFrame();
  EXPECT_EQ(f.header.version(), TransportVersion::V_8_0_0);
  EXPECT_EQ(f.header.request_id, 2);
  // A frame at another version than agreed closes the connection.
  s.write(testing::requestFrame(3, "echo", Blob({4}), TransportVersion::V_8_7_0));
  EXPECT_TRUE(s.waitClosed(5s));
  EXPECT_NE(server_log.waitFor({"WARN", "differs from the version agreed"}), "");
}

TEST_F(TransportTest, IncompatibleVersionIsRefused) {
  TransportOptions so = offering("8.7.1", serverOptions());
  so.minimum_compatible_version = TransportVersion::V_8_0_0;
  startServer(so);
  TransportOptions co = offering("8.7.1", clientOptions());
  co.version = TransportVersion::V_7_10_0;
  co.minimum_compatible_version = TransportVersion::V_7_10_0;  // its request header
  startClient(co);
  try {
    client->connect("127.0.0.1", port);
    FAIL() << "connected";
  } catch (const ConnectTransportError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "unsupported version: [7.10.0] minimal compatible version is: [8.0.0]"),
              std::string::npos)
        << e.what();
  }
}

// Nodes offering ES releases (TransportOptions::forRelease) settle as ES 8.19 and 9.x
// do, and a 9.x node refuses an 8.18 one with ES's message.
TEST_F(TransportTest, ReleasesFrom818HandshakeAsEsDoes) {
  EXPECT_EQ(TransportOptions::forRelease("9.5.3").minimum_compatible_version.id(), 8841000);
  // The default node is the newest release of the table, with its own minimum.
  const TransportVersionRelease newest = TransportVersion::releases().back();
  EXPECT_EQ(TransportOptions{}.version.id(), newest.id);
  EXPECT_EQ(TransportOptions{}.minimum_compatible_version.id(), newest.minimum_compatible_id);
  EXPECT_EQ(TransportOptions{}.version, TransportOptions::forRelease("9.5.3").version);
  EXPECT_EQ(TransportOptions{}.minimum_compatible_version,
            TransportOptions::forRelease("9.5.3").minimum_compatible_version);
  TransportOptions behind;  // an 8.x version under 9.5.3's minimum: refused, named
  behind.version = TransportVersion::V_8_7_0;
  EXPECT_THROW(TransportService{behind}, std::invalid_argument);
  EXPECT_EQ(TransportOptions::forRelease("9458007").version.id(), 9458007);
  EXPECT_EQ(TransportOptions::forRelease("8.19.21").minimum_compatible_version.id(), 7170099);
  EXPECT_EQ(TransportOptions::forRelease("8.7.0").version, TransportVersion::V_8_7_0);
  EXPECT_THROW((void)TransportOptions::forRelease("9.9.9"), std::invalid_argument);
  struct Case {
    std::string server, client;
    int32_t agreed;  // 0: refused
  };
  for (const Case& c : {Case{"9.5.3", "8.19.21", 8841096}, Case{"8.19.21", "9.5.3", 8841096},
                        Case{"9.5.3", "9.1.0", 9112003}, Case{"8.19.21", "8.7.0", 8070099},
                        Case{"9.5.3", "8.18.8", 0}, Case{"9.5.3", "8.7.0", 0}}) {
    SCOPED_TRACE(c.server + " <- " + c.client);
    startServer(offering(c.server, serverOptions()));
    startClient(offering(c.client, clientOptions()));
    if (c.agreed != 0) {
      auto conn = client->connect("127.0.0.1", port);
      EXPECT_EQ(conn->version().id(), c.agreed);
      Blob r = client->submitRequest(conn, "echo", Blob({7}), readBlob, 5s).get();
      EXPECT_EQ(r.bytes, (std::vector<uint8_t>{7}));
      TransportHandshakeResponse h = client->transportHandshake(conn, 5s);
      EXPECT_EQ(h.version.id(), releaseVersionIdOf(TransportVersion::parse(c.server)));
      // VersionInformation travels from V_8_10_X on.
      EXPECT_EQ(h.node.max_index_version,
                conn->version().onOrAfter(TransportVersion::V_8_10_X)
                    ? indexVersionsOf(TransportVersion::parse(c.server)).max
                    : 0);
    } else {
      // As ES 8.18+: the refusal is logged, the connection closed unanswered.
      EXPECT_THROW(client->connect("127.0.0.1", port), ConnectTransportError);
      EXPECT_NE(server_log.waitFor({"WARN",
                                    "Rejecting unreadable transport handshake from "
                                    "remote node with version [" +
                                        c.client + "/"}),
                "");
    }
    client.reset();
    server.reset();
  }
}

// A listener whose accept queue is full drops further SYNs (Linux, without
// tcp_abort_on_overflow): a blocking connect would wait for the kernel's SYN
// retries, minutes. connect_timeout must hold for the TCP connect itself.
TEST_F(TransportTest, ConnectTimeoutBoundsATcpConnectThatGetsNoAnswer) {
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(listener, 0), 0);  // never accepted
  socklen_t len = sizeof(addr);
  ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  // Fill the accept queue; a connect that completes no more is what we want.
  std::vector<int> fillers;
  for (int i = 0; i < 8; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    fillers.push_back(fd);
  }
  std::this_thread::sleep_for(200ms);
  TransportOptions co = clientOptions();
  co.connect_timeout = 500ms;
  startClient(co);
  const auto start = std::chrono::steady_clock::now();
  try {
    client->connect("127.0.0.1", ntohs(addr.sin_port));
    FAIL() << "connected";
  } catch (const ConnectTransportError& e) {
    const auto took = std::chrono::steady_clock::now() - start;
    EXPECT_LT(took, 3s);
    EXPECT_GE(took, 400ms);
    EXPECT_NE(std::string(e.what()).find("connect timed out after [500ms]"), std::string::npos)
        << e.what();
  }
  for (int fd : fillers) ::close(fd);
  ::close(listener);
}

TEST_F(TransportTest, HandlerErrorsTravelBackWithTypeAndMessage) {
  startServer();
  server->registerRequestHandler("bad-arg", readBlob, [](const Blob&) -> Blob {
    throw std::invalid_argument("field [x] is not valid");
  });
  server->registerRequestHandler("custom", readBlob, [](const Blob&) -> Blob {
    throw TransportError("index_not_found_exception", "no such index [logs]");
  });
  startClient();
  auto conn = client->connect("127.0.0.1", port);
  struct Case {
    const char* action;
    const char* type;
    const char* message;
  };
  for (Case c : {Case{"bad-arg", "illegal_argument_exception", "field [x] is not valid"},
                 Case{"custom", "index_not_found_exception", "no such index [logs]"},
                 Case{"missing", "action_not_found_transport_exception",
                      "No handler for action [missing]"}}) {
    auto f = client->submitRequest(conn, c.action, Blob({1}), readBlob, 5s);
    try {
      f.get();
      FAIL() << c.action;
    } catch (const RemoteTransportError& e) {
      EXPECT_EQ(e.type(), c.type);
      EXPECT_STREQ(e.what(), c.message);
    }
  }
  // The connection survives handler errors.
  EXPECT_EQ(client->submitRequest(conn, "echo", Blob({5}), readBlob, 5s).get().bytes,
            std::vector<uint8_t>{5});
}

// Typed errors keep their ES fields across the wire, and the caller sees the
// node, address and action the RemoteTransportException names.
TEST_F(TransportTest, TypedErrorsTravelWithTheirFields) {
  startServer();
  server->registerRequestHandler("buckets", readBlob, [](const Blob&) -> Blob {
    throw TooManyBucketsError("Trying to create too many buckets", 65536);
  });
  server->registerRequestHandler("breaker", readBlob, [](const Blob&) -> Blob {
    throw CircuitBreakingError("too much", 10, 5, CircuitBreakingError::Durability::kPermanent);
  });
  startClient();
  auto conn = client->connect("127.0.0.1", port);
  try {
    client->submitRequest(conn, "buckets", Blob({1}), readBlob, 5s).get();
    FAIL();
  } catch (const TooManyBucketsError& e) {
    EXPECT_EQ(e.maxBuckets(), 65536);
    EXPECT_STREQ(e.what(), "Trying to create too many buckets");
    EXPECT_EQ(e.wrapperMessage().rfind("[server][127.0.0.1:", 0), 0u) << e.wrapperMessage();
    EXPECT_NE(e.wrapperMessage().find("][buckets]"), std::string::npos);
  }
  try {
    client->submitRequest(conn, "breaker", Blob({1}), readBlob, 5s).get();
    FAIL();
  } catch (const CircuitBreakingError& e) {
    EXPECT_EQ(e.bytesWanted(), 10);
    EXPECT_EQ(e.bytesLimit(), 5);
    EXPECT_EQ(e.durability(), CircuitBreakingError::Durability::kPermanent);
  }
  EXPECT_THROW(client->submitRequest(conn, "missing", Blob({1}), readBlob, 5s).get(),
               ActionNotFoundError);
}

TEST_F(TransportTest, TimeoutFailsTheCallAndTheLateResponseIsDropped) {
  startServer();
  std::promise<std::shared_ptr<TransportChannel>> held;
  server->registerAsyncRequestHandler(
      "slow", readBlob, [&](Blob&&, std::shared_ptr<TransportChannel> ch) { held.set_value(ch); });
  startClient();
  auto conn = client->connect("127.0.0.1", port);
  auto start = std::chrono::steady_clock::now();
  auto f = client->submitRequest(conn, "slow", Blob({1}), readBlob, 100ms);
  EXPECT_THROW(f.get(), ReceiveTimeoutError);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 100ms);
  held.get_future().get()->sendResponse(Blob({2}));
  EXPECT_EQ(client->submitRequest(conn, "echo", Blob({3}), readBlob, 5s).get().bytes,
            std::vector<uint8_t>{3});
}

TEST_F(TransportTest, DroppedChannelAnswersWithAnError) {
  startServer();
  server->registerAsyncRequestHandler("forget", readBlob,
                                      [](Blob&&, std::shared_ptr<TransportChannel>) {});
  startClient();
  auto conn = client->connect("127.0.0.1", port);
  try {
    client->submitRequest(conn, "forget", Blob({1}), readBlob, 5s).get();
    FAIL();
  } catch (const RemoteTransportError& e) {
    EXPECT_EQ(e.type(), "illegal_state_exception");
  }
}

TEST_F(TransportTest, CompressedFramesEndToEnd) {
  TransportOptions so = serverOptions();
  so.compress = true;
  startServer(so);
  TransportOptions co = clientOptions();
  co.compress = true;
  startClient(co);
  auto conn = client->connect("127.0.0.1", port);
  std::vector<uint8_t> big(1 << 20);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<uint8_t>((i / 64) % 7);
  Blob r = client->submitRequest(conn, "echo", Blob(big), readBlob, 5s).get();
  EXPECT_EQ(r.bytes, big);
  EXPECT_LT(conn->bytesSent(), big.size() / 4);
  EXPECT_LT(conn->bytesReceived(), big.size() / 4);
}

TEST_F(TransportTest, UnreadBytesInARequestAreAnErrorReply) {
  startServer();
  // The server reads a Blob; the client sends a Blob and one stray byte.
  startClient();
  auto conn = client->connect("127.0.0.1", port);
  struct BlobPlusOne final : Writeable {
    void writeTo(StreamOutput& out) const override {
      out.writeByteArray(std::vector<uint8_t>{1});
      out.writeByte(0x7f);
    }
  };
  try {
    client->submitRequest(conn, "echo", BlobPlusOne(), readBlob, 5s).get();
    FAIL();
  } catch (const RemoteTransportError& e) {
    EXPECT_EQ(e.type(), "illegal_state_exception");
    EXPECT_NE(std::string(e.what()).find("Message not fully read (request)"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("action [echo], available [1]"), std::string::npos)
        << e.what();
  }
}

TEST_F(TransportTest, UnreadBytesInAResponseFailTheCall) {
  startServer();
  startClient();
  auto conn = client->connect("127.0.0.1", port);
  // Reads only the length byte of the echoed Blob.
  auto f = client->submitRequest(
      conn, "echo", Blob({1, 2}), [](StreamInput& in) { return in.readVInt(); }, 5s);
  try {
    f.get();
    FAIL();
  } catch (const TransportError& e) {
    EXPECT_EQ(e.type(), "transport_serialization_exception");
    EXPECT_NE(std::string(e.what()).find("Message not fully read (response)"), std::string::npos);
  }
}

TEST_F(TransportTest, OverBudgetRequestGetsAnErrorReply) {
  TransportOptions so = serverOptions();
  so.in_flight_budget = 1 << 20;
  startServer(so);
  std::mutex mu;
  std::vector<std::shared_ptr<TransportChannel>> held;
  server->registerAsyncRequestHandler("hold", readBlob,
                                      [&](Blob&&, std::shared_ptr<TransportChannel> ch) {
                                        std::lock_guard<std::mutex> lock(mu);
                                        held.push_back(ch);
                                      });
  startClient();
  auto conn = client->connect("127.0.0.1", port);
  auto expectBreaker = [&](std::future<Blob> f) {
    try {
      f.get();
      FAIL();
    } catch (const CircuitBreakingError& e) {
      EXPECT_EQ(e.type(), "circuit_breaking_exception");
      // ES's wording: the breaker, the action, sizes with human-readable units.
      EXPECT_NE(std::string(e.what()).find("[inflight_requests] Data too large, data for ["),
                std::string::npos)
          << e.what();
      EXPECT_GT(e.bytesWanted(), e.bytesLimit());
      EXPECT_EQ(e.durability(), CircuitBreakingError::Durability::kTransient);
    }
  };
  // Alone larger than the budget.
  expectBreaker(client->submitRequest(conn, "echo", Blob(pattern(2 << 20, 1)), readBlob, 5s));
  // Two that fit only one at a time.
  auto first = client->submitRequest(conn, "hold", Blob(pattern(600 << 10, 1)), readBlob, 5s);
  expectBreaker(client->submitRequest(conn, "hold", Blob(pattern(600 << 10, 2)), readBlob, 5s));
  {
    std::lock_guard<std::mutex> lock(mu);
    ASSERT_EQ(held.size(), 1u);
    held[0]->sendResponse(Blob({1}));
  }
  EXPECT_EQ(first.get().bytes, std::vector<uint8_t>{1});
  // Answered, the bytes are released: a third fits again.
  EXPECT_EQ(
      client->submitRequest(conn, "echo", Blob(pattern(600 << 10, 3)), readBlob, 5s).get().bytes,
      pattern(600 << 10, 3));
}

TEST_F(TransportTest, OversizedResponseBecomesAnErrorOnTheSender) {
  TransportOptions so = serverOptions();
  so.max_frame_size = 1 << 20;
  startServer(so);
  server->registerRequestHandler("big", readBlob,
                                 [](const Blob&) { return Blob(std::vector<uint8_t>(2 << 20)); });
  startClient();
  auto conn = client->connect("127.0.0.1", port);
  try {
    client->submitRequest(conn, "big", Blob({1}), readBlob, 5s).get();
    FAIL();
  } catch (const RemoteTransportError& e) {
    EXPECT_EQ(e.type(), "limit_exceeded_exception");
  }
  EXPECT_TRUE(conn->isOpen());
}

TEST_F(TransportTest, PingsAreCountedAndIgnored) {
  RawServer raw;
  startClient();
  std::thread peer;
  std::promise<void> pinged;
  std::vector<uint8_t> seen_by_peer;
  peer = std::thread([&] {
    RawSocket s = raw.acceptAndHandshake();
    s.write(std::vector<uint8_t>(kPingFrame, kPingFrame + 6));
    s.write(std::vector<uint8_t>(kPingFrame, kPingFrame + 6));
    for (auto end = std::chrono::steady_clock::now() + 5s;
         seen_by_peer.size() < 6 && std::chrono::steady_clock::now() < end;) {
      s.readSome(seen_by_peer, 50ms);
    }
    pinged.get_future().wait_for(10s);
  });
  auto conn = client->connect("127.0.0.1", raw.port());
  conn->sendPing();
  for (auto end = std::chrono::steady_clock::now() + 5s;
       conn->pingsReceived() < 2 && std::chrono::steady_clock::now() < end;) {
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_EQ(conn->pingsReceived(), 2u);
  EXPECT_TRUE(conn->isOpen());
  pinged.set_value();
  peer.join();
  EXPECT_EQ(BytesReference::copyOf(seen_by_peer).toHex(), "45 53 ff ff ff ff");
}

// The bytes an ES 8.7 node sends, answered with the bytes ES 8.7 answers with (the
// node offers 8.7.0, whose answer these bytes are).
TEST_F(TransportTest, EsNodeBytesAreAnsweredAsEsAnswers) {
  startServer(offering("8.7.0", serverOptions()));
  RawSocket s = RawSocket::connectTo(port);
  // ES 8.7's handshake: header at 7.17.0, features array, TaskId 00, 8.7.0.
  s.write(::wirestream::testing::hexBytes(
      "45 53 00 00 00 31 00 00 00 00 00 00 00 01 08 00 6d 68 33 00 00 00 1a "
      "00 00 00 16 69 6e 74 65 72 6e 61 6c 3a 74 63 70 2f 68 61 6e 64 73 68 61 6b 65 "
      "00 04 d3 c7 ec 03"));
  DecodedFrame hs = s.readFrame();
  BytesStreamOutput hs_bytes;
  uint8_t header[kHeaderSize];
  encodeHeader(hs.header, header);
  hs_bytes.writeBytes(header);
  hs_bytes.writeBytes(hs.content.toVector());
  // At the request's version (7.17.0), status response | handshake, 8.7.0.
  EXPECT_EQ(hs_bytes.bytes().toHex(),
            "45 53 00 00 00 17 00 00 00 00 00 00 00 01 09 00 6d 68 33 00 00 00 02 "
            "00 00 d3 c7 ec 03");

  // A request for an action nobody handles, at the agreed 8.7.0.
  s.write(::wirestream::testing::hexBytes(
      "45 53 00 00 00 16 00 00 00 00 00 00 00 02 00 00 7b 23 d3 00 00 00 04 "
      "00 00 01 78 00"));
  DecodedFrame err = s.readFrame();
  EXPECT_EQ(err.header.status, status::kResponse | status::kError);
  EXPECT_EQ(err.header.version(), TransportVersion::V_8_7_0);
  const std::string wrapper = "[server][127.0.0.1:" + std::to_string(port) + "][x]";
  std::vector<uint8_t> body = {
      0x00, 0x00, 0x01, 0x00, 0x67, 0x01, static_cast<uint8_t>(wrapper.size())};
  body.insert(body.end(), wrapper.begin(), wrapper.end());
  const std::string cause = "No handler for action [x]";
  for (uint8_t b : {0x01, 0x00, 0x65, 0x01, static_cast<int>(cause.size())}) body.push_back(b);
  body.insert(body.end(), cause.begin(), cause.end());
  for (uint8_t b : {0, 0, 0, 0, 0, 1, 1, 0x78, 0, 0, 0, 0}) body.push_back(b);
  EXPECT_EQ(err.content.toHex(), BytesReference::copyOf(body).toHex());
}

// A peer older than the minimum compatible version gets ES's refusal: an
// error response at the request's version, then the connection closes (as ES 8.7 does; a
// node from 8.18 on closes unanswered, ReleasesFrom818HandshakeAsEsDoes).
TEST_F(TransportTest, RefusalIsAnEsErrorResponseAtTheRequestVersion) {
  startServer(offering("8.7.1", serverOptions()));
  RawSocket s = RawSocket::connectTo(port);
  s.write(testing::handshakeRequest(1, TransportVersion::V_7_10_0));
  DecodedFrame f = s.readFrame();
  EXPECT_EQ(f.header.status, status::kResponse | status::kError);
  EXPECT_EQ(f.header.version(), TransportVersion::V_7_10_0);
  InboundMessage m = InboundMessage::parse(std::move(f), 1 << 20);
  BytesReferenceStreamInput in(m.body());
  in.setTransportVersion(TransportVersion::V_7_10_0);
  RemoteTransportError e(readException(in));
  EXPECT_EQ(e.type(), "illegal_state_exception");
  EXPECT_STREQ(e.what(),
               "Received message from unsupported version: [7.10.0] minimal compatible version "
               "is: [7.17.0]");
  EXPECT_TRUE(s.waitClosed(5s));
}

// ES's TransportKeepAlive: an accepting channel answers a ping with a ping.
TEST_F(TransportTest, AcceptingSideAnswersAPingWithAPing) {
  startServer();
  RawSocket s = testing::handshakenClient(port);
  s.write(std::vector<uint8_t>(kPingFrame, kPingFrame + 6));
  DecodedFrame f = s.readFrame();
  EXPECT_TRUE(f.header.isPing());
  // Still served after the ping.
  s.write(testing::requestFrame(2, "echo", Blob({4})));
  EXPECT_EQ(s.readFrame().header.request_id, 2);
}

// internal:transport/handshake, as an ES node sends it right after connecting.
TEST_F(TransportTest, TransportHandshakeDescribesTheNode) {
  TransportOptions so = serverOptions();
  so.cluster_name = "logs-cluster";
  so.node_id = "node-id-1";
  so.build_hash = "abc123";
  startServer(so);
  startClient();
  auto conn = client->connect("127.0.0.1", port);
  TransportHandshakeResponse r = client->transportHandshake(conn, 5s);
  // ES's Version of the release offered (9.5.3: 9050399), not its TransportVersion.
  const TransportVersion release(releaseVersionIdOf(TransportVersion::current()));
  EXPECT_EQ(release.id(), 9050399);
  EXPECT_EQ(r.version, release);
  EXPECT_EQ(r.build_hash, "abc123");
  EXPECT_EQ(r.cluster_name, "logs-cluster");
  EXPECT_EQ(r.node.name, "server");
  EXPECT_EQ(r.node.id, "node-id-1");
  EXPECT_EQ(r.node.ephemeral_id.size(), 22u);
  EXPECT_EQ(r.node.address.toString(), "127.0.0.1:" + std::to_string(port));
  EXPECT_EQ(r.node.version, release);
}

// Thread-context headers: request headers reach the handler, response
// headers come back to the caller, with responses and with errors.
TEST_F(TransportTest, ThreadContextHeadersTravelBothWays) {
  startServer();
  server->registerAsyncRequestHandler(
      "headers", readBlob, [](Blob&& b, std::shared_ptr<TransportChannel> ch) {
        ch->addResponseHeader("Warning", "seen " + ch->requestHeaders().at("trace"));
        ch->addResponseHeader("Warning", "seen " + ch->requestHeaders().at("trace"));
        ch->addResponseHeader("Warning", "second");
        if (b.bytes.empty()) {
          ch->sendError("illegal_argument_exception", "empty");
        } else {
          ch->sendResponse(b);
        }
      });
  startClient();
  auto conn = client->connect("127.0.0.1", port);
  for (bool fail : {false, true}) {
    std::promise<ResponseHeaders> headers;
    TransportService::CallContext context;
    context.request_headers = {{"trace", "abc"}};
    context.on_response_headers = [&](const ResponseHeaders& h) { headers.set_value(h); };
    auto f = client->submitRequest(
        conn, "headers", fail ? Blob(std::vector<uint8_t>{}) : Blob(std::vector<uint8_t>{1}),
        readBlob, 5s, context);
    if (fail) {
      EXPECT_THROW(f.get(), RemoteIllegalArgumentError);
    } else {
      EXPECT_EQ(f.get().bytes, std::vector<uint8_t>{1});
    }
    EXPECT_EQ(headers.get_future().get(), (ResponseHeaders{{"Warning", {"seen abc", "second"}}}));
  }
}

// ---- garbage and protocol violations: only that connection closes ----

struct GarbageCase {
  const char* name;
  std::vector<uint8_t> bytes;
  const char* log_part;
};

TEST_F(TransportTest, GarbageClosesOnlyThatConnection) {
  TransportOptions so = serverOptions();
  so.max_frame_size = 1 << 20;
  startServer(so);
  startClient();
  auto bystander = client->connect("127.0.0.1", port);
  std::string http = "GET /_cluster/health HTTP/1.1\r\nHost: localhost\r\n\r\n";
  std::vector<GarbageCase> cases = {
      {"wrong magic",
       {'X', 'Y', 0, 0, 0, 30, 1, 2, 3},
       "invalid internal transport message format"},
      {"http", std::vector<uint8_t>(http.begin(), http.end()), "plain HTTP request"},
      {"tls hello",
       {0x16, 0x03, 0x01, 0x00, 0xa5, 0x01, 0x00, 0x00, 0xa1, 0x03, 0x03},
       "TLS handshake"},
      {"length 0", {'E', 'S', 0, 0, 0, 0}, "invalid data length: 0"},
      {"oversize frame", headerBytes(64 << 20, 0, 0), "exceeds the maximum frame size of 1048576"},
      {"negative variable header", headerBytes(40, -7, 23), "negative variable header size: -7"},
  };
  for (const GarbageCase& c : cases) {
    RawSocket s = RawSocket::connectTo(port);
    s.write(c.bytes);
    EXPECT_TRUE(s.waitClosed(5s)) << c.name;
    // (WARN for the first; the next ones within a second at DEBUG.)
    std::string line = server_log.waitFor({"closing connection", c.log_part});
    EXPECT_NE(line, "") << c.name;
    EXPECT_EQ(client->submitRequest(bystander, "echo", Blob({7}), readBlob, 5s).get().bytes,
              std::vector<uint8_t>{7})
        << c.name;
  }
  // Garbage after a good handshake closes too.
  RawSocket s = testing::handshakenClient(port);
  s.write({'E', 'S', 0xff, 0xff, 0xff, 0xf0});
  EXPECT_TRUE(s.waitClosed(5s));
  EXPECT_NE(server_log.waitFor({"invalid data length: -16"}), "");
  // Counted; logged at WARN at most once a second, the rest at DEBUG and
  // then in a summary line with their count.
  EXPECT_EQ(server->stats().protocol_errors, cases.size() + 1);
  std::this_thread::sleep_for(1500ms);
  EXPECT_EQ(server_log.accountedFor("protocol_errors", "WARN closing connection"), cases.size() + 1)
      << server_log.text();
  expectServerStillServes();
  EXPECT_TRUE(bystander->isOpen());
}

// The answers to the frames of one read go out after the last of them,
// together, in order; a bad frame after good ones in the same read still
// lets their answers out before the connection closes.
TEST_F(TransportTest, AnswersToOneReadGoOutInOrderEvenBeforeAClose) {
  startServer();
  RawSocket s = testing::handshakenClient(port);
  std::vector<uint8_t> burst;
  for (int64_t id = 2; id < 22; ++id) {
    const std::vector<uint8_t> frame =
        testing::requestFrame(id, "echo", Blob(pattern(static_cast<size_t>(id) * 100, 1)));
    burst.insert(burst.end(), frame.begin(), frame.end());
  }
  burst.insert(burst.end(), {'E', 'S', 0xff, 0xff, 0xff, 0xf0});
  s.write(burst);
  for (int64_t id = 2; id < 22; ++id) {
    DecodedFrame f = s.readFrame(5s);
    EXPECT_EQ(f.header.request_id, id);
    EXPECT_TRUE(f.header.isResponse());
    EXPECT_FALSE(f.header.isError());
  }
  EXPECT_TRUE(s.waitClosed(5s));
  EXPECT_NE(server_log.waitFor({"invalid data length: -16"}), "");
}

TEST_F(TransportTest, ChannelDirectionIsEnforced) {
  startServer();
  // A response sent to the accepting side.
  RawSocket s = testing::handshakenClient(port);
  BytesStreamOutput out;
  writeResponseFrame(out, {2, TransportVersion::current(), false}, {}, Blob({1}),
                     CompressionScheme::kNone);
  s.write(testing::bytesOf(out));
  EXPECT_TRUE(s.waitClosed(5s));
  EXPECT_NE(server_log.waitFor({"WARN", "received a response (request id [2]) on an inbound"}), "");

  // A request sent to the connecting side fails its pending call.
  RawServer raw;
  startClient();
  std::thread peer([&] {
    RawSocket p = raw.acceptAndHandshake();
    p.readFrame();  // the client's request
    p.write(testing::requestFrame(77, "echo", Blob({1})));
    p.waitClosed(5s);
  });
  auto conn = client->connect("127.0.0.1", raw.port());
  auto f = client->submitRequest(conn, "echo", Blob({1}), readBlob, 10s);
  EXPECT_THROW(f.get(), NodeDisconnectedError);
  EXPECT_NE(client_log.waitFor({"WARN", "received a request (request id [77]) on an outbound"}),
            "");
  peer.join();
  expectServerStillServes();
}

TEST_F(TransportTest, RequestBeforeHandshakeAtAnIncompatibleVersionClosesTheConnection) {
  startServer();
  RawSocket s = RawSocket::connectTo(port);
  s.write(testing::requestFrame(1, "echo", Blob({1}), TransportVersion::fromRelease(7, 10, 0)));
  EXPECT_TRUE(s.waitClosed(5s));
  EXPECT_NE(server_log.waitFor({"WARN", "before the handshake"}), "");
}

// ES handshakes on the first of the channels it opens to a node only; the
// others send requests at the agreed version straight away (the interop
// harness's connectToNode against ES 8.7.1). Such a request is served.
TEST_F(TransportTest, RequestWithoutHandshakeAtACompatibleVersionIsServed) {
  startServer();
  RawSocket s = RawSocket::connectTo(port);
  s.write(testing::requestFrame(1, "echo", Blob({1, 2})));
  DecodedFrame f = s.readFrame();
  EXPECT_TRUE(f.header.isResponse());
  EXPECT_FALSE(f.header.isError());
  EXPECT_EQ(f.header.request_id, 1);
}

TEST_F(TransportTest, PeerResetMidRequestBodyIsContained) {
  startServer();
  RawSocket s = testing::handshakenClient(port);
  std::vector<uint8_t> frame = testing::requestFrame(2, "echo", Blob(pattern(100000, 1)));
  s.write(frame.data(), frame.size() / 2);
  std::this_thread::sleep_for(50ms);
  s.reset();
  std::string line = server_log.waitFor({"WARN", "in the middle of a frame"});
  EXPECT_NE(line, "");
  EXPECT_NE(line.find("of " + std::to_string(frame.size()) + " bytes"), std::string::npos) << line;
  expectServerStillServes();
}

TEST_F(TransportTest, PeerResetMidResponseFailsEachPendingCallExactlyOnce) {
  RawServer raw;
  startClient();
  std::thread peer([&] {
    RawSocket p = raw.acceptAndHandshake();
    for (int i = 0; i < 3; ++i) p.readFrame();
    BytesStreamOutput out;
    writeResponseFrame(out, {2, TransportVersion::current(), false}, {}, Blob(pattern(50000, 1)),
                       CompressionScheme::kNone);
    std::vector<uint8_t> bytes = testing::bytesOf(out);
    p.write(bytes.data(), bytes.size() / 2);
    std::this_thread::sleep_for(50ms);
    p.reset();
  });
  auto conn = client->connect("127.0.0.1", raw.port());
  std::atomic<int> successes{0};
  std::atomic<int> failures{0};
  std::atomic<int> disconnects{0};
  for (int i = 0; i < 3; ++i) {
    client->sendRequest(
        conn, "echo", Blob({1}), readBlob, [&](Blob&&) { ++successes; },
        [&](std::exception_ptr e) {
          ++failures;
          try {
            std::rethrow_exception(e);
          } catch (const NodeDisconnectedError&) {
            ++disconnects;
          } catch (...) {
          }
        },
        10s);
  }
  for (auto end = std::chrono::steady_clock::now() + 10s;
       failures.load() < 3 && std::chrono::steady_clock::now() < end;) {
    std::this_thread::sleep_for(5ms);
  }
  peer.join();
  std::this_thread::sleep_for(100ms);  // room for a (wrong) second completion
  EXPECT_EQ(successes.load(), 0);
  EXPECT_EQ(failures.load(), 3);
  EXPECT_EQ(disconnects.load(), 3);
  EXPECT_FALSE(conn->isOpen());
  // Sending on the closed connection fails at once, also exactly once.
  EXPECT_THROW(client->submitRequest(conn, "echo", Blob({1}), readBlob, 5s).get(),
               NodeDisconnectedError);
}

TEST_F(TransportTest, SlowPeerPastTheReadDeadlineIsClosed) {
  TransportOptions so = serverOptions();
  so.read_deadline = 200ms;
  startServer(so);
  // Sends frames slowly but each within the deadline: fine.
  RawSocket ok = testing::handshakenClient(port);
  std::vector<uint8_t> frame = testing::requestFrame(2, "echo", Blob({1, 2, 3}));
  for (size_t i = 0; i < frame.size(); i += 10) {
    ok.write(frame.data() + i, std::min<size_t>(10, frame.size() - i));
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(ok.readFrame().header.request_id, 2);

  RawSocket slow = testing::handshakenClient(port);
  slow.write(frame.data(), 30);
  auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(slow.waitClosed(5s));
  auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, 150ms);
  std::string line = server_log.waitFor({"WARN", "read deadline of 200ms exceeded"});
  EXPECT_NE(line.find("received 30 of " + std::to_string(frame.size()) + " bytes"),
            std::string::npos)
      << line;
  // The well-behaved connection is still open.
  ok.write(testing::requestFrame(3, "echo", Blob({4})));
  EXPECT_EQ(ok.readFrame().header.request_id, 3);
}

TEST_F(TransportTest, StopFailsPendingCalls) {
  startServer();
  std::promise<std::shared_ptr<TransportChannel>> held;
  server->registerAsyncRequestHandler(
      "hang", readBlob, [&](Blob&&, std::shared_ptr<TransportChannel> ch) { held.set_value(ch); });
  startClient();
  auto conn = client->connect("127.0.0.1", port);
  auto f = client->submitRequest(conn, "hang", Blob({1}), readBlob);
  auto channel = held.get_future().get();
  client->stop();
  EXPECT_THROW(f.get(), NodeDisconnectedError);
  EXPECT_FALSE(conn->isOpen());
  // Answering after the peer went away is harmless.
  channel->sendResponse(Blob({1}));
}

}  // namespace
}  // namespace wirestream::transport
