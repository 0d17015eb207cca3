// The node-wide limits of TransportService over loopback: accept backoff when
// the process is out of file descriptors, the handshake timeout, the inbound
// connection cap, and the node inbound budget against partial frames, each
// while a well-behaved client keeps being served. Every wait is bounded; no
// test holds more than a few MiB.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <utility>
#include <vector>

#include "stream/page_recycler.h"
#include "tests/transport/test_support.h"
#include "transport/frame.h"
#include "transport/transport_service.h"

namespace wirestream::transport {
namespace {

using namespace std::chrono_literals;
using testing::Blob;
using testing::LogCapture;
using testing::nodeOptions;
using testing::RawSocket;
using testing::readBlob;
using testing::registerEcho;
using testing::residentBytes;

bool waitUntil(const std::function<bool()>& done, std::chrono::milliseconds timeout = 5s) {
  auto end = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

bool contains(const DecodedFrame& f, const std::string& text) {
  std::vector<uint8_t> bytes = f.content.toVector();
  return std::search(bytes.begin(), bytes.end(), text.begin(), text.end()) != bytes.end();
}

TransportOptions quietClient() {
  return nodeOptions("client", [](LogLevel, const std::string&) {});
}

// Log lines by level, counted by content.
class Lines {
 public:
  std::function<void(LogLevel, const std::string&)> logger() {
    return [this](LogLevel level, const std::string& line) {
      std::lock_guard<std::mutex> lock(mu_);
      lines_.emplace_back(level, line);
    };
  }
  size_t count(LogLevel level, const std::string& part) {
    std::lock_guard<std::mutex> lock(mu_);
    return std::count_if(lines_.begin(), lines_.end(), [&](const auto& l) {
      return l.first == level && l.second.find(part) != std::string::npos;
    });
  }
  size_t count(const std::string& part) {
    return count(LogLevel::kWarn, part) + count(LogLevel::kInfo, part) +
           count(LogLevel::kDebug, part);
  }
  void print(const std::string& part) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [level, line] : lines_) {
      if (line.find(part) != std::string::npos) {
        std::fprintf(stderr, "  %s %s\n", level == LogLevel::kWarn ? "WARN" : "DEBUG/INFO",
                     line.c_str());
      }
    }
  }

 private:
  std::mutex mu_;
  std::vector<std::pair<LogLevel, std::string>> lines_;
};

class LimitsTest : public ::testing::Test {
 protected:
  TransportOptions serverOptions() { return nodeOptions("server", lines.logger(), 2); }
  void startServer(TransportOptions o) {
    server = std::make_unique<TransportService>(std::move(o));
    registerEcho(*server);
    port = server->listen("127.0.0.1", 0);
  }
  // A fresh TransportService client connects and gets an answer.
  void expectServed() {
    TransportService client(quietClient());
    auto c = client.connect("127.0.0.1", port);
    Blob r = client.submitRequest(c, "echo", Blob({1, 2, 3}), readBlob, 5s).get();
    EXPECT_EQ(r.bytes, (std::vector<uint8_t>{1, 2, 3}));
  }
  // An echo request over a handshaken raw socket is answered.
  static void expectEcho(RawSocket& s, int64_t id) {
    s.write(testing::requestFrame(id, "echo", Blob({7})));
    DecodedFrame f = s.readFrame(5s);
    EXPECT_EQ(f.header.request_id, id);
    EXPECT_FALSE(f.header.isError());
  }

