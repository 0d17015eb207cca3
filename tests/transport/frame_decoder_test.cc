// FrameDecoder: the same frames and the same errors, at the same stream
// offsets, however the bytes are sliced.
#include "transport/frame_decoder.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <random>

#include "stream/bytes_stream_output.h"
#include "stream/errors.h"
#include "tests/transport/frame_bytes.h"
#include "transport/inbound_message.h"
#include "transport/remote_exception.h"

namespace wirestream::transport {
namespace {

using testing::headerBytes;
using testing::RawBody;

struct Seen {
  FrameHeader header;
  BytesReference content;
  bool operator==(const Seen& o) const {
    return header.length == o.header.length && header.request_id == o.header.request_id &&
           header.status == o.header.status && header.version_id == o.header.version_id &&
           header.variable_header_size == o.header.variable_header_size && content == o.content;
  }
};

// Everything a decoder did with a stream: its frames, and its error if any.
struct Outcome {
  std::vector<Seen> frames;
  std::string error_type;
  std::string error_message;
  uint64_t error_position = 0;
};

Outcome run(const std::vector<uint8_t>& stream, const std::vector<size_t>& slices,
            size_t max_frame = 8 << 20) {
  FrameDecoder decoder(max_frame);
  Outcome outcome;
  auto sink = [&](DecodedFrame&& f) { outcome.frames.push_back({f.header, std::move(f.content)}); };
  size_t at = 0;
  try {
    for (size_t n : slices) {
      n = std::min(n, stream.size() - at);
      decoder.feed({stream.data() + at, n}, sink);
      at += n;
      if (at == stream.size()) break;
    }
    EXPECT_EQ(at, stream.size());
  } catch (const StreamError& e) {
    outcome.error_type = typeid(e).name();
    outcome.error_message = e.what();
    outcome.error_position = decoder.position();
    EXPECT_TRUE(decoder.failed());
    // A failed decoder stays failed.
    uint8_t more = 'E';
    EXPECT_THROW(decoder.feed({&more, 1}, sink), StreamError);
  }
  return outcome;
}

std::vector<size_t> whole(const std::vector<uint8_t>& s) { return {s.size()}; }
std::vector<size_t> bytewise(const std::vector<uint8_t>& s) {
  return std::vector<size_t>(s.size(), 1);
}
std::vector<size_t> randomSlices(const std::vector<uint8_t>& s, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<size_t> len(1, 32 * 1024);
  std::vector<size_t> out;
  for (size_t total = 0; total < s.size();) {
    out.push_back(len(rng));
    total += out.back();
  }
  return out;
}

void append(std::vector<uint8_t>& stream, BytesStreamOutput& out) {
  std::vector<uint8_t> bytes = out.bytes().toVector();
  stream.insert(stream.end(), bytes.begin(), bytes.end());
}

// Requests, responses, errors, handshakes, pings and compressed bodies, from
// empty to a few hundred KiB.
std::vector<uint8_t> mixedStream(uint32_t seed, int count, size_t* frames) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> stream;
  *frames = 0;
  for (int i = 0; i < count; ++i) {
    int kind = static_cast<int>(rng() % 6);
    size_t size = rng() % 8 == 0 ? rng() % (300 * 1024) : rng() % 2000;
    std::vector<uint8_t> body(size);
    for (auto& b : body) b = static_cast<uint8_t>(rng() % 16);
    TransportVersion v = rng() % 2 ? TransportVersion::V_8_7_0 : TransportVersion::V_7_10_0;
    FrameIds ids{static_cast<int64_t>(rng()), v, kind == 4};
    BytesStreamOutput out;
    switch (kind) {
      case 0:
      case 4:
        writeRequestFrame(out, ids, "action/" + std::to_string(i), {{"h", "v"}}, RawBody(body),
                          CompressionScheme::kNone);
        break;
      case 1:
        writeResponseFrame(out, ids, {}, RawBody(body),
                           rng() % 2 == 0 ? CompressionScheme::kLz4 : CompressionScheme::kNone);
        break;
      case 2:
        writeErrorFrame(
            out, ids,
            *exceptionFromTypeAndMessage("illegal_argument_exception", "bad " + std::to_string(i)));
        break;
      case 3:
        out.writeBytes(kPingFrame);
        break;
      default:
        writeRequestFrame(out, ids, "c", {}, RawBody(body), CompressionScheme::kLz4);
        break;
    }
    append(stream, out);
    ++*frames;
  }
  return stream;
}

TEST(FrameDecoder, ReplayOfMixedMessagesInRandomSlices) {
  size_t expected_frames = 0;
  const uint32_t seed = 20261130;
  std::vector<uint8_t> stream = mixedStream(seed, 300, &expected_frames);
  std::printf("seed %u, %zu frames, %zu bytes\n", seed, expected_frames, stream.size());
  Outcome reference = run(stream, whole(stream));
  ASSERT_EQ(reference.error_type, "");
  ASSERT_EQ(reference.frames.size(), expected_frames);
  for (uint32_t slice_seed = 1; slice_seed <= 20; ++slice_seed) {
    Outcome o = run(stream, randomSlices(stream, slice_seed));
    ASSERT_EQ(o.error_type, "") << "slice seed " << slice_seed;
    ASSERT_TRUE(o.frames == reference.frames) << "slice seed " << slice_seed;
  }
}

// Feeds `stream` to `decoder` in random slices (seed `seed`), receiving into
// the frame's content space (contentSpace / commitContent, partly filled as a
// short read would) wherever the decoder offers it, feed() elsewhere.
void receiveMixed(FrameDecoder& decoder, const std::vector<uint8_t>& stream, uint32_t seed,
                  const std::function<void(DecodedFrame&&)>& sink) {
  std::mt19937 rng(seed);
  size_t at = 0;
  while (at < stream.size()) {
    size_t want = 1 + rng() % (64 * 1024);
    std::vector<std::span<uint8_t>> space = decoder.contentSpace(want);
    if (space.empty()) {
      size_t n = std::min(want, stream.size() - at);
      decoder.feed({stream.data() + at, n}, sink);
      at += n;
      continue;
    }
    size_t room = 0;
    for (auto s : space) room += s.size();
    size_t n = 1 + rng() % room;
    size_t copied = 0;
    for (auto s : space) {
      size_t c = std::min(s.size(), n - copied);
      std::memcpy(s.data(), stream.data() + at + copied, c);
      copied += c;
      if (copied == n) break;
    }
    decoder.commitContent(n, sink);
    at += n;
  }
}

// Receiving into the frame's pages where the content allows it, feed()
// elsewhere, in random slices: the same frames.
TEST(FrameDecoder, DirectContentReceiveEqualsFeed) {
  size_t expected_frames = 0;
  std::vector<uint8_t> stream = mixedStream(7, 200, &expected_frames);
  Outcome reference = run(stream, whole(stream));
  FrameDecoder decoder(8 << 20);
  Outcome direct;
  receiveMixed(decoder, stream, 11, [&](DecodedFrame&& f) {
    direct.frames.push_back({f.header, std::move(f.content)});
  });
  ASSERT_EQ(direct.frames.size(), expected_frames);
  EXPECT_TRUE(direct.frames == reference.frames);
  EXPECT_EQ(decoder.position(), stream.size());
}

// A content buffer the hook names receives the whole content of a frame that
// fits in it (one piece, at the buffer's start, no page taken); a frame whose
// content does not fit, or for which the hook names none, goes into pages.
// Either way, fed or received directly, the same frames.
TEST(FrameDecoder, ContentBufferReceivesTheFramesThatFitIt) {
  size_t expected_frames = 0;
  std::vector<uint8_t> stream = mixedStream(23, 200, &expected_frames);
  Outcome reference = run(stream, whole(stream));
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    PageRecycler recycler(PageRecycler::kPageSize);
    FrameDecoder decoder(8 << 20, recycler);
    // Per asked frame, in order: the buffer named (kind 0: fits exactly,
    // 1: one byte short, 2: none, 3: larger than needed).
    std::vector<std::unique_ptr<std::vector<uint8_t>>> buffers;
    std::vector<int> kinds;
    std::vector<size_t> pages_at_start;
    std::mt19937 rng(seed);
    decoder.setContentBuffer([&](const FrameHeader& h) {
      const int kind = static_cast<int>(rng() % 4);
      kinds.push_back(kind);
      pages_at_start.push_back(recycler.outstandingPages());
      const size_t need = h.contentSize();
      const size_t size = kind == 0 ? need : kind == 1 ? need - 1 : kind == 2 ? 0 : need + 100;
      buffers.push_back(std::make_unique<std::vector<uint8_t>>(size == 0 ? 0 : size, 0xEE));
      if (kind == 1 && need == 0) kinds.back() = 2;  // no "one byte short" of nothing
      return std::span<uint8_t>(*buffers.back());
    });
    Outcome got;
    size_t pages_taken_for_buffered = 0;
    size_t asked = 0;
    auto sink = [&](DecodedFrame&& f) {
      if (!f.header.isPing()) {
        const int kind = kinds.at(asked);
        const std::vector<uint8_t>& buffer = *buffers.at(asked);
        ++asked;
        const bool in_buffer = (kind == 0 || kind == 3) && !buffer.empty();
        if (in_buffer) {
          ASSERT_EQ(f.content.pieces().size(), 1u);
          EXPECT_EQ(f.content.pieces()[0].data(), buffer.data());
          pages_taken_for_buffered += recycler.outstandingPages() - pages_at_start.at(asked - 1);
        } else if (f.content.length() > 0) {
          EXPECT_NE(f.content.pieces()[0].data(), buffer.data());
        }
      }
      got.frames.push_back({f.header, std::move(f.content)});
    };
    if (seed % 2) {
      receiveMixed(decoder, stream, seed, sink);
    } else {
      for (size_t at = 0, n = 0; at < stream.size(); at += n) {
        n = std::min<size_t>(1 + rng() % 20000, stream.size() - at);
        decoder.feed({stream.data() + at, n}, sink);
      }
    }
    ASSERT_EQ(got.frames.size(), expected_frames) << "seed " << seed;
    EXPECT_TRUE(got.frames == reference.frames) << "seed " << seed;
    EXPECT_EQ(asked, kinds.size());
    EXPECT_EQ(pages_taken_for_buffered, 0u) << "seed " << seed;
  }
}

