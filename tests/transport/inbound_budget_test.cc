// InboundBudget: reservations within the limit, release exactly once, no
// overflow on hostile sizes, no lost update under contention.
#include "transport/inbound_budget.h"

#include <gtest/gtest.h>

#include <limits>
#include <thread>
#include <vector>

namespace wirestream::transport {
namespace {

TEST(InboundBudget, GrantsUpToTheLimitAndReleasesOnDestruction) {
  InboundBudget budget(1000);
  {
    InboundBudget::Lease a = budget.tryAcquire(600);
    ASSERT_TRUE(a);
    EXPECT_EQ(budget.used(), 600u);
    InboundBudget::Lease b = budget.tryAcquire(401);  // 1001 > 1000
    EXPECT_FALSE(b);
    EXPECT_EQ(budget.used(), 600u);
    InboundBudget::Lease c = budget.tryAcquire(400);  // exactly the limit
    ASSERT_TRUE(c);
    EXPECT_EQ(budget.used(), 1000u);
    EXPECT_FALSE(budget.tryAcquire(1));
    EXPECT_TRUE(budget.tryAcquire(0));  // nothing more: still fits
  }
  EXPECT_EQ(budget.used(), 0u);
}

TEST(InboundBudget, LeaseMovesAndReleasesOnce) {
  InboundBudget budget(100);
  InboundBudget::Lease a = budget.tryAcquire(70);
  InboundBudget::Lease b = std::move(a);
  EXPECT_FALSE(a);
  EXPECT_EQ(b.bytes(), 70u);
  a.reset();  // moved-from: nothing to give back
  EXPECT_EQ(budget.used(), 70u);
  InboundBudget::Lease c = budget.tryAcquire(30);
  c = std::move(b);  // c's 30 bytes go back, b's 70 move in
  EXPECT_EQ(budget.used(), 70u);
  c.reset();
  c.reset();
  EXPECT_EQ(budget.used(), 0u);
}

TEST(InboundBudget, HostileSizesNeverOverflow) {
  InboundBudget budget(1 << 20);
  InboundBudget::Lease a = budget.tryAcquire(1000);
  EXPECT_FALSE(budget.tryAcquire(std::numeric_limits<size_t>::max()));
  EXPECT_FALSE(budget.tryAcquire(std::numeric_limits<size_t>::max() - 500));
  EXPECT_FALSE(budget.tryAcquire((1 << 20) + 1));
  EXPECT_EQ(budget.used(), 1000u);
}

TEST(InboundBudget, ConcurrentReservationsNeverExceedTheLimit) {
  InboundBudget budget(10000);
  std::vector<std::thread> threads;
  std::atomic<size_t> over{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20000; ++i) {
        InboundBudget::Lease l = budget.tryAcquire(1 + i % 3000);
        if (budget.used() > budget.limit()) ++over;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(over.load(), 0u);
  EXPECT_EQ(budget.used(), 0u);
}

}  // namespace
}  // namespace wirestream::transport
