// TlsOptions: mutual TLS between nodes, named after Elasticsearch's
// xpack.security.transport.ssl.* settings. Set TransportOptions::tls to use it.
//
// Example (compiled: tls_options):
//   #include "transport/transport_service.h"
//   TransportOptions o;
//   o.tls = TlsOptions{.certificate = "node-1.crt", .key = "node-1.key",
//                      .certificate_authorities = "ca.crt"};
//   TransportService node(o);  // TlsConfigError here if a file is unusable
//
// Files are read once, when the TransportService is constructed. Plain
// value type.
#pragma once

#include <string>

namespace wirestream::transport {

// Every member has an initializer (designated initializers compile clean
// under -Wextra).
struct TlsOptions {
  std::string certificate{};              // PEM file: this node's certificate chain
  std::string key{};                      // PEM file: its private key
  std::string key_passphrase{};           // optional, for an encrypted key
  std::string certificate_authorities{};  // PEM file: the CAs that sign peers
  enum class VerificationMode { kFull, kCertificate, kNone };
  VerificationMode verification_mode =
      VerificationMode::kFull;  // full = chain + host name / IP SAN
  enum class ClientAuth { kRequired, kOptional, kNone };
  ClientAuth client_authentication = ClientAuth::kRequired;  // the accepting side

  // OpenSSL cipher strings: TLS 1.2 suites (cipher_list) and TLS 1.3 suites
  // (ciphersuites). The defaults allow only forward-secret AEAD suites.
  std::string cipher_list =
      "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
      "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
      "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";
  std::string ciphersuites =
      "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256";
};

}  // namespace wirestream::transport