TEST(FrameDecoder, OneByteAtATimeEqualsWholeFrames) {
  size_t expected_frames = 0;
  std::vector<uint8_t> stream = mixedStream(99, 40, &expected_frames);
  Outcome reference = run(stream, whole(stream));
  Outcome bytes = run(stream, bytewise(stream));
  ASSERT_EQ(reference.frames.size(), expected_frames);
  EXPECT_TRUE(bytes.frames == reference.frames);
}

TEST(FrameDecoder, StrictPrefixesYieldNoFrameAndStayMidFrame) {
  BytesStreamOutput out;
  writeRequestFrame(out, {5, TransportVersion::V_8_7_0, false}, "act", {}, RawBody({1, 2, 3}),
                    CompressionScheme::kNone);
  std::vector<uint8_t> frame = out.bytes().toVector();
  for (size_t n = 0; n < frame.size(); ++n) {
    FrameDecoder decoder(1 << 20);
    int frames = 0;
    decoder.feed({frame.data(), n}, [&](DecodedFrame&&) { ++frames; });
    EXPECT_EQ(frames, 0) << n;
    EXPECT_EQ(decoder.midFrame(), n > 0) << n;
    EXPECT_EQ(decoder.bufferedBytes(), n);
    EXPECT_EQ(decoder.expectedFrameSize(), n >= 6 ? frame.size() : 0) << n;
  }
}

