// The byte link under the protocol, over real loopback sockets, with an
// owner that records what the link hands it: pieces leave in order (also
// past a full kernel buffer), reads land in the owner's buffers, the peer's
// close is reported as EOF, and TLS links talk to each other but report a
// plaintext peer as a handshake failure with OpenSSL's reason.
#include "transport/net/byte_link.h"

#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <random>
#include <thread>

#include "tests/transport/tls_fixture.h"
#include "transport/tls.h"

namespace wirestream::transport::net {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;

// Records what the link reports; sends what the test queues.
class RecordingOwner final : public ByteLink::Owner {
 public:
  std::vector<std::span<uint8_t>> nextRead(bool) override { return {std::span(buffer_)}; }
  bool onReceived(size_t n) override {
    std::lock_guard<std::mutex> lock(mu_);
    received_.insert(received_.end(), buffer_.begin(), buffer_.begin() + static_cast<long>(n));
    cv_.notify_all();
    return !pause_;
  }
  void onReadEnded(bool eof, const std::string&) override {
    std::lock_guard<std::mutex> lock(mu_);
    ended_ = true;
    eof_ = eof;
    cv_.notify_all();
  }
  void onLinkFailed(ByteLink::Failure kind, const std::string& reason) override {
    std::lock_guard<std::mutex> lock(mu_);
    failure_kind_ = kind;
    failure_ = reason;
    cv_.notify_all();
  }
  bool nextPieces(std::vector<std::span<const uint8_t>>& pieces) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (queued_.empty()) return false;
    sending_ = std::move(queued_.front());
    queued_.pop_front();
    pieces.emplace_back(sending_);
    return true;
  }
  std::shared_ptr<void> keepAlive() override { return alive_; }

  void queue(std::vector<uint8_t> bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    queued_.push_back(std::move(bytes));
  }
  // Waits until `done` holds (under the lock) or 10 s pass.
  template <class Done>
  bool waitFor(Done done) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, 10s, [&] { return done(*this); });
  }
  std::vector<uint8_t> received_;
  bool pause_ = false;  // onReceived stops the link
  bool ended_ = false;
  bool eof_ = false;
  std::string failure_;
  ByteLink::Failure failure_kind_ = ByteLink::Failure::kTransfer;

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<uint8_t> buffer_ = std::vector<uint8_t>(16 * 1024);
  std::deque<std::vector<uint8_t>> queued_;
  std::vector<uint8_t> sending_;
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
};

