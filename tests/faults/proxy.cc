#include "tests/faults/proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <list>
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

namespace wirestream::faults {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kReadSize = 64 * 1024;
constexpr size_t kQueueCap = 4 * 1024 * 1024;  // per direction: stop reading past it
constexpr auto kIdleResetAfter = std::chrono::milliseconds(200);

sockaddr_in addressOf(const std::string& host, uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  if (::inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1) {
    throw std::runtime_error("fault proxy: not an IPv4 address: " + host);
  }
  return a;
}

// Closes with SO_LINGER 0: the peer gets a RST, not a FIN.
void closeWithReset(int fd) {
  if (fd < 0) return;
  linger l{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
  ::close(fd);
}

uint16_t localPort(int fd) {
  sockaddr_in a{};
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  return ntohs(a.sin_port);
}

struct Chunk {
  Clock::time_point release;
  std::vector<uint8_t> data;
  size_t offset = 0;
};

struct Direction {
  std::deque<Chunk> queue;
  size_t queued = 0;
  bool eof = false;   // the source sent FIN
  bool shut = false;  // FIN passed on to the destination
  Clock::time_point last_release{};
};

struct Pair {
  uint64_t id = 0;
  int client = -1;
  int upstream = -1;
  bool connecting = true;
  Direction to_upstream;  // client -> upstream
  Direction to_client;    // upstream -> client
  bool reset_armed = false;
  Clock::time_point reset_deadline{};
  bool done = false;
};

}  // namespace

class FaultProxy::Impl {
 public:
  Impl(std::string listen_host, uint16_t listen_port, std::string upstream_host,
       uint16_t upstream_port)
      : listen_addr_(addressOf(listen_host, listen_port)),
        upstream_addr_(addressOf(upstream_host, upstream_port)),
        rng_(std::random_device{}()) {}

  ~Impl() { stop(); }

