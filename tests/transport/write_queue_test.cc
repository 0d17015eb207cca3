// WriteQueue: one writer at a time, frames in order, batches bounded, and
// close-after-flush only once the queue is drained.
#include "transport/protocol/write_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace wirestream::transport::protocol {
namespace {

std::shared_ptr<BytesStreamOutput> frameOf(size_t n, uint8_t tag) {
  auto f = std::make_shared<BytesStreamOutput>();
  for (size_t i = 0; i < n; ++i) f->writeByte(tag);
  return f;
}

TEST(WriteQueue, TheFirstPusherWritesUntilANextComesBackEmpty) {
  WriteQueue q;
  EXPECT_TRUE(q.push(frameOf(1, 1)));
  EXPECT_FALSE(q.push(frameOf(1, 2)));  // a writer is active
  WriteQueue::Batch b = q.next();
  ASSERT_EQ(b.frames.size(), 2u);
  EXPECT_EQ(b.frames[0]->bytes()[0], 1);
  EXPECT_EQ(b.frames[1]->bytes()[0], 2);
  EXPECT_FALSE(q.push(frameOf(1, 3)));  // still the writer's
  b = q.next();
  ASSERT_EQ(b.frames.size(), 1u);
  b = q.next();
  EXPECT_TRUE(b.frames.empty());
  EXPECT_FALSE(b.close_reason);
  EXPECT_TRUE(q.push(frameOf(1, 4)));  // the role was given up
}

TEST(WriteQueue, BatchesAreBounded) {
  WriteQueue q;
  (void)q.push(frameOf(1, 0));
  for (size_t i = 1; i < WriteQueue::kMaxFramesPerBatch + 10; ++i) (void)q.push(frameOf(1, 0));
  EXPECT_EQ(q.next().frames.size(), WriteQueue::kMaxFramesPerBatch);
  EXPECT_EQ(q.next().frames.size(), 10u);

  WriteQueue big;
  (void)big.push(frameOf(WriteQueue::kMaxBytesPerBatch - 1, 0));
  (void)big.push(frameOf(2, 0));
  (void)big.push(frameOf(2, 0));
  // The batch stops once it reached the byte bound: the second frame is the last.
  EXPECT_EQ(big.next().frames.size(), 2u);
  EXPECT_EQ(big.next().frames.size(), 1u);
}

TEST(WriteQueue, CloseAfterFlushComesWithTheEmptyBatch) {
  WriteQueue q;
  (void)q.push(frameOf(1, 0));
  q.closeAfterFlush("refused");
  WriteQueue::Batch b = q.next();
  EXPECT_EQ(b.frames.size(), 1u);
  EXPECT_FALSE(b.close_reason);
  b = q.next();
  EXPECT_TRUE(b.frames.empty());
  ASSERT_TRUE(b.close_reason);
  EXPECT_EQ(*b.close_reason, "refused");
}

TEST(WriteQueue, CloseDropsQueuedFramesAndLaterPushes) {
  WriteQueue q;
  auto frame = frameOf(1, 0);
  std::weak_ptr<BytesStreamOutput> weak = frame;
  (void)q.push(std::move(frame));
  q.close();
  EXPECT_TRUE(weak.expired());
  EXPECT_FALSE(q.push(frameOf(1, 0)));
  EXPECT_TRUE(q.next().frames.empty());
}

// Many pushers, one writer at a time: every frame is sent once, each
// pusher's frames in its order.
TEST(WriteQueue, ConcurrentPushersLoseNoFrame) {
  WriteQueue q;
  constexpr int kThreads = 4;
  constexpr int kFrames = 5000;
  std::atomic<int> writers{0};
  std::atomic<bool> overlap{false};
  std::vector<std::vector<int>> seen(kThreads);
  std::mutex seen_mu;
  // Between a non-empty next() and the following next() the role is held.
  auto drain = [&] {
    while (true) {
      WriteQueue::Batch b = q.next();
      if (b.frames.empty()) break;
      if (writers.fetch_add(1) != 0) overlap = true;
      {
        std::lock_guard<std::mutex> lock(seen_mu);
        for (auto& f : b.frames) {
          const BytesReference bytes = f->bytes();
          seen[bytes[0]].push_back(bytes[1] | (bytes[2] << 8));
        }
      }
      writers.fetch_sub(1);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kFrames; ++i) {
        auto f = std::make_shared<BytesStreamOutput>();
        f->writeByte(static_cast<uint8_t>(t));
        f->writeByte(static_cast<uint8_t>(i & 0xff));
        f->writeByte(static_cast<uint8_t>(i >> 8));
        if (q.push(std::move(f))) drain();
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_FALSE(overlap.load());
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(seen[t].size(), static_cast<size_t>(kFrames));
    for (int i = 0; i < kFrames; ++i) EXPECT_EQ(seen[t][i], i);
  }
}

}  // namespace
}  // namespace wirestream::transport::protocol
