// Transport throughput and small-message RPC over loopback: TransportService
// against a raw socket moving the same frame bytes.
//
//   bazel run -c opt //bench:transport_bench
//   python3 bench/transport_report.py    # one run -> RESULTS.md + docs table
//
// Large bodies: an iteration is one 1 MiB response read completely, for a
// small request; `inflight` requests are outstanding at a time on both sides
// (1: one round trip at a time, bound by thread hand-offs; 8: a pipelined
// stream, bound by bytes moved). The service's client keeps them in flight
// from its response callbacks, on its I/O thread (Pipeline), as the raw
// socket's one client thread sends and receives; the *CallerThread variants
// keep the benchmark thread waiting for each response instead (Window: one
// thread hop per response, what a blocking caller pays).
//   BM_Transport_Service: the handler returns a 1 MiB byte array that the
//     frame references (writeByteArrayByReference: its iovec points at the
//     caller's buffer); the client receives it into pages and its reader
//     copies it into a reused buffer (copy:1) or consumes it in place
//     (copy:0).
//   BM_Transport_ServiceSerialized: the same, the handler writing the array
//     with writeByteArray (copied into the frame's pages when serialized).
//   BM_Transport_RawSocket/1048576: a thread answers each request with
//     send() of the identical, pre-serialized frame from one contiguous
//     buffer; the client recv()s it into a buffer. No serialization, no
//     framing: the bound the transport is measured against.
//   BM_Transport_ServiceCallerThread: BM_Transport_Service driven by the
//     waiting benchmark thread.
//   BM_Transport_ServiceReceiveInto (copy:1 only): BM_Transport_Service
//     whose calls lend `sink` as their receive buffer (CallContext::
//     receive_buffer): the socket reads each response's content straight
//     into it, and the reader finds the body there in place (checked), as
//     RawSocket's recv() fills its own buffer: the copy out is not made.
//   BM_Transport_Tls: BM_Transport_Service over mutual TLS (TLS 1.3,
//     AES-128-GCM, an ephemeral CA's P-256 certificates).
// Small messages (RPC between nodes): 1 KiB request, 1 KiB response,
// inflight 1 and 64; an iteration is one request answered.
//   BM_Transport_SmallService (I/O-thread driver),
//   BM_Transport_SmallServiceCallerThread, BM_Transport_SmallRawSocket.
//
// Wall time on a shared 2-core machine mostly measures the scheduler, so
// every benchmark also reports what the whole process (client, server and
// I/O threads) spent, from getrusage(RUSAGE_SELF) over the timed loop:
//   cpu_us_per_MiB / cpu_us_per_req  user + system CPU time of all threads
//   csw_per_frame                    context switches (voluntary +
//                                    involuntary) per response frame
//   ivcsw_per_frame                  the involuntary ones (preemption)
// and the small-message benchmarks p50_us / p99_us, the latency of one
// request from send to its response callback.
// bench/transport_report.py divides Service by RawSocket per case.
#include <arpa/inet.h>
#include <benchmark/benchmark.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "stream/bytes_stream_output.h"
#include "transport/frame.h"
#include "transport/testing/certgen.h"
#include "transport/transport_service.h"
#include "transport/zero_copy.h"

namespace wirestream::transport {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Process-wide CPU time and context switches between start() and stop().
class ProcessMeter {
 public:
  void start() { begin_ = sample(); }
  // Adds the counters for `frames` frames of `bytes_per_frame` each.
  void stop(benchmark::State& state, int64_t frames, size_t bytes_per_frame) {
    const Sample end = sample();
    const double cpu_us = (end.cpu_ns - begin_.cpu_ns) / 1e3;
    const double n = frames > 0 ? static_cast<double>(frames) : 1.0;
    if (bytes_per_frame >= (1u << 20)) {
      const double mib = n * static_cast<double>(bytes_per_frame) / (1 << 20);
      state.counters["cpu_us_per_MiB"] = cpu_us / mib;
    } else {
      state.counters["cpu_us_per_req"] = cpu_us / n;
    }
    state.counters["csw_per_frame"] = static_cast<double>(end.voluntary - begin_.voluntary +
                                                          end.involuntary - begin_.involuntary) /
                                      n;
    state.counters["ivcsw_per_frame"] =
        static_cast<double>(end.involuntary - begin_.involuntary) / n;
  }

