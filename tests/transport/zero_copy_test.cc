// Byte ranges into frames by reference (transport/zero_copy.h) and the
// reference splices of BytesStreamOutput under them: the wire bytes equal
// those of a copy, the frame's pieces point at the caller's bytes, and the
// owner / release callback lives exactly as long as the frame (run under
// --config=asan: a release before the last use is a use-after-free).
#include "transport/zero_copy.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <random>
#include <stdexcept>
#include <vector>

#include "stream/bytes_stream_output.h"
#include "stream/errors.h"
#include "tests/stream/test_util.h"
#include "tests/transport/test_support.h"
#include "transport/frame.h"
#include "transport/transport_service.h"

namespace wirestream::transport {
namespace {

using namespace std::chrono_literals;
using wirestream::testing::kPageSizes;

std::vector<uint8_t> bytesOf(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 131);
  return v;
}

BytesReference owned(std::vector<uint8_t> bytes) {
  auto owner = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
  return BytesReference(BytesReference::Piece(owner->data(), owner->size()), owner);
}

bool pointsInto(const BytesReference& frame, const std::vector<uint8_t>& buffer) {
  for (BytesReference::Piece p : frame.pieces()) {
    if (p.data() >= buffer.data() && p.data() < buffer.data() + buffer.size()) return true;
  }
  return false;
}

// ES's BytesReference.writeTo... through StreamOutput.writeBytesReference:
// writeVInt(length) then the bytes. 20000 = 0x4E20 -> VInt a0 9c 01.
TEST(ZeroCopy, ByteArrayIsAVIntLengthThenTheBytes) {
  const std::vector<uint8_t> data = bytesOf(20000, 3);
  BytesStreamOutput out;
  writeByteArrayByReference(out, owned(data));
  const std::vector<uint8_t> wire = out.bytes().toVector();
  ASSERT_EQ(wire.size(), 3 + data.size());
  EXPECT_EQ(wire[0], 0xa0);
  EXPECT_EQ(wire[1], 0x9c);
  EXPECT_EQ(wire[2], 0x01);
  EXPECT_TRUE(std::equal(data.begin(), data.end(), wire.begin() + 3));
  EXPECT_EQ(out.referencedBytes(), data.size());
}

// The frame bytes equal the copying writer's for every size around the
// threshold, every page size, and compressed or not; large ranges are pieces
// of the caller's buffer, small ones are copied.
TEST(ZeroCopy, FramesAreTheBytesOfACopy) {
  for (size_t page_size : kPageSizes) {
    for (size_t n : {size_t{0}, size_t{1}, kMinReferenceBytes - 1, kMinReferenceBytes,
                     kMinReferenceBytes + 1, size_t{100000}}) {
      for (CompressionScheme scheme :
           {CompressionScheme::kNone, CompressionScheme::kLz4, CompressionScheme::kDeflate}) {
        SCOPED_TRACE("page " + std::to_string(page_size) + " bytes " + std::to_string(n));
        auto data = std::make_shared<const std::vector<uint8_t>>(bytesOf(n, 9));
        ByteArrayBody blob;
        blob.bytes = BytesReference(BytesReference::Piece(data->data(), data->size()), data);
        PageRecycler recycler(page_size);
        BytesStreamOutput by_ref(recycler);
        BytesStreamOutput copied(recycler);
        writeResponseFrame(by_ref, {7, TransportVersion::current(), false}, {{"k", {"v"}}}, blob,
                           scheme);
        blob.by_reference = false;
        writeResponseFrame(copied, {7, TransportVersion::current(), false}, {{"k", {"v"}}}, blob,
                           scheme);
        EXPECT_EQ(by_ref.bytes(), copied.bytes());
        EXPECT_EQ(by_ref.size(), copied.size());
        const bool referenced = n >= kMinReferenceBytes && scheme == CompressionScheme::kNone;
        EXPECT_EQ(pointsInto(by_ref.bytes(), *data), referenced);
      }
    }
  }
}

// A reference that is several pieces keeps its pieces and their order.
TEST(ZeroCopy, MultiPieceReferencesAndWritesAroundThem) {
  const uint64_t seed = wirestream::testing::testSeed(1234);
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 50; ++round) {
    const size_t page_size = kPageSizes[rng() % kPageSizes.size()];
    PageRecycler recycler(page_size);
    BytesStreamOutput out(recycler);
    std::vector<uint8_t> expected;
    std::vector<std::shared_ptr<std::vector<uint8_t>>> buffers;
    for (int step = 0; step < 8; ++step) {
      const size_t n = rng() % 3000;
      auto buffer = std::make_shared<std::vector<uint8_t>>(bytesOf(n, static_cast<uint8_t>(rng())));
      expected.insert(expected.end(), buffer->begin(), buffer->end());
      if (rng() % 2 == 0) {
        std::vector<BytesReference::Piece> pieces;
        for (size_t at = 0; at < n;) {
          const size_t len = std::min<size_t>(n - at, 1 + rng() % 700);
          pieces.emplace_back(buffer->data() + at, len);
          at += len;
        }
        out.appendReference(BytesReference(std::move(pieces), buffer));
      } else {
        out.writeBytes(*buffer);
      }
      buffers.push_back(buffer);
      ASSERT_EQ(out.size(), expected.size());
    }
    EXPECT_EQ(out.bytes().toVector(), expected);
  }
}

