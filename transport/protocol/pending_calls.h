// PendingCalls: the requests one connection sent and awaits answers to, with
// their deadlines. Socket-free; the connection drives it:
//
// Example (runs: pending_calls):
//   std::vector<std::string> failed;
//   auto fail = [&](PendingCall& c, const std::string& why) { failed.push_back(why); };
//   std::optional<PendingCalls::Clock::time_point> timer;  // the connection's one timer
//   PendingCalls::Clock::time_point now = PendingCalls::Clock::now();
//   PendingCalls calls;
//   PendingCall call{.action = "shard/search", .timeout = std::chrono::seconds(5)};
//   switch (calls.add(/*id=*/7, call, now)) {  // takes `call` unless kClosed
//     case PendingCalls::Added::kClosed: fail(call, calls.closeReason()); break;
//     case PendingCalls::Added::kArmTimer: timer = *calls.armedDeadline(); break;
//     case PendingCalls::Added::kAdded: break;
//   }
//   std::optional<PendingCall> c = calls.take(/*id=*/7);                  // answered
//   for (auto& [id, c] : calls.takeExpired(now)) fail(c, "timed out");   // timer fired
//   for (auto& [id, c] : calls.close("reason")) fail(c, "disconnected");  // closing
//
// One timer per connection, not one per call: the table remembers the
// deadline the timer is armed for and asks for a re-arm only when a call's
// deadline is earlier (so calls of one timeout, sent in order, never re-arm
// it: the timer fires at the oldest deadline, expires what is due, and is
// armed again for the next). A timer that fires early or late is harmless:
// takeExpired() takes exactly the calls whose deadline has passed.
//
// Every call is taken exactly once: by take(), takeExpired() or close().
// A call whose receive buffer was claimed is never taken by takeExpired().
// Thread-safety: thread-safe; callbacks of a PendingCall are never run here.
#pragma once

#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "stream/stream_input.h"
#include "transport/frame.h"
#include "transport/thread_annotations.h"

namespace wirestream::transport::protocol {

// Every member has an initializer: a designated initializer may name a few.
struct PendingCall {
  std::string action{};
  // Reads the response body; returns what to run once it is fully consumed.
  std::function<std::function<void()>(StreamInput&)> reader{};
  std::function<void(std::exception_ptr)> on_failure{};
  std::chrono::milliseconds timeout{0};  // zero: no deadline
  std::function<void(const ResponseHeaders&)> on_headers{};
  // The caller's buffer for the response's content (empty: none); see
  // claimReceiveBuffer.
  std::span<uint8_t> receive_buffer{};
};

class PendingCalls {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Added { kClosed, kAdded, kArmTimer };

  // Registers call `id` (ids are unique per connection). kClosed: the table
  // is closed and `call` was not taken (it is left as it was); kArmTimer:
  // the timer must be armed for armedDeadline().
  [[nodiscard]] Added add(int64_t id, PendingCall& call, Clock::time_point now) WS_EXCLUDES(mu_);

  // The call answered by a response to `id`, if still pending.
  [[nodiscard]] std::optional<PendingCall> take(int64_t id) WS_EXCLUDES(mu_);

  // The response to call `id` began to arrive and its content needs
  // `content_size` bytes: the call's receive buffer if it has one that
  // large, else an empty span. A call whose buffer is claimed has no
  // deadline any more (takeExpired() skips it): the reads into the buffer
  // must end before the call completes, so it is taken by take() once its
  // response is in, or by close().
  [[nodiscard]] std::span<uint8_t> claimReceiveBuffer(int64_t id, size_t content_size)
      WS_EXCLUDES(mu_);

  // The calls whose deadline is at or before `now`, in deadline order; the
  // timer is then armed for armedDeadline() if that is set.
  [[nodiscard]] std::vector<std::pair<int64_t, PendingCall>> takeExpired(Clock::time_point now)
      WS_EXCLUDES(mu_);

  // The earliest deadline of a pending call, as of the last add() or
  // takeExpired(); unset: the timer need not run.
  std::optional<Clock::time_point> armedDeadline() const WS_EXCLUDES(mu_);

  // Closes the table (later add() calls return kClosed) and returns every
  // pending call. The first reason is kept.
  [[nodiscard]] std::vector<std::pair<int64_t, PendingCall>> close(const std::string& reason)
      WS_EXCLUDES(mu_);
  std::string closeReason() const WS_EXCLUDES(mu_);
  size_t size() const WS_EXCLUDES(mu_);

 private:
  using Deadlines = std::multimap<Clock::time_point, int64_t>;
  struct Entry {
    PendingCall call;
    std::optional<Deadlines::iterator> deadline;
  };

  mutable Mutex mu_;
  std::unordered_map<int64_t, Entry> calls_ WS_GUARDED_BY(mu_);
  Deadlines deadlines_ WS_GUARDED_BY(mu_);
  std::optional<Clock::time_point> armed_ WS_GUARDED_BY(mu_);
  bool closed_ WS_GUARDED_BY(mu_) = false;
  std::string close_reason_ WS_GUARDED_BY(mu_);
};

}  // namespace wirestream::transport::protocol
