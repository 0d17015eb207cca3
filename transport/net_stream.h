// BufferedSocket: the TCP socket under TLS, buffered both ways (what
// net/tls_link.h reads and writes through); and NetStream, a plain socket or
// TLS over one (deprecated: unused since the byte links of transport/net/).
//
// Example (compiled: net_stream):
//   #include "transport/tls.h"
//   namespace asio = boost::asio;
//   asio::io_context io;
//   asio::ip::tcp::socket socket(io);                // connected
//   asio::ssl::context tls_context(asio::ssl::context::tls);
//   NetStream s(std::move(socket), &tls_context);    // nullptr: plaintext
//   s.tls().async_handshake(asio::ssl::stream_base::client,  // TLS: first
//                           [](const boost::system::error_code&) {});
//   // then, on the strand, without waiting:
//   SSL* ssl = s.tls().native_handle();
//   tls::attachBufferedSocket(ssl, s.tlsSocket());
//   uint8_t buffer[4096];
//   boost::system::error_code ec;
//   size_t n = tls::read(ssl, buffer, sizeof buffer, ec);  // would_block: nothing buffered
//   s.tlsSocket().asyncFill([](const boost::system::error_code&, size_t) {});  // wait for more
//   tls::write(ssl, buffer, n, ec);                  // records collect...
//   s.tlsSocket().trySend(ec);                       // ...and leave in one send
//
// Not thread-safe: use from one strand (an SSL object runs one operation at
// a time).
#pragma once

#include <sys/socket.h>

#include <algorithm>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>
#include <cerrno>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace wirestream::transport {

// The TCP socket under TLS, buffered both ways. Asio's TLS engine moves one
// record (at most ~16 KiB) per read or write of the layer under it; straight
// on a socket each record would cost a syscall and a trip through the
// reactor. The handshake runs through Asio (async_read_some reads through
// the buffer, async_write_some writes straight to the socket); after it,
// tls::attachBufferedSocket makes OpenSSL read records from this buffer
// (what asyncFill received, up to kReadBufferSize at once) and write them
// into the send buffer (sent together by trySend), with no copies between.
// So after a fill the connection decrypts every buffered record in one
// loop, and a batch of frames is encrypted in one loop and leaves in one
// send.
class BufferedSocket {
 public:
  using executor_type = boost::asio::ip::tcp::socket::executor_type;
  using lowest_layer_type = boost::asio::ip::tcp::socket::lowest_layer_type;
  static constexpr size_t kReadBufferSize = 256 * 1024;
  static constexpr size_t kHandshakeChunk = 4096;

  // The read buffer takes kHandshakeChunk until setFillSize (the TLS
  // handshake's messages are small), allocated at the first read and not
  // zero-filled: an accepted connection that sends nothing costs none of it
  // (a zeroed 256 KiB buffer made idle TLS peers hold 329 KiB each).
  explicit BufferedSocket(boost::asio::ip::tcp::socket socket) : socket_(std::move(socket)) {}

  // How much one fill reads at most from now on (kReadBufferSize once the
  // handshake is done).
  void setFillSize(size_t size) { fill_size_ = size; }

  executor_type get_executor() { return socket_.get_executor(); }
  lowest_layer_type& lowest_layer() { return socket_.lowest_layer(); }
  const lowest_layer_type& lowest_layer() const { return socket_.lowest_layer(); }
  boost::asio::ip::tcp::socket& socket() { return socket_; }

  // Bytes received and not yet handed out / collected and not yet sent.
  size_t readable() const { return read_end_ - read_begin_; }
  size_t unsent() const { return write_buffer_.size() - sent_; }

  // Hands out up to `size` received bytes; 0 when there are none.
  size_t take(void* out, size_t size) { return takeBuffered(boost::asio::buffer(out, size)); }
  // Puts bytes back before the received ones (what the handshake's engine
  // had read ahead).
  void unread(const void* data, size_t size) {
    const size_t total = size + readable();
    auto joined = std::unique_ptr<uint8_t[]>(new uint8_t[std::max(total, read_capacity_)]);
    std::copy_n(static_cast<const uint8_t*>(data), size, joined.get());
    std::copy(read_buffer_.get() + read_begin_, read_buffer_.get() + read_end_,
              joined.get() + size);
    read_capacity_ = std::max(total, read_capacity_);
    read_buffer_ = std::move(joined);
    read_begin_ = 0;
    read_end_ = total;
  }
  // Collects bytes for the next trySend.
  void append(const void* data, size_t size) {
    const auto* p = static_cast<const uint8_t*>(data);
    write_buffer_.insert(write_buffer_.end(), p, p + size);
  }

