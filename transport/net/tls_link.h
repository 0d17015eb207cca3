// TlsLink: a ByteLink with TLS over the TCP socket, everything on the
// strand (an SSL object takes one operation at a time). After the handshake
// (run through Asio's engine) OpenSSL reads records from and writes them to
// a BufferedSocket (net_stream.h): one fill is decrypted in one loop, and a
// batch of frames is encrypted in one loop into one send.
//
// Thread-safety: see ByteLink; flush() from any thread posts to the strand.
#pragma once

#include <atomic>
#include <boost/asio/ssl/stream.hpp>
#include <optional>
#include <string>
#include <vector>

#include "transport/net/byte_link.h"
#include "transport/net_stream.h"
#include "transport/thread_annotations.h"

namespace wirestream::transport::net {

class TlsLink final : public ByteLink {
 public:
  // TLS records collected before they are sent in one write.
  static constexpr size_t kFlushBytes = 256 * 1024;

  TlsLink(boost::asio::ip::tcp::socket socket, Strand strand, Owner& owner,
          TlsLinkSettings settings)
      : raw_(std::move(socket)),
        strand_(std::move(strand)),
        owner_(owner),
        settings_(std::move(settings)) {}

  // The TLS handshake, then reads; what was queued meanwhile goes out after
  // it. Accepting, the SSL objects are made once the peer's first bytes are
  // in: a connection that sends nothing costs none of them.
  void start() override;
  void flush() override;
  void resume() override;
  void close() override;
  bool isTls() const override { return true; }
  uint64_t bytesSent() const override { return bytes_sent_.load(); }
  std::string tlsFailure() const override;
  boost::asio::ip::tcp::socket& socket() override {
    return tls_ ? tls_->next_layer().socket() : *raw_;
  }

 private:
  void handshake();
  void readLoop();
  void writeLoop();
  void fail(Failure failure, const std::string& what, const boost::system::error_code& ec);

  std::optional<boost::asio::ip::tcp::socket> raw_;  // until tls_ is made from it
  std::optional<boost::asio::ssl::stream<BufferedSocket>> tls_;
  Strand strand_;
  Owner& owner_;
  const TlsLinkSettings settings_;
  // The strand's:
  bool ready_ = false;    // the handshake is done
  bool reading_ = false;  // readLoop is looping
  bool paused_ = false;   // the owner stopped reading (resume())
  bool writing_ = false;  // waiting for the socket to take more
  std::vector<std::span<const uint8_t>> pieces_;
  size_t next_piece_ = 0;  // first piece not yet encrypted
  std::atomic<bool> closed_{false};
  std::atomic<uint64_t> bytes_sent_{0};
  mutable Mutex failure_mu_;
  std::string failure_ WS_GUARDED_BY(failure_mu_);
};

}  // namespace wirestream::transport::net
