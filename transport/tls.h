// TLS for the transport: the OpenSSL context built from TlsOptions, each
// connection's verification, and OpenSSL's reason for a failure. Used by
// TransportService; the connection code reads and writes through NetStream
// (net_stream.h).
//
// Example (compiled: tls):
//   namespace asio = boost::asio;
//   using tcp = asio::ip::tcp;
//   TlsOptions options{.certificate = "node-1.crt", .key = "node-1.key",
//                      .certificate_authorities = "ca.crt"};
//   asio::io_context io;
//   tcp::socket socket(io);  // connected to 10.0.0.7
//   std::unique_ptr<asio::ssl::context> ctx = tls::makeContext(options);  // TlsConfigError
//   asio::ssl::stream<tcp::socket> s(std::move(socket), *ctx);
//   tls::configureClient(s.native_handle(), options, "10.0.0.7");
//   std::string reason;  // OpenSSL's, when the handshake failed
//   s.async_handshake(asio::ssl::stream_base::client, [&](const boost::system::error_code& ec) {
//     if (ec) reason = tls::failureReason(ec, s.native_handle());
//   });
//
// Protocol: TLS 1.2 and 1.3 only, renegotiation and compression off, the
// cipher lists of TlsOptions. One context serves both roles; the role's
// verification is set per connection. Thread-safety: a context is shared by
// every connection of a service (OpenSSL locks it); an SSL object is used by
// one strand at a time.
#pragma once

#include <openssl/ssl.h>

#include <boost/asio/ssl/context.hpp>
#include <boost/system/error_code.hpp>
#include <memory>
#include <string>

#include "transport/net_stream.h"
#include "transport/tls_options.h"

namespace wirestream::transport::tls {

// What a peer's certificate message may make this node parse and verify: at
// most kMaxCertificateChainLength certificates (Java's
// jdk.tls.maxCertificateChainLength) in at most kMaxCertificateListBytes;
// longer is refused ("certificate chain too long") before the chain is built,
// larger before it is parsed.
inline constexpr int kMaxCertificateChainLength = 10;
inline constexpr long kMaxCertificateListBytes = 64 * 1024;

// Reads every file of `options` now. Throws TlsConfigError naming the file
// that is missing, not PEM, or whose key does not match the certificate or
// the passphrase; std::invalid_argument for a cipher string matching nothing
// or a missing certificate_authorities where verification needs one.
[[nodiscard]] std::unique_ptr<boost::asio::ssl::context> makeContext(const TlsOptions& options);

// Throws TlsConfigError unless `options` can accept connections (has a
// certificate and key).
void checkCanAccept(const TlsOptions& options);

// Sets the connecting side's verification: the chain (kCertificate), plus
// the peer's IP SAN or DNS name against `host` (kFull), or none (kNone).
void configureClient(SSL* ssl, const TlsOptions& options, const std::string& host);

// Sets the accepting side's: a client certificate is demanded (kRequired),
// checked when sent (kOptional) or not asked for (kNone); its chain is
// checked unless verification_mode is kNone.
void configureServer(SSL* ssl, const TlsOptions& options);

// True if `ec` came from the TLS layer (a handshake or record failure).
bool isTlsError(const boost::system::error_code& ec);

// OpenSSL's reason for `ec` on `ssl`: "certificate verify failed:
// certificate has expired", "wrong version number", ...
std::string failureReason(const boost::system::error_code& ec, SSL* ssl);

// After the handshake: `ssl` reads records straight from `socket`'s receive
// buffer and writes them into its send buffer, instead of through Asio's
// engine (two copies fewer each way). Bytes the engine had read ahead move
// back into `socket`. From then on use read/write below, not the
// ssl::stream. `socket` must outlive `ssl`'s use.
void attachBufferedSocket(SSL* ssl, BufferedSocket& socket);

// SSL_read / SSL_write on an attached SSL: bytes moved, or 0 with ec set:
// would_block (read: no whole record buffered), eof (the peer's
// close_notify), or an error of Asio's ssl category.
size_t read(SSL* ssl, void* data, size_t size, boost::system::error_code& ec);
size_t write(SSL* ssl, const void* data, size_t size, boost::system::error_code& ec);

}  // namespace wirestream::transport::tls
