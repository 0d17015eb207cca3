// AcceptBackoff and LogRateLimiter, on an injected clock.
#include "transport/accept_backoff.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace wirestream::transport {
namespace {

using namespace std::chrono_literals;

TEST(AcceptBackoff, DoublesFromTenMillisecondsToOneSecondAndResets) {
  AcceptBackoff b;
  std::vector<int64_t> got;
  for (int i = 0; i < 10; ++i) got.push_back(b.nextDelay().count());
  EXPECT_EQ(got, (std::vector<int64_t>{10, 20, 40, 80, 160, 320, 640, 1000, 1000, 1000}));
  b.reset();
  EXPECT_EQ(b.nextDelay(), 10ms);
  EXPECT_EQ(b.nextDelay(), 20ms);
}

// A failure loop paced by the backoff makes a bounded number of attempts:
// 3 s of failures is 10+20+...+640 ms (1270 ms, 7 attempts), then one a second.
TEST(AcceptBackoff, AttemptsInThreeSecondsAreBounded) {
  AcceptBackoff b;
  std::chrono::milliseconds elapsed{0};
  int attempts = 0;
  while (elapsed < 3s) {
    ++attempts;
    elapsed += b.nextDelay();
  }
  EXPECT_EQ(attempts, 9);
}

TEST(LogRateLimiter, OneLineAnIntervalWithTheCountSuppressed) {
  LogRateLimiter limiter(1s);
  const auto t0 = LogRateLimiter::Clock::time_point{} + 100s;
  EXPECT_EQ(limiter.admit(t0), 0u);  // the first line always goes out
  for (int i = 1; i <= 999; ++i) EXPECT_EQ(limiter.admit(t0 + i * 1ms), std::nullopt) << i;
  EXPECT_EQ(limiter.admit(t0 + 1000ms), 999u);
  EXPECT_EQ(limiter.admit(t0 + 1500ms), std::nullopt);
  EXPECT_EQ(limiter.admit(t0 + 5000ms), 1u);
  EXPECT_EQ(limiter.admit(t0 + 6000ms), 0u);
}

TEST(LogRateLimiter, ConcurrentCallersLoseNoCount) {
  LogRateLimiter limiter(1h);
  const auto t0 = LogRateLimiter::Clock::time_point{} + 1s;
  ASSERT_EQ(limiter.admit(t0), 0u);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) EXPECT_EQ(limiter.admit(t0 + 1ms), std::nullopt);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(limiter.admit(t0 + 2h), 4000u);
}

TEST(LogRateLimiter, SuppressedSuffix) {
  EXPECT_EQ(suppressedSuffix(0), "");
  EXPECT_EQ(suppressedSuffix(1), " (1 similar line suppressed)");
  EXPECT_EQ(suppressedSuffix(219454), " (219454 similar lines suppressed)");
}

}  // namespace
}  // namespace wirestream::transport
