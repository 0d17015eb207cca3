#include "transport/peer_events.h"

namespace wirestream::transport {

std::string_view peerEventName(PeerEvent kind) {
  switch (kind) {
    case PeerEvent::kAcceptFailure:
      return "accept_failures";
    case PeerEvent::kRejectedConnection:
      return "rejected_connections";
    case PeerEvent::kHandshakeTimeout:
      return "handshake_timeouts";
    case PeerEvent::kRefusedHandshake:
      return "refused_handshakes";
    case PeerEvent::kTlsHandshakeFailure:
      return "tls_handshake_failures";
    case PeerEvent::kLinkFailure:
      return "link_failures";
    case PeerEvent::kProtocolError:
      return "protocol_errors";
    case PeerEvent::kTruncatedFrame:
      return "truncated_frames";
    case PeerEvent::kFrameTimeout:
      return "frame_timeouts";
    case PeerEvent::kRefusedFrame:
      return "refused_frames";
    case PeerEvent::kRefusedRequest:
      return "refused_requests";
    case PeerEvent::kStalledConnection:
      return "stalled_connections";
  }
  return "unknown";
}

PeerEvents::PeerEvents(Clock::duration interval) {
  for (std::unique_ptr<Kind>& k : kinds_) k = std::make_unique<Kind>(interval);
}

bool PeerEvents::note(PeerEvent k, std::string& line, Clock::time_point now) {
  Kind& state = kind(k);
  ++state.count;
  if (std::optional<uint64_t> suppressed = state.limiter.admit(now)) {
    line += suppressedSuffix(*suppressed);
    return true;
  }
  {
    std::lock_guard<std::mutex> lock(state.mu);
    state.last_suppressed = line;
  }
  summary_owed_ = true;
  return false;
}

uint64_t PeerEvents::count(PeerEvent k) const {
  return kinds_[static_cast<size_t>(k)]->count.load();
}

std::vector<PeerEvents::Summary> PeerEvents::takeSummaries(Clock::time_point now) {
  summary_owed_ = false;
  std::vector<Summary> summaries;
  for (size_t i = 0; i < kPeerEventKinds; ++i) {
    const auto k = static_cast<PeerEvent>(i);
    Kind& state = kind(k);
    std::string last;
    {
      std::lock_guard<std::mutex> lock(state.mu);
      last = state.last_suppressed;
    }
    std::optional<uint64_t> suppressed = state.limiter.takeOverdue(now);
    if (!suppressed) {
      // Still inside its interval with lines suppressed: owed later.
      if (state.limiter.hasSuppressed()) summary_owed_ = true;
      continue;
    }
    summaries.push_back({k, suppressedCount(*suppressed) + " (" + std::string(peerEventName(k)) +
                                "), the last: " + last});
  }
  return summaries;
}

}  // namespace wirestream::transport
