// StreamOutput: the writer side of the wire format (docs/wire-format.md).
//
//   BytesStreamOutput out;
//   out.writeVInt(300);            // AC 02
//   out.writeString("hello");      // 05 68 65 6C 6C 6F
//   BytesReference bytes = out.bytes();
//
// A StreamOutput writes into a buffer [pos_, end_) that a subclass provides.
// Every write is inline while the value fits in that buffer (one comparison);
// only when it does not does the write call out of line, and only that path
// reaches the subclass through the single virtual nextBuffer(). Multi-byte
// writes on the slow path are all-or-nothing: ensureCapacity() is asked first.
//
// Method names are Elasticsearch's so a reader can cross-reference them.
// Not thread-safe: one writer at a time.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "stream/byte_order.h"
#include "stream/errors.h"
#include "stream/transport_version.h"
#include "stream/varint.h"

namespace wirestream {

class StreamOutput {
 public:
  StreamOutput() = default;
  StreamOutput(const StreamOutput&) = delete;
  StreamOutput& operator=(const StreamOutput&) = delete;
  virtual ~StreamOutput() = default;

  TransportVersion transportVersion() const { return version_; }
  void setTransportVersion(TransportVersion version) { version_ = version; }

  // Pushes buffered bytes to the destination, for outputs that have one.
  virtual void flush() {}

  // ---- primitives (wire format §1) ----

  void writeByte(uint8_t b) {
    if (pos_ == end_) [[unlikely]] nextBuffer();
    *pos_++ = b;
  }

  void writeBytes(std::span<const uint8_t> bytes) {
    if (static_cast<size_t>(end_ - pos_) >= bytes.size()) [[likely]] {
      if (!bytes.empty()) std::memcpy(pos_, bytes.data(), bytes.size());
      pos_ += bytes.size();
    } else {
      writeBytesSlow(bytes.data(), bytes.size());
    }
  }

  void writeShort(int16_t v) {
    if (end_ - pos_ >= 2) [[likely]] {
      storeBig16(pos_, static_cast<uint16_t>(v));
      pos_ += 2;
    } else {
      writeFixedSlow(static_cast<uint16_t>(v), 2);
    }
  }

  void writeInt(int32_t v) {
    if (end_ - pos_ >= 4) [[likely]] {
      storeBig32(pos_, static_cast<uint32_t>(v));
      pos_ += 4;
    } else {
      writeFixedSlow(static_cast<uint32_t>(v), 4);
    }
  }

  void writeLong(int64_t v) {
    if (end_ - pos_ >= 8) [[likely]] {
      storeBig64(pos_, static_cast<uint64_t>(v));
      pos_ += 8;
    } else {
      writeFixedSlow(static_cast<uint64_t>(v), 8);
    }
  }

  // Negatives always take 5 bytes (the 32-bit two's complement, unsigned).
  void writeVInt(int32_t v) {
    uint32_t u = static_cast<uint32_t>(v);
    if (u < 0x80 && pos_ != end_) [[likely]] {
      *pos_++ = static_cast<uint8_t>(u);
    } else if (end_ - pos_ >= kMaxVIntBytes) [[likely]] {
      pos_ = encodeVInt(pos_, u);
    } else {
      writeVIntSlow(u);
    }
  }

  // A negative value is a caller error (std::invalid_argument), as in ES.
  void writeVLong(int64_t v) {
    if (v < 0) [[unlikely]] throwNegativeVLong(v);
    writeVLongNoCheck(v);
  }

  // Writes any value as a 64-bit LEB128 (10 bytes for negatives). ES uses it
  // where a negative sentinel must round-trip through readVLong.
  void writeVLongNoCheck(int64_t v) {
    uint64_t u = static_cast<uint64_t>(v);
    if (end_ - pos_ >= kMaxVLongBytes) [[likely]] {
      pos_ = encodeVarint64(pos_, u);
    } else {
      writeVarint64Slow(u);
    }
  }

