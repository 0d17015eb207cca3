// WriteQueue: the frames a connection has yet to send, in order, and who
// sends them. Socket-free; the connection drives it:
//
// Example (runs: write_queue):
//   #include <sys/uio.h>
//   WriteQueue queue;
//   auto frame = std::make_shared<BytesStreamOutput>();
//   frame->writeVInt(300);                   // a whole frame, in practice
//   std::vector<iovec> gather;               // for writev()
//   std::optional<std::string> close_reason;  // set: close the connection
//   if (queue.push(frame)) {                 // this thread became the writer
//     for (;;) {                             // until next() hands back an empty batch
//       WriteQueue::Batch b = queue.next();  // up to 64 frames / 8 MiB
//       for (auto& f : b.frames) {
//         const BytesReference bytes = f->bytes();  // pieces() refers into it
//         for (std::span<const uint8_t> piece : bytes.pieces())
//           gather.push_back({const_cast<uint8_t*>(piece.data()), piece.size()});
//       }
//       if (b.frames.empty()) {
//         close_reason = b.close_reason;
//         break;
//       }
//     }
//   }
//
// Exactly one thread is the writer at a time: the one whose push() found no
// writer, until its next() returns no frames (which gives the role up in the
// same step, so a frame pushed meanwhile is never stranded). A batch's frames
// are the writer's until it asks for the next batch: they keep the bytes the
// iovec points at (pages and references) alive.
//
// queuedBytes() is what the queued frames and the writer's current batch
// hold: their pages (a 6-byte frame holds a whole page) and the ranges they
// reference; the connection stops reading past its cap (backpressure).
//
// Thread-safety: thread-safe.
#pragma once

#include <atomic>
#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "stream/bytes_stream_output.h"
#include "transport/thread_annotations.h"

namespace wirestream::transport::protocol {

class WriteQueue {
 public:
  // One batch takes at most this many frames / bytes, so a long queue neither
  // builds a huge iovec list nor delays the first frame's completion.
  static constexpr size_t kMaxFramesPerBatch = 64;
  static constexpr size_t kMaxBytesPerBatch = 8 * 1024 * 1024;

  struct Batch {
    std::vector<std::shared_ptr<BytesStreamOutput>> frames;
    // Set with an empty batch when closeAfterFlush() was asked: everything
    // queued before it is sent.
    std::optional<std::string> close_reason;
  };

  // Queues `frame`; true if the caller is now the writer and must drain.
  // After close() the frame is dropped (false).
  [[nodiscard]] bool push(std::shared_ptr<BytesStreamOutput> frame) WS_EXCLUDES(mu_);
  // For the writer: the next frames to send; none (and the writer role given
  // up) when the queue is empty.
  [[nodiscard]] Batch next() WS_EXCLUDES(mu_);
  // Once the frames queued so far are sent, the writer is told to close.
  void closeAfterFlush(std::string reason) WS_EXCLUDES(mu_);
  // Drops the queued frames and every later push.
  void close() WS_EXCLUDES(mu_);

  // Bytes held by the queued frames and the writer's current batch; any
  // thread (sequentially consistent: see TcpConnection's backpressure).
  size_t queuedBytes() const { return queued_bytes_.load(); }
  // What one frame holds while it waits: its pages and referenced ranges.
  static size_t heldBytes(const BytesStreamOutput& frame) {
    return frame.pageCount() * frame.pageSize() + frame.referencedBytes();
  }

 private:
  Mutex mu_;
  std::deque<std::shared_ptr<BytesStreamOutput>> queue_ WS_GUARDED_BY(mu_);
  bool writer_active_ WS_GUARDED_BY(mu_) = false;
  bool closed_ WS_GUARDED_BY(mu_) = false;
  std::optional<std::string> close_after_flush_ WS_GUARDED_BY(mu_);
  size_t batch_bytes_ WS_GUARDED_BY(mu_) = 0;  // held by the writer's current batch
  std::atomic<size_t> queued_bytes_{0};        // written under mu_
};

}  // namespace wirestream::transport::protocol
