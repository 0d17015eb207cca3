// AcceptBackoff and LogRateLimiter: what keeps an accept loop that fails (the
// process is out of file descriptors, the kernel out of buffers) from
// spinning and from flooding the log.
//
// Example (runs: accept_backoff):
//   #include <vector>
//   AcceptBackoff backoff;                                // 10 ms, doubling, at most 1 s
//   std::chrono::milliseconds wait = backoff.nextDelay();  // accept failed: wait, then retry
//   backoff.reset();                                      // accept succeeded
//   std::vector<std::string> log;
//   LogRateLimiter limiter(std::chrono::seconds(1));
//   std::string line = "accept failed: Too many open files";
//   if (std::optional<uint64_t> suppressed = limiter.admit())
//     log.push_back(line + suppressedSuffix(*suppressed));
//
// An accept that fails with EMFILE leaves the connection in the listen
// backlog, so the socket stays readable and an immediate retry fails again at
// once; waiting lets other connections close and free descriptors.
//
// Thread-safety: AcceptBackoff is not thread-safe (one accept loop, one
// backoff). LogRateLimiter is thread-safe.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

namespace wirestream::transport {

class AcceptBackoff {
 public:
  static constexpr std::chrono::milliseconds kInitialDelay{10};
  static constexpr std::chrono::milliseconds kMaxDelay{1000};

  // The delay before the next attempt after one more failure: kInitialDelay
  // after the first, doubling after each further one, at most kMaxDelay.
  [[nodiscard]] std::chrono::milliseconds nextDelay() {
    std::chrono::milliseconds delay = next_;
    next_ = std::min(next_ * 2, kMaxDelay);
    return delay;
  }
  // After a successful accept: the next failure waits kInitialDelay again.
  void reset() { next_ = kInitialDelay; }

 private:
  std::chrono::milliseconds next_ = kInitialDelay;
};

class LogRateLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  explicit LogRateLimiter(Clock::duration interval) : interval_(interval) {}

  // A line may be logged at `now` if none was in the last interval: returns
  // how many were suppressed since the last logged one (and counts them from
  // zero again); std::nullopt if this one is suppressed (and counted).
  [[nodiscard]] std::optional<uint64_t> admit(Clock::time_point now = Clock::now());

  // For a summary line: the count suppressed since the last logged line, if
  // any were and that line is an interval old (the summary then counts as the
  // line logged at `now`); std::nullopt otherwise.
  [[nodiscard]] std::optional<uint64_t> takeOverdue(Clock::time_point now = Clock::now());
  // Whether lines were suppressed since the last logged one.
  bool hasSuppressed() const;

 private:
  const Clock::duration interval_;
  mutable std::mutex mu_;
  std::optional<Clock::time_point> last_;  // guarded by mu_
  uint64_t suppressed_ = 0;                // guarded by mu_
};

// "" for 0, else " (N similar lines suppressed)", to append to a logged line.
std::string suppressedSuffix(uint64_t suppressed);
// "N similar line(s) suppressed", the words of the suffix and of a summary.
std::string suppressedCount(uint64_t suppressed);

}  // namespace wirestream::transport
