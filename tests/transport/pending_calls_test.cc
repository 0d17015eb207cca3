// PendingCalls: every call taken exactly once, deadlines in order, and the
// one timer re-armed only for an earlier deadline.
#include "transport/protocol/pending_calls.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace wirestream::transport::protocol {
namespace {

using namespace std::chrono_literals;
using Clock = PendingCalls::Clock;
using Added = PendingCalls::Added;

PendingCall callOf(std::string action, std::chrono::milliseconds timeout) {
  PendingCall c;
  c.action = std::move(action);
  c.timeout = timeout;
  return c;
}

TEST(PendingCalls, TakeReturnsEachCallOnce) {
  PendingCalls calls;
  const Clock::time_point now{};
  PendingCall a = callOf("a", 0ms);
  EXPECT_EQ(calls.add(1, a, now), Added::kAdded);  // no deadline: no timer
  auto taken = calls.take(1);
  ASSERT_TRUE(taken);
  EXPECT_EQ(taken->action, "a");
  EXPECT_FALSE(calls.take(1));
  EXPECT_FALSE(calls.take(2));
  EXPECT_EQ(calls.size(), 0u);
}

TEST(PendingCalls, TheTimerIsArmedOnlyForAnEarlierDeadline) {
  PendingCalls calls;
  const Clock::time_point t0{};
  PendingCall c1 = callOf("1", 100ms), c2 = callOf("2", 100ms), c3 = callOf("3", 10ms);
  EXPECT_EQ(calls.add(1, c1, t0), Added::kArmTimer);
  EXPECT_EQ(calls.armedDeadline(), t0 + 100ms);
  // Same timeout, sent later: the armed timer fires first anyway.
  EXPECT_EQ(calls.add(2, c2, t0 + 5ms), Added::kAdded);
  // An earlier deadline re-arms.
  EXPECT_EQ(calls.add(3, c3, t0 + 5ms), Added::kArmTimer);
  EXPECT_EQ(calls.armedDeadline(), t0 + 15ms);
  // Answering keeps the armed deadline (the timer fires and finds nothing).
  ASSERT_TRUE(calls.take(3));
  EXPECT_EQ(calls.armedDeadline(), t0 + 15ms);
  auto expired = calls.takeExpired(t0 + 15ms);
  EXPECT_TRUE(expired.empty());
  EXPECT_EQ(calls.armedDeadline(), t0 + 100ms);
  expired = calls.takeExpired(t0 + 100ms);
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].first, 1);
  EXPECT_EQ(calls.armedDeadline(), t0 + 105ms);
  expired = calls.takeExpired(t0 + 200ms);
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].first, 2);
  EXPECT_FALSE(calls.armedDeadline());
  // Empty and unarmed: the next call with a deadline arms again.
  PendingCall c4 = callOf("4", 1ms);
  EXPECT_EQ(calls.add(4, c4, t0 + 300ms), Added::kArmTimer);
}

TEST(PendingCalls, ExpiredCallsComeInDeadlineOrder) {
  PendingCalls calls;
  const Clock::time_point t0{};
  for (int i = 0; i < 10; ++i) {
    PendingCall c = callOf(std::to_string(i), std::chrono::milliseconds(100 - i * 10));
    (void)calls.add(i, c, t0);
  }
  auto expired = calls.takeExpired(t0 + 55ms);
  ASSERT_EQ(expired.size(), 5u);  // deadlines 10, 20, 30, 40, 50
  for (size_t i = 0; i < expired.size(); ++i) EXPECT_EQ(expired[i].first, 9 - int64_t(i));
  EXPECT_EQ(calls.size(), 5u);
}

// A call's receive buffer is handed out only for a response that fits it;
// once claimed, the call no longer expires (the reads into the buffer end
// first) and is taken by take() or close().
TEST(PendingCalls, AClaimedReceiveBufferOutlivesTheCallsDeadline) {
  PendingCalls calls;
  const Clock::time_point t0{};
  std::vector<uint8_t> b1(100), b2(100);
  PendingCall c1 = callOf("1", 10ms), c2 = callOf("2", 10ms), c3 = callOf("3", 10ms);
  c1.receive_buffer = b1;
  c2.receive_buffer = b2;
  (void)calls.add(1, c1, t0);
  (void)calls.add(2, c2, t0);
  (void)calls.add(3, c3, t0);
  EXPECT_TRUE(calls.claimReceiveBuffer(1, 101).empty());  // too small: pages
  EXPECT_TRUE(calls.claimReceiveBuffer(3, 10).empty());   // none
  EXPECT_TRUE(calls.claimReceiveBuffer(9, 10).empty());   // unknown id
  const std::span<uint8_t> claimed = calls.claimReceiveBuffer(2, 100);
  EXPECT_EQ(claimed.data(), b2.data());
  EXPECT_EQ(claimed.size(), 100u);
  auto expired = calls.takeExpired(t0 + 1s);
  ASSERT_EQ(expired.size(), 2u);
  EXPECT_EQ(expired[0].first + expired[1].first, 1 + 3);
  EXPECT_FALSE(calls.armedDeadline());
  auto taken = calls.take(2);
  ASSERT_TRUE(taken);
  EXPECT_EQ(taken->receive_buffer.data(), b2.data());
  // Claimed, then the connection closes: close() takes it.
  PendingCall c4 = callOf("4", 10ms);
  c4.receive_buffer = b1;
  (void)calls.add(4, c4, t0);
  EXPECT_FALSE(calls.claimReceiveBuffer(4, 100).empty());
  EXPECT_TRUE(calls.takeExpired(t0 + 1s).empty());
  auto all = calls.close("bye");
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].first, 4);
}

TEST(PendingCalls, CloseTakesEverythingAndRefusesLaterCalls) {
  PendingCalls calls;
  PendingCall a = callOf("a", 10ms), b = callOf("b", 0ms);
  (void)calls.add(1, a, Clock::now());
  (void)calls.add(2, b, Clock::now());
  auto all = calls.close("gone");
  EXPECT_EQ(all.size(), 2u);
  EXPECT_EQ(calls.closeReason(), "gone");
  EXPECT_FALSE(calls.armedDeadline());
  PendingCall c = callOf("c", 10ms);
  EXPECT_EQ(calls.add(3, c, Clock::now()), Added::kClosed);
  EXPECT_EQ(c.action, "c");  // a refused call is left to the caller
  EXPECT_TRUE(calls.close("again").empty());
  EXPECT_EQ(calls.closeReason(), "gone");
}

// Concurrent adders, takers, expiry and close: each call is taken once.
TEST(PendingCalls, EachCallIsTakenOnceUnderConcurrency) {
  PendingCalls calls;
  constexpr int kCalls = 20000;
  std::atomic<int> taken{0};
  std::thread adder([&] {
    for (int i = 0; i < kCalls; ++i) {
      PendingCall c = callOf("x", std::chrono::milliseconds(i % 3));
      if (calls.add(i, c, Clock::now()) == Added::kClosed) ++taken;  // never added
    }
  });
  std::thread taker([&] {
    for (int i = 0; i < kCalls; ++i) {
      if (calls.take(i)) ++taken;
    }
  });
  std::thread expirer([&] {
    for (int i = 0; i < 200; ++i) taken += static_cast<int>(calls.takeExpired(Clock::now()).size());
  });
  adder.join();
  taker.join();
  expirer.join();
  taken += static_cast<int>(calls.close("end").size());
  EXPECT_EQ(taken.load(), kCalls);
}

}  // namespace
}  // namespace wirestream::transport::protocol
