// TransportService over mutual TLS on loopback: round trips of 1 B to 4 MiB,
// each verification and client-authentication mode, and every refusal: one
// WARN on the refusing node naming the peer and OpenSSL's reason, a typed
// error on the connecting side, and the node still serving others. Every
// wait is bounded.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <future>
#include <iterator>
#include <mutex>
#include <thread>

#include "tests/transport/test_support.h"
#include "tests/transport/tls_fixture.h"
#include "transport/tls.h"
#include "transport/transport_service.h"
#include "transport/zero_copy.h"

namespace wirestream::transport {
namespace {

using namespace std::chrono_literals;
using namespace wirestream::transport::testing;  // test_support.h, tls_fixture.h
using Mode = TlsOptions::VerificationMode;
using ClientAuth = TlsOptions::ClientAuth;

class TlsTransportTest : public ::testing::Test {
 protected:
  const TlsCerts& certs = TlsCerts::get();

  TransportOptions serverOptions(std::optional<TlsOptions> tls) {
    TransportOptions o = nodeOptions("server", server_log.logger(), 2);
    o.tls = std::move(tls);
    return o;
  }
  TransportOptions clientOptions(std::optional<TlsOptions> tls) {
    TransportOptions o = nodeOptions("client", client_log.logger());
    o.tls = std::move(tls);
    return o;
  }
  void startServer(TransportOptions o) {
    server = std::make_unique<TransportService>(std::move(o));
    registerEcho(*server);
    port = server->listen("127.0.0.1", 0);
  }
  void startServer() { startServer(serverOptions(certs.options(certs.server))); }

  // Connects with `tls` and expects a TlsHandshakeError whose reason
  // contains `reason`.
  void expectRefused(const TlsOptions& tls, const std::string& reason) {
    TransportService client(clientOptions(tls));
    try {
      client.connect("127.0.0.1", port);
      ADD_FAILURE() << "connected; expected a refusal with [" << reason << "]";
    } catch (const TlsHandshakeError& e) {
      EXPECT_NE(e.reason().find(reason), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(e.reason()), std::string::npos) << e.what();
      EXPECT_EQ(e.type(), "connect_transport_exception");
    }
  }

  // The server refused one connection with one WARN naming the peer (an
  // inbound connection's description) and `reason`.
  void expectServerWarned(const std::string& reason) {
    std::string line = server_log.waitFor({"WARN", "inbound 127.0.0.1:", reason});
    EXPECT_FALSE(line.empty()) << "no WARN with [" << reason << "]";
    EXPECT_EQ(server_log.count(reason), 1u);
    if (reason.starts_with("TLS handshake failed")) {
      EXPECT_EQ(server->stats().tls_handshake_failures, 1u);
    }
  }

  // A client with `tls` connects and gets an answer.
  void expectServed(const std::optional<TlsOptions>& tls) {
    TransportService client(clientOptions(tls));
    auto c = client.connect("127.0.0.1", port);
    Blob r = client.submitRequest(c, "echo", Blob({1, 2, 3}), readBlob, 5s).get();
    EXPECT_EQ(r.bytes, (std::vector<uint8_t>{1, 2, 3}));
  }

  // A fresh mutual-TLS client still gets answers: the server kept serving.
  void expectServerStillServes() { expectServed(certs.options(certs.client)); }

