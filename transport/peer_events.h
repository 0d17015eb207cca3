// PeerEvents: what other nodes make this node log, counted and rate-limited
// per kind. A peer that repeats a failure (connect and reset, garbage first
// bytes, a refused TLS handshake) a thousand times a second costs one log
// line a second per kind, a summary line with the count of the rest, and a
// counter a user reads in TransportStats.
//
// Example (runs: peer_events):
//   std::vector<std::string> warnings;
//   auto warn = [&](const std::string& line) { warnings.push_back(line); };
//   PeerEvents events;
//   std::string line = "closing connection [..]: ...";
//   if (events.note(PeerEvent::kProtocolError, line)) warn(line);  // else log it at debug
//   // about once an interval while note() has returned false:
//   for (const PeerEvents::Summary& s : events.takeSummaries()) warn(s.line);
//
// Thread-safe.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "transport/accept_backoff.h"

namespace wirestream::transport {

// Each is one TransportStats counter (docs/transport.md, "Counters").
enum class PeerEvent : uint8_t {
  kAcceptFailure,        // accept() failed (descriptors, kernel memory)
  kRejectedConnection,   // max_inbound_connections reached
  kHandshakeTimeout,     // no handshake within handshake_timeout
  kRefusedHandshake,     // a handshake refused (an incompatible version)
  kTlsHandshakeFailure,  // a TLS handshake failed (a bad certificate, plaintext)
  kLinkFailure,          // a socket or TLS session failed after it was up
  kProtocolError,        // bytes that are not ES transport, or break its rules
  kTruncatedFrame,       // the peer closed or reset in the middle of a frame
  kFrameTimeout,         // a frame not completed within read_deadline
  kRefusedFrame,         // a frame refused: node_inbound_budget
  kRefusedRequest,       // a request refused: in-flight breaker, max_requests_in_flight
  kStalledConnection,    // answers not read for outbound_stall_timeout
};
inline constexpr size_t kPeerEventKinds = static_cast<size_t>(PeerEvent::kStalledConnection) + 1;

// "protocol_error" style: the kind's TransportStats field.
std::string_view peerEventName(PeerEvent kind);

class PeerEvents {
 public:
  using Clock = LogRateLimiter::Clock;

  explicit PeerEvents(Clock::duration interval = std::chrono::seconds(1));

  // Counts one event of `kind`. True: log `line` (a count of the lines
  // suppressed before it is appended); false: the kind logged a line less
  // than an interval ago, so log it only at debug level.
  [[nodiscard]] bool note(PeerEvent kind, std::string& line, Clock::time_point now = Clock::now());

  uint64_t count(PeerEvent kind) const;

  // Whether a summary is owed: note() returned false since the last
  // takeSummaries(). The caller schedules takeSummaries() an interval later.
  bool summaryOwed() const { return summary_owed_.load(); }

  struct Summary {
    PeerEvent kind;
    std::string line;  // "N similar lines suppressed (protocol_error), the last: ..."
  };
  // For each kind that suppressed lines and logged none for an interval:
  // one line with their count and the last of them (and counts from zero
  // again). Kinds still inside their interval stay owed.
  [[nodiscard]] std::vector<Summary> takeSummaries(Clock::time_point now = Clock::now());

 private:
  struct Kind {
    LogRateLimiter limiter;
    std::atomic<uint64_t> count{0};
    std::mutex mu;
    std::string last_suppressed;  // guarded by mu
    explicit Kind(Clock::duration interval) : limiter(interval) {}
  };
  Kind& kind(PeerEvent k) { return *kinds_[static_cast<size_t>(k)]; }

  std::array<std::unique_ptr<Kind>, kPeerEventKinds> kinds_;
  std::atomic<bool> summary_owed_{false};
};

}  // namespace wirestream::transport
