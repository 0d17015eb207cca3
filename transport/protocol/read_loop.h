// ReadLoop: the receiving half of one connection, without the socket: where
// the next read lands (a read buffer, or straight into the pages of a large
// frame sized from its header), the FrameDecoder those bytes feed, the
// node-budget admission of each frame, and the routing of decoded frames to
// the connection (pings, handshake, requests, responses) with the protocol
// rules every connection enforces. The connection owns the socket and the
// timers and drives it:
//
// Example (runs: read_loop):
//   #include <cstring>
//   struct Conn final : ReadLoop::Sink {  // the connection
//     void answerPing() override {}
//     void onHandshakeRequest(DecodedFrame&& frame) override {}
//     void onResponse(DecodedFrame&& frame) override {}
//     void onRequest(DecodedFrame&& frame, InboundBudget::Lease lease) override {}
//     void onRefused(const FrameHeader& h, const CircuitBreakingError& e, bool answer) override {}
//   } sink;
//   ReadLoop loop({.direction = Direction::kInbound, .max_frame_size = 1 << 20}, sink);
//   const uint8_t ping[] = {'E', 'S', 0xFF, 0xFF, 0xFF, 0xFF};  // what the socket brings
//   ReadLoop::Target t = loop.nextRead();  // read into t.buffers
//   std::memcpy(t.buffers[0].data(), ping, sizeof ping);
//   loop.received(sizeof ping, t.direct);  // decode, dispatch to `sink`
//   switch (loop.deadlineAfterRead()) {    // the read deadline:
//     case ReadLoop::Deadline::kArm: break;     // arm it for the frame begun
//     case ReadLoop::Deadline::kCancel: break;  // cancel it
//     case ReadLoop::Deadline::kKeep: break;
//   }
//   bool warn = false;  // on EOF or a read error: close, with this reason
//   std::string reason = loop.closeReason(/*eof=*/true, /*error=*/"", warn);
//
// Rules (a break throws ProtocolError, a bad byte stream the decoder's
// StreamError; either way the connection closes): a response on an inbound
// connection or a request on an outbound one; a frame other than a handshake
// (or a refused handshake's error response) before the handshake, except an
// inbound request at a version between minimum_compatible and ours, which
// agrees on that version as a handshake would (ES handshakes only the first
// of the channels it opens to a node and sends requests on the others at the
// version that one agreed: Sink::onVersionAdopted); a second handshake; a
// frame whose version differs from the agreed one. A ping is
// counted, and answered on the accepting side (ES's keep-alive). A frame
// whose declared size would take the node past its inbound budget is
// refused as soon as its header is in (Sink::onRefused), its content
// dropped as it arrives; a refused handshake closes the connection. On an
// outbound connection the sink may name a buffer for a response's content
// (Sink::receiveBuffer): the reads then land there, not in pages.
//
// Thread-safety: one thread at a time (the connection's strand) calls every
// method; version(), handshakeDone(), bytesReceived() and pingsReceived() may
// be read from any thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "stream/page_recycler.h"
#include "stream/transport_version.h"
#include "transport/frame.h"
#include "transport/frame_decoder.h"
#include "transport/inbound_budget.h"
#include "transport/transport_errors.h"

namespace wirestream::transport::protocol {

// A peer broke the protocol (wrong direction, no handshake...): close.
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Direction { kInbound, kOutbound };

class ReadLoop {
 public:
  // A frame with at least this much content still to come is received
  // straight into its pages.
  static constexpr size_t kDirectReadThreshold = 64 * 1024;
  // The most one read into a frame's pages takes (64 pages: one recvmsg and
  // one completion per MiB where 256 KiB reads made four).
  static constexpr size_t kMaxDirectRead = 1024 * 1024;
  static constexpr size_t kReadBufferSize = 256 * 1024;
  // After a large frame the next read at a frame boundary takes only this
  // much into the read buffer: enough for its header and for small frames,
  // so that the body of another large frame lands in its pages, not in the
  // read buffer first (copying the first 256 KiB of each MiB cost ~8% CPU).
  static constexpr size_t kProbeReadSize = 4 * 1024;