  LogCapture server_log;
  LogCapture client_log;
  std::unique_ptr<TransportService> server;
  uint16_t port = 0;
};

TEST_F(TlsTransportTest, MutualTlsRoundTripsOneByteToFourMebibytes) {
  startServer();
  TransportService client(clientOptions(certs.options(certs.client)));
  auto conn = client.connect("127.0.0.1", port);
  EXPECT_EQ(conn->version(), TransportVersion::current());
  for (size_t size : {size_t{1}, size_t{100}, size_t{16383}, size_t{16385}, size_t{65536},
                      size_t{1} << 20, size_t{4} << 20}) {
    Blob r = client.submitRequest(conn, "echo", Blob(pattern(size, 7)), readBlob, 10s).get();
    EXPECT_EQ(r.bytes, pattern(size, 7)) << size;
  }
  EXPECT_EQ(server_log.count("WARN"), 0u);
  EXPECT_EQ(client_log.count("WARN"), 0u);
}

// A response received into the caller's buffer (CallContext::receive_buffer):
// the decrypted bytes land there and the reader finds the body in place.
TEST_F(TlsTransportTest, AResponseIsDecryptedIntoTheCallersBuffer) {
  startServer();
  TransportService client(clientOptions(certs.options(certs.client)));
  auto conn = client.connect("127.0.0.1", port);
  for (size_t size : {size_t{100}, size_t{1} << 20}) {
    std::vector<uint8_t> buffer(size + 16);
    TransportService::CallContext context;
    context.receive_buffer = buffer;
    const uint8_t* body = client
                              .submitRequest(
                                  conn, "echo", Blob(pattern(size, 3)),
                                  [](StreamInput& in) {
                                    const size_t n = static_cast<size_t>(in.readArraySize());
                                    return in.readInChunk(n);
                                  },
                                  10s, context)
                              .get();
    ASSERT_NE(body, nullptr) << size;
    EXPECT_GE(body, buffer.data());
    EXPECT_LE(body + size, buffer.data() + buffer.size());
    EXPECT_TRUE(std::equal(body, body + size, pattern(size, 3).begin())) << size;
  }
  EXPECT_EQ(client_log.count("WARN"), 0u);
}

// Bodies sent by reference (zero_copy.h): one piece far larger than a TLS
// record is encrypted whole, on both sides.
TEST_F(TlsTransportTest, BodiesByReferenceOverTls) {
  auto owner = std::make_shared<const std::vector<uint8_t>>(pattern(3 << 20, 5));
  const ByteArrayBody body(
      BytesReference(BytesReference::Piece(owner->data(), owner->size()), owner));
  server = std::make_unique<TransportService>(serverOptions(certs.options(certs.server)));
  server->registerRequestHandler("ref", readBlob, [&body](const Blob&) { return body; });
  port = server->listen("127.0.0.1", 0);
  TransportService client(clientOptions(certs.options(certs.client)));
  auto conn = client.connect("127.0.0.1", port);
  for (int i = 0; i < 3; ++i) {
    try {
      Blob r = client.submitRequest(conn, "ref", body, readBlob, 60s).get();
      EXPECT_EQ(r.bytes, *owner);
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what() << "\nserver:\n"
                    << server_log.text() << "client:\n"
                    << client_log.text();
      break;
    }
  }
  EXPECT_EQ(server_log.count("WARN"), 0u) << server_log.text();
  EXPECT_EQ(client_log.count("WARN"), 0u) << client_log.text();
}

// Relays one connection between a client and `port`, keeping what the
// client sent.
class Relay {
 public:
  explicit Relay(uint16_t target) : target_(target) {
    thread_ = std::thread([this] { run(); });
  }
  ~Relay() { thread_.join(); }
  uint16_t port() const { return listener_.port(); }
  std::vector<uint8_t> clientBytes() {
    std::lock_guard<std::mutex> lock(mu_);
    return client_bytes_;
  }

