#include "transport/tls.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ssl/error.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <vector>

#include "transport/transport_errors.h"

namespace wirestream::transport::tls {

namespace asio = boost::asio;
using Mode = TlsOptions::VerificationMode;
using ClientAuth = TlsOptions::ClientAuth;

namespace {

// OpenSSL's reasons queued on this thread, oldest first; clears the queue.
std::string takeOpenSslErrors() {
  std::string text;
  while (unsigned long e = ERR_get_error()) {
    const char* reason = ERR_reason_error_string(e);
    std::string part = reason != nullptr ? reason : "error " + std::to_string(ERR_GET_REASON(e));
    if (text.find(part) != std::string::npos) continue;
    if (!text.empty()) text += "; ";
    text += part;
  }
  return text.empty() ? "unknown OpenSSL error" : text;
}

[[noreturn, gnu::cold]] void throwConfig(const std::string& what, const std::string& file,
                                         const std::string& problem) {
  throw TlsConfigError(file, "TLS " + what + " [" + file + "]: " + problem);
}

// A missing or unreadable file is named with errno's text rather than
// OpenSSL's less direct "system lib".
void checkReadable(const std::string& what, const std::string& file) {
  if (file.empty()) throwConfig(what, file, "no file given");
  std::FILE* f = std::fopen(file.c_str(), "rb");
  if (f == nullptr) throwConfig(what, file, std::string("cannot be read: ") + std::strerror(errno));
  std::fclose(f);
}

// Hands the key passphrase to OpenSSL; an empty one fails decryption instead
// of prompting on the terminal (OpenSSL's default).
int passphraseCallback(char* buf, int size, int /*rwflag*/, void* userdata) {
  const std::string& passphrase = *static_cast<const std::string*>(userdata);
  if (passphrase.empty() || passphrase.size() > static_cast<size_t>(size)) return 0;
  std::memcpy(buf, passphrase.data(), passphrase.size());
  return static_cast<int>(passphrase.size());
}

// Reads the key itself (rather than SSL_CTX_use_PrivateKey_file) so that an
// unreadable key and a key of another certificate get different messages.
void loadKey(SSL_CTX* ctx, const TlsOptions& options) {
  std::string passphrase = options.key_passphrase;
  EVP_PKEY* key = nullptr;
  if (BIO* bio = BIO_new_file(options.key.c_str(), "r")) {
    key = PEM_read_bio_PrivateKey(bio, nullptr, passphraseCallback, &passphrase);
    BIO_free(bio);
  }
  if (key == nullptr) {
    std::string reason = takeOpenSslErrors();
    std::ifstream in(options.key, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find("-----BEGIN ENCRYPTED PRIVATE KEY-----") != std::string::npos ||
        text.find("Proc-Type: 4,ENCRYPTED") != std::string::npos) {
      throwConfig("key", options.key,
                  options.key_passphrase.empty()
                      ? "is encrypted and no key_passphrase is set"
                      : "cannot be decrypted with key_passphrase (" + reason + ")");
    }
    throwConfig("key", options.key, "holds no PEM private key (" + reason + ")");
  }
  const int used = SSL_CTX_use_PrivateKey(ctx, key);
  EVP_PKEY_free(key);
  if (used != 1 || SSL_CTX_check_private_key(ctx) != 1) {
    throwConfig("key", options.key,
                "does not match the certificate [" + options.certificate + "] (" +
                    takeOpenSslErrors() + ")");
  }
}

int acceptAnyCertificate(int /*preverify_ok*/, X509_STORE_CTX* /*ctx*/) { return 1; }

// Counts the peer's certificates before OpenSSL builds and verifies a chain
// from them (a client sending 280 it signed itself cost the I/O thread 40-60
// ms a handshake).
int verifyBoundedChain(X509_STORE_CTX* store, void* /*arg*/) {
  STACK_OF(X509)* sent = X509_STORE_CTX_get0_untrusted(store);
  if (sent != nullptr && sk_X509_num(sent) > kMaxCertificateChainLength) {
    X509_STORE_CTX_set_error(store, X509_V_ERR_CERT_CHAIN_TOO_LONG);
    return 0;
  }
  return X509_verify_cert(store);
}

}  // namespace

std::unique_ptr<asio::ssl::context> makeContext(const TlsOptions& options) {
  auto context = std::make_unique<asio::ssl::context>(asio::ssl::context::tls);
  SSL_CTX* ctx = context->native_handle();
  ERR_clear_error();
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION);
  SSL_CTX_set_options(
      ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  SSL_CTX_set_max_cert_list(ctx, kMaxCertificateListBytes);
  SSL_CTX_set_cert_verify_callback(ctx, verifyBoundedChain, nullptr);
  if (SSL_CTX_set_cipher_list(ctx, options.cipher_list.c_str()) != 1) {
    ERR_clear_error();
    throw std::invalid_argument("TLS cipher_list [" + options.cipher_list +
                                "] names no usable cipher");
  }
  if (SSL_CTX_set_ciphersuites(ctx, options.ciphersuites.c_str()) != 1) {
    ERR_clear_error();
    throw std::invalid_argument("TLS ciphersuites [" + options.ciphersuites +
                                "] names no usable TLS 1.3 suite");
  }

  if (!options.certificate.empty() || !options.key.empty()) {
    checkReadable("certificate", options.certificate);
    checkReadable("key", options.key);
    if (SSL_CTX_use_certificate_chain_file(ctx, options.certificate.c_str()) != 1) {
      throwConfig("certificate", options.certificate,
                  "holds no usable PEM certificate (" + takeOpenSslErrors() + ")");
    }
    loadKey(ctx, options);
  }

  const bool verifies = options.verification_mode != Mode::kNone;
  if (!options.certificate_authorities.empty()) {
    checkReadable("certificate_authorities", options.certificate_authorities);
    if (SSL_CTX_load_verify_locations(ctx, options.certificate_authorities.c_str(), nullptr) != 1) {
      throwConfig("certificate_authorities", options.certificate_authorities,
                  "holds no usable PEM certificate (" + takeOpenSslErrors() + ")");
    }
  } else if (verifies) {
    throw std::invalid_argument(
        "TLS certificate_authorities is required unless verification_mode is kNone");
  }
  return context;
}

void checkCanAccept(const TlsOptions& options) {
  if (options.certificate.empty()) {
    throw TlsConfigError("", "TLS: a node that accepts connections needs a certificate and key");
  }
}

void configureClient(SSL* ssl, const TlsOptions& options, const std::string& host) {
  if (options.verification_mode == Mode::kNone) {
    SSL_set_verify(ssl, SSL_VERIFY_NONE, nullptr);
    return;
  }
  SSL_set_verify(ssl, SSL_VERIFY_PEER, nullptr);
  if (options.verification_mode != Mode::kFull) return;
  X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
  boost::system::error_code ec;
  asio::ip::make_address(host, ec);
  // An address must be in an IP SAN; a name in a DNS SAN (RFC 6125).
  const int ok = ec ? X509_VERIFY_PARAM_set1_host(param, host.c_str(), host.size())
                    : X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str());
  if (ok != 1) {
    ERR_clear_error();
    throw std::invalid_argument("TLS: cannot verify the peer against [" + host + "]");
  }
  if (ec) SSL_set_tlsext_host_name(ssl, host.c_str());
}

