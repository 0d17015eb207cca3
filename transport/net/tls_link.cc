#include "transport/net/tls_link.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/error.hpp>

#include "transport/tls.h"

namespace wirestream::transport::net {

namespace asio = boost::asio;
using boost::system::error_code;

void TlsLink::start() {
  if (settings_.client) {
    handshake();
    return;
  }
  raw_->async_wait(
      asio::ip::tcp::socket::wait_read,
      asio::bind_executor(strand_, [this, keep = owner_.keepAlive()](const error_code& ec) {
        if (closed_) return;
        if (ec) {
          owner_.onReadEnded(false, ec.message());
          return;
        }
        handshake();
      }));
}

void TlsLink::handshake() {
  tls_.emplace(std::move(*raw_), *settings_.context);
  raw_.reset();
  SSL* ssl = tls_->native_handle();
  try {
    if (settings_.client) {
      tls::configureClient(ssl, *settings_.options, settings_.peer_host);
    } else {
      tls::configureServer(ssl, *settings_.options);
    }
  } catch (const std::exception& e) {
    owner_.onLinkFailed(Failure::kTlsHandshake, e.what());
    return;
  }
  tls_->async_handshake(
      settings_.client ? asio::ssl::stream_base::client : asio::ssl::stream_base::server,
      asio::bind_executor(strand_, [this, keep = owner_.keepAlive()](const error_code& ec) {
        if (closed_) return;
        if (ec) {
          // A record header that is not TLS: most likely a plaintext peer.
          const bool plaintext = ec.category() == asio::error::get_ssl_category() &&
                                 ERR_GET_REASON(ec.value()) == SSL_R_WRONG_VERSION_NUMBER;
          fail(Failure::kTlsHandshake,
               plaintext ? "TLS handshake failed (a plaintext peer?)" : "TLS handshake failed", ec);
          return;
        }
        tls::attachBufferedSocket(tls_->native_handle(), tls_->next_layer());
        ready_ = true;
        readLoop();
        writeLoop();
      }));
}

// Decrypts every record already received in one loop, handing each read to
// the owner, then waits for more bytes.
void TlsLink::readLoop() {
  if (reading_) return;
  reading_ = true;
  SSL* ssl = tls_->native_handle();
  while (!closed_) {
    error_code ec;
    // Straight into a large frame's pages (the first that has room).
    const std::span<uint8_t> into = owner_.nextRead(true).front();
    const size_t n = tls::read(ssl, into.data(), into.size(), ec);
    if (ec == asio::error::would_block) break;
    if (ec && tls::isTlsError(ec) && ec != asio::ssl::error::stream_truncated) {
      // Garbage, a forged record, a renegotiation attempt, or (TLS 1.3) the
      // peer refusing our certificate after our side of the handshake.
      reading_ = false;
      fail(Failure::kTransfer, "TLS read failed", ec);
      return;
    }
    if (ec) {
      reading_ = false;
      owner_.onReadEnded(ec == asio::error::eof, ec.message());
      return;
    }
    if (!owner_.onReceived(n)) {
      paused_ = true;
      break;
    }
  }
  reading_ = false;
  if (closed_) return;
  writeLoop();          // sends what reading produced, if anything
  if (paused_) return;  // no fill until resume()
  tls_->next_layer().asyncFill(
      asio::bind_executor(strand_, [this, keep = owner_.keepAlive()](const error_code& ec, size_t) {
        if (closed_) return;
        if (ec) {
          owner_.onReadEnded(ec == asio::error::eof, ec.message());
          return;
        }
        readLoop();
      }));
}

void TlsLink::resume() {
  paused_ = false;
  readLoop();
}

void TlsLink::flush() {
  asio::post(strand_, [this, keep = owner_.keepAlive()] { writeLoop(); });
}

// Encrypts the owner's pieces into the socket's buffer until about
// kFlushBytes of records collected, and sends them in one non-blocking
// send; when the socket is full it goes on once it is writable. Also sends
// what reading produced (TLS 1.3 key updates). Waits for the handshake.
void TlsLink::writeLoop() {
  if (closed_ || !ready_ || writing_) return;
  BufferedSocket& socket = tls_->next_layer();
  while (true) {
    error_code ec;
    if (socket.unsent() > 0 && !socket.trySend(ec)) {
      if (ec) {
        owner_.onLinkFailed(Failure::kTransfer, "write failed: " + ec.message());
        return;
      }
      writing_ = true;
      socket.asyncWaitWritable(asio::bind_executor(
          strand_, [this, keep = owner_.keepAlive()](const error_code& wait_ec) {
            writing_ = false;
            if (closed_) return;
            if (wait_ec) {
              owner_.onLinkFailed(Failure::kTransfer, "write failed: " + wait_ec.message());
              return;
            }
            writeLoop();
          }));
      return;
    }
    if (next_piece_ == pieces_.size()) {
      pieces_.clear();
      next_piece_ = 0;
      if (!owner_.nextPieces(pieces_)) return;
    }
    while (next_piece_ < pieces_.size() && socket.unsent() < kFlushBytes) {
      std::span<const uint8_t>& piece = pieces_[next_piece_];
      // Asio's engine enables partial writes: SSL_write takes one record
      // (16 KiB) at a time of a larger piece (a referenced body).
      const size_t n = tls::write(tls_->native_handle(), piece.data(), piece.size(), ec);
      if (ec) {
        fail(Failure::kTransfer, "TLS write failed", ec);
        return;
      }
      bytes_sent_ += n;
      piece = piece.subspan(n);
      if (piece.empty()) ++next_piece_;
    }
  }
}

// Keeps OpenSSL's reason (for connect() to name) and has the owner close.
void TlsLink::fail(Failure failure, const std::string& what, const error_code& ec) {
  const std::string reason = tls::failureReason(ec, tls_->native_handle());
  {
    MutexLock lock(failure_mu_);
    if (failure_.empty()) failure_ = reason;
  }
  owner_.onLinkFailed(failure, what + ": " + reason);
}

std::string TlsLink::tlsFailure() const {
  MutexLock lock(failure_mu_);
  return failure_;
}

void TlsLink::close() {
  if (closed_.exchange(true)) return;
  error_code ignored;
  socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket().close(ignored);
}

}  // namespace wirestream::transport::net
