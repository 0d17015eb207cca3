// PageRecycler: the pool keeps at most its retained cap after a burst and
// frees (and counts) the rest; pages are reused before new ones are taken.
#include "stream/page_recycler.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace wirestream {
namespace {

TEST(PageRecycler, BurstFallsBackUnderTheRetainedCap) {
  PageRecycler recycler(/*page_size=*/1024, /*budget_bytes=*/64 * 1024);
  EXPECT_EQ(recycler.retainedCapBytes(), 64u * 1024);
  std::vector<uint8_t*> pages;
  for (int i = 0; i < 1000; ++i) pages.push_back(recycler.obtain());
  EXPECT_EQ(recycler.outstandingPages(), 1000u);
  EXPECT_EQ(recycler.retainedBytes(), 0u);
  for (uint8_t* p : pages) recycler.release(p);
  EXPECT_EQ(recycler.outstandingPages(), 0u);
  EXPECT_EQ(recycler.pooledPages(), 64u);
  EXPECT_EQ(recycler.retainedBytes(), 64u * 1024);
  EXPECT_EQ(recycler.freedPages(), 1000u - 64);
  // The pool serves the next burst first.
  pages.clear();
  for (int i = 0; i < 64; ++i) pages.push_back(recycler.obtain());
  EXPECT_EQ(recycler.pooledPages(), 0u);
  for (uint8_t* p : pages) recycler.release(p);
  EXPECT_EQ(recycler.freedPages(), 1000u - 64);
}

// Enough freed past the cap to trigger the allocator trims several times.
TEST(PageRecycler, LargeBurstsAcrossThreadsStayBounded) {
  PageRecycler recycler(PageRecycler::kPageSize, 1 << 20);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int round = 0; round < 3; ++round) {
        std::vector<uint8_t*> pages;
        for (int i = 0; i < 1024; ++i) pages.push_back(recycler.obtain());  // 16 MiB
        for (uint8_t* p : pages) recycler.release(p);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(recycler.outstandingPages(), 0u);
  EXPECT_LE(recycler.retainedBytes(), recycler.retainedCapBytes());
  EXPECT_EQ(recycler.pooledPages(), 64u);
  EXPECT_GE(recycler.freedPages(), 3u * 1024);
}

}  // namespace
}  // namespace wirestream