std::vector<uint8_t> randomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (uint8_t& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

// An io_context with a thread, and a connected pair of loopback sockets.
struct Loopback {
  Loopback() {
    tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    client.connect(acceptor.local_endpoint());
    acceptor.accept(server);
    runner = std::thread([this] { io.run(); });
  }
  ~Loopback() { stop(); }
  // Closes `link` on its strand and waits; then no handler of it runs again.
  void close(ByteLink& link, Strand& strand) {
    std::promise<void> closed;
    asio::post(strand, [&] {
      link.close();
      closed.set_value();
    });
    closed.get_future().wait();
    stop();
  }
  void stop() {
    guard.reset();
    io.stop();
    if (runner.joinable()) runner.join();
  }
  asio::io_context io;
  asio::executor_work_guard<asio::io_context::executor_type> guard{io.get_executor()};
  tcp::socket client{io};
  tcp::socket server{io};
  std::thread runner;
};

TEST(PlainLink, PiecesLeaveInOrderPastAFullKernelBufferAndReadsReachTheOwner) {
  Loopback net;
  RecordingOwner owner;
  Strand strand = asio::make_strand(net.io);
  std::unique_ptr<ByteLink> link = makeByteLink(std::move(net.client), strand, owner, std::nullopt);
  EXPECT_FALSE(link->isTls());
  asio::post(strand, [&] { link->start(); });
  // 24 MiB in pieces of varied sizes: far more than the socket buffers take
  // while the peer reads nothing, so the writer continues on the strand.
  std::vector<uint8_t> expected;
  for (uint32_t i = 0; i < 48; ++i) {
    std::vector<uint8_t> piece = randomBytes((512 << 10) + i * 97, i);
    expected.insert(expected.end(), piece.begin(), piece.end());
    owner.queue(std::move(piece));
  }
  link->flush();
  std::vector<uint8_t> got(expected.size());
  asio::read(net.server, asio::buffer(got));
  EXPECT_TRUE(got == expected);
  // The count follows the sendmsg that the peer may have read already.
  for (int i = 0; i < 500 && link->bytesSent() < expected.size(); ++i)
    std::this_thread::sleep_for(10ms);
  EXPECT_EQ(link->bytesSent(), expected.size());

  const std::vector<uint8_t> incoming = randomBytes(100'000, 99);
  asio::write(net.server, asio::buffer(incoming));
  ASSERT_TRUE(
      owner.waitFor([&](RecordingOwner& o) { return o.received_.size() == incoming.size(); }));
  EXPECT_TRUE(owner.received_ == incoming);
  net.server.close();
  ASSERT_TRUE(owner.waitFor([](RecordingOwner& o) { return o.ended_; }));
  EXPECT_TRUE(owner.eof_);
  EXPECT_TRUE(owner.failure_.empty());
  net.close(*link, strand);
}

TEST(PlainLink, AWriteToAClosedPeerIsReportedAsALinkFailure) {
  Loopback net;
  RecordingOwner owner;
  Strand strand = asio::make_strand(net.io);
  std::unique_ptr<ByteLink> link = makeByteLink(std::move(net.client), strand, owner, std::nullopt);
  net.server.set_option(asio::socket_base::linger(true, 0));
  net.server.close();  // RST
  std::this_thread::sleep_for(50ms);
  for (int i = 0; i < 4; ++i) owner.queue(randomBytes(1 << 20, i));
  link->flush();
  ASSERT_TRUE(owner.waitFor([](RecordingOwner& o) { return !o.failure_.empty(); }));
  EXPECT_EQ(owner.failure_.rfind("write failed: ", 0), 0u) << owner.failure_;
  EXPECT_EQ(owner.failure_kind_, ByteLink::Failure::kTransfer);
  net.close(*link, strand);
}

TEST(TlsLink, TwoLinksExchangeBytesBothWays) {
  const testing::TlsCerts& certs = testing::TlsCerts::get();
  const TlsOptions server_options = certs.options(certs.server);
  const TlsOptions client_options = certs.options(certs.client);
  auto server_context = tls::makeContext(server_options);
  auto client_context = tls::makeContext(client_options);
  Loopback net;
  RecordingOwner server_owner, client_owner;
  Strand server_strand = asio::make_strand(net.io);
  Strand client_strand = asio::make_strand(net.io);
  auto server = makeByteLink(std::move(net.server), server_strand, server_owner,
                             TlsLinkSettings{server_context.get(), &server_options, false, ""});
  auto client =
      makeByteLink(std::move(net.client), client_strand, client_owner,
                   TlsLinkSettings{client_context.get(), &client_options, true, "127.0.0.1"});
  EXPECT_TRUE(client->isTls());
  // Queued before the handshake: goes out once it is done.
  const std::vector<uint8_t> request = randomBytes(3 << 20, 1);
  client_owner.queue(request);
  client->flush();
  asio::post(server_strand, [&] { server->start(); });
  asio::post(client_strand, [&] { client->start(); });
  ASSERT_TRUE(server_owner.waitFor([&](RecordingOwner& o) {
    return o.received_.size() >= request.size() || !o.failure_.empty();
  }));
  EXPECT_TRUE(server_owner.received_ == request) << server_owner.failure_;
  const std::vector<uint8_t> response = randomBytes(70'000, 2);
  server_owner.queue(response);
  server->flush();
  ASSERT_TRUE(client_owner.waitFor(
      [&](RecordingOwner& o) { return o.received_.size() >= response.size(); }));
  EXPECT_TRUE(client_owner.received_ == response);
  EXPECT_EQ(client->bytesSent(), request.size());
  EXPECT_EQ(client->tlsFailure(), "");
  asio::post(client_strand, [&] { client->close(); });
  ASSERT_TRUE(server_owner.waitFor([](RecordingOwner& o) { return o.ended_; }));
  net.close(*server, server_strand);
}

TEST(TlsLink, APlaintextPeerFailsTheHandshakeWithOpenSslsReason) {
  const testing::TlsCerts& certs = testing::TlsCerts::get();
  const TlsOptions server_options = certs.options(certs.server);
  auto server_context = tls::makeContext(server_options);
  Loopback net;
  RecordingOwner owner;
  Strand strand = asio::make_strand(net.io);
  auto server = makeByteLink(std::move(net.server), strand, owner,
                             TlsLinkSettings{server_context.get(), &server_options, false, ""});
  asio::post(strand, [&] { server->start(); });
  const std::vector<uint8_t> plaintext(64, 'E');
  asio::write(net.client, asio::buffer(plaintext));
  ASSERT_TRUE(owner.waitFor([](RecordingOwner& o) { return !o.failure_.empty(); }));
  EXPECT_EQ(owner.failure_.rfind("TLS handshake failed (a plaintext peer?): ", 0), 0u)
      << owner.failure_;
  EXPECT_EQ(owner.failure_kind_, ByteLink::Failure::kTlsHandshake);
  EXPECT_NE(server->tlsFailure(), "");
  net.close(*server, strand);
}

}  // namespace
}  // namespace wirestream::transport::net