TEST(FrameDecoder, PingIsAFrameOfItsOwn) {
  std::vector<uint8_t> s(kPingFrame, kPingFrame + 6);
  s.insert(s.end(), kPingFrame, kPingFrame + 6);
  for (const auto& slices : {whole(s), bytewise(s)}) {
    Outcome o = run(s, slices);
    ASSERT_EQ(o.frames.size(), 2u);
    EXPECT_TRUE(o.frames[0].header.isPing());
    EXPECT_TRUE(o.frames[0].content.empty());
  }
}

struct BadCase {
  const char* name;
  std::vector<uint8_t> bytes;
  const char* error_type;  // typeid name of the expected error
  const char* message_part;
  uint64_t position;  // stream offset at which the decoder gives up
};

TEST(FrameDecoder, RejectsEachBadFrameAtTheSameOffsetHoweverSliced) {
  const std::string corrupt = typeid(CorruptStreamError).name();
  const std::string limit = typeid(LimitExceededError).name();
  std::string http = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  std::vector<uint8_t> tls = {0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03};
  // A good frame first, so errors happen mid-stream.
  BytesStreamOutput good;
  writeResponseFrame(good, {1, TransportVersion::V_8_7_0, false}, {}, RawBody({7}),
                     CompressionScheme::kNone);
  std::vector<uint8_t> prefix = good.bytes().toVector();
  const uint64_t p = prefix.size();

  std::vector<BadCase> cases = {
      {"wrong magic",
       {'E', 'X', 0, 0, 0, 20},
       corrupt.c_str(),
       "invalid internal transport message format",
       2},
      {"http", std::vector<uint8_t>(http.begin(), http.end()), corrupt.c_str(), "HTTP", 2},
      {"tls hello", tls, corrupt.c_str(), "TLS", 2},
      {"length 0", {'E', 'S', 0, 0, 0, 0, 1, 2, 3}, corrupt.c_str(), "invalid data length: 0", 6},
      {"length -2",
       {'E', 'S', 0xff, 0xff, 0xff, 0xfe},
       corrupt.c_str(),
       "invalid data length: -2",
       6},
      {"length 16", headerBytes(16, 0), corrupt.c_str(), "invalid data length: 16", 6},
      {"oversize", headerBytes(1 << 20, 0), limit.c_str(),
       "exceeds the maximum frame size of 65536", 6},
      {"negative variable header", headerBytes(40, -1, 23), corrupt.c_str(),
       "negative variable header size: -1", 23},
      {"variable header past the frame", headerBytes(20, 4, 3), corrupt.c_str(),
       "larger than the frame content", 23},
  };
  for (const BadCase& c : cases) {
    std::vector<uint8_t> stream = prefix;
    stream.insert(stream.end(), c.bytes.begin(), c.bytes.end());
    for (const auto& slices : {whole(stream), bytewise(stream), randomSlices(stream, 3)}) {
      Outcome o = run(stream, slices, 64 * 1024);
      EXPECT_EQ(o.frames.size(), 1u) << c.name;
      EXPECT_EQ(o.error_type, c.error_type) << c.name;
      EXPECT_NE(o.error_message.find(c.message_part), std::string::npos)
          << c.name << ": " << o.error_message;
      EXPECT_EQ(o.error_position, p + c.position) << c.name;
    }
  }
}