  // What the loop hands the connection; called on the loop's thread.
  class Sink {
   public:
    virtual ~Sink() = default;
    // A ping to answer (inbound only).
    virtual void answerPing() = 0;
    // The peer's handshake request (inbound, before the handshake).
    virtual void onHandshakeRequest(DecodedFrame&& frame) = 0;
    // Inbound, no handshake yet: a request at `version` (in range) agreed on
    // it; the request follows through onRequest.
    virtual void onVersionAdopted(TransportVersion version) {}
    // A response, the handshake's included (outbound).
    virtual void onResponse(DecodedFrame&& frame) = 0;
    // A request after the handshake, with the node budget it holds until
    // answered (inbound).
    virtual void onRequest(DecodedFrame&& frame, InboundBudget::Lease lease) = 0;
    // A frame refused by the node budget; `answer`: it is a request that can
    // be answered now with `breaker` (after the handshake, at the agreed
    // version). May log and send; must not throw.
    virtual void onRefused(const FrameHeader& header, const CircuitBreakingError& breaker,
                           bool answer) = 0;
    // Outbound, after the handshake: where the content of the response with
    // this header goes, asked once its header is in: a buffer of at least
    // header.contentSize() bytes that the caller lent for it (the frame's
    // content then references it, unowned), or an empty span (pages). May
    // not throw.
    virtual std::span<uint8_t> receiveBuffer(const FrameHeader& header) { return {}; }
  };

  struct Options {
    Direction direction = Direction::kOutbound;
    size_t max_frame_size = 100 * 1024 * 1024;
    // This node's version: the one frames use until the handshake agrees.
    TransportVersion version = TransportVersion::current();
    // Inbound: the oldest version a request may arrive at without a handshake.
    TransportVersion minimum_compatible = TransportVersion::fromRelease(7, 17, 0);
    PageRecycler* recycler = nullptr;  // null: PageRecycler::defaultRecycler()
    // The node-wide budget inbound frames are admitted against (inbound
    // only; null: no admission). It must outlive the loop.
    InboundBudget* budget = nullptr;
  };

  ReadLoop(const Options& options, Sink& sink);
  ReadLoop(const ReadLoop&) = delete;
  ReadLoop& operator=(const ReadLoop&) = delete;

  // Where the next read goes: a frame's pages (direct) or the read buffer.
  struct Target {
    std::vector<std::span<uint8_t>> buffers;
    bool direct = false;
  };
  // For a socket read that scatters: up to kMaxDirectRead of a large frame's
  // pages (or of the buffer the sink named for it), else the read buffer
  // (kProbeReadSize of it after a large frame).
  [[nodiscard]] Target nextRead();
  // For a reader that takes one buffer (TLS): the first page with room of a
  // large frame, else the whole read buffer.
  [[nodiscard]] Target nextSingleRead();

  // `n` bytes landed at the start of `target`'s buffers (the last
  // nextRead()/nextSingleRead()): decodes them and dispatches every complete
  // frame to the sink, in order. Throws ProtocolError or a StreamError
  // (then close the connection with what() at WARN).
  void received(size_t n, bool direct);

  // The read deadline after received(): a frame began and is incomplete
  // (arm a new deadline for it, unless one is armed for the same frame),
  // or none is in progress (cancel).
  enum class Deadline { kKeep, kArm, kCancel };
  [[nodiscard]] Deadline deadlineAfterRead();
  // A deadline armed for the frame at `start` fired: whether that frame is
  // still incomplete (close the connection with deadlineReason()).
  bool deadlineExpired(uint64_t start) const;
  // The stream offset of the frame the last kArm was for.
  uint64_t deadlineFrameStart() const { return deadline_frame_start_; }
  std::string deadlineReason(std::chrono::milliseconds deadline) const;

  // Why the connection closes on EOF (`eof`) or a read error (`error`); WARN
  // (`warn` set) when it cut a frame.
  std::string closeReason(bool eof, const std::string& error, bool& warn) const;

  // The connection closed: admits no more frames, gives the budget of the
  // frame being received back, no deadline is armed.
  void close();

  void completeHandshake(TransportVersion agreed);
  bool handshakeDone() const { return handshake_done_.load(); }
  TransportVersion version() const { return TransportVersion(version_id_.load()); }
  uint64_t bytesReceived() const { return bytes_received_.load(); }
  uint64_t pingsReceived() const { return pings_received_.load(); }

 private:
  bool admit(const FrameHeader& h);
  void dispatch(DecodedFrame&& frame);

  const Options options_;
  Sink& sink_;
  FrameDecoder decoder_;
  // Not zero-filled: its pages become resident only as reads fill them, so
  // an idle connection does not cost kReadBufferSize of RSS (a zeroed buffer
  // made 10,000 idle connections hold 2.5 GiB).
  std::unique_ptr<uint8_t[]> read_buffer_;
  bool last_frame_large_ = false;  // see kProbeReadSize
  // The node budget held for the frame being received.
  InboundBudget::Lease frame_lease_;
  bool closed_ = false;
  bool deadline_armed_ = false;
  uint64_t deadline_frame_start_ = 0;
  std::atomic<int32_t> version_id_;
  std::atomic<bool> handshake_done_{false};
  std::atomic<uint64_t> bytes_received_{0};
  std::atomic<uint64_t> pings_received_{0};
};

}  // namespace wirestream::transport::protocol
