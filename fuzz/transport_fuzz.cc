// Fuzz target: the transport frame decoder (FrameDecoder, wire format §9) and
// InboundMessage::parse (variable header, parent TaskId, DEFLATE and LZ4
// bodies), and readException on error bodies. Input: one slicing byte,
// then the byte stream a connection receives.
//
// Differential checks:
//   - slicing: the stream fed whole and fed in slices of 1..1024 bytes (as
//     the slicing byte picks) gives the same frames and the same error (type,
//     message, stream offset) — FrameDecoder's documented determinism;
//   - admission: fed with an admission hook that refuses every frame with an
//     odd request id, the decoder delivers the same frames in order, the
//     refused ones marked and without content, and the same error;
//   - round trip: every frame that parses is written again with
//     writeRequestFrame / writeResponseFrame (same ids, headers, action, body,
//     compression) and decoded again to the same fields and body bytes (a
//     request writer carries request headers only, a response writer
//     response headers only, so only those are compared). The
//     frame bytes are canonical, and compared exactly, when the body is not
//     compressed (compressed output is not unique), the status is one the writers
//     produce, and each header map has at most one entry (ES writes maps in
//     hash order; we write them sorted);
//   - error bodies: readException (remote_exception.h) on the body of every
//     error response; what reads completely is written again at the frame's
//     version and must read back to the same bytes.
#include <cstdint>
#include <functional>
#include <string>
#include <typeinfo>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "fuzz/program.h"
#include "stream/bytes_stream_output.h"
#include "transport/frame.h"
#include "transport/frame_decoder.h"
#include "transport/inbound_message.h"
#include "transport/remote_exception.h"