  Lines lines;
  LogCapture log;  // for a server that logs to it; outlives the server
  std::unique_ptr<TransportService> server;
  uint16_t port = 0;
};

// ---- accept failures: out of file descriptors --------------------------

int highestOpenFd() {
  int highest = -1;
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return 1024;
  while (dirent* e = ::readdir(dir)) {
    if (e->d_name[0] != '.') highest = std::max(highest, std::atoi(e->d_name));
  }
  ::closedir(dir);
  return highest;
}

// Runs in a child process (its RLIMIT_NOFILE is lowered): fills every
// descriptor with client sockets, lets the server accept a few, and leaves
// the rest queued so that every accept fails with EMFILE for 3 s. Prints what
// it saw; returns the exit status.
int runOutOfDescriptors() {
  Lines lines;
  TransportService server(nodeOptions("server", lines.logger(), 2));
  registerEcho(server);
  const uint16_t port = server.listen("127.0.0.1", 0);
  // Serve one client first. (Besides showing the server works, this runs
  // the accept and read paths once while descriptors are plentiful: UBSan's
  // vptr check needs a pipe the first time it sees a type, and reports any
  // object as invalid when it cannot create one.)
  {
    TransportService client(quietClient());
    auto c = client.connect("127.0.0.1", port);
    if (client.submitRequest(c, "echo", Blob({1}), readBlob, 5s).get().bytes.size() != 1) return 9;
  }
  if (!waitUntil([&] { return server.stats().inbound_connections == 0; })) return 9;

  rlimit old{};
  ::getrlimit(RLIMIT_NOFILE, &old);
  rlimit low = old;
  low.rlim_cur = static_cast<rlim_t>(highestOpenFd() + 1 + 40);
  if (::setrlimit(RLIMIT_NOFILE, &low) != 0) return 10;
  std::vector<int> clients;
  while (true) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) break;
    clients.push_back(fd);
  }
  if (errno != EMFILE || clients.size() < 30) return 11;
  for (int i = 0; i < 5; ++i) {  // room for the server to accept 5
    ::close(clients.back());
    clients.pop_back();
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (int fd : clients) {
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return 12;
  }
  std::this_thread::sleep_for(3s);
  const TransportStats during = server.stats();
  const size_t warns = lines.count(LogLevel::kWarn, "accept failed");
  const size_t suppressed = lines.count(LogLevel::kWarn, "similar lines suppressed");
  std::fprintf(stderr, "in 3 s: %zu accepted, %llu accept failures, %zu WARN lines\n",
               during.inbound_connections, static_cast<unsigned long long>(during.accept_failures),
               warns);
  lines.print("accept failed");

  // Free the descriptors: the queued connections are accepted (and found
  // closed), and a new client is served within the 1 s backoff.
  ::setrlimit(RLIMIT_NOFILE, &old);
  for (int fd : clients) ::close(fd);
  bool served = false;
  try {
    TransportService client(quietClient());
    auto c = client.connect("127.0.0.1", port);
    served = client.submitRequest(c, "echo", Blob({9}), readBlob, 5s).get().bytes ==
             std::vector<uint8_t>{9};
  } catch (const std::exception& e) {
    std::fprintf(stderr, "after freeing: %s\n", e.what());
  }
  const bool drained = waitUntil([&] { return server.stats().inbound_connections == 0; });
  const bool ok = during.accept_failures >= 3 && during.accept_failures <= 15 && warns >= 1 &&
                  warns <= 5 && suppressed >= 1 && during.inbound_connections == 5 && served &&
                  drained;
  std::fprintf(stderr, "%s\n", ok ? "out-of-descriptors: bounded and recovered" : "FAILED");
  return ok ? 0 : 1;
}

TEST_F(LimitsTest, OutOfDescriptorsBacksOffWithBoundedLogAndRecovers) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(runOutOfDescriptors()), ::testing::ExitedWithCode(0),
              "out-of-descriptors: bounded and recovered");
}

// ---- handshake timeout --------------------------------------------------

