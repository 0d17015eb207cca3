#include "transport/net/plain_link.h"

#include <sys/socket.h>

#include <algorithm>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>
#include <cerrno>
#include <cstring>

namespace wirestream::transport::net {

namespace asio = boost::asio;
using boost::system::error_code;

void PlainLink::doRead() {
  if (closed_) return;
  read_buffers_.clear();
  for (std::span<uint8_t> s : owner_.nextRead(false))
    read_buffers_.emplace_back(s.data(), s.size());
  socket_.async_read_some(read_buffers_,
                          asio::bind_executor(strand_, [this, keep = owner_.keepAlive()](
                                                           const error_code& ec, size_t n) {
                            if (closed_) return;
                            if (ec) {
                              owner_.onReadEnded(ec == asio::error::eof, ec.message());
                              return;
                            }
                            owner_.onReceived(n);
                            doRead();
                          }));
}

void PlainLink::flush() {
  while (true) {
    if (iov_next_ == iov_.size()) {
      pieces_.clear();
      iov_.clear();
      iov_next_ = 0;
      if (!owner_.nextPieces(pieces_)) return;
      for (std::span<const uint8_t> p : pieces_) {
        iov_.push_back({const_cast<uint8_t*>(p.data()), p.size()});
      }
      continue;
    }
    ssize_t n;
    {
      ReaderLock fd_lock(fd_mu_);
      if (closed_) return;
      msghdr msg{};
      msg.msg_iov = iov_.data() + iov_next_;
      msg.msg_iovlen = std::min<size_t>(iov_.size() - iov_next_, kMaxIovPerCall);
      n = ::sendmsg(socket_.native_handle(), &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
    }
    if (n > 0) {
      bytes_sent_ += static_cast<uint64_t>(n);
      size_t left = static_cast<size_t>(n);
      while (left > 0) {
        iovec& v = iov_[iov_next_];
        if (left >= v.iov_len) {
          left -= v.iov_len;
          ++iov_next_;
        } else {
          v.iov_base = static_cast<uint8_t*>(v.iov_base) + left;
          v.iov_len -= left;
          left = 0;
        }
      }
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      asio::post(strand_, [this, keep = owner_.keepAlive()] { waitWritable(); });
      return;
    }
    owner_.onLinkFailed(Failure::kTransfer,
                        std::string("write failed: ") + std::strerror(n < 0 ? errno : EPIPE));
    return;
  }
}

void PlainLink::waitWritable() {
  if (closed_) return;
  socket_.async_wait(
      asio::ip::tcp::socket::wait_write,
      asio::bind_executor(strand_, [this, keep = owner_.keepAlive()](const error_code& ec) {
        if (closed_) return;
        if (ec) {
          owner_.onLinkFailed(Failure::kTransfer, "write failed: " + ec.message());
          return;
        }
        flush();
      }));
}

void PlainLink::close() {
  WriterLock fd_lock(fd_mu_);
  if (closed_.exchange(true)) return;
  error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
}

}  // namespace wirestream::transport::net