namespace {

using namespace wirestream;
using namespace wirestream::transport;

constexpr size_t kMaxFrame = 1 << 20;
constexpr size_t kMaxBody = 1 << 20;

struct Decoded {
  std::vector<std::vector<uint8_t>> frames;  // header bytes + content
  std::string error;
  uint64_t error_offset = 0;
};

bool refusedByAdmission(const FrameHeader& h) { return (h.request_id & 1) != 0; }

// With `refuse_odd`, refused frames are recorded as their header alone.
Decoded decodeStream(std::span<const uint8_t> bytes, uint8_t slicing, bool refuse_odd = false) {
  static constexpr size_t kSlices[] = {1, 2, 3, 5, 7, 13, 32, 1024};
  Decoded d;
  FrameDecoder decoder(kMaxFrame);
  if (refuse_odd) {
    decoder.setAdmission([](const FrameHeader& h) { return !refusedByAdmission(h); });
  }
  auto on_frame = [&](DecodedFrame&& f) {
    FUZZ_CHECK(f.refused == (refuse_odd && !f.header.isPing() && refusedByAdmission(f.header)),
               "frame %lld refused: %d", static_cast<long long>(f.header.request_id), f.refused);
    FUZZ_CHECK(!f.refused || f.content.length() == 0, "a refused frame has content");
    std::vector<uint8_t> b(kHeaderSize);
    encodeHeader(f.header, b.data());
    if (f.header.isPing()) b.resize(kMarkerAndLengthSize);
    std::vector<uint8_t> c = f.content.toVector();
    b.insert(b.end(), c.begin(), c.end());
    d.frames.push_back(std::move(b));
  };
  uint32_t state = slicing;
  try {
    for (size_t off = 0; off < bytes.size();) {
      size_t n = bytes.size() - off;
      if (slicing != 0) {
        state = state * 1103515245u + 12345u;
        n = std::min(n, kSlices[(state >> 16) % 8]);
      }
      decoder.feed(bytes.subspan(off, n), on_frame);
      off += n;
    }
  } catch (const StreamError& e) {
    d.error = std::string(typeid(e).name()) + ": " + e.what();
    d.error_offset = decoder.position();
  }
  return d;
}

// A body that writes given bytes.
struct RawBody final : Writeable {
  std::vector<uint8_t> bytes;
  void writeTo(StreamOutput& out) const override { out.writeBytes(bytes); }
};

// Parses one whole frame (from decodeStream) again.
InboundMessage parseFrame(const std::vector<uint8_t>& frame) {
  std::vector<InboundMessage> got;
  FrameDecoder decoder(kMaxFrame);
  decoder.feed(frame, [&](DecodedFrame&& f) {
    got.push_back(InboundMessage::parse(std::move(f), kMaxBody));
  });
  FUZZ_CHECK(got.size() == 1, "%zu frames from one", got.size());
  return std::move(got[0]);
}

// The reader takes any bytes; an exception it read whole writes back to bytes
// that read to the same exception (written again: the same bytes).
void checkErrorBody(const InboundMessage& m) {
  std::shared_ptr<const RemoteException> e;
  try {
    BytesReferenceStreamInput in(m.body());
    in.setTransportVersion(m.header.version());
    e = readException(in);
  } catch (const StreamError&) {
    return;
  }
  if (!e) return;
  std::function<bool(const RemoteException&)> whole = [&](const RemoteException& x) {
    if (x.partial) return false;
    if (x.cause && !whole(*x.cause)) return false;
    for (const auto& s : x.suppressed) {
      if (!whole(*s)) return false;
    }
    return true;
  };
  if (!whole(*e)) return;
  auto encode = [&](const RemoteException& x) {
    BytesStreamOutput out;
    out.setTransportVersion(m.header.version());
    writeException(out, &x);
    return out.bytes().toVector();
  };
  const std::vector<uint8_t> once = encode(*e);
  ByteArrayStreamInput in(once);
  in.setTransportVersion(m.header.version());
  auto again = readException(in);
  FUZZ_CHECK(again && in.available() == 0, "a written exception does not read back");
  FUZZ_CHECK(encode(*again) == once, "exception bytes unstable: %s", fuzz::hexPrefix(once).c_str());
}

void checkRoundTrip(const std::vector<uint8_t>& frame) {
  if (frame.size() == kMarkerAndLengthSize) return;  // a ping
  InboundMessage m;
  try {
    m = parseFrame(frame);
  } catch (const StreamError&) {
    return;
  }
  if (m.header.isResponse() && m.header.isError()) checkErrorBody(m);
  RawBody body;
  body.bytes = m.body().toVector();
  const FrameHeader& h = m.header;
  FrameIds ids{h.request_id, h.version(), h.isHandshake()};
  BytesStreamOutput out;
  uint8_t writer_status;
  if (h.isRequest()) {
    writeRequestFrame(out, ids, m.action, m.request_headers, body, m.compression);
    writer_status = 0;
  } else {
    writeResponseFrame(out, ids, m.response_headers, body, m.compression);
    writer_status = status::kResponse;
  }
  if (h.isCompressed()) writer_status |= status::kCompressed;
  if (h.isHandshake()) writer_status |= status::kHandshake;
  std::vector<uint8_t> again = out.bytes().toVector();

  InboundMessage m2 = parseFrame(again);
  FUZZ_CHECK(m2.header.request_id == h.request_id && m2.header.version_id == h.version_id,
             "ids differ after a round trip");
  FUZZ_CHECK(m2.action == m.action, "action differs: %s vs %s", m2.action.c_str(),
             m.action.c_str());
  // Both maps travel in every frame, but a request writer takes only request
  // headers and a response writer only response headers: compare those, and
  // the bytes only when the other map was empty.
  bool other_empty = h.isRequest() ? m.response_headers.empty() : m.request_headers.empty();
  if (h.isRequest()) {
    FUZZ_CHECK(m2.request_headers == m.request_headers,
               "request headers differ after a round trip");
  } else {
    FUZZ_CHECK(m2.response_headers == m.response_headers,
               "response headers differ after a round trip");
  }
  FUZZ_CHECK(m2.body() == m.body(), "body differs after a round trip");
  if (!h.isCompressed() && h.status == writer_status && other_empty &&
      m.request_headers.size() <= 1 && m.response_headers.size() <= 1) {
    FUZZ_CHECK(again.size() <= frame.size(), "re-encoded frame longer: %s -> %s",
               fuzz::hexPrefix(frame).c_str(), fuzz::hexPrefix(again).c_str());
    if (again.size() == frame.size()) {
      FUZZ_CHECK(again == frame, "re-encoded frame differs: %s -> %s",
                 fuzz::hexPrefix(frame).c_str(), fuzz::hexPrefix(again).c_str());
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::span<const uint8_t> stream(data + 1, size - 1);
  Decoded whole = decodeStream(stream, 0);
  Decoded sliced = decodeStream(stream, data[0] | 1);
  FUZZ_CHECK(whole.frames == sliced.frames, "slicing changed the frames (%zu vs %zu)",
             whole.frames.size(), sliced.frames.size());
  FUZZ_CHECK(whole.error == sliced.error && whole.error_offset == sliced.error_offset,
             "slicing changed the error: [%s] at %llu vs [%s] at %llu", whole.error.c_str(),
             static_cast<unsigned long long>(whole.error_offset), sliced.error.c_str(),
             static_cast<unsigned long long>(sliced.error_offset));
  Decoded admitted = decodeStream(stream, data[0], true);
  FUZZ_CHECK(admitted.frames.size() == whole.frames.size(), "admission changed the frame count");
  for (size_t i = 0; i < whole.frames.size(); ++i) {
    std::vector<uint8_t> want = whole.frames[i];
    if (want.size() >= kHeaderSize && refusedByAdmission(decodeHeader(want.data()))) {
      want.resize(kHeaderSize);
    }
    FUZZ_CHECK(admitted.frames[i] == want, "admission changed frame %zu", i);
  }
  FUZZ_CHECK(admitted.error == whole.error && admitted.error_offset == whole.error_offset,
             "admission changed the error: [%s] vs [%s]", admitted.error.c_str(),
             whole.error.c_str());
  for (const auto& f : whole.frames) checkRoundTrip(f);
  return 0;
}