// Mutated streams: the decoder and the message parser either succeed or
// throw a StreamError, never anything else (ASan checks the memory side).
TEST(FrameDecoder, MutatedStreamsFailCleanly) {
  const uint32_t seed = 4242;
  std::printf("seed %u\n", seed);
  std::mt19937 rng(seed);
  size_t frames_seen = 0, errors = 0;
  for (int round = 0; round < 300; ++round) {
    size_t n = 0;
    std::vector<uint8_t> stream = mixedStream(seed + round, 4, &n);
    int mutations = 1 + static_cast<int>(rng() % 4);
    for (int m = 0; m < mutations; ++m) {
      // Mostly near the start, where headers and variable headers live.
      size_t at = rng() % 2 ? rng() % std::min<size_t>(stream.size(), 64) : rng() % stream.size();
      stream[at] = static_cast<uint8_t>(rng());
    }
    FrameDecoder decoder(1 << 20);
    try {
      decoder.feed(stream, [&](DecodedFrame&& f) {
        ++frames_seen;
        if (f.header.isPing()) return;
        try {
          InboundMessage m = InboundMessage::parse(std::move(f), 1 << 20);
          (void)m;
        } catch (const StreamError&) {
          ++errors;
        }
      });
    } catch (const StreamError&) {
      ++errors;
    }
  }
  EXPECT_GT(frames_seen, 0u);
  EXPECT_GT(errors, 0u);
}

