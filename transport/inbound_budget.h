// InboundBudget: a node-wide bound on the bytes of inbound frames that are
// partially received or received and not yet answered, across every
// connection (the node-wide counterpart of Elasticsearch's in-flight requests
// circuit breaker). A connection reserves a frame's declared size as soon as
// its header is in, before buffering any of its body, and holds the Lease
// until the frame is answered, dropped, or the connection closes.
//
// Example (runs: inbound_budget):
//   size_t frame_size = 4096;
//   InboundBudget budget(/*limit=*/1 << 30);
//   InboundBudget::Lease lease = budget.tryAcquire(frame_size);
//   bool refuse = !lease;  // it would take the node past the limit
//   // the bytes go back when `lease` dies (or at lease.reset())
//
// Thread-safety: InboundBudget is thread-safe. A Lease is a move-only value
// for one owner; the budget must outlive its leases.
#pragma once

#include <atomic>
#include <cstddef>
#include <utility>

namespace wirestream::transport {

class InboundBudget {
 public:
  class Lease {
   public:
    Lease() = default;
    Lease(Lease&& o) noexcept
        : budget_(std::exchange(o.budget_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
    Lease& operator=(Lease&& o) noexcept {
      if (this != &o) {
        reset();
        budget_ = std::exchange(o.budget_, nullptr);
        bytes_ = std::exchange(o.bytes_, 0);
      }
      return *this;
    }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() { reset(); }

    // True if this lease holds a reservation (possibly of 0 bytes).
    explicit operator bool() const { return budget_ != nullptr; }
    size_t bytes() const { return bytes_; }
    // Gives the bytes back now; later calls do nothing.
    void reset() {
      if (budget_) std::exchange(budget_, nullptr)->release(std::exchange(bytes_, 0));
    }

   private:
    friend class InboundBudget;
    Lease(InboundBudget* budget, size_t bytes) : budget_(budget), bytes_(bytes) {}
    InboundBudget* budget_ = nullptr;
    size_t bytes_ = 0;
  };

  explicit InboundBudget(size_t limit) : limit_(limit) {}
  InboundBudget(const InboundBudget&) = delete;
  InboundBudget& operator=(const InboundBudget&) = delete;

  // A lease of `bytes` if used() + bytes stays within limit(); an empty Lease
  // (nothing reserved) otherwise.
  [[nodiscard]] Lease tryAcquire(size_t bytes);

  size_t used() const { return used_.load(std::memory_order_relaxed); }
  size_t limit() const { return limit_; }

 private:
  void release(size_t bytes) { used_.fetch_sub(bytes, std::memory_order_relaxed); }

  const size_t limit_;
  std::atomic<size_t> used_{0};
};

}  // namespace wirestream::transport
