#include "transport/protocol/write_queue.h"

#include <utility>

namespace wirestream::transport::protocol {

bool WriteQueue::push(std::shared_ptr<BytesStreamOutput> frame) {
  MutexLock lock(mu_);
  if (closed_) return false;
  queued_bytes_ += heldBytes(*frame);
  queue_.push_back(std::move(frame));
  if (writer_active_) return false;
  writer_active_ = true;
  return true;
}

WriteQueue::Batch WriteQueue::next() {
  Batch batch;
  MutexLock lock(mu_);
  // The previous batch is sent: what it held goes.
  queued_bytes_ -= batch_bytes_;
  batch_bytes_ = 0;
  if (queue_.empty()) {
    writer_active_ = false;
    batch.close_reason = close_after_flush_;
    return batch;
  }
  size_t bytes = 0;
  while (!queue_.empty() && batch.frames.size() < kMaxFramesPerBatch && bytes < kMaxBytesPerBatch) {
    bytes += queue_.front()->size();
    batch_bytes_ += heldBytes(*queue_.front());
    batch.frames.push_back(std::move(queue_.front()));
    queue_.pop_front();
  }
  return batch;
}

void WriteQueue::closeAfterFlush(std::string reason) {
  MutexLock lock(mu_);
  close_after_flush_ = std::move(reason);
}

void WriteQueue::close() {
  std::deque<std::shared_ptr<BytesStreamOutput>> dropped;
  MutexLock lock(mu_);
  closed_ = true;
  dropped.swap(queue_);
  queued_bytes_ = 0;
  batch_bytes_ = 0;
  // The frames (and any references they hold) go when `dropped` does, after
  // the lock is released (declared first, destroyed last).
}

}  // namespace wirestream::transport::protocol