TEST(FrameDecoder, GarbageMessageNamesTheBytes) {
  EXPECT_EQ(describeGarbage('P', 'O'),
            "received what looks like a plain HTTP request on a transport port, got (50 4f) "
            "instead of 'E' 'S' (45 53)");
}

TEST(FrameDecoder, PagesFollowArrivedBytesNotClaimedLength) {
  PageRecycler recycler(PageRecycler::kPageSize);
  {
    FrameDecoder decoder(1u << 30, recycler);
    std::vector<uint8_t> h = headerBytes((1 << 30) - 6, 0, 100);
    decoder.feed(h, [](DecodedFrame&&) { FAIL(); });
    EXPECT_EQ(decoder.bufferedBytes(), h.size());
    EXPECT_EQ(decoder.expectedFrameSize(), 1u << 30);
    EXPECT_EQ(recycler.outstandingPages(), 1u);
  }
  EXPECT_EQ(recycler.outstandingPages(), 0u);
  // A whole frame's pages live as long as its content, then go back.
  FrameDecoder decoder(1u << 30, recycler);
  std::vector<uint8_t> f = headerBytes(17 + 40000, 0, 40000);
  std::vector<DecodedFrame> frames;
  decoder.feed(f, [&](DecodedFrame&& d) { frames.push_back(std::move(d)); });
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].content.length(), 40000u);
  EXPECT_EQ(recycler.outstandingPages(), 3u);
  frames.clear();
  EXPECT_EQ(recycler.outstandingPages(), 0u);
}

TEST(FrameDecoder, ExceptionFromSinkLeavesDecoderAtNextFrame) {
  std::vector<uint8_t> s(kPingFrame, kPingFrame + 6);
  s.insert(s.end(), kPingFrame, kPingFrame + 6);
  FrameDecoder decoder(1 << 20);
  int seen = 0;
  EXPECT_THROW(decoder.feed(s,
                            [&](DecodedFrame&&) {
                              ++seen;
                              throw std::runtime_error("x");
                            }),
               std::runtime_error);
  EXPECT_FALSE(decoder.failed());
  EXPECT_EQ(decoder.position(), 6u);
  decoder.feed({s.data() + 6, 6}, [&](DecodedFrame&&) { ++seen; });
  EXPECT_EQ(seen, 2);
}

// Admission: a refused frame is read in step but its content is never stored;
// it is delivered in order, marked refused, however the bytes are sliced.
struct Admitted {
  std::vector<Seen> frames;
  std::vector<bool> refused;
  size_t asked = 0;
};

Admitted runAdmitting(const std::vector<uint8_t>& stream, const std::vector<size_t>& slices,
                      PageRecycler& recycler) {
  FrameDecoder decoder(8 << 20, recycler);
  Admitted out;
  decoder.setAdmission([&](const FrameHeader& h) {
    ++out.asked;
    EXPECT_EQ(decoder.bufferedBytes(), kHeaderSize);
    return h.contentSize() <= 1000;  // refuse the larger frames
  });
  auto sink = [&](DecodedFrame&& f) {
    out.frames.push_back({f.header, std::move(f.content)});
    out.refused.push_back(f.refused);
    if (f.refused) {
      EXPECT_EQ(out.frames.back().content.length(), 0u);
    }
  };
  size_t at = 0;
  for (size_t n : slices) {
    n = std::min(n, stream.size() - at);
    decoder.feed({stream.data() + at, n}, sink);
    at += n;
    // A refused frame in progress holds no page.
    if (decoder.midFrame() && decoder.expectedFrameSize() > kHeaderSize + 1000 &&
        decoder.bufferedBytes() >= kHeaderSize) {
      EXPECT_EQ(decoder.contentRemaining(), 0u);
    }
    if (at == stream.size()) break;
  }
  EXPECT_FALSE(decoder.midFrame());
  return out;
}