 private:
  struct Sample {
    double cpu_ns = 0;
    long voluntary = 0;
    long involuntary = 0;
  };
  static Sample sample() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    Sample s;
    s.cpu_ns = (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e9 +
               (u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e3;
    s.voluntary = u.ru_nvcsw;
    s.involuntary = u.ru_nivcsw;
    return s;
  }
  Sample begin_;
};

// Latencies of single requests; p50 / p99 as counters, in microseconds.
class Latencies {
 public:
  void add(Clock::duration d) {
    std::lock_guard<std::mutex> lock(mu_);
    ns_.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
  }
  void report(benchmark::State& state) {
    std::lock_guard<std::mutex> lock(mu_);
    if (ns_.empty()) return;
    std::sort(ns_.begin(), ns_.end());
    auto at = [&](double q) {
      return ns_[std::min(ns_.size() - 1, static_cast<size_t>(q * ns_.size()))] / 1e3;
    };
    state.counters["p50_us"] = at(0.50);
    state.counters["p99_us"] = at(0.99);
  }

 private:
  std::mutex mu_;
  std::vector<int64_t> ns_;
};

struct SizeRequest final : Writeable {
  int32_t size = 0;
  void writeTo(StreamOutput& out) const override { out.writeVInt(size); }
};

struct Blob final : Writeable {
  const std::vector<uint8_t>* bytes = nullptr;
  void writeTo(StreamOutput& out) const override { out.writeByteArray(*bytes); }
};

std::vector<uint8_t> payloadOf(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i * 131 + 7);
  return v;
}

TransportOptions quietOptions(const std::optional<TlsOptions>& tls) {
  TransportOptions options;
  options.logger = [](LogLevel, const std::string&) {};
  options.tls = tls;
  return options;
}

// Keeps `window` calls outstanding: acquire() blocks while it is full. The
// caller's thread waits for each response (a thread hop per response).
class Window {
 public:
  explicit Window(int size) : size_(size) {}
  void acquire() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return in_flight_ < size_; });
    ++in_flight_;
  }
  void release() {
    std::lock_guard<std::mutex> lock(mu_);
    --in_flight_;
    cv_.notify_one();
  }
  void drain() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return in_flight_ == 0; });
  }

 private:
  const int size_;
  std::mutex mu_;
  std::condition_variable cv_;
  int in_flight_ = 0;
};

// Keeps `window` calls outstanding by sending the next request from each
// response callback, on the client's I/O thread, as an asynchronous caller
// does (ES's transport handlers run on the network thread when cheap): no
// thread is woken per response. run(n) returns once n calls completed.
class Pipeline {
 public:
  Pipeline(int window, std::function<void()> send_one)
      : window_(window), send_one_(std::move(send_one)) {}
  void run(int64_t count) {
    to_send_ = count;
    completed_ = 0;
    count_ = count;
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = false;
    }
    const int64_t first = std::min<int64_t>(window_, count);
    to_send_ -= first;
    for (int64_t i = 0; i < first; ++i) send_one_();
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return done_; });
  }
  // From a response or failure callback: counts it, sends the next.
  void completed() {
    if (to_send_.fetch_sub(1) > 0) send_one_();
    if (completed_.fetch_add(1) + 1 == count_) {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
      cv_.notify_one();
    }
  }

 private:
  const int window_;
  const std::function<void()> send_one_;
  std::atomic<int64_t> to_send_{0};
  std::atomic<int64_t> completed_{0};
  int64_t count_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
};

// How requests are kept in flight: from the response callbacks on the I/O
// thread (kPipeline), or by the benchmark thread waiting for a free slot
// after each response (kCallerThread).
enum class Driver { kPipeline, kCallerThread };

// Iterations a Pipeline runs at a time (it drains between batches).
constexpr int64_t kLargeBatch = 128;
constexpr int64_t kSmallBatch = 4096;

// The benchmark loop: keeps range(1) calls in flight with `driver`, starting
// `meter`; send(done) sends one call and runs `done` once it completed.
void drive(benchmark::State& state, Driver driver, int64_t batch, ProcessMeter& meter,
           const std::function<void(std::function<void()>)>& send) {
  const int inflight = static_cast<int>(state.range(1));
  if (driver == Driver::kPipeline) {
    std::optional<Pipeline> pipeline;
    pipeline.emplace(inflight, [&] { send([&] { pipeline->completed(); }); });
    meter.start();
    while (state.KeepRunningBatch(batch)) pipeline->run(batch);
    return;
  }
  Window window(inflight);
  meter.start();
  for (auto _ : state) {
    window.acquire();
    send([&] { window.release(); });
  }
  window.drain();
}

