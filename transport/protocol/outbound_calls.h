// OutboundCalls: the calling half of a connection without the socket: the
// calls it sent (PendingCalls), the response that completes each, and the
// typed failure of those that time out or are cut off by a close. The
// connection owns the timer and the writes and drives it:
//
// Example (compiled: outbound_calls):
//   auto log = [](bool warn, const std::string& line) {};
//   OutboundCalls calls("outbound 127.0.0.1:5 -> 127.0.0.1:9300", 1 << 20, log);
//   std::optional<PendingCalls::Clock::time_point> timer;  // the connection's one timer
//   PendingCall call{.action = "shard/search", .timeout = std::chrono::seconds(5)};
//   if (calls.submit(7, std::move(call)) == PendingCalls::Added::kArmTimer)
//     timer = *calls.pending().armedDeadline();  // then send the request's frame
//   DecodedFrame frame;                           // from the read loop
//   calls.onResponse(std::move(frame));           // a response arrived
//   calls.expire(PendingCalls::Clock::now());     // the timer fired: re-arm
//   calls.close("reason");                        // the connection closed
//
// Each call's failure callback gets a typed error (NodeDisconnectedError,
// ReceiveTimeoutError, the remote's error, a TransportError when the body
// was not read whole); a callback that throws is logged, never propagated.
// Thread-safety: submit() from any thread; the rest on the connection's strand.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <string>

#include "transport/frame_decoder.h"
#include "transport/protocol/pending_calls.h"

namespace wirestream::transport::protocol {

class OutboundCalls {
 public:
  // Receives a line to log: `warn` for a response callback that threw, else
  // debug (a response to no pending call).
  using Log = std::function<void(bool warn, const std::string& line)>;

  OutboundCalls(std::string description, size_t max_frame_size, Log log)
      : description_(std::move(description)),
        max_frame_size_(max_frame_size),
        log_(std::move(log)) {}

  // Registers the call (see PendingCalls::add); kClosed: it was failed here
  // with NodeDisconnectedError and its frame must not be sent.
  [[nodiscard]] PendingCalls::Added submit(int64_t id, PendingCall call);
  // Completes the call the response answers: reads the body through its
  // reader (or the remote error), then runs what the reader returned.
  void onResponse(DecodedFrame&& frame);
  // Fails the calls due at `now` with ReceiveTimeoutError.
  void expire(PendingCalls::Clock::time_point now);
  // Fails every call with NodeDisconnectedError naming `reason`.
  void close(const std::string& reason);

  PendingCalls& pending() { return pending_; }

 private:
  void fail(PendingCall& call, std::exception_ptr error);

  const std::string description_;
  const size_t max_frame_size_;
  const Log log_;
  PendingCalls pending_;
};

}  // namespace wirestream::transport::protocol
