#include "transport/inbound_budget.h"

namespace wirestream::transport {

InboundBudget::Lease InboundBudget::tryAcquire(size_t bytes) {
  size_t used = used_.load(std::memory_order_relaxed);
  do {
    // Written so that no sum can overflow, whatever a peer declares.
    if (bytes > limit_ || used > limit_ - bytes) return Lease();
  } while (!used_.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
  return Lease(this, bytes);
}

}  // namespace wirestream::transport
