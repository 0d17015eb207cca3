#include "transport/testing/certgen.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace wirestream::transport::testing {

namespace {

[[noreturn, gnu::cold]] void fail(const std::string& what) {
  std::string reason;
  while (unsigned long e = ERR_get_error()) {
    const char* r = ERR_reason_error_string(e);
    if (r != nullptr) reason = r;
  }
  throw std::runtime_error("certgen: " + what + (reason.empty() ? "" : ": " + reason));
}

struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct CertFree {
  void operator()(X509* c) const { X509_free(c); }
};
struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, KeyFree>;
using CertPtr = std::unique_ptr<X509, CertFree>;
using BioPtr = std::unique_ptr<BIO, BioFree>;

KeyPtr newKey() {
  KeyPtr key(EVP_EC_gen("P-256"));
  if (!key) fail("EC key generation failed");
  return key;
}

void addExtension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (ext == nullptr) fail("bad extension [" + value + "]");
  const int ok = X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
  if (ok != 1) fail("cannot add extension [" + value + "]");
}

// A certificate for `key` named `name`, valid over the spec's window;
// extensions and signature are the caller's.
CertPtr newCertificate(EVP_PKEY* key, const std::string& name, std::chrono::seconds not_before,
                       std::chrono::seconds not_after) {
  CertPtr cert(X509_new());
  if (!cert) fail("X509_new failed");
  X509_set_version(cert.get(), 2);  // v3
  unsigned char serial[8];
  if (RAND_bytes(serial, sizeof serial) != 1) fail("RAND_bytes failed");
  serial[0] &= 0x7f;  // positive
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), static_cast<long>(not_before.count()));
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), static_cast<long>(not_after.count()));
  X509_set_pubkey(cert.get(), key);
  X509_NAME* subject = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(name.c_str()), -1, -1, 0);
  return cert;
}

BioPtr openForWrite(const std::string& path) {
  BioPtr bio(BIO_new_file(path.c_str(), "w"));
  if (!bio) fail("cannot write [" + path + "]");
  return bio;
}

void writeCertificate(X509* cert, const std::string& path) {
  BioPtr bio = openForWrite(path);
  if (PEM_write_bio_X509(bio.get(), cert) != 1) fail("cannot write [" + path + "]");
}

void writeKey(EVP_PKEY* key, const std::string& path, const std::string& passphrase) {
  {
    BioPtr bio = openForWrite(path);
    ::chmod(path.c_str(), 0600);
    const EVP_CIPHER* cipher = passphrase.empty() ? nullptr : EVP_aes_256_cbc();
    if (PEM_write_bio_PKCS8PrivateKey(bio.get(), key, cipher, passphrase.data(),
                                      static_cast<int>(passphrase.size()), nullptr, nullptr) != 1) {
      fail("cannot write [" + path + "]");
    }
  }
}

}  // namespace

TempDir::TempDir(const std::string& prefix) {
  const char* base = std::getenv("TEST_TMPDIR");
  if (base == nullptr) base = std::getenv("TMPDIR");
  std::string pattern = std::string(base != nullptr ? base : "/tmp") + "/" + prefix + "-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("certgen: cannot create a directory like [" + pattern + "]");
  }
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

struct CertAuthority::State {
  KeyPtr key;
  CertPtr cert;
};

CertAuthority::CertAuthority(const std::string& dir, const std::string& name)
    : dir_(dir), certificate_file_(dir + "/" + name + ".crt"), state_(std::make_unique<State>()) {
  state_->key = newKey();
  state_->cert =
      newCertificate(state_->key.get(), name, -std::chrono::hours(1), std::chrono::hours(24 * 30));
  X509* cert = state_->cert.get();
  X509_set_issuer_name(cert, X509_get_subject_name(cert));
  addExtension(cert, cert, NID_basic_constraints, "critical,CA:TRUE");
  addExtension(cert, cert, NID_key_usage, "critical,keyCertSign,cRLSign");
  addExtension(cert, cert, NID_subject_key_identifier, "hash");
  if (X509_sign(cert, state_->key.get(), EVP_sha256()) == 0) fail("cannot sign the CA");
  writeCertificate(cert, certificate_file_);
}

CertAuthority::~CertAuthority() = default;

IssuedFiles CertAuthority::issue(const std::string& name, const CertSpec& spec) const {
  KeyPtr key = newKey();
  CertPtr cert = newCertificate(key.get(), name, spec.not_before, spec.not_after);
  X509* issuer = state_->cert.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(issuer));
  addExtension(cert.get(), issuer, NID_basic_constraints, "critical,CA:FALSE");
  addExtension(cert.get(), issuer, NID_key_usage, "critical,digitalSignature,keyEncipherment");
  addExtension(cert.get(), issuer, NID_ext_key_usage, "serverAuth,clientAuth");
  addExtension(cert.get(), issuer, NID_authority_key_identifier, "keyid");
  std::string sans;
  for (const std::string& ip : spec.ip_addresses) sans += (sans.empty() ? "IP:" : ",IP:") + ip;
  for (const std::string& dns : spec.dns_names) sans += (sans.empty() ? "DNS:" : ",DNS:") + dns;
  if (!sans.empty()) addExtension(cert.get(), issuer, NID_subject_alt_name, sans);
  if (X509_sign(cert.get(), state_->key.get(), EVP_sha256()) == 0) {
    fail("cannot sign [" + name + "]");
  }
  IssuedFiles files{dir_ + "/" + name + ".crt", dir_ + "/" + name + ".key"};
  writeCertificate(cert.get(), files.certificate);
  writeKey(key.get(), files.key, spec.key_passphrase);
  return files;
}

}  // namespace wirestream::transport::testing
