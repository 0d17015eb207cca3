#include "transport/accept_backoff.h"

namespace wirestream::transport {

std::optional<uint64_t> LogRateLimiter::admit(Clock::time_point now) {
  std::lock_guard<std::mutex> lock(mu_);
  if (last_ && now - *last_ < interval_) {
    ++suppressed_;
    return std::nullopt;
  }
  last_ = now;
  uint64_t suppressed = suppressed_;
  suppressed_ = 0;
  return suppressed;
}

std::optional<uint64_t> LogRateLimiter::takeOverdue(Clock::time_point now) {
  std::lock_guard<std::mutex> lock(mu_);
  if (suppressed_ == 0 || (last_ && now - *last_ < interval_)) return std::nullopt;
  last_ = now;
  uint64_t suppressed = suppressed_;
  suppressed_ = 0;
  return suppressed;
}

bool LogRateLimiter::hasSuppressed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return suppressed_ > 0;
}

std::string suppressedCount(uint64_t suppressed) {
  return std::to_string(suppressed) + " similar line" + (suppressed == 1 ? "" : "s") +
         " suppressed";
}

std::string suppressedSuffix(uint64_t suppressed) {
  if (suppressed == 0) return "";
  return " (" + suppressedCount(suppressed) + ")";
}

}  // namespace wirestream::transport
