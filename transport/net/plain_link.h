// PlainLink: a ByteLink straight on a TCP socket. Reads scatter into the
// owner's buffers through Asio; writes gather the owner's pieces into
// non-blocking sendmsg calls on the writer's own thread, so a request costs
// no hand-off to an I/O thread; when the kernel's buffer is full the rest
// goes on the strand once the socket is writable.
//
// Thread-safety: see ByteLink. Closing takes fd_mu_ exclusively, each
// sendmsg shares it: no sendmsg runs on a closed (and reused) fd number.
#pragma once

#include <sys/uio.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <vector>

#include "transport/net/byte_link.h"
#include "transport/thread_annotations.h"

namespace wirestream::transport::net {

class PlainLink final : public ByteLink {
 public:
  // iovecs one sendmsg takes (Linux's IOV_MAX).
  static constexpr size_t kMaxIovPerCall = 1024;

  PlainLink(boost::asio::ip::tcp::socket socket, Strand strand, Owner& owner)
      : socket_(std::move(socket)), strand_(std::move(strand)), owner_(owner) {}

  void start() override { doRead(); }
  void flush() override;
  void resume() override { doRead(); }
  void close() override;
  bool isTls() const override { return false; }
  uint64_t bytesSent() const override { return bytes_sent_.load(); }
  boost::asio::ip::tcp::socket& socket() override { return socket_; }

 private:
  void doRead();
  void waitWritable();

  boost::asio::ip::tcp::socket socket_;
  Strand strand_;
  Owner& owner_;
  std::vector<boost::asio::mutable_buffer> read_buffers_;  // the strand's
  std::vector<std::span<const uint8_t>> pieces_;           // the writer's
  std::vector<iovec> iov_;                                 // the writer's
  size_t iov_next_ = 0;                                    // the writer's
  SharedMutex fd_mu_;
  std::atomic<bool> closed_{false};
  std::atomic<uint64_t> bytes_sent_{0};
};

}  // namespace wirestream::transport::net