// range(0): response bytes; range(1): requests in flight (1 = one round trip
// at a time, latency-bound; more = a pipelined stream, throughput-bound);
// range(2): whether the reader copies the payload out (see `reader`).
void runService(benchmark::State& state, const std::optional<TlsOptions>& tls, bool by_reference,
                Driver driver = Driver::kPipeline, bool receive_into = false) {
  const size_t size = static_cast<size_t>(state.range(0));
  const bool copy_out = state.range(2) != 0;
  // Owned by a shared_ptr, as a caller handing bytes over by reference must:
  // the frame keeps it alive until the kernel took the bytes.
  auto owner = std::make_shared<const std::vector<uint8_t>>(payloadOf(size));
  const BytesReference payload(BytesReference::Piece(owner->data(), owner->size()), owner);
  TransportService server(quietOptions(tls));
  server.registerRequestHandler(
      "bench/payload", [](StreamInput& in) { return in.readVInt(); },
      [&payload, by_reference](int32_t) { return ByteArrayBody(payload, by_reference); });
  uint16_t port = server.listen();
  TransportService client(quietOptions(tls));
  auto conn = client.connect("127.0.0.1", port);
  // With receive_into, room for the whole response content: 2 bytes of
  // response headers and the VInt length before the body.
  std::vector<uint8_t> sink(receive_into ? size + 16 : size);
  TransportService::CallContext context;
  if (receive_into) context.receive_buffer = sink;
  std::atomic<bool> not_in_place{false};
  SizeRequest request;
  request.size = static_cast<int32_t>(size);
  // copy 1: the bytes are copied out of the frame into `sink`, as a reader
  // that builds a std::vector would. copy 0: consumed where they are, in the
  // frame's pages the kernel received into, as RawSocket's bytes stay in the
  // buffer recv() filled.
  auto reader = [&sink, copy_out, receive_into, &not_in_place](StreamInput& in) {
    int32_t n = in.readArraySize();
    if (receive_into) {
      // Already in `sink`; a body anywhere else would be a wrong figure.
      const uint8_t* p = in.readInChunk(static_cast<size_t>(n));
      if (p == nullptr || p < sink.data() || p + n > sink.data() + sink.size()) {
        not_in_place = true;
        in.skip(static_cast<size_t>(n));
      }
    } else if (copy_out) {
      in.readBytes({sink.data(), static_cast<size_t>(n)});
    } else {
      in.skip(static_cast<size_t>(n));
    }
    return n;
  };
  std::atomic<bool> short_response{false};
  ProcessMeter meter;
  drive(state, driver, kLargeBatch, meter, [&](std::function<void()> done) {
    client.sendRequest(
        conn, "bench/payload", request, reader,
        [&, done](int32_t n) {
          if (static_cast<size_t>(n) != size) short_response = true;
          done();
        },
        [&, done](std::exception_ptr) {
          short_response = true;
          done();
        },
        10s, context);
  });
  meter.stop(state, state.iterations(), size);
  if (short_response) state.SkipWithError("a response was short or failed");
  if (not_in_place) state.SkipWithError("a response body was not received into the buffer");
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * size));
}

void BM_Transport_Service(benchmark::State& state) { runService(state, std::nullopt, true); }
void BM_Transport_ServiceSerialized(benchmark::State& state) {
  runService(state, std::nullopt, false);
}
void BM_Transport_ServiceCallerThread(benchmark::State& state) {
  runService(state, std::nullopt, true, Driver::kCallerThread);
}
// 1 MiB responses, 1 or 8 in flight, copied out or consumed in place.
void serviceArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"bytes", "inflight", "copy"})
      ->Args({1 << 20, 1, 1})
      ->Args({1 << 20, 8, 1})
      ->Args({1 << 20, 1, 0})
      ->Args({1 << 20, 8, 0})
      ->UseRealTime()
      ->MinTime(1.0);
}
BENCHMARK(BM_Transport_Service)->Apply(serviceArgs);
BENCHMARK(BM_Transport_ServiceSerialized)->Apply(serviceArgs);
BENCHMARK(BM_Transport_ServiceCallerThread)->Apply(serviceArgs);