TEST_F(LimitsTest, HandshakeTimeoutClosesIdleAndHalfHandshakenSockets) {
  TransportOptions o = serverOptions();
  o.handshake_timeout = 300ms;
  startServer(o);
  const auto start = std::chrono::steady_clock::now();
  RawSocket idle = RawSocket::connectTo(port);
  RawSocket half = RawSocket::connectTo(port);
  std::vector<uint8_t> hello = testing::handshakeRequest(1, TransportVersion::current());
  half.write(hello.data(), hello.size() / 2);
  RawSocket good = testing::handshakenClient(port);
  EXPECT_TRUE(idle.waitClosed(5s));
  EXPECT_TRUE(half.waitClosed(5s));
  EXPECT_GE(std::chrono::steady_clock::now() - start, 300ms);
  EXPECT_TRUE(waitUntil([&] { return server->stats().handshake_timeouts == 2; }));
  // One line each, at most one a second of them at WARN.
  EXPECT_EQ(lines.count("handshake not completed within 300ms"), 2u);
  EXPECT_GE(lines.count(LogLevel::kWarn, "handshake not completed"), 1u);
  EXPECT_LE(lines.count(LogLevel::kWarn, "handshake not completed"), 2u);
  EXPECT_EQ(lines.count("received " + std::to_string(hello.size() / 2) + " bytes"), 1u);
  // A connection that completed its handshake is not affected.
  std::this_thread::sleep_for(400ms);
  expectEcho(good, 2);
  EXPECT_EQ(server->stats().inbound_connections, 1u);
}

TEST_F(LimitsTest, HandshakeTimeoutZeroWaitsForever) {
  TransportOptions o = serverOptions();
  o.handshake_timeout = 0ms;
  startServer(o);
  RawSocket idle = RawSocket::connectTo(port);
  EXPECT_FALSE(idle.waitClosed(500ms));
  EXPECT_EQ(server->stats().handshake_timeouts, 0u);
}

// ---- inbound connection cap ---------------------------------------------

TEST_F(LimitsTest, ConnectionsPastTheCapAreClosedAtOnce) {
  TransportOptions o = serverOptions();
  o.max_inbound_connections = 3;
  startServer(o);
  std::deque<RawSocket> open;
  for (int i = 0; i < 3; ++i) open.push_back(testing::handshakenClient(port));
  ASSERT_TRUE(waitUntil([&] { return server->stats().inbound_connections == 3; }));
  for (int i = 0; i < 5; ++i) {
    RawSocket extra = RawSocket::connectTo(port);
    EXPECT_TRUE(extra.waitClosed(2s)) << i;
  }
  EXPECT_EQ(server->stats().rejected_connections, 5u);
  EXPECT_EQ(server->stats().inbound_connections, 3u);
  // (Each line is written just after its socket closed.)
  EXPECT_TRUE(waitUntil([&] { return lines.count("the maximum (max_inbound_connections)") == 5; }));
  EXPECT_LE(lines.count(LogLevel::kWarn, "max_inbound_connections"), 2u);
  {
    TransportService client(quietClient());
    EXPECT_THROW(client.connect("127.0.0.1", port), ConnectTransportError);
  }
  // The admitted connections are still served; once one closes, a new
  // client gets in.
  expectEcho(open[1], 2);
  open.pop_front();
  ASSERT_TRUE(waitUntil([&] { return server->stats().inbound_connections == 2; }));
  expectServed();
  expectEcho(open[0], 3);
}

// ---- node inbound budget --------------------------------------------------

// A request frame for "echo" with a body of `n` bytes.
std::vector<uint8_t> bigRequest(int64_t id, size_t n) {
  return testing::requestFrame(id, "echo", Blob(std::vector<uint8_t>(n, 0x5a)));
}