void configureServer(SSL* ssl, const TlsOptions& options) {
  int mode = SSL_VERIFY_NONE;
  if (options.client_authentication == ClientAuth::kRequired) {
    mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
  } else if (options.client_authentication == ClientAuth::kOptional) {
    mode = SSL_VERIFY_PEER;
  }
  SSL_set_verify(ssl, mode,
                 options.verification_mode == Mode::kNone ? acceptAnyCertificate : nullptr);
}

bool isTlsError(const boost::system::error_code& ec) {
  return ec.category() == asio::error::get_ssl_category() ||
         ec.category() == asio::ssl::error::get_stream_category();
}

std::string failureReason(const boost::system::error_code& ec, SSL* ssl) {
  std::string reason = ec.message();
  if (ssl != nullptr) {
    const long verify = SSL_get_verify_result(ssl);
    if (verify != X509_V_OK) reason += ": " + std::string(X509_verify_cert_error_string(verify));
  }
  return reason;
}

namespace {

// A BIO over a BufferedSocket: reads take received bytes, writes append to
// the send buffer. Never blocks; "retry read" when nothing is buffered.
int bioRead(BIO* bio, char* out, int size) {
  auto* socket = static_cast<BufferedSocket*>(BIO_get_data(bio));
  BIO_clear_retry_flags(bio);
  const size_t n = socket->take(out, static_cast<size_t>(size));
  if (n == 0) {
    BIO_set_retry_read(bio);
    return -1;
  }
  return static_cast<int>(n);
}

int bioWrite(BIO* bio, const char* data, int size) {
  static_cast<BufferedSocket*>(BIO_get_data(bio))->append(data, static_cast<size_t>(size));
  return size;
}

long bioCtrl(BIO* /*bio*/, int cmd, long /*num*/, void* /*ptr*/) {
  return cmd == BIO_CTRL_FLUSH ? 1 : 0;
}

int bioCreate(BIO* bio) {
  BIO_set_init(bio, 1);
  return 1;
}

const BIO_METHOD* bufferedSocketMethod() {
  static const BIO_METHOD* method = [] {
    BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "wirestream");
    BIO_meth_set_read(m, bioRead);
    BIO_meth_set_write(m, bioWrite);
    BIO_meth_set_ctrl(m, bioCtrl);
    BIO_meth_set_create(m, bioCreate);
    return m;
  }();
  return method;
}