  void writeZLong(int64_t v) { writeVLongNoCheck(static_cast<int64_t>(zigZagEncode(v))); }

  // NaN is canonicalised to the quiet NaN (0x7fc00000 / 0x7ff8000000000000).
  void writeFloat(float v);
  void writeDouble(double v);

  void writeBoolean(bool v) { writeByte(v ? 1 : 0); }
  void writeOptionalBoolean(std::optional<bool> v) {
    writeByte(v.has_value() ? (*v ? 1 : 0) : 2);
  }

  void writeOptionalVInt(std::optional<int32_t> v);
  void writeOptionalVLong(std::optional<int64_t> v);
  void writeOptionalInt(std::optional<int32_t> v);
  void writeOptionalLong(std::optional<int64_t> v);
  void writeOptionalFloat(std::optional<float> v);
  void writeOptionalDouble(std::optional<double> v);

  // ---- strings and bytes (wire format §2) ----

  // UTF-16 unit count, then each unit on its own. Invalid UTF-8 in `s` is a
  // caller error: std::invalid_argument, and nothing is written.
  void writeString(std::string_view s);
  void writeOptionalString(std::optional<std::string_view> s);

  // VInt length, then the bytes.
  void writeByteArray(std::span<const uint8_t> bytes);
  void writeBytesRef(std::span<const uint8_t> bytes) { writeByteArray(bytes); }

  // ---- arrays: VInt count, then the elements ----
  // writeVIntArray / writeVLongArray encode the part of the array that surely
  // fits in the current buffer with the SIMD batch kernels (//simd), the same
  // bytes as writeVInt / writeVLong one by one.
  void writeStringArray(std::span<const std::string> values);
  void writeStringArray(std::span<const std::string_view> values);
  void writeVIntArray(std::span<const int32_t> values);
  void writeVLongArray(std::span<const int64_t> values);
  void writeIntArray(std::span<const int32_t> values);
  void writeLongArray(std::span<const int64_t> values);
  void writeFloatArray(std::span<const float> values);
  void writeDoubleArray(std::span<const double> values);

  // wirestream extension, not an Elasticsearch format: VInt count, then the
  // values' big-endian IEEE bits (NaN canonical, as writeFloat/writeDouble) in
  // ByteStreamSplit layout: byte k of every value in stream k, streams in
  // order (4 for float, 8 for double). Read back with readFloatArraySplit /
  // readDoubleArraySplit; compresses better than writeFloatArray when values
  // share exponents.
  void writeFloatArraySplit(std::span<const float> values);
  void writeDoubleArraySplit(std::span<const double> values);

  // Writes a collection size (VInt); sizes above INT32_MAX are caller errors.
  void writeArraySize(size_t size);

 protected:
  // The buffer the inline writes fill. A subclass sets it in nextBuffer().
  uint8_t* pos_ = nullptr;
  uint8_t* end_ = nullptr;

  // Called when pos_ == end_ and at least one more byte is to be written:
  // make [pos_, end_) a fresh, non-empty buffer (take a page, flush a block)
  // or throw LimitExceededError if the output is full.
  virtual void nextBuffer() = 0;

  // Called by the slow paths before a write of n bytes that crosses buffers,
  // so that an output with a size limit can refuse the whole write up front.
  virtual void ensureCapacity(size_t n) {}

 private:
  [[noreturn]] static void throwNegativeVLong(int64_t v);
  void writeBytesSlow(const uint8_t* data, size_t n);
  void writeFixedSlow(uint64_t v, int width);
  void writeVIntSlow(uint32_t v);
  void writeVarint64Slow(uint64_t v);
  template <typename T>
  void writeSplit(std::span<const T> values, void (*encode)(const T*, size_t, uint8_t*));

  TransportVersion version_ = TransportVersion::current();
};

}  // namespace wirestream
