// FrameDecoder: turns a byte stream, arriving in arbitrary slices, into whole
// transport frames (wire format §9). Socket-free: the TCP connection feeds it
// what it reads, tests and fuzzers feed it whatever they like.
//
// Example (runs: frame_decoder):
//   const uint8_t bytes_just_read[] = {'E', 'S', 0xFF, 0xFF, 0xFF, 0xFF, 'E'};  // ping, 'E'
//   std::vector<DecodedFrame> frames;
//   FrameDecoder decoder(/*max_frame_size=*/100 << 20);
//   decoder.feed(bytes_just_read, [&](DecodedFrame&& f) { frames.push_back(std::move(f)); });
//   bool arm_read_deadline = decoder.midFrame();  // true: a frame has begun
//
// Determinism: the frames emitted and the error thrown (type, message, and the
// stream offset at which it is thrown) depend only on the bytes, never on how
// they were sliced; fed one byte at a time it behaves exactly as when fed
// whole frames. Validation happens as soon as the deciding bytes are in:
//   - the first two bytes are not 'E' 'S' -> CorruptStreamError (names HTTP or
//     TLS when the bytes look like them);
//   - length 0 .. 16 or below -1 -> CorruptStreamError "invalid data length";
//   - frame size above max_frame_size -> LimitExceededError;
//   - negative variable-header size, or one larger than the frame ->
//     CorruptStreamError;
//   - a version before 7.6.0 (a 19-byte header, no variable-header size:
//     FrameHeader::legacy) on anything but a handshake (request or answer)
//     -> CorruptStreamError. ES 7.x sends its handshake request and answer
//     so; their content then starts with the header's last 4 bytes.
// After an error the decoder is failed: every later feed() rethrows it.
//
// Admission: an optional hook sees each non-ping frame's fixed header as soon
// as it is in and valid, before any content byte is stored. A frame it
// refuses is still read (so the stream stays in step) but its content is
// dropped as it arrives, and it is delivered in order with `refused` set and
// no content: a refused frame costs no memory however large it claims to be.
//
// Memory: a frame's bytes go into 16 KiB pages from a PageRecycler as they
// arrive, never sized from the length the header claims, never reallocated
// or copied again, and given back to the recycler when the last reference to
// the frame's content goes. An optional content-buffer hook may instead name
// a caller's buffer for an admitted frame whose whole content fits in it: the
// content then goes there and the frame references it without owning it.
// Not thread-safe (one connection, one decoder).
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "stream/bytes_reference.h"
#include "stream/bytes_stream_output.h"
#include "stream/page_recycler.h"
#include "transport/frame.h"

namespace wirestream::transport {

struct DecodedFrame {
  FrameHeader header;
  // The bytes after the 23-byte header (variable header, then body), in
  // recycled pages that this reference keeps alive, or in the buffer the
  // content-buffer hook named (not kept alive: its lender's); empty for a
  // ping.
  BytesReference content;
  // The admission hook refused the frame: its content was read and dropped.
  bool refused = false;
};

class FrameDecoder {
 public:
  // Returns whether to keep the content of the frame with this header. It
  // may send, log or count; if it throws, the decoder fails with that error.
  using Admission = std::function<bool(const FrameHeader&)>;

  explicit FrameDecoder(size_t max_frame_size,
                        PageRecycler& recycler = PageRecycler::defaultRecycler());

  // Installs the admission hook (none: every frame is kept).
  void setAdmission(Admission admission) { admission_ = std::move(admission); }

  // Consumes every byte of `bytes`, calling `on_frame` for each complete frame
  // (pings included) in order. Throws as described above; frames completed
  // before the bad bytes have been delivered by then. An exception thrown by
  // `on_frame` propagates and leaves the decoder at the next frame.
  void feed(std::span<const uint8_t> bytes, const std::function<void(DecodedFrame&&)>& on_frame);

  // Where an admitted non-ping frame's content goes, asked once its fixed
  // header is in and admitted: a buffer of at least header.contentSize()
  // bytes (the content is written there, and the frame's content references
  // it without keeping it alive), or an empty span (pages). A smaller buffer
  // is ignored. If it throws, the decoder fails with that error.
  using ContentBuffer = std::function<std::span<uint8_t>(const FrameHeader&)>;
  void setContentBuffer(ContentBuffer hook) { content_buffer_ = std::move(hook); }

  // Receiving straight into the frame's pages, for large frames: while a
  // frame's content is arriving, contentSpace(max) returns page space (one
  // span of the content buffer if the frame has one) for up to `max` of its
  // remaining bytes (empty otherwise); after the socket wrote n bytes at its
  // start, commitContent(n) accounts for them and delivers the frame if it
  // is complete. Same frames, same offsets as feed(); no feed()
  // may come between the two calls.
  std::vector<std::span<uint8_t>> contentSpace(size_t max);
  void commitContent(size_t n, const std::function<void(DecodedFrame&&)>& on_frame);
  // Content bytes of the current frame still to come (0 outside a content).
  size_t contentRemaining() const;

  // Some bytes of a frame have arrived, but not all of it.
  bool midFrame() const { return header_have_ > 0; }
  // Bytes of the current, incomplete frame received so far.
  // (A refused frame's dropped content counts as received.)
  size_t bufferedBytes() const { return header_have_ + (skipping_ ? skipped_ : content_have_); }
  // Size of the frame in progress, once its length is known (else 0).
  size_t expectedFrameSize() const;
  // Total bytes consumed, i.e. the stream offset of the next byte.
  uint64_t position() const { return position_; }
  bool failed() const { return static_cast<bool>(error_); }

 private:
  // Returns how many bytes of `bytes` were consumed (validating as it goes).
  size_t consumeHeader(std::span<const uint8_t> bytes);
  [[noreturn, gnu::cold]] void fail(std::exception_ptr error);
  void emitFrame(const std::function<void(DecodedFrame&&)>& on_frame);
  void checkMagic();
  void checkLength();
  void checkFixedHeader();

  const size_t max_frame_size_;
  PageRecycler* recycler_;
  uint8_t header_[kHeaderSize];
  size_t header_have_ = 0;
  FrameHeader current_;
  // The current frame's content: in pages (content_) or in the content
  // buffer (external_); content_have_ bytes of content_need_ are in.
  std::shared_ptr<BytesStreamOutput> content_;
  uint8_t* external_ = nullptr;
  size_t content_have_ = 0;
  size_t content_need_ = 0;
  Admission admission_;
  ContentBuffer content_buffer_;
  // The current frame was refused: content bytes dropped so far.
  bool skipping_ = false;
  size_t skipped_ = 0;
  uint64_t position_ = 0;
  std::exception_ptr error_;
};

// "the first bytes look like an HTTP request" and similar, for log lines
// about a connection that did not start with 'E' 'S'.
std::string describeGarbage(uint8_t first, uint8_t second);

}  // namespace wirestream::transport