// The frame writer's pattern: skip a header, append, seek back, fill the
// header in, seek to the end, go on writing.
TEST(ZeroCopy, SeekBackOverReferencesAndForwardAgain) {
  for (size_t page_size : kPageSizes) {
    PageRecycler recycler(page_size);
    BytesStreamOutput out(recycler);
    const std::vector<uint8_t> data = bytesOf(50, 1);
    out.skip(4);
    out.writeByte(0xaa);
    out.appendReference(owned(data));
    out.writeByte(0xbb);
    const size_t end = out.size();
    ASSERT_EQ(end, 4 + 1 + 50 + 1);
    out.seek(0);
    EXPECT_EQ(out.size(), 0u);
    out.writeInt(0x01020304);
    out.seek(end);
    out.writeByte(0xcc);
    std::vector<uint8_t> expected = {1, 2, 3, 4, 0xaa};
    expected.insert(expected.end(), data.begin(), data.end());
    expected.push_back(0xbb);
    expected.push_back(0xcc);
    EXPECT_EQ(out.bytes().toVector(), expected);
    // Right after the reference: the position counts it.
    out.seek(4 + 1 + 50);
    EXPECT_EQ(out.size(), 4u + 1 + 50);
    out.writeByte(0xdd);
    expected[55] = 0xdd;
    out.seek(expected.size());
    EXPECT_EQ(out.bytes().toVector(), expected);
  }
}

TEST(ZeroCopy, MisuseIsRefused) {
  BytesStreamOutput out;
  out.writeByte(1);
  out.appendReference(owned(bytesOf(10, 2)));
  out.writeByte(3);
  // Inside the referenced range.
  EXPECT_THROW(out.seek(5), std::logic_error);
  // A write from before the reference that would run over it.
  out.seek(0);
  EXPECT_THROW(out.writeInt(7), std::logic_error);
  // Appending anywhere but at the end.
  out.seek(1);
  EXPECT_THROW(out.appendReference(owned(bytesOf(1, 0))), std::logic_error);
}

TEST(ZeroCopy, TheMaximumSizeCountsReferencedBytes) {
  PageRecycler recycler(16);
  BytesStreamOutput out(recycler, 100);
  out.writeBytes(bytesOf(40, 0));
  EXPECT_THROW(out.appendReference(owned(bytesOf(61, 0))), LimitExceededError);
  EXPECT_EQ(out.size(), 40u);
  out.appendReference(owned(bytesOf(60, 0)));
  EXPECT_EQ(out.size(), 100u);
  EXPECT_THROW(out.writeByte(1), LimitExceededError);
  EXPECT_EQ(out.size(), 100u);
}