TEST_F(LimitsTest, PartialFramesPastTheNodeBudgetAreRefusedOthersServed) {
  TransportOptions o = serverOptions();
  o.node_inbound_budget = 1 << 20;
  startServer(o);
  // A stalls 100 KiB into a 600 KiB frame: admitted, its declared size held.
  RawSocket a = testing::handshakenClient(port);
  const std::vector<uint8_t> frame_a = bigRequest(2, 600 * 1024);
  a.write(frame_a.data(), 100 * 1024);
  ASSERT_TRUE(waitUntil([&] { return server->stats().inbound_bytes == frame_a.size(); }));

  // B..E each start a 600 KiB frame: refused at the header, answered at once.
  std::vector<RawSocket> refused;
  const std::vector<uint8_t> frame_b = bigRequest(2, 600 * 1024);
  for (int i = 0; i < 4; ++i) {
    refused.push_back(testing::handshakenClient(port));
    refused.back().write(frame_b.data(), 50 * 1024);
    DecodedFrame f = refused.back().readFrame(5s);
    EXPECT_EQ(f.header.request_id, 2);
    EXPECT_TRUE(f.header.isError());
    EXPECT_TRUE(contains(f, "[inflight_requests] Data too large")) << i;
  }
  TransportStats stats = server->stats();
  EXPECT_EQ(stats.refused_frames, 4u);
  EXPECT_EQ(stats.inbound_bytes, frame_a.size());  // the refused hold nothing
  EXPECT_EQ(lines.count("refusing a frame of " + std::to_string(frame_b.size()) + " bytes"), 4u);
  EXPECT_LE(lines.count(LogLevel::kWarn, "refusing a frame"), 2u);

  // A well-behaved client is served meanwhile.
  expectServed();
  // A refused connection stays in step: the rest of its frame is dropped,
  // and its next (small) request is answered.
  refused[0].write(frame_b.data() + 50 * 1024, frame_b.size() - 50 * 1024);
  expectEcho(refused[0], 3);
  // And A, completing its frame, is answered too.
  a.write(frame_a.data() + 100 * 1024, frame_a.size() - 100 * 1024);
  DecodedFrame echoed = a.readFrame(5s);
  EXPECT_EQ(echoed.header.request_id, 2);
  EXPECT_FALSE(echoed.header.isError());
  EXPECT_TRUE(waitUntil([&] { return server->stats().inbound_bytes == 0; }));

  // A frame abandoned mid-way gives its bytes back when its connection goes.
  a.write(frame_a.data(), 200 * 1024);
  ASSERT_TRUE(waitUntil([&] { return server->stats().inbound_bytes == frame_a.size(); }));
  a.reset();
  EXPECT_TRUE(waitUntil([&] { return server->stats().inbound_bytes == 0; }));
  refused.clear();
  EXPECT_TRUE(waitUntil([&] { return server->stats().inbound_connections == 0; }));
  EXPECT_EQ(server->stats().inbound_bytes, 0u);
}

// Registers "hold" on `server`: its requests wait, unanswered, until taken.
class HeldRequests {
 public:
  explicit HeldRequests(TransportService& server) {
    server.registerAsyncRequestHandler("hold", readBlob,
                                       [this](Blob&&, std::shared_ptr<TransportChannel> ch) {
                                         std::lock_guard<std::mutex> lock(mu_);
                                         channels_.push_back(std::move(ch));
                                       });
  }
  // Waits until `n` requests are held.
  bool waitFor(size_t n) {
    return waitUntil([&] {
      std::lock_guard<std::mutex> lock(mu_);
      return channels_.size() == n;
    });
  }
  std::vector<std::shared_ptr<TransportChannel>> take() {
    std::lock_guard<std::mutex> lock(mu_);
    return std::exchange(channels_, {});
  }

 private:
  std::mutex mu_;
  std::vector<std::shared_ptr<TransportChannel>> channels_;
};

