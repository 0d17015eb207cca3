// Ephemeral certificates for TLS between nodes: a certificate authority made
// on the spot and node certificates it signs, written as PEM files into a
// temporary directory. For tests, examples and benchmarks; nothing it makes
// outlives the TempDir, so no private key needs to be kept anywhere.
//
// Example (runs: certgen):
//   #include "transport/tls_options.h"
//   TempDir dir;                                    // removed with its files
//   CertAuthority ca(dir.path(), "ca");             // dir/ca.crt
//   IssuedFiles node = ca.issue("node-1", {});      // dir/node-1.crt, .key
//   TlsOptions tls{.certificate = node.certificate, .key = node.key,
//                  .certificate_authorities = ca.certificateFile()};
//
// Keys are EC P-256, signatures SHA-256. Throws std::runtime_error (with
// OpenSSL's reason) if OpenSSL or the file system fails. A CertAuthority is
// not thread-safe; distinct ones are independent.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace wirestream::transport::testing {

// A fresh directory under $TMPDIR (or /tmp); the destructor removes it.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "wirestream-tls");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

struct CertSpec {
  // Subject alternative names the certificate is valid for.
  std::vector<std::string> ip_addresses = {"127.0.0.1"};
  std::vector<std::string> dns_names = {"localhost"};
  // Validity, relative to now (negative = in the past).
  std::chrono::seconds not_before = -std::chrono::hours(1);
  std::chrono::seconds not_after = std::chrono::hours(24);
  // Non-empty: the key file is encrypted (PKCS#8, AES-256) with it.
  std::string key_passphrase;
};

struct IssuedFiles {
  std::string certificate;  // PEM: the certificate
  std::string key;          // PEM: its private key
};

class CertAuthority {
 public:
  // Makes a key and a self-signed CA certificate (CN = name), writes the
  // certificate to dir/<name>.crt; the CA's key stays in memory.
  CertAuthority(const std::string& dir, const std::string& name);
  ~CertAuthority();
  CertAuthority(const CertAuthority&) = delete;
  CertAuthority& operator=(const CertAuthority&) = delete;

  const std::string& certificateFile() const { return certificate_file_; }

  // A node certificate (CN = name, usable as TLS server and client) signed
  // by this CA: dir/<name>.crt and dir/<name>.key.
  IssuedFiles issue(const std::string& name, const CertSpec& spec) const;

 private:
  struct State;
  std::string dir_;
  std::string certificate_file_;
  std::unique_ptr<State> state_;
};

}  // namespace wirestream::transport::testing
