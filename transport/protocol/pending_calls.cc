#include "transport/protocol/pending_calls.h"

namespace wirestream::transport::protocol {

PendingCalls::Added PendingCalls::add(int64_t id, PendingCall& call, Clock::time_point now) {
  MutexLock lock(mu_);
  if (closed_) return Added::kClosed;
  Entry entry{std::move(call), std::nullopt};
  bool arm = false;
  if (entry.call.timeout.count() > 0) {
    const Clock::time_point deadline = now + entry.call.timeout;
    entry.deadline = deadlines_.emplace(deadline, id);
    if (!armed_ || deadline < *armed_) {
      armed_ = deadline;
      arm = true;
    }
  }
  calls_.emplace(id, std::move(entry));
  return arm ? Added::kArmTimer : Added::kAdded;
}

std::optional<PendingCall> PendingCalls::take(int64_t id) {
  MutexLock lock(mu_);
  auto it = calls_.find(id);
  if (it == calls_.end()) return std::nullopt;
  if (it->second.deadline) deadlines_.erase(*it->second.deadline);
  std::optional<PendingCall> call(std::move(it->second.call));
  calls_.erase(it);
  // armed_ stays: the timer fires once at it and finds nothing due, which
  // costs less than re-arming it at every answer.
  return call;
}

std::span<uint8_t> PendingCalls::claimReceiveBuffer(int64_t id, size_t content_size) {
  MutexLock lock(mu_);
  auto it = calls_.find(id);
  if (it == calls_.end()) return {};
  Entry& entry = it->second;
  const std::span<uint8_t> buffer = entry.call.receive_buffer;
  if (buffer.empty() || buffer.size() < content_size) return {};
  if (entry.deadline) {
    deadlines_.erase(*entry.deadline);
    entry.deadline.reset();
  }
  return buffer;
}

std::vector<std::pair<int64_t, PendingCall>> PendingCalls::takeExpired(Clock::time_point now) {
  std::vector<std::pair<int64_t, PendingCall>> expired;
  MutexLock lock(mu_);
  while (!deadlines_.empty() && deadlines_.begin()->first <= now) {
    const int64_t id = deadlines_.begin()->second;
    deadlines_.erase(deadlines_.begin());
    auto it = calls_.find(id);
    expired.emplace_back(id, std::move(it->second.call));
    calls_.erase(it);
  }
  if (deadlines_.empty()) {
    armed_.reset();
  } else {
    armed_ = deadlines_.begin()->first;
  }
  return expired;
}

std::optional<PendingCalls::Clock::time_point> PendingCalls::armedDeadline() const {
  MutexLock lock(mu_);
  return armed_;
}

std::vector<std::pair<int64_t, PendingCall>> PendingCalls::close(const std::string& reason) {
  std::vector<std::pair<int64_t, PendingCall>> all;
  MutexLock lock(mu_);
  if (!closed_) close_reason_ = reason;
  closed_ = true;
  all.reserve(calls_.size());
  for (auto& [id, entry] : calls_) all.emplace_back(id, std::move(entry.call));
  calls_.clear();
  deadlines_.clear();
  armed_.reset();
  return all;
}

std::string PendingCalls::closeReason() const {
  MutexLock lock(mu_);
  return close_reason_;
}

size_t PendingCalls::size() const {
  MutexLock lock(mu_);
  return calls_.size();
}

}  // namespace wirestream::transport::protocol