TEST_F(LimitsTest, HeldRequestsCountUntilAnsweredOrDropped) {
  TransportOptions o = serverOptions();
  o.node_inbound_budget = 1 << 20;
  startServer(o);
  HeldRequests held(*server);
  TransportService client(quietClient());
  auto conn = client.connect("127.0.0.1", port);
  std::vector<std::future<Blob>> answers;
  for (int i = 0; i < 3; ++i) {
    answers.push_back(
        client.submitRequest(conn, "hold", Blob(std::vector<uint8_t>(200 * 1024)), readBlob, 5s));
  }
  ASSERT_TRUE(held.waitFor(3));
  const size_t held_bytes = server->stats().inbound_bytes;
  EXPECT_GT(held_bytes, 3u * 200 * 1024);
  EXPECT_LT(held_bytes, 3u * 201 * 1024);
  // 600 KiB held + 500 KiB > 1 MiB: refused with the breaker's error.
  try {
    client.submitRequest(conn, "hold", Blob(std::vector<uint8_t>(500 * 1024)), readBlob, 5s).get();
    FAIL() << "not refused";
  } catch (const RemoteTransportError& e) {
    EXPECT_EQ(e.type(), "circuit_breaking_exception");
    EXPECT_NE(std::string(e.what()).find("Data too large"), std::string::npos) << e.what();
  }
  EXPECT_EQ(server->stats().inbound_bytes, held_bytes);
  std::vector<std::shared_ptr<TransportChannel>> channels = held.take();
  channels[0]->sendResponse(Blob({1}));
  EXPECT_EQ(answers[0].get().bytes, std::vector<uint8_t>{1});
  channels[1]->sendError("illegal_state_exception", "no");
  EXPECT_THROW(answers[1].get(), RemoteTransportError);
  channels.clear();  // the last is dropped unanswered: its destructor answers
  EXPECT_THROW(answers[2].get(), RemoteTransportError);
  EXPECT_EQ(server->stats().inbound_bytes, 0u);
}

// Held requests are counted, not only weighed: past max_requests_in_flight
// a request is answered with the in-flight breaker at once; answering the
// held ones makes room again.
TEST_F(LimitsTest, RequestsPastTheInFlightCountAreRefusedUntilTheHeldOnesAreAnswered) {
  TransportOptions o = serverOptions();
  o.max_requests_in_flight = 100;
  startServer(o);
  HeldRequests held(*server);
  TransportService client(quietClient());
  auto conn = client.connect("127.0.0.1", port);
  std::vector<std::future<Blob>> answers;
  for (int i = 0; i < 150; ++i) {
    answers.push_back(client.submitRequest(conn, "hold", Blob({1}), readBlob, 10s));
  }
  size_t refused = 0;
  for (size_t i = 100; i < answers.size(); ++i) {
    try {
      answers[i].get();
    } catch (const RemoteTransportError& e) {
      EXPECT_EQ(e.type(), "circuit_breaking_exception");
      EXPECT_NE(std::string(e.what()).find("the maximum (max_requests_in_flight) is [100]"),
                std::string::npos)
          << e.what();
      ++refused;
    }
  }
  EXPECT_EQ(refused, 50u);
  ASSERT_TRUE(held.waitFor(100));
  for (auto& ch : held.take()) ch->sendResponse(Blob({2}));
  for (size_t i = 0; i < 100; ++i) EXPECT_EQ(answers[i].get().bytes, std::vector<uint8_t>{2});
  std::future<Blob> again = client.submitRequest(conn, "hold", Blob({3}), readBlob, 10s);
  ASSERT_TRUE(held.waitFor(1));
  held.take()[0]->sendResponse(Blob({4}));
  EXPECT_EQ(again.get().bytes, std::vector<uint8_t>{4});
}

// A held request is charged the header map its channel keeps, not only its
// frame's bytes: 2,000 short keys are ~13 KB of frame and ~230 KB of memory
// (1 M keys in an 8 MB frame held 29 times the frame).
TEST_F(LimitsTest, HeldRequestsAreChargedTheHeaderMapsTheyKeep) {
  startServer(serverOptions());
  HeldRequests held(*server);
  RawSocket s = testing::handshakenClient(port);
  RequestHeaders headers;
  for (int i = 0; i < 2000; ++i) headers.emplace("k" + std::to_string(i), "");
  BytesStreamOutput out;
  writeRequestFrame(out, {2, TransportVersion::current(), false}, "hold", headers, Blob({1}),
                    CompressionScheme::kNone);
  s.write(out.bytes().toVector());
  ASSERT_TRUE(held.waitFor(1));
  const size_t counted = server->stats().inbound_bytes;
  EXPECT_GT(counted, out.size() + headers.size() * sizeof(RequestHeaders::value_type))
      << "frame " << out.size();
  std::fprintf(stderr, "a frame of %zu bytes with %zu headers held: %zu bytes counted\n",
               out.size(), headers.size(), counted);
  held.take()[0]->sendResponse(Blob({1}));
  DecodedFrame answer = s.readFrame(5s);
  EXPECT_EQ(answer.header.request_id, 2);
  EXPECT_TRUE(waitUntil([&] { return server->stats().inbound_bytes == 0; }));
}