// The outcome of an SSL_read/SSL_write that returned `result`, as Asio's
// engine would report it.
boost::system::error_code errorOf(SSL* ssl, int result) {
  switch (SSL_get_error(ssl, result)) {
    case SSL_ERROR_WANT_READ:
      return asio::error::would_block;
    case SSL_ERROR_ZERO_RETURN:
      return asio::error::eof;
    case SSL_ERROR_SSL: {
      const unsigned long e = ERR_get_error();
      ERR_clear_error();
      return {static_cast<int>(e), asio::error::get_ssl_category()};
    }
    default:
      ERR_clear_error();
      return asio::ssl::error::stream_truncated;
  }
}

}  // namespace

void attachBufferedSocket(SSL* ssl, BufferedSocket& socket) {
  socket.setFillSize(BufferedSocket::kReadBufferSize);  // records, no longer handshake messages
  // Ciphertext the engine's BIO pair holds that OpenSSL has not read yet.
  BIO* engine_bio = SSL_get_rbio(ssl);
  std::vector<uint8_t> ahead(BIO_ctrl_pending(engine_bio));
  if (!ahead.empty()) {
    const int n = BIO_read(engine_bio, ahead.data(), static_cast<int>(ahead.size()));
    ahead.resize(n > 0 ? static_cast<size_t>(n) : 0);
    socket.unread(ahead.data(), ahead.size());
  }
  BIO* bio = BIO_new(bufferedSocketMethod());
  BIO_set_data(bio, &socket);
  SSL_set_bio(ssl, bio, bio);  // frees the engine's end of its pair
}

size_t read(SSL* ssl, void* data, size_t size, boost::system::error_code& ec) {
  size_t n = 0;
  const int result = SSL_read_ex(ssl, data, size, &n);
  ec = result == 1 ? boost::system::error_code() : errorOf(ssl, result);
  return result == 1 ? n : 0;
}

size_t write(SSL* ssl, const void* data, size_t size, boost::system::error_code& ec) {
  size_t n = 0;
  const int result = SSL_write_ex(ssl, data, size, &n);
  ec = result == 1 ? boost::system::error_code() : errorOf(ssl, result);
  return result == 1 ? n : 0;
}

}  // namespace wirestream::transport::tls
