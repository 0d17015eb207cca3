#include "transport/protocol/read_loop.h"

#include <utility>

#include "transport/remote_exception.h"

namespace wirestream::transport::protocol {

ReadLoop::ReadLoop(const Options& options, Sink& sink)
    : options_(options),
      sink_(sink),
      decoder_(options.max_frame_size,
               options.recycler ? *options.recycler : PageRecycler::defaultRecycler()),
      read_buffer_(new uint8_t[kReadBufferSize]),
      version_id_(options.version.id()) {
  if (options_.direction == Direction::kInbound && options_.budget) {
    decoder_.setAdmission([this](const FrameHeader& h) { return admit(h); });
  }
  if (options_.direction == Direction::kOutbound) {
    // Only a response dispatch() will deliver as one: after the handshake,
    // at the agreed version (any other frame closes the connection).
    decoder_.setContentBuffer([this](const FrameHeader& h) -> std::span<uint8_t> {
      if (!h.isResponse() || h.isHandshake() || !handshakeDone() ||
          h.version_id != version_id_.load()) {
        return {};
      }
      return sink_.receiveBuffer(h);
    });
  }
}

ReadLoop::Target ReadLoop::nextRead() {
  Target t;
  // The rest of a large frame goes straight into its pages: one copy (the
  // kernel's) instead of two.
  if (decoder_.contentRemaining() >= kDirectReadThreshold) {
    t.buffers = decoder_.contentSpace(kMaxDirectRead);
    t.direct = true;
    return t;
  }
  t.buffers.emplace_back(read_buffer_.get(), last_frame_large_ ? kProbeReadSize : kReadBufferSize);
  return t;
}

ReadLoop::Target ReadLoop::nextSingleRead() {
  Target t;
  if (decoder_.contentRemaining() >= kDirectReadThreshold) {
    t.buffers.push_back(decoder_.contentSpace(kReadBufferSize).front());
    t.direct = true;
    return t;
  }
  t.buffers.emplace_back(read_buffer_.get(), kReadBufferSize);
  return t;
}

void ReadLoop::received(size_t n, bool direct) {
  bytes_received_ += n;
  auto on_frame = [this](DecodedFrame&& frame) {
    last_frame_large_ = frame.header.contentSize() >= kDirectReadThreshold;
    dispatch(std::move(frame));
  };
  if (direct) {
    decoder_.commitContent(n, on_frame);
  } else {
    decoder_.feed({read_buffer_.get(), n}, on_frame);
  }
}

// Reserves the frame's declared size against the node's inbound budget
// before any of its content is stored. A refused request is answered now;
// its content is then dropped as it arrives.
bool ReadLoop::admit(const FrameHeader& h) {
  if (closed_) return false;
  InboundBudget& budget = *options_.budget;
  frame_lease_ = budget.tryAcquire(h.frameSize());
  if (frame_lease_) return true;
  const int64_t would_be = static_cast<int64_t>(budget.used() + h.frameSize());
  const int64_t limit = static_cast<int64_t>(budget.limit());
  // As ES's in-flight-requests breaker words it; the action is not known yet
  // (the body is never buffered), so the label is ES's generic one.
  const CircuitBreakingError breaker(inFlightBreakerMessage("<transport_request>", would_be, limit),
                                     would_be, limit, CircuitBreakingError::Durability::kTransient);
  const bool answer =
      h.isRequest() && !h.isHandshake() && handshakeDone() && h.version_id == version_id_.load();
  sink_.onRefused(h, breaker, answer);
  return false;
}

void ReadLoop::dispatch(DecodedFrame&& frame) {
  const FrameHeader& h = frame.header;
  // Held until the frame is answered (a request hands it to its channel) or
  // dropped.
  InboundBudget::Lease lease = std::move(frame_lease_);
  const bool inbound = options_.direction == Direction::kInbound;
  if (h.isPing()) {
    ++pings_received_;
    // ES's TransportKeepAlive: the accepting side answers a ping with one.
    if (inbound) sink_.answerPing();
    return;
  }
  if (h.isResponse() && inbound) {
    throw ProtocolError("received a response (request id [" + std::to_string(h.request_id) +
                        "]) on an inbound connection");
  }
  if (h.isRequest() && !inbound) {
    throw ProtocolError("received a request (request id [" + std::to_string(h.request_id) +
                        "]) on an outbound connection");
  }
  if (h.isHandshake()) {
    if (frame.refused) throw ProtocolError("handshake refused: the node inbound budget is full");
    if (h.isRequest()) {
      if (handshakeDone()) throw ProtocolError("received a second handshake");
      sink_.onHandshakeRequest(std::move(frame));
    } else {
      sink_.onResponse(std::move(frame));
    }
    return;
  }
  // A refused handshake is answered with a plain error response.
  if (!handshakeDone() && h.isResponse() && h.isError()) {
    sink_.onResponse(std::move(frame));
    return;
  }
  if (!handshakeDone() && inbound && h.isRequest()) {
    // ES's other channels to a node carry requests at the version the first
    // one's handshake agreed, without a handshake of their own.
    const TransportVersion v = h.version();
    if (v.before(options_.minimum_compatible) || options_.version.before(v)) {
      throw ProtocolError(
          "received a request at version " + v.toString() + " before the handshake, outside " +
          options_.minimum_compatible.toString() + " to " + options_.version.toString());
    }
    completeHandshake(v);
    sink_.onVersionAdopted(v);
  }
  if (!handshakeDone()) {
    throw ProtocolError("received a " + std::string(h.isRequest() ? "request" : "response") +
                        " before the handshake");
  }
  if (h.version_id != version_id_.load()) {
    throw ProtocolError("frame version " + h.version().toString() +
                        " differs from the version agreed in the handshake, " +
                        version().toString());
  }
  if (frame.refused) return;  // answered when its header arrived
  if (h.isRequest()) {
    sink_.onRequest(std::move(frame), std::move(lease));
  } else {
    sink_.onResponse(std::move(frame));
  }
}

ReadLoop::Deadline ReadLoop::deadlineAfterRead() {
  if (closed_) return Deadline::kKeep;
  if (!decoder_.midFrame()) {
    if (!deadline_armed_) return Deadline::kKeep;
    deadline_armed_ = false;
    return Deadline::kCancel;
  }
  const uint64_t start = decoder_.position() - decoder_.bufferedBytes();
  if (deadline_armed_ && start == deadline_frame_start_) return Deadline::kKeep;
  deadline_armed_ = true;
  deadline_frame_start_ = start;
  return Deadline::kArm;
}

bool ReadLoop::deadlineExpired(uint64_t start) const {
  return !closed_ && deadline_armed_ && deadline_frame_start_ == start && decoder_.midFrame();
}

std::string ReadLoop::deadlineReason(std::chrono::milliseconds deadline) const {
  return "read deadline of " + std::to_string(deadline.count()) + "ms exceeded: received " +
         std::to_string(decoder_.bufferedBytes()) + " of " +
         std::to_string(decoder_.expectedFrameSize()) + " bytes of a frame";
}

std::string ReadLoop::closeReason(bool eof, const std::string& error, bool& warn) const {
  std::string reason = eof ? "the peer closed the connection" : "read failed: " + error;
  warn = decoder_.midFrame();
  if (warn) {
    reason += " in the middle of a frame (received " + std::to_string(decoder_.bufferedBytes()) +
              " of " + std::to_string(decoder_.expectedFrameSize()) + " bytes)";
  }
  return reason;
}

void ReadLoop::close() {
  closed_ = true;
  deadline_armed_ = false;
  frame_lease_.reset();
}

void ReadLoop::completeHandshake(TransportVersion agreed) {
  version_id_.store(agreed.id());
  handshake_done_ = true;
}

}  // namespace wirestream::transport::protocol