TEST(FrameDecoder, RefusedFramesAreDroppedUnbufferedAndDeliveredInOrder) {
  size_t expected_frames = 0;
  std::vector<uint8_t> stream = mixedStream(42, 200, &expected_frames);
  Outcome plain = run(stream, whole(stream));
  ASSERT_EQ(plain.frames.size(), expected_frames);
  size_t non_pings = 0, large = 0;
  for (const Seen& f : plain.frames) {
    non_pings += !f.header.isPing();
    large += !f.header.isPing() && f.header.contentSize() > 1000;
  }
  ASSERT_GT(large, 10u);  // the stream exercises refusals
  PageRecycler recycler(PageRecycler::kPageSize);
  std::vector<std::vector<size_t>> slicings = {whole(stream), bytewise(stream)};
  for (uint32_t seed = 1; seed <= 5; ++seed) slicings.push_back(randomSlices(stream, seed));
  for (const auto& slices : slicings) {
    Admitted a = runAdmitting(stream, slices, recycler);
    EXPECT_EQ(a.asked, non_pings);
    ASSERT_EQ(a.frames.size(), plain.frames.size());
    for (size_t i = 0; i < a.frames.size(); ++i) {
      const Seen& want = plain.frames[i];
      const bool refuse = !want.header.isPing() && want.header.contentSize() > 1000;
      EXPECT_EQ(a.refused[i], refuse) << i;
      if (refuse) {
        EXPECT_EQ(a.frames[i].header.request_id, want.header.request_id) << i;
        EXPECT_EQ(a.frames[i].header.length, want.header.length) << i;
      } else {
        EXPECT_TRUE(a.frames[i] == want) << i;
      }
    }
  }
  EXPECT_EQ(recycler.outstandingPages(), 0u);
}

TEST(FrameDecoder, RefusedFrameTakesNoPagesWhateverItClaims) {
  PageRecycler recycler(PageRecycler::kPageSize);
  FrameDecoder decoder(1u << 30, recycler);
  decoder.setAdmission([](const FrameHeader&) { return false; });
  std::vector<uint8_t> f = headerBytes((1 << 30) - 6, 0, 300000);
  decoder.feed(f, [](DecodedFrame&&) { FAIL(); });
  EXPECT_EQ(recycler.outstandingPages(), 0u);
  EXPECT_EQ(decoder.bufferedBytes(), f.size());
  EXPECT_TRUE(decoder.contentSpace(1 << 20).empty());  // no direct receive either
}

TEST(FrameDecoder, AdmissionThatThrowsFailsTheDecoder) {
  FrameDecoder decoder(1 << 20);
  decoder.setAdmission([](const FrameHeader&) -> bool { throw CorruptStreamError("no"); });
  std::vector<uint8_t> f = headerBytes(17 + 10, 0, 10);
  EXPECT_THROW(decoder.feed(f, [](DecodedFrame&&) { FAIL(); }), CorruptStreamError);
  EXPECT_TRUE(decoder.failed());
  EXPECT_EQ(decoder.position(), kHeaderSize);
  EXPECT_THROW(decoder.feed(f, [](DecodedFrame&&) {}), CorruptStreamError);
}

TEST(FrameDecoder, ContentBufferIsNotAskedForRefusedFramesAndAThrowFailsTheDecoder) {
  FrameDecoder refusing(1 << 20);
  refusing.setAdmission([](const FrameHeader&) { return false; });
  refusing.setContentBuffer([](const FrameHeader&) -> std::span<uint8_t> {
    ADD_FAILURE() << "asked for a refused frame";
    return {};
  });
  std::vector<uint8_t> f = headerBytes(17 + 10, 0, 10);
  int frames = 0;
  refusing.feed(f, [&](DecodedFrame&& d) { frames += d.refused; });
  EXPECT_EQ(frames, 1);

  FrameDecoder throwing(1 << 20);
  throwing.setContentBuffer(
      [](const FrameHeader&) -> std::span<uint8_t> { throw CorruptStreamError("no buffer"); });
  EXPECT_THROW(throwing.feed(f, [](DecodedFrame&&) { FAIL(); }), CorruptStreamError);
  EXPECT_TRUE(throwing.failed());
  EXPECT_EQ(throwing.contentRemaining(), 0u);
}

}  // namespace
}  // namespace wirestream::transport
