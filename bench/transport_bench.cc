// Transport throughput: 1 MiB responses over loopback through TransportService
// against a raw socket write of the same frame bytes, request by request.
//
//   bazel run -c opt //bench:transport_bench
//
// An iteration is one 1 MiB response read completely, for a small request;
// `inflight` requests are outstanding at a time on both sides (1: one round
// trip at a time, bound by thread hand-offs; 8: a pipelined stream, bound by
// bytes moved).
//   BM_Transport_Service: the handler returns a 1 MiB byte array; the frame
//     is serialized into pages and gather-written; the client receives it
//     into pages and its reader reads the byte array, copying it into a
//     reused buffer (copy:1) or consuming it in place (copy:0).
//   BM_Transport_RawSocket/1048576: a thread answers each request with
//     send() of the identical, pre-serialized frame from one contiguous
//     buffer; the client recv()s it into a buffer. No serialization, no
//     framing: the bound the transport is measured against.
//   BM_Transport_Tls: BM_Transport_Service over mutual TLS (TLS 1.3,
//     AES-128-GCM, an ephemeral CA's P-256 certificates).
// Ratio = Service bytes/s / RawSocket bytes/s at the same inflight
// (target >= 0.8, for the pipelined stream); Tls / Service target >= 0.6.
#include <arpa/inet.h>
#include <benchmark/benchmark.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "stream/bytes_stream_output.h"
#include "transport/frame.h"
#include "transport/testing/certgen.h"
#include "transport/transport_service.h"

namespace wirestream::transport {
namespace {

using namespace std::chrono_literals;

struct Payload final : Writeable {
  const std::vector<uint8_t>* bytes = nullptr;
  void writeTo(StreamOutput& out) const override { out.writeByteArray(*bytes); }
};

struct SizeRequest final : Writeable {
  int32_t size = 0;
  void writeTo(StreamOutput& out) const override { out.writeVInt(size); }
};

std::vector<uint8_t> payloadOf(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i * 131 + 7);
  return v;
}

// range(0): response bytes; range(1): requests in flight (1 = one round trip
// at a time, latency-bound; more = a pipelined stream, throughput-bound);
// range(2): whether the reader copies the payload out (see `reader`).
void runService(benchmark::State& state, const std::optional<TlsOptions>& tls) {
  const size_t size = static_cast<size_t>(state.range(0));
  const int window = static_cast<int>(state.range(1));
  const bool copy_out = state.range(2) != 0;
  const std::vector<uint8_t> payload = payloadOf(size);
  TransportOptions options;
  options.logger = [](LogLevel, const std::string&) {};
  options.tls = tls;
  TransportService server(options);
  server.registerRequestHandler(
      "bench/payload", [](StreamInput& in) { return in.readVInt(); },
      [&payload](int32_t) {
        Payload p;
        p.bytes = &payload;
        return p;
      });
  uint16_t port = server.listen();
  TransportService client(options);
  auto conn = client.connect("127.0.0.1", port);
  std::vector<uint8_t> sink(size);
  SizeRequest request;
  request.size = static_cast<int32_t>(size);
  // copy 1: the bytes are copied out of the frame into `sink`, as a reader
  // that builds a std::vector would. copy 0: consumed where they are, in the
  // frame's pages the kernel received into, as RawSocket's bytes stay in the
  // buffer recv() filled.
  auto reader = [&sink, copy_out](StreamInput& in) {
    int32_t n = in.readArraySize();
    if (copy_out) {
      in.readBytes({sink.data(), static_cast<size_t>(n)});
    } else {
      in.skip(static_cast<size_t>(n));
    }
    return n;
  };
  std::mutex mu;
  std::condition_variable cv;
  int in_flight = 0;
  std::atomic<bool> short_response{false};
  for (auto _ : state) {
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return in_flight < window; });
      ++in_flight;
    }
    auto done = [&] {
      std::lock_guard<std::mutex> lock(mu);
      --in_flight;
      cv.notify_one();
    };
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
        10s);
  }
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return in_flight == 0; });
  }
  if (short_response) state.SkipWithError("a response was short or failed");
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * size));
}

void BM_Transport_Service(benchmark::State& state) { runService(state, std::nullopt); }
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

void BM_Transport_Tls(benchmark::State& state) {
  // One node certificate serves both ends; made once, removed at exit.
  static testing::TempDir dir("wirestream-bench");
  static testing::CertAuthority ca(dir.path(), "ca");
  static const testing::IssuedFiles node = ca.issue("node", {});
  TlsOptions tls;
  tls.certificate = node.certificate;
  tls.key = node.key;
  tls.certificate_authorities = ca.certificateFile();
  runService(state, tls);
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

void BM_Transport_RawSocket(benchmark::State& state) {
  const size_t size = static_cast<size_t>(state.range(0));
  const int window = static_cast<int>(state.range(1));
  const std::vector<uint8_t> payload = payloadOf(size);
  // The exact frame the service sends, flattened once.
  Payload p;
  p.bytes = &payload;
  BytesStreamOutput out;
  writeResponseFrame(out, {1, TransportVersion::current(), false}, {}, p, CompressionScheme::kNone);
  const std::vector<uint8_t> frame = out.bytes().toVector();
  uint16_t port = 0;
  int listener = listenLoopback(&port);
  std::thread server([&] {
    int fd = ::accept(listener, nullptr, nullptr);
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    uint8_t request[32];
    while (recvAll(fd, request, sizeof request) && sendAll(fd, frame.data(), frame.size())) {
    }
    ::close(fd);
  });
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  std::vector<uint8_t> sink(frame.size());
  uint8_t request[32] = {'E', 'S'};
  int in_flight = 0;
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
  ::shutdown(fd, SHUT_RDWR);
  ::close(fd);
  server.join();
  ::close(listener);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * size));
}
BENCHMARK(BM_Transport_RawSocket)
    ->ArgNames({"bytes", "inflight"})
    ->Args({1 << 20, 1})
    ->Args({1 << 20, 8})
    ->UseRealTime()
    ->MinTime(1.0);

}  // namespace
}  // namespace wirestream::transport