// A compressed request is charged its inflated body (a few KB of LZ4 made
// 6 MiB that the budgets did not see): the second one held does not fit the
// 8 MiB in-flight budget, and the node budget holds both bodies.
TEST_F(LimitsTest, CompressedRequestsAreChargedTheirInflatedBodies) {
  TransportOptions o = serverOptions();
  o.in_flight_budget = 8 << 20;
  startServer(o);
  HeldRequests held(*server);
  TransportOptions co = quietClient();
  co.compress = true;
  TransportService client(co);
  auto conn = client.connect("127.0.0.1", port);
  const Blob zeros(std::vector<uint8_t>(6 << 20));
  std::future<Blob> first = client.submitRequest(conn, "hold", zeros, readBlob, 10s);
  ASSERT_TRUE(held.waitFor(1));
  EXPECT_GT(server->stats().inbound_bytes, size_t{6} << 20);
  try {
    client.submitRequest(conn, "hold", zeros, readBlob, 10s).get();
    FAIL() << "not refused";
  } catch (const RemoteTransportError& e) {
    EXPECT_EQ(e.type(), "circuit_breaking_exception");
    EXPECT_NE(std::string(e.what()).find("Data too large"), std::string::npos) << e.what();
  }
  held.take()[0]->sendResponse(Blob({1}));
  EXPECT_EQ(first.get().bytes, std::vector<uint8_t>{1});
  EXPECT_TRUE(waitUntil([&] { return server->stats().inbound_bytes == 0; }));
}

// A burst of partially received frames takes many pages; once they are gone
// the receive pages fall back under the recycler's retained cap and the rest
// went back to the allocator.
TEST_F(LimitsTest, ReceivePagesFallBackUnderTheRetainedCapAfterABurst) {
  PageRecycler recycler(PageRecycler::kPageSize, 256 * 1024);
  TransportOptions o = serverOptions();
  o.recycler = &recycler;
  startServer(o);
  const uint64_t freed_before = recycler.freedPages();
  std::vector<RawSocket> burst;
  const std::vector<uint8_t> frame = bigRequest(2, 1 << 20);
  for (int i = 0; i < 8; ++i) {
    burst.push_back(testing::handshakenClient(port));
    burst.back().write(frame.data(), 512 * 1024);
  }
  // 8 x 512 KiB received: at least 256 pages out, far above the 16 retained.
  ASSERT_TRUE(waitUntil([&] { return server->stats().inbound_bytes == 8 * frame.size(); }));
  ASSERT_TRUE(waitUntil([&] { return recycler.outstandingPages() >= 8 * 32; }))
      << recycler.outstandingPages();
  for (RawSocket& s : burst) s.reset();
  ASSERT_TRUE(waitUntil([&] { return server->stats().inbound_connections == 0; }));
  EXPECT_TRUE(waitUntil([&] { return recycler.outstandingPages() == 0; }));
  EXPECT_LE(recycler.retainedBytes(), recycler.retainedCapBytes());
  EXPECT_EQ(recycler.retainedBytes(), recycler.retainedCapBytes());
  EXPECT_GE(recycler.freedPages() - freed_before, 8u * 32 - 16);
  EXPECT_EQ(server->stats().inbound_bytes, 0u);
}