// The output holds the owner until reset() and no longer.
TEST(ZeroCopy, ResetDropsTheOwner) {
  int released = 0;
  std::vector<uint8_t> data = bytesOf(kMinReferenceBytes, 5);
  {
    BytesStreamOutput out;
    writeBytesByReference(out, releasableReference(data, [&released] { ++released; }));
    EXPECT_EQ(released, 0);
    out.reset();
    EXPECT_EQ(released, 1);
    EXPECT_EQ(out.size(), 0u);
    EXPECT_EQ(out.referencedBytes(), 0u);
  }
  EXPECT_EQ(released, 1);
}

TransportOptions quietOptions() {
  TransportOptions options;
  options.logger = [](LogLevel, const std::string&) {};
  return options;
}

// Waits (with a generous bound, never sleeping as synchronization) until
// every release ran.
class Releases {
 public:
  std::function<void()> callbackFreeing(uint8_t* buffer) {
    return [this, buffer] {
      delete[] buffer;
      std::lock_guard<std::mutex> lock(mu_);
      ++released_;
      cv_.notify_all();
    };
  }
  bool waitFor(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, 60s, [&] { return released_ >= n; });
  }
  int count() {
    std::lock_guard<std::mutex> lock(mu_);
    return released_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int released_ = 0;
};

// Responses and requests by reference over a real connection: the bytes
// arrive intact, and each buffer is freed once, by its release callback,
// after the kernel took it (ASan reports a read of a freed buffer).
TEST(ZeroCopy, OverTheTransportTheCallbackFreesTheBufferOnce) {
  constexpr size_t kSize = 300 * 1024 + 17;
  constexpr int kCalls = 20;
  const std::vector<uint8_t> expected = bytesOf(kSize, 11);
  Releases releases;
  const TransportOptions options = quietOptions();
  TransportService server(options);
  server.registerRequestHandler(
      "test/zero_copy", [](StreamInput& in) { return testing::Blob(in); },
      [&](const testing::Blob& request) {
        if (request.bytes != expected) throw std::runtime_error("request bytes differ");
        auto* buffer = new uint8_t[kSize];
        std::copy(expected.begin(), expected.end(), buffer);
        ByteArrayBody response;
        response.bytes = releasableReference({buffer, kSize}, releases.callbackFreeing(buffer));
        return response;
      });
  const uint16_t port = server.listen();
  TransportService client(options);
  auto connection = client.connect("127.0.0.1", port);
  std::vector<std::future<testing::Blob>> futures;
  for (int i = 0; i < kCalls; ++i) {
    auto* buffer = new uint8_t[kSize];
    std::copy(expected.begin(), expected.end(), buffer);
    ByteArrayBody request;
    request.bytes = releasableReference({buffer, kSize}, releases.callbackFreeing(buffer));
    futures.push_back(
        client.submitRequest(connection, "test/zero_copy", request, testing::readBlob, 60s));
  }
  for (auto& f : futures) EXPECT_EQ(f.get().bytes, expected);
  EXPECT_TRUE(releases.waitFor(2 * kCalls));
  EXPECT_EQ(releases.count(), 2 * kCalls);
}

// A connection that closes with frames queued still releases every buffer,
// once, by the time the services are gone.
TEST(ZeroCopy, ClosingReleasesQueuedReferences) {
  constexpr size_t kSize = 1 << 20;
  constexpr int kCalls = 16;
  Releases releases;
  {
    const TransportOptions options = quietOptions();
    TransportService server(options);
    server.registerRequestHandler(
        "test/zero_copy", [](StreamInput& in) { return testing::Blob(in); },
        [](const testing::Blob&) { return testing::Blob(); });
    const uint16_t port = server.listen();
    TransportService client(options);
    auto connection = client.connect("127.0.0.1", port);
    std::vector<std::future<testing::Blob>> futures;
    for (int i = 0; i < kCalls; ++i) {
      auto* buffer = new uint8_t[kSize]();
      ByteArrayBody request;
      request.bytes = releasableReference({buffer, kSize}, releases.callbackFreeing(buffer));
      futures.push_back(
          client.submitRequest(connection, "test/zero_copy", request, testing::readBlob, 60s));
    }
    connection->close();
    for (auto& f : futures) {
      try {
        f.get();
      } catch (const std::exception&) {
      }
    }
  }
  EXPECT_EQ(releases.count(), kCalls);
}

}  // namespace
}  // namespace wirestream::transport
