// Reads the grammar of frame.cc incrementally. States, by bytes of the frame
// received: [0, 2) magic, [2, 6) length (a ping ends here), [6, 23) the rest
// of the fixed header, then length - 17 content bytes.
#include "transport/frame_decoder.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "codec/byte_order.h"
#include "stream/errors.h"

namespace wirestream::transport {

namespace {

std::string hex2(uint8_t a, uint8_t b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%02x %02x", a, b);
  return buf;
}

bool looksLikeHttp(uint8_t a, uint8_t b) {
  static constexpr const char* kMethods[] = {"GE", "PO", "PU", "HE", "DE", "OP", "PA", "TR", "CO"};
  for (const char* m : kMethods) {
    if (a == static_cast<uint8_t>(m[0]) && b == static_cast<uint8_t>(m[1])) return true;
  }
  return false;
}

}  // namespace

std::string describeGarbage(uint8_t first, uint8_t second) {
  std::string what;
  if (looksLikeHttp(first, second)) {
    what = "received what looks like a plain HTTP request on a transport port";
  } else if (first == 0x16 && second == 0x03) {
    what = "received what looks like a TLS handshake (ClientHello) on a plain transport port";
  } else {
    what = "invalid internal transport message format";
  }
  return what + ", got (" + hex2(first, second) + ") instead of 'E' 'S' (45 53)";
}

FrameDecoder::FrameDecoder(size_t max_frame_size, PageRecycler& recycler)
    : max_frame_size_(max_frame_size), recycler_(&recycler) {}

size_t FrameDecoder::expectedFrameSize() const {
  if (header_have_ < kMarkerAndLengthSize) return 0;
  return current_.frameSize();
}

void FrameDecoder::fail(std::exception_ptr error) {
  error_ = error;
  std::rethrow_exception(error_);
}

void FrameDecoder::checkMagic() {
  if (header_[0] != 'E' || header_[1] != 'S') {
    try {
      internal::throwCorrupt(describeGarbage(header_[0], header_[1]));
    } catch (...) {
      fail(std::current_exception());
    }
  }
}

void FrameDecoder::checkLength() {
  int32_t length = static_cast<int32_t>(codec::loadBig32(header_ + 2));
  current_ = FrameHeader{};
  current_.length = length;
  if (length == kPingLength) return;
  try {
    if (length < kMinFrameLength) {
      internal::throwCorrupt("invalid data length: " + std::to_string(length) +
                             " (a frame needs at least " + std::to_string(kMinFrameLength) + ")");
    }
    size_t frame_size = static_cast<size_t>(length) + kMarkerAndLengthSize;
    if (frame_size > max_frame_size_) {
      internal::throwLimitExceeded("transport frame of " + std::to_string(frame_size) +
                                   " bytes exceeds the maximum frame size of " +
                                   std::to_string(max_frame_size_) + " bytes");
    }
  } catch (...) {
    fail(std::current_exception());
  }
}

void FrameDecoder::checkFixedHeader() {
  current_ = decodeHeader(header_);
  try {
    if (current_.version().before(kVariableHeaderSizeVersion)) {
      // The last 4 header bytes read are content: the variable header's start.
      // ES 7.x sends its handshake at 6.8.0 and answers one at the request's version, so
      // both halves of a handshake may come without the size; nothing else does.
      if (!current_.isHandshake()) {
        internal::throwCorrupt("a frame at version " + current_.version().toString() +
                               " (before 7.6.0, without a variable header size) that is not "
                               "a handshake");
      }
      current_.legacy = true;
      current_.variable_header_size = -1;
    } else if (current_.variable_header_size < 0) {
      internal::throwCorrupt("negative variable header size: " +
                             std::to_string(current_.variable_header_size));
    }
    if (!current_.legacy &&
        static_cast<size_t>(current_.variable_header_size) > current_.contentSize()) {
      internal::throwCorrupt("variable header size " +
                             std::to_string(current_.variable_header_size) +
                             " is larger than the frame content of " +
                             std::to_string(current_.contentSize()) + " bytes");
    }
  } catch (...) {
    fail(std::current_exception());
  }
  content_need_ = current_.contentSize();
  bool admit = true;
  try {
    if (admission_) admit = admission_(current_);
  } catch (...) {
    fail(std::current_exception());
  }
  // A legacy frame's content starts with the header's last 4 bytes.
  const size_t carried = current_.legacy ? 4 : 0;
  if (!admit) {
    skipping_ = true;
    skipped_ = carried;
    return;
  }
  std::span<uint8_t> buffer;
  try {
    if (content_buffer_) buffer = content_buffer_(current_);
  } catch (...) {
    fail(std::current_exception());
  }
  if (!buffer.empty() && buffer.size() >= content_need_) {
    external_ = buffer.data();
    std::memcpy(external_, header_ + kLegacyHeaderSize, carried);
    content_have_ = carried;
    return;
  }
  content_ = std::make_shared<BytesStreamOutput>(*recycler_);
  content_->writeBytes(std::span<const uint8_t>(header_ + kLegacyHeaderSize, carried));
  content_have_ = carried;
}

size_t FrameDecoder::consumeHeader(std::span<const uint8_t> bytes) {
  size_t used = 0;
  // Byte by byte up to each checkpoint so every check fires at the same
  // stream offset however the input is sliced.
  auto take_until = [&](size_t target) {
    size_t n = std::min(target - header_have_, bytes.size() - used);
    std::memcpy(header_ + header_have_, bytes.data() + used, n);
    header_have_ += n;
    used += n;
    position_ += n;
    return header_have_ == target;
  };
  if (header_have_ < 2) {
    if (!take_until(2)) return used;
    checkMagic();
  }
  if (header_have_ < kMarkerAndLengthSize) {
    if (!take_until(kMarkerAndLengthSize)) return used;
    checkLength();
    if (current_.isPing()) return used;
  }
  if (take_until(kHeaderSize)) checkFixedHeader();
  return used;
}

void FrameDecoder::feed(std::span<const uint8_t> bytes,
                        const std::function<void(DecodedFrame&&)>& on_frame) {
  if (error_) std::rethrow_exception(error_);
  size_t at = 0;
  while (true) {
    if (header_have_ < kHeaderSize &&
        !(header_have_ == kMarkerAndLengthSize && current_.isPing())) {
      if (at == bytes.size()) return;
      at += consumeHeader(bytes.subspan(at));
      const bool ping = header_have_ == kMarkerAndLengthSize && current_.isPing();
      if (header_have_ < kHeaderSize && !ping) continue;
    }
    if (current_.isPing()) {
      DecodedFrame frame;
      frame.header = current_;
      header_have_ = 0;
      current_ = FrameHeader{};
      on_frame(std::move(frame));
      continue;
    }
    const size_t have = skipping_ ? skipped_ : content_have_;
    size_t n = std::min(content_need_ - have, bytes.size() - at);
    if (n > 0) {
      if (skipping_) {
        skipped_ += n;
      } else {
        if (external_) {
          std::memcpy(external_ + have, bytes.data() + at, n);
        } else {
          content_->writeBytes(bytes.subspan(at, n));
        }
        content_have_ += n;
      }
      at += n;
      position_ += n;
    }
    if (have + n < content_need_) return;
    emitFrame(on_frame);
  }
}

void FrameDecoder::emitFrame(const std::function<void(DecodedFrame&&)>& on_frame) {
  DecodedFrame frame;
  frame.header = current_;
  if (skipping_) {
    frame.refused = true;
    skipping_ = false;
    skipped_ = 0;
  } else if (external_) {
    // A zero-size content still gets a valid (empty) reference.
    frame.content = BytesReference(BytesReference::Piece(external_, content_need_));
    external_ = nullptr;
  } else {
    const BytesReference pages = content_->bytes();
    frame.content = BytesReference(pages.pieces(), std::move(content_));
    content_.reset();
  }
  content_have_ = 0;
  header_have_ = 0;
  current_ = FrameHeader{};
  on_frame(std::move(frame));
}

size_t FrameDecoder::contentRemaining() const {
  if (error_ || header_have_ != kHeaderSize || skipping_ || current_.isPing()) return 0;
  return content_need_ - content_have_;
}

std::vector<std::span<uint8_t>> FrameDecoder::contentSpace(size_t max) {
  if (error_) std::rethrow_exception(error_);
  std::vector<std::span<uint8_t>> space;
  const size_t k = std::min(max, contentRemaining());
  if (k == 0) return space;
  if (external_) {
    space.emplace_back(external_ + content_have_, k);
    return space;
  }
  // Seeking ahead makes the pages exist; seeking back leaves them in place
  // (BytesStreamOutput never moves or drops a page it took), and
  // commitContent() seeks forward over what the socket wrote into them.
  const size_t start = content_->size();
  content_->seek(start + k);
  const BytesReference ahead = content_->bytes().slice(start, k);
  content_->seek(start);
  for (BytesReference::Piece piece : ahead.pieces()) {
    // The pages belong to content_, which only this decoder writes.
    space.emplace_back(const_cast<uint8_t*>(piece.data()), piece.size());
  }
  return space;
}

void FrameDecoder::commitContent(size_t n, const std::function<void(DecodedFrame&&)>& on_frame) {
  if (n == 0) return;
  if (n > contentRemaining()) {
    throw std::invalid_argument("commitContent past the frame's content");
  }
  if (!external_) content_->seek(content_have_ + n);
  content_have_ += n;
  position_ += n;
  if (content_have_ == content_need_) emitFrame(on_frame);
}

}  // namespace wirestream::transport
