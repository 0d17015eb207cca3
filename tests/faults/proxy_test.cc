// FaultProxy on loopback: each mode does what it says, and each check here
// would fail if it did not (a pass-mode run is the contrast for every fault).
#include "tests/faults/proxy.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <numeric>
#include <random>
#include <thread>
#include <vector>

namespace wirestream::faults {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

int listenLoopback(uint16_t& port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  EXPECT_EQ(::listen(fd, 16), 0);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  port = ntohs(a.sin_port);
  return fd;
}

int connectLoopback(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0) << std::strerror(errno);
  return fd;
}

// Bytes readable on fd within `wait`, or -1 and errno on an error.
ssize_t readFor(int fd, std::vector<uint8_t>& out, std::chrono::milliseconds wait) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(wait.count())) <= 0) return 0;
  uint8_t buf[65536];
  ssize_t n = ::recv(fd, buf, sizeof buf, 0);
  if (n > 0) out.insert(out.end(), buf, buf + n);
  return n;
}

// An upstream that echoes every connection's bytes back, or (stream) sends
// an endless stream of bytes without reading.
class Upstream {
 public:
  explicit Upstream(bool stream = false) : stream_(stream) {
    fd_ = listenLoopback(port_);
    thread_ = std::thread([this] {
      while (true) {
        int c = ::accept(fd_, nullptr, nullptr);
        if (c < 0) return;
        workers_.emplace_back([this, c] { serve(c); });
      }
    });
  }
  ~Upstream() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
    for (auto& w : workers_) w.join();
  }
  uint16_t port() const { return port_; }
  std::atomic<int> send_errors{0};
  std::atomic<int> resets_seen{0};

 private:
  void serve(int c) {
    std::vector<uint8_t> buf(65536, 0x5a);
    while (!stop_) {
      if (stream_) {
        if (::send(c, buf.data(), buf.size(), MSG_NOSIGNAL) < 0) {
          if (errno == ECONNRESET || errno == EPIPE) ++resets_seen;
          ++send_errors;
          break;
        }
        continue;
      }
      pollfd p{c, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      ssize_t n = ::recv(c, buf.data(), buf.size(), 0);
      if (n <= 0) break;
      if (::send(c, buf.data(), static_cast<size_t>(n), MSG_NOSIGNAL) != n) break;
    }
    ::close(c);
  }
  bool stream_;
  int fd_;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::vector<std::thread> workers_;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

std::vector<uint8_t> randomBytes(size_t n) {
  std::mt19937 rng(7);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

// Sends `data` in pieces of `piece` bytes, `gap` apart, and reads the echo;
// returns what came back and each piece's round trip.
std::vector<uint8_t> echoThrough(uint16_t port, const std::vector<uint8_t>& data, size_t piece,
                                 std::chrono::milliseconds gap, std::vector<double>* rtts) {
  int fd = connectLoopback(port);
  std::vector<uint8_t> back;
  for (size_t off = 0; off < data.size(); off += piece) {
    size_t n = std::min(piece, data.size() - off);
    auto t0 = Clock::now();
    EXPECT_EQ(::send(fd, data.data() + off, n, MSG_NOSIGNAL), static_cast<ssize_t>(n));
    const size_t want = off + n;
    while (back.size() < want) {
      if (readFor(fd, back, 2000ms) <= 0) break;
    }
    if (rtts) rtts->push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    if (gap.count() > 0) std::this_thread::sleep_for(gap);
  }
  ::close(fd);
  return back;
}

TEST(FaultProxyTest, PassForwardsBytesIntactAndFast) {
  Upstream up;
  FaultProxy proxy("127.0.0.1", 0, "127.0.0.1", up.port());
  uint16_t port = proxy.start();
  auto data = randomBytes(1 << 20);
  std::vector<double> rtts;
  EXPECT_EQ(echoThrough(port, data, 64 * 1024, 0ms, &rtts), data);
  // The contrast for the delay test: without it a round trip is well under 50 ms.
  EXPECT_LT(median(rtts), 50.0);
  EXPECT_EQ(proxy.command("stats").rfind("accepted=1 ", 0), 0u);
}

TEST(FaultProxyTest, DelayHoldsEachChunkInItsRangeAndKeepsOrder) {
  Upstream up;
  FaultProxy proxy("127.0.0.1", 0, "127.0.0.1", up.port());
  uint16_t port = proxy.start();
  ASSERT_EQ(proxy.command("delay 100 50"), "ok");
  auto data = randomBytes(40 * 1000);
  std::vector<double> rtts;
  // Each piece crosses the proxy twice (out and back): 100 to 300 ms.
  EXPECT_EQ(echoThrough(port, data, 1000, 0ms, &rtts), data);  // intact, in order
  ASSERT_EQ(rtts.size(), 40u);
  for (double r : rtts) {
    EXPECT_GE(r, 99.0);
    EXPECT_LE(r, 300.0 + 150.0);  // + slack for a loaded machine
  }
  // Random delays: not all the same.
  auto [lo, hi] = std::minmax_element(rtts.begin(), rtts.end());
  EXPECT_GT(*hi - *lo, 20.0);
  // Pieces sent back to back, each its own chunk with its own delay, still
  // arrive in order (a later, shorter delay waits for the earlier chunk).
  int fd = connectLoopback(port);
  std::vector<uint8_t> back;
  for (size_t off = 0; off < data.size(); off += 500) {
    ASSERT_EQ(::send(fd, data.data() + off, 500, MSG_NOSIGNAL), 500);
    std::this_thread::sleep_for(2ms);
  }
  while (back.size() < data.size() && readFor(fd, back, 2000ms) > 0) {
  }
  ::close(fd);
  EXPECT_EQ(back, data);
  ASSERT_EQ(proxy.command("pass"), "ok");
  rtts.clear();
  echoThrough(port, randomBytes(5000), 1000, 0ms, &rtts);
  EXPECT_LT(median(rtts), 50.0);
  EXPECT_EQ(proxy.command("delay 10 20").rfind("error", 0), 0u);  // jitter above the mean
}

TEST(FaultProxyTest, BlackholePassesNothingAndClosesNothingUntilResume) {
  Upstream up;
  FaultProxy proxy("127.0.0.1", 0, "127.0.0.1", up.port());
  uint16_t port = proxy.start();
  int fd = connectLoopback(port);
  std::vector<uint8_t> back;
  ASSERT_EQ(::send(fd, "ping", 4, MSG_NOSIGNAL), 4);
  while (back.size() < 4 && readFor(fd, back, 1000ms) > 0) {
  }
  ASSERT_EQ(back.size(), 4u);  // contrast: it passes before the blackhole
  ASSERT_EQ(proxy.command("blackhole"), "ok");
  ASSERT_EQ(::send(fd, "silent", 6, MSG_NOSIGNAL), 6);
  back.clear();
  auto t0 = Clock::now();
  while (Clock::now() - t0 < 500ms) {
    ASSERT_GE(readFor(fd, back, 100ms), 0) << "the connection closed in a blackhole";
  }
  EXPECT_TRUE(back.empty()) << "bytes passed during the blackhole";
  ASSERT_EQ(proxy.command("resume"), "ok");
  while (back.size() < 6 && readFor(fd, back, 1000ms) > 0) {
  }
  EXPECT_EQ(std::string(back.begin(), back.end()), "silent");  // held, then passed on
  ::close(fd);
}

TEST(FaultProxyTest, ResetCutsAChunkAndBothPeersSeeReset) {
  Upstream up(/*stream=*/true);
  FaultProxy proxy("127.0.0.1", 0, "127.0.0.1", up.port());
  uint16_t port = proxy.start();
  int fd = connectLoopback(port);
  std::vector<uint8_t> got;
  while (got.size() < 1000000) {
    ASSERT_GT(readFor(fd, got, 1000ms), 0);  // contrast: bytes flow, no reset
  }
  ASSERT_EQ(proxy.command("reset"), "ok");
  ssize_t n = 1;
  int err = 0;
  auto t0 = Clock::now();
  while (n > 0 && Clock::now() - t0 < 2s) {
    got.clear();
    n = readFor(fd, got, 500ms);
    if (n < 0) err = errno;
  }
  EXPECT_EQ(n, -1) << "the client saw no reset (0 = FIN or nothing)";
  EXPECT_EQ(err, ECONNRESET);
  ::close(fd);
  for (int i = 0; i < 100 && up.resets_seen == 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(up.resets_seen, 1);
  EXPECT_EQ(proxy.counters().resets, 1u);
  EXPECT_EQ(proxy.counters().cut, 1u);  // it cut a chunk (a stream: there always is one)
  // A new connection after the reset is forwarded as usual.
  int again = connectLoopback(port);
  got.clear();
  EXPECT_GT(readFor(again, got, 1000ms), 0);
  ::close(again);
}

TEST(FaultProxyTest, DropSynLeavesConnectsHangingUntilAccept) {
  Upstream up;
  FaultProxy proxy("127.0.0.1", 0, "127.0.0.1", up.port());
  uint16_t port = proxy.start();
  auto tryConnect = [&](std::chrono::milliseconds wait) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(port);
    ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    pollfd p{fd, POLLOUT, 0};
    bool connected = ::poll(&p, 1, static_cast<int>(wait.count())) == 1;
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    ::close(fd);
    return connected && err == 0;
  };
  EXPECT_TRUE(tryConnect(500ms));  // contrast
  ASSERT_EQ(proxy.command("dropsyn"), "ok");
  std::this_thread::sleep_for(50ms);  // the filler's handshake completes
  EXPECT_FALSE(tryConnect(1500ms)) << "a SYN was answered while the backlog was full";
  ASSERT_EQ(proxy.command("accept"), "ok");
  std::this_thread::sleep_for(50ms);
  EXPECT_TRUE(tryConnect(1000ms));
  auto data = randomBytes(5000);
  EXPECT_EQ(echoThrough(port, data, 5000, 0ms, nullptr), data);
}

TEST(FaultProxyTest, UpstreamRefusedResetsTheClient) {
  uint16_t dead_port;
  int fd = listenLoopback(dead_port);
  ::close(fd);  // nothing listens there now
  FaultProxy proxy("127.0.0.1", 0, "127.0.0.1", dead_port);
  uint16_t port = proxy.start();
  int c = connectLoopback(port);
  std::vector<uint8_t> got;
  ssize_t n = readFor(c, got, 1000ms);
  int err = errno;
  EXPECT_EQ(n, -1);
  EXPECT_EQ(err, ECONNRESET);
  ::close(c);
}

}  // namespace
}  // namespace wirestream::faults
