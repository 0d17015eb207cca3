// NetStream: one connection's byte stream, a plain TCP socket or TLS over
// it, so the connection code reads through one interface. Frames are the
// same bytes either way; only the layer under them differs.
//
//   NetStream s(std::move(socket), tls_context);   // nullptr: plaintext
//   s.asyncReadSome(buffers, handler);
//   if (s.isTls()) asio::async_write(s.tls(), buffers, handler);
//   s.socket().close();                            // the TCP socket under both
//
// Not thread-safe: use from one strand (an SSL object must not run two
// operations at once; Asio allows one read and one write outstanding).
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <optional>
#include <utility>

namespace wirestream::transport {

class NetStream {
 public:
  using TlsStream = boost::asio::ssl::stream<boost::asio::ip::tcp::socket>;

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
  boost::asio::ip::tcp::socket& socket() { return tls_ ? tls_->next_layer() : *plain_; }

  template <class MutableBuffers, class Handler>
  void asyncReadSome(const MutableBuffers& buffers, Handler&& handler) {
    if (tls_) {
      tls_->async_read_some(buffers, std::forward<Handler>(handler));
    } else {
      plain_->async_read_some(buffers, std::forward<Handler>(handler));
    }
  }

 private:
  std::optional<boost::asio::ip::tcp::socket> plain_;
  std::optional<TlsStream> tls_;
};

}  // namespace wirestream::transport
