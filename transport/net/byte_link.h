// ByteLink: one connection's bytes on the network, under the protocol: a
// plain TCP socket (PlainLink) or TLS over one (TlsLink), each with its own
// read and write pumps (the split folly makes between its socket and its TLS
// socket). Frames are the same bytes either way; the link knows none of
// them. The connection above is its Owner: it says where each read lands and
// hands over the pieces to send.
//
// Example (compiled: byte_link):
//   struct Conn final : ByteLink::Owner {  // the connection above the link
//     std::vector<std::span<uint8_t>> nextRead(bool single) override { return {}; }
//     bool onReceived(size_t n) override { return true; }
//     void onReadEnded(bool eof, const std::string& error) override {}
//     void onLinkFailed(ByteLink::Failure failure, const std::string& reason) override {}
//     bool nextPieces(std::vector<std::span<const uint8_t>>& pieces) override { return false; }
//     std::shared_ptr<void> keepAlive() override { return nullptr; }
//   } owner;
//   boost::asio::io_context io;
//   boost::asio::ip::tcp::socket socket(io);  // connected, or accepted
//   Strand strand = boost::asio::make_strand(io);
//   std::optional<TlsLinkSettings> tls;       // unset: plain TCP
//   std::unique_ptr<ByteLink> link = makeByteLink(std::move(socket), strand, owner, tls);
//   link->start();    // on the strand: the TLS handshake (TLS), then reads
//   link->flush();    // from the thread that became the writer (WriteQueue)
//   link->close();    // on the strand, once
//
// Threading: reads, the TLS handshake and close run on the strand; a plain
// link sends on the calling thread (non-blocking sendmsg) and continues on
// the strand only when the kernel's buffer is full; a TLS link always sends
// on the strand (an SSL object takes one operation at a time). Owner calls
// come on the strand, except nextPieces/onLinkFailed from a plain writer.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/strand.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "transport/tls_options.h"

namespace wirestream::transport::net {

using Strand = boost::asio::strand<boost::asio::io_context::executor_type>;

class ByteLink {
 public:
  // What failed: the TLS handshake (or setting it up), or the bytes' transfer
  // after (a write error, a forged or renegotiating TLS record).
  enum class Failure { kTlsHandshake, kTransfer };

  // The connection above the link.
  class Owner {
   public:
    virtual ~Owner() = default;
    // Where the next read lands; `single`: one buffer (the TLS reader's).
    virtual std::vector<std::span<uint8_t>> nextRead(bool single) = 0;
    // `n` bytes landed at the start of the last nextRead's buffers. The
    // owner may close the link from here. False: stop reading until resume()
    // (backpressure).
    virtual bool onReceived(size_t n) = 0;
    // The peer closed (`eof`) or a plain read failed with `error`.
    virtual void onReadEnded(bool eof, const std::string& error) = 0;
    // A write or TLS failure; the owner closes the connection with `reason`.
    virtual void onLinkFailed(Failure failure, const std::string& reason) = 0;
    // The writer's next pieces to send, appended to `pieces`; they stay valid
    // until the next call. False (nothing appended): nothing is queued, and
    // the writer role is given up.
    virtual bool nextPieces(std::vector<std::span<const uint8_t>>& pieces) = 0;
    // What keeps the owner (and so the link) alive in a pending operation.
    virtual std::shared_ptr<void> keepAlive() = 0;
  };

  virtual ~ByteLink() = default;
  virtual void start() = 0;
  // Sends what nextPieces hands out until it says nothing is left.
  virtual void flush() = 0;
  // On the strand: reads again after onReceived returned false.
  virtual void resume() = 0;
  // Shuts the socket down and closes it; later reads and writes stop.
  virtual void close() = 0;
  virtual bool isTls() const = 0;
  virtual uint64_t bytesSent() const = 0;
  // OpenSSL's reason when the TLS handshake failed or the peer refused it;
  // "" otherwise (and always for a plain link).
  virtual std::string tlsFailure() const { return ""; }
  // The TCP socket, for its endpoints and options.
  virtual boost::asio::ip::tcp::socket& socket() = 0;
};

// The TLS side of a link: the context and, connecting, the host whose
// certificate the peer must present (TlsOptions' verification).
struct TlsLinkSettings {
  boost::asio::ssl::context* context = nullptr;
  const TlsOptions* options = nullptr;
  bool client = false;
  std::string peer_host;
};

// A plain link, or a TLS one when `tls` is set.
[[nodiscard]] std::unique_ptr<ByteLink> makeByteLink(boost::asio::ip::tcp::socket socket,
                                                     Strand strand, ByteLink::Owner& owner,
                                                     std::optional<TlsLinkSettings> tls);

}  // namespace wirestream::transport::net
