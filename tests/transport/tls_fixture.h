// Certificates for the TLS tests, made at test time (no key is committed):
// one CA with good, expired, wrong-SAN and passphrase-protected node
// certificates, and a second CA whose certificates the first does not trust.
// Plus a blocking OpenSSL client for the faults TransportService would never
// commit (garbage records, renegotiation).
#pragma once

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>

#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "tests/transport/test_support.h"
#include "transport/testing/certgen.h"
#include "transport/tls_options.h"

namespace wirestream::transport::testing {

struct TlsCerts {
  template <class Edit>
  static CertSpec spec(Edit edit) {
    CertSpec s;
    edit(s);
    return s;
  }

  TempDir dir;
  CertAuthority ca{dir.path(), "ca"};
  CertAuthority other_ca{dir.path(), "other-ca"};
  IssuedFiles server = ca.issue("server", {});
  IssuedFiles client = ca.issue("client", {});
  IssuedFiles expired = ca.issue("expired", spec([](CertSpec& s) {
                                   s.not_before = -std::chrono::hours(48);
                                   s.not_after = -std::chrono::hours(24);
                                 }));
  IssuedFiles wrong_san = ca.issue("wrong-san", spec([](CertSpec& s) {
                                     s.ip_addresses = {"10.9.8.7"};
                                     s.dns_names = {"elsewhere.example"};
                                   }));
  IssuedFiles encrypted =
      ca.issue("encrypted", spec([](CertSpec& s) { s.key_passphrase = "s3cret"; }));
  IssuedFiles foreign = other_ca.issue("foreign", {});

  // Options for a node presenting `node`, trusting `ca`.
  TlsOptions options(const IssuedFiles& node) const {
    TlsOptions o;
    o.certificate = node.certificate;
    o.key = node.key;
    o.certificate_authorities = ca.certificateFile();
    return o;
  }

  // Made once per test binary: key generation is slow under TSan.
  static const TlsCerts& get() {
    static const TlsCerts* certs = new TlsCerts();
    return *certs;
  }
};

// A blocking OpenSSL client over a loopback socket.
class RawTlsClient {
 public:
  // Connects and completes the TLS handshake; max_version e.g.
  // TLS1_2_VERSION (renegotiation exists only up to 1.2).
  RawTlsClient(uint16_t port, const IssuedFiles& identity, const std::string& ca_file,
               int max_version = TLS1_3_VERSION)
      : socket_(RawSocket::connectTo(port)) {
    ctx_ = SSL_CTX_new(TLS_client_method());
    SSL_CTX_set_max_proto_version(ctx_, max_version);
    SSL_CTX_use_certificate_chain_file(ctx_, identity.certificate.c_str());
    SSL_CTX_use_PrivateKey_file(ctx_, identity.key.c_str(), SSL_FILETYPE_PEM);
    SSL_CTX_load_verify_locations(ctx_, ca_file.c_str(), nullptr);
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
    ssl_ = SSL_new(ctx_);
    SSL_set_fd(ssl_, socket_.fd());
    if (SSL_connect(ssl_) != 1) throw std::runtime_error("TLS connect failed: " + lastError());
  }
  ~RawTlsClient() {
    SSL_free(ssl_);
    SSL_CTX_free(ctx_);
  }
  RawTlsClient(const RawTlsClient&) = delete;
  RawTlsClient& operator=(const RawTlsClient&) = delete;

  SSL* ssl() { return ssl_; }
  RawSocket& socket() { return socket_; }

  void write(const std::vector<uint8_t>& bytes) {
    if (SSL_write(ssl_, bytes.data(), static_cast<int>(bytes.size())) <= 0) {
      throw std::runtime_error("SSL_write failed: " + lastError());
    }
  }
  // Reads one whole frame through TLS (test failure after `timeout`).
  DecodedFrame readFrame(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    auto end = std::chrono::steady_clock::now() + timeout;
    FrameDecoder decoder(1 << 30);
    std::optional<DecodedFrame> got;
    while (!got) {
      if (std::chrono::steady_clock::now() > end) throw std::runtime_error("no frame in time");
      pollfd p{socket_.fd(), POLLIN, 0};
      if (SSL_pending(ssl_) == 0 && ::poll(&p, 1, 50) <= 0) continue;
      uint8_t buf[16384];
      int n = SSL_read(ssl_, buf, sizeof buf);
      if (n <= 0) throw std::runtime_error("closed: " + lastError());
      decoder.feed({buf, static_cast<size_t>(n)},
                   [&](DecodedFrame&& f) { got.emplace(std::move(f)); });
    }
    return std::move(*got);
  }
  // True if the peer closed the connection within `timeout`.
  bool waitClosed(std::chrono::milliseconds timeout) { return socket_.waitClosed(timeout); }

  static std::string lastError() {
    unsigned long e = ERR_get_error();
    ERR_clear_error();
    const char* r = e != 0 ? ERR_reason_error_string(e) : nullptr;
    return r != nullptr ? r : "no OpenSSL error";
  }

 private:
  RawSocket socket_;
  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
};

}  // namespace wirestream::transport::testing