  uint16_t start() {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(listen_fd_, reinterpret_cast<const sockaddr*>(&listen_addr_), sizeof listen_addr_) !=
            0 ||
        ::listen(listen_fd_, 128) != 0) {
      std::string err = std::strerror(errno);
      ::close(listen_fd_);
      listen_fd_ = -1;
      throw std::runtime_error("fault proxy: cannot listen: " + err);
    }
    port_ = localPort(listen_fd_);
    wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    thread_ = std::thread([this] { loop(); });
    return port_;
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!thread_.joinable()) return;
      stopping_ = true;
    }
    wake();
    thread_.join();
    for (Pair& p : pairs_) {
      if (p.client >= 0) ::close(p.client);
      if (p.upstream >= 0) ::close(p.upstream);
    }
    pairs_.clear();
    for (int f : fillers_) ::close(f);
    fillers_.clear();
    ::close(listen_fd_);
    ::close(wake_fd_);
    listen_fd_ = wake_fd_ = -1;
  }

  std::string command(const std::string& line) {
    std::istringstream in(line);
    std::string verb;
    in >> verb;
    std::lock_guard<std::mutex> lock(mu_);
    if (verb == "pass") {
      delay_ = false;
      blackhole_ = false;
      if (dropsyn_) acceptAgain();
    } else if (verb == "delay") {
      long mean = -1, jitter = -1;
      in >> mean >> jitter;
      if (!in || mean < 0 || jitter < 0 || jitter > mean) {
        return "error: delay MEAN JITTER (ms, 0 <= JITTER <= MEAN)";
      }
      delay_ = true;
      delay_mean_ = mean;
      delay_jitter_ = jitter;
    } else if (verb == "blackhole") {
      blackhole_ = true;
    } else if (verb == "resume") {
      blackhole_ = false;
    } else if (verb == "reset") {
      const auto deadline = Clock::now() + kIdleResetAfter;
      for (Pair& p : pairs_) {
        if (p.done || p.reset_armed) continue;
        p.reset_armed = true;
        p.reset_deadline = deadline;
      }
    } else if (verb == "dropsyn") {
      if (!dropsyn_) dropSyns();
    } else if (verb == "accept") {
      if (dropsyn_) acceptAgain();
    } else if (verb == "stats") {
      std::ostringstream out;
      out << "accepted=" << counters_.accepted << " bytes=" << counters_.bytes_forwarded
          << " resets=" << counters_.resets << " cut=" << counters_.cut
          << " open=" << counters_.open;
      return out.str();
    } else {
      return "error: unknown command [" + line + "]";
    }
    wakeLocked();
    return "ok";
  }

  ProxyCounters counters() const {
    std::lock_guard<std::mutex> lock(mu_);
    return counters_;
  }

 private:
  void wake() {
    std::lock_guard<std::mutex> lock(mu_);
    wakeLocked();
  }
  void wakeLocked() {
    uint64_t one = 1;
    if (wake_fd_ >= 0) (void)!::write(wake_fd_, &one, sizeof one);
  }

  // Backlog 0 and one connection of our own in the queue: the kernel drops
  // every further SYN while the accept queue is full.
  void dropSyns() {
    dropsyn_ = true;
    ::listen(listen_fd_, 0);
    sockaddr_in target = listen_addr_;
    if (target.sin_addr.s_addr == htonl(INADDR_ANY))
      target.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    target.sin_port = htons(port_);
    for (int i = 0; i < 2; ++i) {
      int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
      (void)::connect(fd, reinterpret_cast<const sockaddr*>(&target), sizeof target);
      filler_ports_.push_back(localPort(fd));
      fillers_.push_back(fd);
    }
  }

  void acceptAgain() {
    dropsyn_ = false;
    ::listen(listen_fd_, 128);
    for (int f : fillers_) closeWithReset(f);
    fillers_.clear();
    // filler_ports_ stay until their queued connections are accepted and closed.
  }

  Clock::time_point releaseTime(Direction& d, Clock::time_point now) {
    Clock::time_point t = now;
    if (delay_) {
      std::uniform_int_distribution<long> dist(delay_mean_ - delay_jitter_,
                                               delay_mean_ + delay_jitter_);
      t += std::chrono::milliseconds(dist(rng_));
    }
    t = std::max(t, d.last_release);  // never before the chunk read before it
    d.last_release = t;
    return t;
  }

  void resetPair(Pair& p) {
    closeWithReset(p.client);
    closeWithReset(p.upstream);
    p.client = p.upstream = -1;
    p.done = true;
    ++counters_.resets;
  }

  void acceptAll() {
    while (true) {
      sockaddr_in peer{};
      socklen_t len = sizeof peer;
      int fd = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&peer), &len,
                         SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;
      auto filler = std::find(filler_ports_.begin(), filler_ports_.end(), ntohs(peer.sin_port));
      if (filler != filler_ports_.end()) {  // our own backlog filler
        filler_ports_.erase(filler);
        ::close(fd);
        continue;
      }
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      Pair p;
      p.id = next_id_++;
      p.client = fd;
      p.upstream = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
      ::setsockopt(p.upstream, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      int rc = ::connect(p.upstream, reinterpret_cast<const sockaddr*>(&upstream_addr_),
                         sizeof upstream_addr_);
      ++counters_.accepted;
      if (rc != 0 && errno != EINPROGRESS) {
        resetPair(p);
        continue;
      }
      p.connecting = rc != 0;
      pairs_.push_back(std::move(p));
    }
  }

  // Reads what the source has into the direction's queue; false: the pair was reset.
  bool readInto(Pair& p, int from, Direction& d, Clock::time_point now) {
    while (d.queued < kQueueCap && !d.eof) {
      std::vector<uint8_t> buf(kReadSize);
      ssize_t n = ::recv(from, buf.data(), buf.size(), 0);
      if (n > 0) {
        buf.resize(static_cast<size_t>(n));
        d.queued += buf.size();
        d.queue.push_back({releaseTime(d, now), std::move(buf), 0});
      } else if (n == 0) {
        d.eof = true;
      } else if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        return true;
      } else {
        resetPair(p);
        return false;
      }
    }
    return true;
  }

  // Writes the chunks that are due; false: the pair was reset.
  bool writeFrom(Pair& p, int to, Direction& d, Clock::time_point now, bool toward_client) {
    while (!d.queue.empty() && d.queue.front().release <= now) {
      Chunk& c = d.queue.front();
      size_t want = c.data.size() - c.offset;
      const bool cut = toward_client && p.reset_armed;
      if (cut) want = std::max<size_t>(1, want / 2);
      ssize_t n = ::send(to, c.data.data() + c.offset, want, MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return true;
        resetPair(p);
        return false;
      }
      counters_.bytes_forwarded += static_cast<uint64_t>(n);
      if (cut) {  // half of a chunk out, then RST both ways
        ++counters_.cut;
        resetPair(p);
        return false;
      }
      c.offset += static_cast<size_t>(n);
      if (c.offset < c.data.size()) return true;
      d.queued -= c.data.size();
      d.queue.pop_front();
    }
    if (d.eof && d.queue.empty() && !d.shut) {
      ::shutdown(to, SHUT_WR);
      d.shut = true;
    }
    return true;
  }

  void loop() {
    std::unique_lock<std::mutex> lock(mu_);
    std::vector<pollfd> fds;
    std::vector<std::pair<size_t, int>> owners;  // pollfd index -> (pair index, which)
    while (!stopping_) {
      const auto now = Clock::now();
      fds.clear();
      fds.push_back({wake_fd_, POLLIN, 0});
      fds.push_back({listen_fd_, static_cast<short>(dropsyn_ ? 0 : POLLIN), 0});
      auto next = now + std::chrono::milliseconds(100);
      std::vector<Pair*> live;
      for (Pair& p : pairs_) {
        if (p.done) continue;
        live.push_back(&p);
        short cev = 0, uev = 0;
        if (p.connecting) {
          uev = POLLOUT;
        } else if (!blackhole_) {
          auto want = [&](Direction& d, short& src, short& dst) {
            if (!d.eof && d.queued < kQueueCap) src |= POLLIN;
            if (!d.queue.empty()) {
              if (d.queue.front().release <= now) {
                dst |= POLLOUT;
              } else {
                next = std::min(next, d.queue.front().release);
              }
            }
          };
          want(p.to_upstream, cev, uev);
          want(p.to_client, uev, cev);
        }
        if (p.reset_armed) next = std::min(next, p.reset_deadline);
        fds.push_back({p.client, cev, 0});
        fds.push_back({p.upstream, uev, 0});
      }
      const int timeout_ms = static_cast<int>(std::max<int64_t>(
          1, std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count() + 1));
      lock.unlock();
      ::poll(fds.data(), fds.size(), timeout_ms);
      lock.lock();
      if (stopping_) break;
      if (fds[0].revents & POLLIN) {
        uint64_t v;
        (void)!::read(wake_fd_, &v, sizeof v);
      }
      const auto t = Clock::now();
      for (size_t i = 0; i < live.size(); ++i) {
        Pair& p = *live[i];
        if (p.done) continue;  // a command reset it meanwhile
        const short crev = fds[2 + 2 * i].revents;
        const short urev = fds[3 + 2 * i].revents;
        if (p.connecting) {
          if (urev == 0 && !(crev & (POLLERR | POLLHUP))) continue;
          int err = 0;
          socklen_t len = sizeof err;
          ::getsockopt(p.upstream, SOL_SOCKET, SO_ERROR, &err, &len);
          if (err != 0 || (crev & (POLLERR | POLLHUP))) {
            resetPair(p);
            continue;
          }
          p.connecting = false;
          continue;
        }
        if (p.reset_armed && t >= p.reset_deadline) {
          resetPair(p);
          continue;
        }
        if (blackhole_) continue;
        if ((crev & (POLLIN | POLLHUP | POLLERR)) && !readInto(p, p.client, p.to_upstream, t)) {
          continue;
        }
        if ((urev & (POLLIN | POLLHUP | POLLERR)) && !readInto(p, p.upstream, p.to_client, t)) {
          continue;
        }
        if (!writeFrom(p, p.upstream, p.to_upstream, t, false)) continue;
        if (!writeFrom(p, p.client, p.to_client, t, true)) continue;
        if (p.to_upstream.shut && p.to_client.shut) {
          ::close(p.client);
          ::close(p.upstream);
          p.client = p.upstream = -1;
          p.done = true;
        }
      }
      pairs_.remove_if([](const Pair& p) { return p.done; });
      if (!dropsyn_ && (fds[1].revents & POLLIN)) acceptAll();
      counters_.open = pairs_.size();
    }
  }

  const sockaddr_in listen_addr_;
  const sockaddr_in upstream_addr_;
  mutable std::mutex mu_;
  std::thread thread_;
  int listen_fd_ = -1;
  int wake_fd_ = -1;
  uint16_t port_ = 0;
  bool stopping_ = false;
  bool delay_ = false;
  long delay_mean_ = 0;
  long delay_jitter_ = 0;
  bool blackhole_ = false;
  bool dropsyn_ = false;
  std::vector<int> fillers_;
  std::vector<uint16_t> filler_ports_;
  std::list<Pair> pairs_;
  uint64_t next_id_ = 0;
  std::mt19937_64 rng_;
  ProxyCounters counters_;
};

FaultProxy::FaultProxy(std::string listen_host, uint16_t listen_port, std::string upstream_host,
                       uint16_t upstream_port)
    : impl_(std::make_unique<Impl>(std::move(listen_host), listen_port, std::move(upstream_host),
                                   upstream_port)) {}
FaultProxy::~FaultProxy() = default;
uint16_t FaultProxy::start() { return impl_->start(); }
void FaultProxy::stop() { impl_->stop(); }
std::string FaultProxy::command(const std::string& line) { return impl_->command(line); }
ProxyCounters FaultProxy::counters() const { return impl_->counters(); }

}  // namespace wirestream::faults