  // Waits for bytes from the socket (readable() == 0 first);
  // handler(ec, bytes) on handler's executor.
  template <class Handler>
  void asyncFill(Handler&& handler) {
    auto executor = boost::asio::get_associated_executor(handler, socket_.get_executor());
    if (read_capacity_ < fill_size_) {  // nothing is buffered (readable() == 0)
      read_buffer_ = std::unique_ptr<uint8_t[]>(new uint8_t[fill_size_]);
      read_capacity_ = fill_size_;
    }
    socket_.async_read_some(
        boost::asio::buffer(read_buffer_.get(), read_capacity_),
        boost::asio::bind_executor(executor,
                                   [this, h = std::forward<Handler>(handler)](
                                       const boost::system::error_code& ec, size_t n) mutable {
                                     read_begin_ = 0;
                                     read_end_ = ec ? 0 : n;
                                     h(ec, read_end_);
                                   }));
  }

  // Sends collected bytes without blocking, in as few syscalls as the
  // kernel allows (Asio's async_write would take 64 KiB a call); true once
  // none are left, false when the socket is full (wait with
  // asyncWaitWritable) or on an error (set in ec).
  bool trySend(boost::system::error_code& ec) {
    ec = {};
    while (sent_ < write_buffer_.size()) {
      ssize_t n = ::send(socket_.native_handle(), write_buffer_.data() + sent_,
                         write_buffer_.size() - sent_, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n > 0) {
        sent_ += static_cast<size_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return false;
      ec.assign(n < 0 ? errno : EPIPE, boost::system::system_category());
      return false;
    }
    write_buffer_.clear();
    sent_ = 0;
    return true;
  }

  template <class Handler>
  void asyncWaitWritable(Handler&& handler) {
    socket_.async_wait(boost::asio::ip::tcp::socket::wait_write, std::forward<Handler>(handler));
  }

  // The engine's reads during the handshake take at most kHandshakeChunk at
  // a time, so the engine never holds more than its BIO pair can take and
  // attachBufferedSocket finds every byte it read ahead in that BIO.
  template <class MutableBuffers, class Handler>
  void async_read_some(const MutableBuffers& whole, Handler&& handler) {
    const boost::asio::mutable_buffer buffers =
        boost::asio::buffer(*boost::asio::buffer_sequence_begin(whole), kHandshakeChunk);
    // The engine defers a completion with a zero-byte read: it must not wait.
    if (readable() > 0 || boost::asio::buffer_size(buffers) == 0) {
      size_t n = takeBuffered(buffers);
      // An initiating function never calls its handler itself: post it.
      auto executor = boost::asio::get_associated_executor(handler, socket_.get_executor());
      boost::asio::post(executor, [h = std::forward<Handler>(handler), n]() mutable {
        h(boost::system::error_code(), n);
      });
      return;
    }
    asyncFill([this, buffers, h = std::forward<Handler>(handler)](
                  const boost::system::error_code& ec, size_t) mutable {
      h(ec, ec ? 0 : takeBuffered(buffers));
    });
  }

  template <class ConstBuffers, class Handler>
  void async_write_some(const ConstBuffers& buffers, Handler&& handler) {
    socket_.async_write_some(buffers, std::forward<Handler>(handler));
  }

 private:
  template <class MutableBuffers>
  size_t takeBuffered(const MutableBuffers& buffers) {
    size_t n = boost::asio::buffer_copy(
        buffers, boost::asio::buffer(read_buffer_.get() + read_begin_, readable()));
    read_begin_ += n;
    return n;
  }

  boost::asio::ip::tcp::socket socket_;
  std::unique_ptr<uint8_t[]> read_buffer_;  // read_capacity_ bytes, not zero-filled
  size_t read_capacity_ = 0;
  size_t fill_size_ = kHandshakeChunk;
  size_t read_begin_ = 0;
  size_t read_end_ = 0;
  std::vector<uint8_t> write_buffer_;
  size_t sent_ = 0;  // of write_buffer_
};

class NetStream {
 public:
  using TlsStream = boost::asio::ssl::stream<BufferedSocket>;

  // TLS over `socket` when `tls_context` is set; the handshake is the
  // caller's (tls().async_handshake) before any read or write.
  NetStream(boost::asio::ip::tcp::socket socket, boost::asio::ssl::context* tls_context) {
    if (tls_context != nullptr) {
      tls_.emplace(std::move(socket), *tls_context);
    } else {
      plain_.emplace(std::move(socket));
    }
  }

  bool isTls() const { return tls_.has_value(); }
  TlsStream& tls() { return *tls_; }
  BufferedSocket& tlsSocket() { return tls_->next_layer(); }
  boost::asio::ip::tcp::socket& socket() { return tls_ ? tls_->next_layer().socket() : *plain_; }

  // Plaintext only (TLS reads go through tls::read).
  template <class MutableBuffers, class Handler>
  void asyncReadSome(const MutableBuffers& buffers, Handler&& handler) {
    plain_->async_read_some(buffers, std::forward<Handler>(handler));
  }

 private:
  std::optional<boost::asio::ip::tcp::socket> plain_;
  std::optional<TlsStream> tls_;
};

}  // namespace wirestream::transport
