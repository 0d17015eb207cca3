// 8 client connections x 10,000 pipelined requests each, responses from 1 byte
// to 4 MiB: every response must reach the request that asked for it, once,
// and nothing may be lost. Bounded: 32 calls in flight per connection, a
// hard deadline on the whole run.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <random>

#include "tests/transport/test_support.h"
#include "transport/transport_service.h"

namespace wirestream::transport {
namespace {

using namespace std::chrono_literals;

constexpr int kConnections = 8;
constexpr int kRequestsPerConnection = 10000;
constexpr int kWindow = 32;
constexpr size_t kMaxResponse = 4 << 20;
#if defined(__SANITIZE_THREAD__)
// ThreadSanitizer runs this many times slower (and CI machines are shared).
constexpr auto kDeadline = 240s;
#else
constexpr auto kDeadline = 50s;
#endif

struct SizedRequest final : Writeable {
  int64_t id = 0;
  int32_t size = 0;
  SizedRequest(int64_t i, int32_t s) : id(i), size(s) {}
  explicit SizedRequest(StreamInput& in) : id(in.readLong()), size(in.readVInt()) {}
  void writeTo(StreamOutput& out) const override {
    out.writeLong(id);
    out.writeVInt(size);
  }
};

uint8_t fillOf(int64_t id) { return static_cast<uint8_t>(id * 2654435761u >> 24); }

// Long id, VInt size, then `size` bytes: the id's low bytes at both ends (for
// sizes >= 32), the id's fill byte elsewhere. Streamed from a small buffer.
struct SizedResponse final : Writeable {
  int64_t id;
  int32_t size;
  SizedResponse(int64_t i, int32_t s) : id(i), size(s) {}
  void writeTo(StreamOutput& out) const override {
    out.writeLong(id);
    out.writeVInt(size);
    uint8_t chunk[64 * 1024];
    std::memset(chunk, fillOf(id), sizeof chunk);
    size_t left = static_cast<size_t>(size);
    bool first = true;
    while (left > 0) {
      size_t n = std::min(left, sizeof chunk);
      if (size >= 32 && first) std::memcpy(chunk, &id, 8);
      if (size >= 32 && n == left) std::memcpy(chunk + n - 8, &id, 8);
      out.writeBytes({chunk, n});
      std::memset(chunk, fillOf(id), 8);
      first = false;
      left -= n;
    }
  }
};

struct Checked {
  int64_t id;
  int32_t size;
  bool ok;
};

Checked readChecked(StreamInput& in) {
  Checked c{in.readLong(), in.readVInt(), true};
  std::vector<uint8_t> bytes(static_cast<size_t>(c.size));
  in.readBytes(bytes);
  const uint8_t fill = fillOf(c.id);
  if (c.size >= 32) {
    int64_t head, tail;
    std::memcpy(&head, bytes.data(), 8);
    std::memcpy(&tail, bytes.data() + bytes.size() - 8, 8);
    c.ok = head == c.id && tail == c.id && bytes[8] == fill && bytes[bytes.size() - 9] == fill &&
           bytes[bytes.size() / 2] == fill;
  } else {
    for (uint8_t b : bytes) c.ok = c.ok && b == fill;
  }
  return c;
}

// Mostly small, a tail of large ones, the extremes always present.
int32_t responseSize(std::mt19937& rng, int index) {
  if (index == 0) return 1;
  if (index % 2000 == 1) return static_cast<int32_t>(kMaxResponse);  // 5 a connection
  uint32_t r = rng() % 1000;
  if (r < 900) return 1 + static_cast<int32_t>(rng() % 1024);
  if (r < 990) return 1024 + static_cast<int32_t>(rng() % (63 * 1024));
  return 64 * 1024 + static_cast<int32_t>(rng() % (960 * 1024));
}

TEST(TransportLoad, EightConnectionsTenThousandRequestsEach) {
  testing::LogCapture log;
  TransportService server(testing::nodeOptions("server", log.logger(), 2));
  server.registerRequestHandler(
      "sized", [](StreamInput& in) { return SizedRequest(in); },
      [](const SizedRequest& r) { return SizedResponse(r.id, r.size); });
  uint16_t port = server.listen();

  TransportService client(testing::nodeOptions("client", log.logger(), 2));

  std::atomic<int64_t> matched{0};
  std::atomic<int64_t> mismatched{0};
  std::atomic<int64_t> failed{0};
  std::atomic<int64_t> duplicates{0};
  std::atomic<uint64_t> response_bytes{0};
  std::vector<std::atomic<uint8_t>> completions(kConnections * kRequestsPerConnection);
  const uint32_t seed = 1130;
  std::printf("seed %u\n", seed);
  const auto deadline = std::chrono::steady_clock::now() + kDeadline;

  std::vector<std::thread> drivers;
  for (int c = 0; c < kConnections; ++c) {
    drivers.emplace_back([&, c] {
      auto conn = client.connect("127.0.0.1", port);
      std::mt19937 rng(seed + c);
      std::mutex mu;
      std::condition_variable cv;
      int in_flight = 0;
      for (int i = 0; i < kRequestsPerConnection; ++i) {
        {
          std::unique_lock<std::mutex> lock(mu);
          if (!cv.wait_until(lock, deadline, [&] { return in_flight < kWindow; })) break;
          ++in_flight;
        }
        const int64_t id = static_cast<int64_t>(c) * kRequestsPerConnection + i;
        const int32_t size = responseSize(rng, i);
        auto done = [&] {
          std::lock_guard<std::mutex> lock(mu);
          --in_flight;
          cv.notify_one();
        };
        client.sendRequest(
            conn, "sized", SizedRequest(id, size), readChecked,
            [&, id, size, done](Checked&& r) {
              if (completions[id].fetch_add(1) != 0) ++duplicates;
              if (r.id == id && r.size == size && r.ok) {
                ++matched;
              } else {
                ++mismatched;
              }
              response_bytes += static_cast<uint64_t>(r.size);
              done();
            },
            [&, id, done](std::exception_ptr) {
              if (completions[id].fetch_add(1) != 0) ++duplicates;
              ++failed;
              done();
            },
            30s);
      }
      std::unique_lock<std::mutex> lock(mu);
      if (!cv.wait_until(lock, deadline, [&] { return in_flight == 0; })) {
        // Past the deadline (a slow sanitizer run): fail what is still in
        // flight so that no callback outlives mu, cv and in_flight.
        lock.unlock();
        conn->close();
        lock.lock();
        cv.wait(lock, [&] { return in_flight == 0; });
      }
    });
  }
  for (auto& t : drivers) t.join();

  std::printf("%lld matched, %.1f MiB of responses\n", static_cast<long long>(matched.load()),
              response_bytes.load() / 1048576.0);
  EXPECT_EQ(matched.load(), kConnections * kRequestsPerConnection);
  EXPECT_EQ(mismatched.load(), 0);
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(duplicates.load(), 0);
  int64_t missing = 0;
  for (auto& c : completions) missing += c.load() == 0;
  EXPECT_EQ(missing, 0);
  EXPECT_EQ(log.count("WARN"), 0u);
}

}  // namespace
}  // namespace wirestream::transport
