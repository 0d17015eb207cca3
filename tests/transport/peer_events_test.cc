// PeerEvents on an injected clock: counts, one line an interval per kind,
// and summaries that account for every line held back.
#include "transport/peer_events.h"

#include <gtest/gtest.h>

#include <string>

namespace wirestream::transport {
namespace {

using namespace std::chrono_literals;
using Clock = PeerEvents::Clock;

const Clock::time_point t0 = Clock::time_point{} + 100s;

TEST(PeerEvents, OneLineAnIntervalThenASummaryWithTheCountAndTheLast) {
  PeerEvents events(1s);
  std::string first = "closing connection [a]: garbage";
  EXPECT_TRUE(events.note(PeerEvent::kProtocolError, first, t0));
  EXPECT_EQ(first, "closing connection [a]: garbage");  // nothing held back before it
  EXPECT_FALSE(events.summaryOwed());
  for (int i = 1; i <= 999; ++i) {
    std::string line = "line " + std::to_string(i);
    EXPECT_FALSE(events.note(PeerEvent::kProtocolError, line, t0 + i * 1ms)) << i;
  }
  EXPECT_EQ(events.count(PeerEvent::kProtocolError), 1000u);
  EXPECT_TRUE(events.summaryOwed());
  // Not before the interval since the logged line has passed.
  EXPECT_TRUE(events.takeSummaries(t0 + 999ms).empty());
  EXPECT_TRUE(events.summaryOwed());
  std::vector<PeerEvents::Summary> s = events.takeSummaries(t0 + 1000ms);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].kind, PeerEvent::kProtocolError);
  EXPECT_EQ(s[0].line, "999 similar lines suppressed (protocol_errors), the last: line 999");
  EXPECT_FALSE(events.summaryOwed());
  EXPECT_TRUE(events.takeSummaries(t0 + 5s).empty());
  // The summary counts as the line of its interval.
  std::string held = "held";
  EXPECT_FALSE(events.note(PeerEvent::kProtocolError, held, t0 + 1500ms));
  std::string next = "next";
  EXPECT_TRUE(events.note(PeerEvent::kProtocolError, next, t0 + 2000ms));
  EXPECT_EQ(next, "next (1 similar line suppressed)");
  EXPECT_EQ(events.count(PeerEvent::kProtocolError), 1002u);
}

TEST(PeerEvents, KindsAreLimitedAndCountedApart) {
  PeerEvents events(1s);
  std::string a = "a", b = "b", c = "c";
  EXPECT_TRUE(events.note(PeerEvent::kTruncatedFrame, a, t0));
  EXPECT_TRUE(events.note(PeerEvent::kTlsHandshakeFailure, b, t0));
  EXPECT_FALSE(events.note(PeerEvent::kTruncatedFrame, c, t0 + 1ms));
  EXPECT_EQ(events.count(PeerEvent::kTruncatedFrame), 2u);
  EXPECT_EQ(events.count(PeerEvent::kTlsHandshakeFailure), 1u);
  EXPECT_EQ(events.count(PeerEvent::kProtocolError), 0u);
  std::vector<PeerEvents::Summary> s = events.takeSummaries(t0 + 2s);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].line, "1 similar line suppressed (truncated_frames), the last: c");
}

TEST(PeerEvents, EveryKindHasItsStatsName) {
  for (size_t i = 0; i < kPeerEventKinds; ++i) {
    EXPECT_NE(peerEventName(static_cast<PeerEvent>(i)), "unknown") << i;
  }
}

TEST(LogRateLimiter, TakeOverdueOnlyAfterTheIntervalAndOnlyWhatWasHeldBack) {
  LogRateLimiter limiter(1s);
  EXPECT_EQ(limiter.takeOverdue(t0), std::nullopt);  // nothing held back
  EXPECT_EQ(limiter.admit(t0), 0u);
  EXPECT_EQ(limiter.admit(t0 + 10ms), std::nullopt);
  EXPECT_TRUE(limiter.hasSuppressed());
  EXPECT_EQ(limiter.takeOverdue(t0 + 500ms), std::nullopt);
  EXPECT_EQ(limiter.takeOverdue(t0 + 1s), 1u);
  EXPECT_FALSE(limiter.hasSuppressed());
  EXPECT_EQ(limiter.admit(t0 + 1500ms), std::nullopt);  // the summary was at 1 s
}

}  // namespace
}  // namespace wirestream::transport