 private:
  void run() {
    RawSocket client = listener_.accept();
    RawSocket server = RawSocket::connectTo(target_);
    while (true) {
      pollfd fds[2] = {{client.fd(), POLLIN, 0}, {server.fd(), POLLIN, 0}};
      if (::poll(fds, 2, 10000) <= 0) return;
      uint8_t buf[65536];
      for (int i = 0; i < 2; ++i) {
        if (fds[i].revents == 0) continue;
        ssize_t n = ::recv(fds[i].fd, buf, sizeof buf, 0);
        if (n <= 0) return;
        (i == 0 ? server : client).write(buf, static_cast<size_t>(n));
        if (i == 0) {
          std::lock_guard<std::mutex> lock(mu_);
          client_bytes_.insert(client_bytes_.end(), buf, buf + n);
        }
      }
    }
  }
  RawServer listener_;
  uint16_t target_;
  std::mutex mu_;
  std::vector<uint8_t> client_bytes_;
  std::thread thread_;
};

TEST_F(TlsTransportTest, NothingTravelsInTheClear) {
  startServer();
  Relay relay(port);
  {
    TransportService client(clientOptions(certs.options(certs.client)));
    auto conn = client.connect("127.0.0.1", relay.port());
    const std::string marker = "wirestream-plaintext-marker";
    std::vector<uint8_t> body;
    for (int i = 0; i < 100; ++i) body.insert(body.end(), marker.begin(), marker.end());
    EXPECT_EQ(client.submitRequest(conn, "echo", Blob(body), readBlob, 10s).get().bytes, body);
    const std::vector<uint8_t> wire = relay.clientBytes();
    ASSERT_GT(wire.size(), body.size());
    EXPECT_EQ(wire[0], 0x16);  // a TLS handshake record, not 'E' 'S'
    EXPECT_EQ(std::search(wire.begin(), wire.end(), marker.begin(), marker.end()), wire.end());
    const std::string action = "echo";
    EXPECT_EQ(std::search(wire.begin(), wire.end(), action.begin(), action.end()), wire.end());
  }
}

TEST_F(TlsTransportTest, ConcurrentRequestsFromSeveralThreads) {
  startServer();
  TransportService client(clientOptions(certs.options(certs.client)));
  auto conn = client.connect("127.0.0.1", port);
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        size_t size = static_cast<size_t>((t * 7919 + i * 104729) % 200000);
        auto seed = static_cast<uint8_t>(t * 20 + i);
        Blob r = client.submitRequest(conn, "echo", Blob(pattern(size, seed)), readBlob, 10s).get();
        if (r.bytes == pattern(size, seed)) ++ok;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok.load(), 80);
}

TEST_F(TlsTransportTest, CompressedBodiesOverTls) {
  TransportOptions so = serverOptions(certs.options(certs.server));
  so.compress = true;
  startServer(std::move(so));
  TransportOptions co = clientOptions(certs.options(certs.client));
  co.compress = true;
  TransportService client(std::move(co));
  auto conn = client.connect("127.0.0.1", port);
  std::vector<uint8_t> body(1 << 20, 'a');
  EXPECT_EQ(client.submitRequest(conn, "echo", Blob(body), readBlob, 10s).get().bytes, body);
}

TEST_F(TlsTransportTest, EncryptedKeyWithItsPassphraseServes) {
  TlsOptions tls = certs.options(certs.encrypted);
  tls.key_passphrase = "s3cret";
  startServer(serverOptions(tls));
  expectServerStillServes();
}

TEST_F(TlsTransportTest, PlaintextPeerIsRefused) {
  startServer();
  TransportService client(clientOptions(std::nullopt));
  EXPECT_THROW(client.connect("127.0.0.1", port), ConnectTransportError);
  expectServerWarned("TLS handshake failed");
  expectServerStillServes();
}

TEST_F(TlsTransportTest, TlsClientOfAPlaintextNodeGetsATlsError) {
  startServer(serverOptions(std::nullopt));
  TransportService client(clientOptions(certs.options(certs.client)));
  EXPECT_THROW(client.connect("127.0.0.1", port), TlsHandshakeError);
  // The plaintext node sees a frame that is not 'E' 'S' and keeps serving.
  EXPECT_FALSE(server_log.waitFor({"WARN", "inbound 127.0.0.1:"}).empty());
  expectServed(std::nullopt);
}

// A certificate the other side must refuse: the connecting side gets a
// TlsHandshakeError with its reason, the accepting side logs one WARN.
struct Refusal {
  const char* name;
  IssuedFiles TlsCerts::*server;
  IssuedFiles TlsCerts::*client;
  const char* client_reason;  // in TlsHandshakeError::reason()
  const char* server_warn;    // in the server's one WARN line
};

TEST_F(TlsTransportTest, UntrustedExpiredOrMisnamedCertificatesAreRefused) {
  const Refusal refusals[] = {
      {"server from another CA", &TlsCerts::foreign, &TlsCerts::client,
       "unable to get local issuer certificate", "TLS handshake failed: tlsv1 alert unknown ca"},
      {"client from another CA", &TlsCerts::server, &TlsCerts::foreign, "unknown ca",
       "certificate verify failed: unable to get local issuer certificate"},
      {"server expired", &TlsCerts::expired, &TlsCerts::client, "certificate has expired",
       "TLS handshake failed: sslv3 alert certificate expired"},
      {"client expired", &TlsCerts::server, &TlsCerts::expired, "certificate expired",
       "certificate verify failed: certificate has expired"},
      {"server names another IP (kFull)", &TlsCerts::wrong_san, &TlsCerts::client,
       "IP address mismatch", "TLS handshake failed: sslv3 alert bad certificate"},
  };
  for (const Refusal& r : refusals) {
    SCOPED_TRACE(r.name);
    TlsOptions server_tls = certs.options(certs.*r.server);
    startServer(serverOptions(server_tls));
    expectRefused(certs.options(certs.*r.client), r.client_reason);
    expectServerWarned(r.server_warn);
    if (r.server == &TlsCerts::server) expectServerStillServes();
    server.reset();
  }
}

// A client chain of its certificate and 12 more (copies of the CA here: a
// verifier that built the chain would accept it) is refused before the chain
// is built, as Java's jdk.tls.maxCertificateChainLength (10) refuses it; a
// chain of exactly 10 is served.
TEST_F(TlsTransportTest, AClientChainLongerThanTenCertificatesIsRefused) {
  startServer();
  auto slurp = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  TempDir dir("wirestream-chain");
  auto chainOf = [&](int extra) {
    const std::string path = dir.file("chain-" + std::to_string(extra) + ".crt");
    std::ofstream out(path, std::ios::binary);
    out << slurp(certs.client.certificate);
    for (int i = 0; i < extra; ++i) out << slurp(certs.ca.certificateFile());
    TlsOptions tls = certs.options(certs.client);
    tls.certificate = path;
    return tls;
  };
  expectServed(chainOf(tls::kMaxCertificateChainLength - 1));
  expectRefused(chainOf(12), "alert");
  expectServerWarned("certificate chain too long");
  expectServerStillServes();
}

// 400 TCP connections to the TLS port that send nothing: each took a
// zero-filled 256 KiB read buffer and its SSL objects (329 KiB a connection,
// 128 MiB here); now both wait for the peer's first bytes (~10 KiB a
// connection measured; 99 KiB with the SSL objects made at accept).
TEST_F(TlsTransportTest, IdleConnectionsToTheTlsPortCostNoReadBuffer) {
  startServer();
  const size_t before = residentBytes();
  std::vector<RawSocket> idle;
  for (int i = 0; i < 400; ++i) idle.push_back(RawSocket::connectTo(port));
  for (int i = 0; i < 200 && server->stats().inbound_connections < 400; ++i) {
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_EQ(server->stats().inbound_connections, 400u);
  std::this_thread::sleep_for(200ms);
  const size_t during = residentBytes();
  // Sanitizers' shadow and redzones triple what an allocation costs.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  const size_t bound = size_t{48} << 20;
#else
  const size_t bound = size_t{16} << 20;
#endif
  EXPECT_LT(during - std::min(during, before), bound)
      << "resident grew from " << before << " to " << during;
  expectServerStillServes();
}

TEST_F(TlsTransportTest, CertificateVerificationDoesNotCheckTheIpAddress) {
  startServer(serverOptions(certs.options(certs.wrong_san)));
  TlsOptions tls = certs.options(certs.client);
  tls.verification_mode = Mode::kCertificate;
  expectServed(tls);
  // ... but still the chain: another CA's certificate is refused.
  server.reset();
  TlsOptions foreign = certs.options(certs.foreign);
  startServer(serverOptions(foreign));
  expectRefused(tls, "unable to get local issuer certificate");
}

TEST_F(TlsTransportTest, NoVerificationAcceptsAnyCertificate) {
  TlsOptions server_tls = certs.options(certs.foreign);
  server_tls.verification_mode = Mode::kNone;
  startServer(serverOptions(server_tls));
  TlsOptions tls = certs.options(certs.expired);
  tls.verification_mode = Mode::kNone;
  expectServed(tls);
}

TEST_F(TlsTransportTest, MissingClientCertificateIsRefusedWhenRequired) {
  startServer();
  TlsOptions tls;
  tls.certificate_authorities = certs.ca.certificateFile();
  expectRefused(tls, "certificate required");
  expectServerWarned("peer did not return a certificate");
  expectServerStillServes();
}

TEST_F(TlsTransportTest, ClientCertificateOptionalOrNotAsked) {
  for (ClientAuth auth : {ClientAuth::kOptional, ClientAuth::kNone}) {
    TlsOptions server_tls = certs.options(certs.server);
    server_tls.client_authentication = auth;
    startServer(serverOptions(server_tls));
    TlsOptions anonymous;
    anonymous.certificate_authorities = certs.ca.certificateFile();
    expectServed(anonymous);
    server.reset();
  }
  // Optional still checks a certificate that is sent.
  TlsOptions server_tls = certs.options(certs.server);
  server_tls.client_authentication = ClientAuth::kOptional;
  startServer(serverOptions(server_tls));
  expectRefused(certs.options(certs.foreign), "unknown ca");
}

TEST_F(TlsTransportTest, TlsHandshakeCountsAgainstConnectTimeout) {
  RawServer silent;  // accepts, never answers the ClientHello
  TransportOptions o = clientOptions(certs.options(certs.client));
  o.connect_timeout = 300ms;
  TransportService client(std::move(o));
  auto start = std::chrono::steady_clock::now();
  std::thread accepter([&] {
    RawSocket s = silent.accept();
    s.waitClosed(10s);
  });
  EXPECT_THROW(client.connect("127.0.0.1", silent.port()), ConnectTransportError);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  accepter.join();
}

TEST_F(TlsTransportTest, SilentPeerIsClosedByTheServerHandshakeDeadline) {
  TransportOptions o = serverOptions(certs.options(certs.server));
  o.handshake_timeout = 200ms;
  startServer(std::move(o));
  RawSocket s = RawSocket::connectTo(port);
  EXPECT_TRUE(s.waitClosed(5s));
  expectServerWarned("handshake not completed within 200ms");
  expectServerStillServes();
}

// A raw TLS client that completed the transport handshake.
std::unique_ptr<RawTlsClient> handshakenTlsClient(uint16_t port, const TlsCerts& certs,
                                                  int max_version = TLS1_3_VERSION) {
  auto c =
      std::make_unique<RawTlsClient>(port, certs.client, certs.ca.certificateFile(), max_version);
  c->write(testing::handshakeRequest(1, TransportVersion::current()));
  DecodedFrame f = c->readFrame();
  if (!f.header.isHandshake() || !f.header.isResponse()) throw std::runtime_error("no handshake");
  return c;
}

TEST_F(TlsTransportTest, RawTlsClientIsServed) {
  startServer();
  auto c = handshakenTlsClient(port, certs);
  c->write(testing::requestFrame(2, "echo", Blob({4, 2})));
  DecodedFrame f = c->readFrame();
  EXPECT_EQ(f.header.request_id, 2);
  EXPECT_FALSE(f.header.isError());
}

TEST_F(TlsTransportTest, GarbageOrAForgedRecordClosesOnlyThatConnection) {
  startServer();
  std::vector<uint8_t> forged = {0x17, 0x03, 0x03, 0x00, 0x40};  // application data
  forged.resize(5 + 0x40, 0xAB);  // whose authentication tag cannot verify
  const std::pair<const char*, std::vector<uint8_t>> cases[] = {
      {"plain bytes where a record belongs", std::vector<uint8_t>(64, 0x45)},
      {"a forged record", forged},
  };
  for (const auto& [name, bytes] : cases) {
    SCOPED_TRACE(name);
    auto c = handshakenTlsClient(port, certs);
    c->socket().write(bytes);
    EXPECT_TRUE(c->waitClosed(5s));
  }
  // The first at WARN; the second, within a second of it, at DEBUG.
  EXPECT_FALSE(server_log.waitFor({"WARN", "TLS read failed: wrong version number"}).empty());
  EXPECT_FALSE(server_log.waitFor({"TLS read failed: decryption failed"}).empty());
  EXPECT_EQ(server->stats().link_failures, 2u);
  EXPECT_EQ(server->stats().tls_handshake_failures, 0u);
  expectServerStillServes();
}

TEST_F(TlsTransportTest, TruncatedRecordClosesOnlyThatConnection) {
  startServer();
  {
    auto c = handshakenTlsClient(port, certs);
    // The header of a 16 KiB record, a few of its bytes, then FIN.
    c->socket().write(std::vector<uint8_t>{0x17, 0x03, 0x03, 0x40, 0x00, 1, 2, 3});
    ::shutdown(c->socket().fd(), SHUT_WR);
    EXPECT_TRUE(c->waitClosed(5s));
  }
  EXPECT_FALSE(server_log.waitFor({"closing connection [inbound 127.0.0.1:"}).empty());
  expectServerStillServes();
}

TEST_F(TlsTransportTest, RenegotiationClosesOnlyThatConnection) {
  startServer();
  auto c = handshakenTlsClient(port, certs, TLS1_2_VERSION);
  ASSERT_EQ(SSL_version(c->ssl()), TLS1_2_VERSION);
  ASSERT_EQ(SSL_renegotiate(c->ssl()), 1);
  // The server answers the new ClientHello with no_renegotiation; the client
  // gives up with a fatal alert, and the server closes.
  EXPECT_NE(SSL_do_handshake(c->ssl()), 1);
  RawTlsClient::lastError();
  EXPECT_TRUE(c->waitClosed(5s));
  EXPECT_FALSE(server_log.waitFor({"WARN", "inbound 127.0.0.1:", "TLS read failed"}).empty());
  expectServerStillServes();
}

TEST_F(TlsTransportTest, OnlyTls12AndTls13AreSpoken) {
  startServer();
  auto c = handshakenTlsClient(port, certs);
  EXPECT_EQ(SSL_version(c->ssl()), TLS1_3_VERSION);
  // The server's preference (our default list) over the client's, which
  // puts AES-256 first: AES-128-GCM is the fastest with AES-NI.
  EXPECT_STREQ(SSL_get_cipher_name(c->ssl()), "TLS_AES_128_GCM_SHA256");
  // A TLS 1.1 client is refused.
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL_CTX_set_min_proto_version(ctx, TLS1_1_VERSION);
  SSL_CTX_set_max_proto_version(ctx, TLS1_1_VERSION);
  SSL_CTX_set_security_level(ctx, 0);
  RawSocket s = RawSocket::connectTo(port);
  SSL* ssl = SSL_new(ctx);
  SSL_set_fd(ssl, s.fd());
  EXPECT_NE(SSL_connect(ssl), 1);
  RawTlsClient::lastError();
  SSL_free(ssl);
  SSL_CTX_free(ctx);
  expectServerWarned("TLS handshake failed");
}

}  // namespace
}  // namespace wirestream::transport