void BM_Transport_ServiceReceiveInto(benchmark::State& state) {
  runService(state, std::nullopt, true, Driver::kPipeline, /*receive_into=*/true);
}
// The reader wants the body in its own buffer (copy:1); 1 or 8 in flight.
BENCHMARK(BM_Transport_ServiceReceiveInto)
    ->ArgNames({"bytes", "inflight", "copy"})
    ->Args({1 << 20, 1, 1})
    ->Args({1 << 20, 8, 1})
    ->UseRealTime()
    ->MinTime(1.0);

void BM_Transport_Tls(benchmark::State& state) {
  // One node certificate serves both ends; made once, removed at exit.
  static testing::TempDir dir("wirestream-bench");
  static testing::CertAuthority ca(dir.path(), "ca");
  static const testing::IssuedFiles node = ca.issue("node", {});
  TlsOptions tls;
  tls.certificate = node.certificate;
  tls.key = node.key;
  tls.certificate_authorities = ca.certificateFile();
  runService(state, tls, true);
}
BENCHMARK(BM_Transport_Tls)->Apply(serviceArgs);

int listenLoopback(uint16_t* port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  ::listen(fd, 1);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  *port = ntohs(addr.sin_port);
  return fd;
}

int connectLoopback(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

bool sendAll(int fd, const uint8_t* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool recvAll(int fd, uint8_t* p, size_t n) {
  while (n > 0) {
    ssize_t r = ::recv(fd, p, n, 0);
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

// A raw peer: a thread answers every `request_size` bytes received with
// `response`, until the client shuts its socket down.
class RawPeer {
 public:
  RawPeer(size_t request_size, std::vector<uint8_t> response)
      : response_(std::move(response)), request_(request_size) {
    uint16_t port = 0;
    listener_ = listenLoopback(&port);
    server_ = std::thread([this] {
      int fd = ::accept(listener_, nullptr, nullptr);
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      while (recvAll(fd, request_.data(), request_.size()) &&
             sendAll(fd, response_.data(), response_.size())) {
      }
      ::close(fd);
    });
    client_ = connectLoopback(port);
  }
  ~RawPeer() {
    ::shutdown(client_, SHUT_RDWR);
    ::close(client_);
    server_.join();
    ::close(listener_);
  }
  int client() const { return client_; }

 private:
  std::vector<uint8_t> response_;
  std::vector<uint8_t> request_;
  int listener_ = -1;
  int client_ = -1;
  std::thread server_;
};

std::vector<uint8_t> flatten(const BytesStreamOutput& out) { return out.bytes().toVector(); }

void BM_Transport_RawSocket(benchmark::State& state) {
  const size_t size = static_cast<size_t>(state.range(0));
  const int window = static_cast<int>(state.range(1));
  const std::vector<uint8_t> payload = payloadOf(size);
  // The exact frame the service sends, flattened once.
  Blob p;
  p.bytes = &payload;
  BytesStreamOutput out;
  writeResponseFrame(out, {1, TransportVersion::current(), false}, {}, p, CompressionScheme::kNone);
  const std::vector<uint8_t> frame = flatten(out);
  constexpr size_t kRequestSize = 32;
  RawPeer peer(kRequestSize, frame);
  const int fd = peer.client();
  std::vector<uint8_t> sink(frame.size());
  uint8_t request[kRequestSize] = {'E', 'S'};
  int in_flight = 0;
  ProcessMeter meter;
  meter.start();
  for (auto _ : state) {
    while (in_flight < window) {
      if (!sendAll(fd, request, sizeof request)) break;
      ++in_flight;
    }
    if (!recvAll(fd, sink.data(), sink.size())) {
      state.SkipWithError("socket failed");
      break;
    }
    --in_flight;
    benchmark::DoNotOptimize(sink.data());
  }
  for (; in_flight > 0; --in_flight) recvAll(fd, sink.data(), sink.size());
  meter.stop(state, state.iterations(), size);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * size));
}
BENCHMARK(BM_Transport_RawSocket)
    ->ArgNames({"bytes", "inflight"})
    ->Args({1 << 20, 1})
    ->Args({1 << 20, 8})
    ->UseRealTime()
    ->MinTime(1.0);

// Small messages: a 1 KiB byte-array request answered by a 1 KiB byte-array
// response. range(0): body bytes; range(1): requests in flight.
void runSmallService(benchmark::State& state, Driver driver) {
  const size_t size = static_cast<size_t>(state.range(0));
  const std::vector<uint8_t> body = payloadOf(size);
  TransportService server(quietOptions(std::nullopt));
  server.registerRequestHandler(
      "bench/echo", [](StreamInput& in) { return in.readByteArray(); },
      [&body](const std::vector<uint8_t>&) {
        Blob b;
        b.bytes = &body;
        return b;
      });
  uint16_t port = server.listen();
  TransportService client(quietOptions(std::nullopt));
  auto conn = client.connect("127.0.0.1", port);
  Blob request;
  request.bytes = &body;
  auto read_response = [](StreamInput& in) {
    const int32_t n = in.readArraySize();
    in.skip(static_cast<size_t>(n));
    return n;
  };
  Latencies latencies;
  std::atomic<bool> failed{false};
  ProcessMeter meter;
  // Sends one request; `done` runs once it completed.
  auto send = [&](std::function<void()> done) {
    const Clock::time_point sent = Clock::now();
    client.sendRequest(
        conn, "bench/echo", request, read_response,
        [&, sent, size, done](int32_t n) {
          latencies.add(Clock::now() - sent);
          if (static_cast<size_t>(n) != size) failed = true;
          done();
        },
        [&, done](std::exception_ptr) {
          failed = true;
          done();
        },
        10s);
  };
  drive(state, driver, kSmallBatch, meter, send);
  meter.stop(state, state.iterations(), size);
  latencies.report(state);
  if (failed) state.SkipWithError("a response was short or failed");
  state.SetItemsProcessed(state.iterations());
}

void BM_Transport_SmallService(benchmark::State& state) {
  runSmallService(state, Driver::kPipeline);
}
void BM_Transport_SmallServiceCallerThread(benchmark::State& state) {
  runSmallService(state, Driver::kCallerThread);
}

// The same exchange over a raw socket: the client sends the exact request
// frame the service would and a thread answers each with the exact response
// frame; `inflight` requests are kept outstanding, answered in order.
void BM_Transport_SmallRawSocket(benchmark::State& state) {
  const size_t size = static_cast<size_t>(state.range(0));
  const int window = static_cast<int>(state.range(1));
  const std::vector<uint8_t> body = payloadOf(size);
  Blob blob;
  blob.bytes = &body;
  BytesStreamOutput request_out;
  writeRequestFrame(request_out, {1, TransportVersion::current(), false}, "bench/echo", {}, blob,
                    CompressionScheme::kNone);
  BytesStreamOutput response_out;
  writeResponseFrame(response_out, {1, TransportVersion::current(), false}, {}, blob,
                     CompressionScheme::kNone);
  const std::vector<uint8_t> request = flatten(request_out);
  RawPeer peer(request.size(), flatten(response_out));
  const int fd = peer.client();
  std::vector<uint8_t> sink(response_out.size());
  std::deque<Clock::time_point> sent;
  Latencies latencies;
  ProcessMeter meter;
  meter.start();
  for (auto _ : state) {
    while (static_cast<int>(sent.size()) < window) {
      sent.push_back(Clock::now());
      if (!sendAll(fd, request.data(), request.size())) break;
    }
    if (!recvAll(fd, sink.data(), sink.size())) {
      state.SkipWithError("socket failed");
      break;
    }
    latencies.add(Clock::now() - sent.front());
    sent.pop_front();
  }
  for (; !sent.empty(); sent.pop_front()) recvAll(fd, sink.data(), sink.size());
  meter.stop(state, state.iterations(), size);
  latencies.report(state);
  state.SetItemsProcessed(state.iterations());
}

void smallArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"bytes", "inflight"})
      ->Args({1 << 10, 1})
      ->Args({1 << 10, 64})
      ->UseRealTime()
      ->MinTime(1.0);
}
BENCHMARK(BM_Transport_SmallService)->Apply(smallArgs);
BENCHMARK(BM_Transport_SmallServiceCallerThread)->Apply(smallArgs);
BENCHMARK(BM_Transport_SmallRawSocket)->Apply(smallArgs);

}  // namespace
}  // namespace wirestream::transport