// ---- thread-context headers ----------------------------------------------

// 200,000 header keys in one 1.7 MB request (a quadratic read held the I/O
// thread for seconds): refused at the 4,097th string, only that connection
// closed, with one line naming the cap.
TEST_F(LimitsTest, HeadersOverTheCapCloseOnlyTheirConnection) {
  startServer(serverOptions());
  RawSocket good = testing::handshakenClient(port);
  RawSocket bad = testing::handshakenClient(port);
  RequestHeaders headers;
  for (int i = 0; i < 200000; ++i) headers.emplace(std::to_string(i), "");
  BytesStreamOutput out;
  writeRequestFrame(out, {5, TransportVersion::current(), false}, "echo", headers, Blob({1}),
                    CompressionScheme::kNone);
  const auto start = std::chrono::steady_clock::now();
  bad.write(out.bytes().toVector());
  EXPECT_TRUE(bad.waitClosed(5s));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  EXPECT_TRUE(waitUntil([&] { return lines.count("more than 4096 header strings") == 1; }));
  expectEcho(good, 2);
  expectServed();
}

// ---- log lines a peer can cause ------------------------------------------

// A connect, half a frame, reset loop (46,799 WARN lines in 5 s before the
// limit): every connection is counted, at most one line a second reaches
// WARN, a summary line counts the rest, and other peers are served.
TEST_F(LimitsTest, AConnectAndResetLoopCostsOneLineASecond) {
  startServer(nodeOptions("server", log.logger(), 2));
  RawSocket good = testing::handshakenClient(port);
  const std::vector<uint8_t> frame = bigRequest(2, 1000);
  const auto start = std::chrono::steady_clock::now();
  uint64_t resets = 0;
  while (std::chrono::steady_clock::now() - start < 2s) {
    RawSocket s = testing::handshakenClient(port);
    s.write(frame.data(), frame.size() / 2);
    // Read by the server (its frame holds the budget), then reset.
    ASSERT_TRUE(waitUntil([&] { return server->stats().inbound_bytes > 0; }));
    s.reset();
    ++resets;
    ASSERT_TRUE(waitUntil([&] { return server->stats().truncated_frames == resets; }))
        << server->stats().truncated_frames << " of " << resets;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  expectEcho(good, 3);
  // Every connection is accounted for once the last summary is out.
  const std::string part = "WARN closing connection";
  EXPECT_TRUE(waitUntil([&] { return log.accountedFor("truncated_frames", part) == resets; }, 3s))
      << log.accountedFor("truncated_frames", part) << " of " << resets << "\n"
      << log.text();
  const size_t loud = log.count("WARN ");
  std::fprintf(stderr, "%llu resets in %.1f s: %zu WARN lines\n",
               static_cast<unsigned long long>(resets), seconds, loud);
  EXPECT_GT(resets, 20u);
  // One line and one summary a second, at most.
  EXPECT_LE(loud, 2 * static_cast<size_t>(seconds + 2));
  EXPECT_EQ(log.count("DEBUG closing connection"), resets - log.count(part));
  EXPECT_EQ(server->stats().protocol_errors, 0u);
}

// ---- outbound accounting: peers that do not read their answers -------------

// 300 small requests for 1 MiB answers, none read (without the cap: 300 MiB
// queued). Past max_queued_outbound_bytes the connection reads nothing more
// and its requests wait; after outbound_stall_timeout it is closed with one
// line; other peers are served meanwhile.
TEST_F(LimitsTest, APeerThatReadsNoAnswersIsPausedThenClosedOthersServed) {
  TransportOptions o = serverOptions();
  o.max_queued_outbound_bytes = 4 << 20;
  o.outbound_stall_timeout = 1500ms;
  startServer(o);
  server->registerRequestHandler(
      "big", readBlob, [](const Blob&) { return Blob(std::vector<uint8_t>(1 << 20, 7)); });
  RawSocket bad = testing::handshakenClient(port);
  std::vector<uint8_t> requests;
  for (int i = 0; i < 300; ++i) {
    const std::vector<uint8_t> r = testing::requestFrame(10 + i, "big", Blob({1}));
    requests.insert(requests.end(), r.begin(), r.end());
  }
  const size_t before = residentBytes();
  bad.write(requests);
  ASSERT_TRUE(waitUntil([&] { return server->stats().read_pauses >= 1; }));
  std::this_thread::sleep_for(300ms);
  const size_t during = residentBytes();
  EXPECT_LT(during - std::min(during, before), size_t{64} << 20)
      << "resident grew from " << before << " to " << during;
  expectServed();
  ASSERT_TRUE(waitUntil([&] { return server->stats().stalled_connections == 1; }));
  EXPECT_TRUE(bad.waitClosed(5s));
  EXPECT_EQ(lines.count(LogLevel::kWarn, "the peer did not read its answers"), 1u);
  EXPECT_TRUE(waitUntil([&] { return server->stats().inbound_connections == 0; }));
  expectServed();
}

// A peer reading slowly is paused and resumed, not closed: every answer
// arrives, in order.
TEST_F(LimitsTest, ASlowReaderIsResumedAndGetsEveryAnswer) {
  TransportOptions o = serverOptions();
  o.max_queued_outbound_bytes = 2 << 20;
  o.outbound_stall_timeout = 10s;
  startServer(o);
  server->registerRequestHandler("big", readBlob, [](const Blob& b) {
    return Blob(std::vector<uint8_t>(512 << 10, b.bytes.at(0)));
  });
  RawSocket slow = testing::handshakenClient(port);
  std::vector<uint8_t> requests;
  for (int i = 0; i < 64; ++i) {
    const std::vector<uint8_t> r =
        testing::requestFrame(100 + i, "big", Blob({static_cast<uint8_t>(i)}));
    requests.insert(requests.end(), r.begin(), r.end());
  }
  slow.write(requests);
  ASSERT_TRUE(waitUntil([&] { return server->stats().read_pauses >= 1; }));
  for (int i = 0; i < 64; ++i) {
    DecodedFrame f = slow.readFrame(10s);
    ASSERT_EQ(f.header.request_id, 100 + i);
    ASSERT_FALSE(f.header.isError());
    if (i % 8 == 0) std::this_thread::sleep_for(20ms);  // a slow reader
  }
  EXPECT_EQ(server->stats().stalled_connections, 0u);
  expectEcho(slow, 7);
}

// 50,000 pings, answers never read (each answer was a 16 KiB page: 800 MB):
// a ping is answered only once the previous answer has left.
TEST_F(LimitsTest, APingFloodWhoseAnswersAreNotReadHoldsNoMemory) {
  startServer(serverOptions());
  RawSocket bad = testing::handshakenClient(port);
  std::vector<uint8_t> pings;
  for (int i = 0; i < 50000; ++i)
    pings.insert(pings.end(), std::begin(kPingFrame), std::end(kPingFrame));
  const size_t before = residentBytes();
  bad.write(pings);
  std::this_thread::sleep_for(500ms);
  const size_t during = residentBytes();
  EXPECT_LT(during - std::min(during, before), size_t{32} << 20)
      << "resident grew from " << before << " to " << during;
  expectServed();
  // The flooder itself is still served once it reads: a few ping answers
  // (far fewer than its pings), then the echo.
  bad.write(testing::requestFrame(3, "echo", Blob({7})));
  size_t ping_answers = 0;
  DecodedFrame f = bad.readFrame(5s);
  while (f.header.isPing()) {
    ++ping_answers;
    f = bad.readFrame(5s);
  }
  EXPECT_EQ(f.header.request_id, 3);
  EXPECT_GT(ping_answers, 0u);
  EXPECT_LT(ping_answers, 50000u);
}

}  // namespace
}  // namespace wirestream::transport
