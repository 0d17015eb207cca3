// tls::makeContext and the TransportService entry points it guards: every
// unusable file fails with a TlsConfigError naming that file, before any
// connection exists.
#include "transport/tls.h"

#include <gtest/gtest.h>

#include <fstream>
#include <vector>

#include "tests/transport/tls_fixture.h"
#include "transport/transport_service.h"

namespace wirestream::transport {
namespace {

using testing::TlsCerts;

void writeFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Runs make(options) and expects a TlsConfigError whose file() and what()
// name `file` and whose what() contains `problem`.
void expectConfigError(const TlsOptions& options, const std::string& file,
                       const std::string& problem) {
  try {
    (void)tls::makeContext(options);
    ADD_FAILURE() << "no error for " << file;
  } catch (const TlsConfigError& e) {
    EXPECT_EQ(e.file(), file);
    EXPECT_NE(std::string(e.what()).find("[" + file + "]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(problem), std::string::npos) << e.what();
    EXPECT_EQ(e.type(), "ssl_config_exception");
  }
}

TEST(TlsContextTest, GoodFilesMakeAContext) {
  const TlsCerts& c = TlsCerts::get();
  EXPECT_NE(tls::makeContext(c.options(c.server)), nullptr);
}

// Each file option set to `bad`, one at a time.
std::vector<TlsOptions> eachFileReplacedBy(const TlsCerts& c, const std::string& bad) {
  std::vector<TlsOptions> out(3, c.options(c.server));
  out[0].certificate = bad;
  out[1].key = bad;
  out[2].certificate_authorities = bad;
  return out;
}

TEST(TlsContextTest, MissingFilesAreNamed) {
  const TlsCerts& c = TlsCerts::get();
  const std::string missing = c.dir.file("missing.pem");
  for (const TlsOptions& o : eachFileReplacedBy(c, missing)) {
    expectConfigError(o, missing, "No such file or directory");
  }
}

TEST(TlsContextTest, FilesThatAreNotPemAreNamed) {
  const TlsCerts& c = TlsCerts::get();
  const std::string junk = c.dir.file("junk.pem");
  writeFile(junk, "this is not a PEM file\n");
  const char* problems[] = {"no usable PEM certificate", "holds no PEM private key",
                            "no usable PEM certificate"};
  std::vector<TlsOptions> options = eachFileReplacedBy(c, junk);
  for (size_t i = 0; i < options.size(); ++i) expectConfigError(options[i], junk, problems[i]);
  // A certificate where the key belongs is not a key either.
  TlsOptions o = c.options(c.server);
  o.key = c.server.certificate;
  expectConfigError(o, c.server.certificate, "holds no PEM private key");
}

TEST(TlsContextTest, KeyOfAnotherCertificateIsNamed) {
  const TlsCerts& c = TlsCerts::get();
  TlsOptions o = c.options(c.server);
  o.key = c.client.key;
  expectConfigError(o, c.client.key, "does not match the certificate [" + c.server.certificate);
}

TEST(TlsContextTest, EncryptedKeyNeedsItsPassphrase) {
  const TlsCerts& c = TlsCerts::get();
  TlsOptions o = c.options(c.encrypted);
  o.key_passphrase = "s3cret";
  EXPECT_NE(tls::makeContext(o), nullptr);
  o.key_passphrase = "wrong";
  expectConfigError(o, c.encrypted.key, "cannot be decrypted with key_passphrase");
  // No passphrase: fails rather than prompting on the terminal.
  o.key_passphrase = "";
  expectConfigError(o, c.encrypted.key, "is encrypted and no key_passphrase is set");
}

TEST(TlsContextTest, CertificateAuthoritiesRequiredUnlessNoVerification) {
  const TlsCerts& c = TlsCerts::get();
  TlsOptions o = c.options(c.server);
  o.certificate_authorities = "";
  EXPECT_THROW(tls::makeContext(o), std::invalid_argument);
  o.verification_mode = TlsOptions::VerificationMode::kNone;
  EXPECT_NE(tls::makeContext(o), nullptr);
}

TEST(TlsContextTest, CipherStringsMatchingNothingAreRejected) {
  const TlsCerts& c = TlsCerts::get();
  TlsOptions o = c.options(c.server);
  o.cipher_list = "NO-SUCH-CIPHER";
  EXPECT_THROW(tls::makeContext(o), std::invalid_argument);
  o = c.options(c.server);
  o.ciphersuites = "TLS_NO_SUCH_SUITE";
  EXPECT_THROW(tls::makeContext(o), std::invalid_argument);
}

TEST(TlsContextTest, TransportServiceFailsAtConstruction) {
  const TlsCerts& c = TlsCerts::get();
  TransportOptions o;
  o.tls = c.options(c.server);
  o.tls->key = c.client.key;
  EXPECT_THROW(TransportService{o}, TlsConfigError);
}

TEST(TlsContextTest, ListenWithoutACertificateFails) {
  const TlsCerts& c = TlsCerts::get();
  TransportOptions o;
  o.tls = TlsOptions{};
  o.tls->certificate_authorities = c.ca.certificateFile();
  TransportService client_only(o);  // may connect, cannot accept
  EXPECT_THROW(client_only.listen("127.0.0.1", 0), TlsConfigError);
}

}  // namespace
}  // namespace wirestream::transport
