// StreamInput: the reader side of the wire format (docs/wire-format.md).
//
//   ByteArrayStreamInput in(bytes);          // does not own `bytes`
//   int32_t n = in.readVInt();
//   std::string s = in.readString();
//
// Input is untrusted. Every failure is a StreamError subclass (errors.h) whose
// message names the value; sizes are checked against the bytes left before
// anything is allocated, so no input makes a reader allocate more than the
// input justifies. A reader that throws leaves no partial result behind.
//
// A StreamInput reads from a chunk [pos_, end_) that a subclass provides; reads
// that fit in the chunk are inline, and only the chunk-crossing path calls the
// virtual nextChunk(). Varints decode unrolled when the chunk holds a whole
// maximal encoding. Not thread-safe: one reader at a time.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "stream/byte_order.h"
#include "stream/errors.h"
#include "stream/transport_version.h"
#include "stream/varint.h"

namespace wirestream {

class StreamInput {
 public:
  StreamInput() = default;
  StreamInput(const StreamInput&) = delete;
  StreamInput& operator=(const StreamInput&) = delete;
  virtual ~StreamInput() = default;

  TransportVersion transportVersion() const { return version_; }
  void setTransportVersion(TransportVersion version) { version_ = version; }

  // Largest size readArraySize() accepts (LimitExceededError above it).
  int32_t maxArraySize() const { return max_array_size_; }
  void setMaxArraySize(int32_t max) { max_array_size_ = max; }

  // Bytes left to read.
  size_t available() const {
    return static_cast<size_t>(end_ - pos_) + availableAfterChunk();
  }

  // ---- primitives (wire format §1) ----

  uint8_t readByte() {
    if (pos_ == end_) [[unlikely]] return readByteSlow();
    return *pos_++;
  }

  // Fills `out` completely or throws EndOfStreamError having consumed nothing.
  void readBytes(std::span<uint8_t> out) {
    if (static_cast<size_t>(end_ - pos_) >= out.size()) [[likely]] {
      if (!out.empty()) std::memcpy(out.data(), pos_, out.size());
      pos_ += out.size();
    } else {
      readBytesSlow(out.data(), out.size());
    }
  }

  // Skips n bytes, or throws EndOfStreamError having skipped nothing.
  void skip(size_t n);

  int16_t readShort() {
    if (end_ - pos_ >= 2) [[likely]] {
      auto v = static_cast<int16_t>(loadBig16(pos_));
      pos_ += 2;
      return v;
    }
    return static_cast<int16_t>(readFixedSlow(2));
  }

  int32_t readInt() {
    if (end_ - pos_ >= 4) [[likely]] {
      auto v = static_cast<int32_t>(loadBig32(pos_));
      pos_ += 4;
      return v;
    }
    return static_cast<int32_t>(readFixedSlow(4));
  }

  int64_t readLong() {
    if (end_ - pos_ >= 8) [[likely]] {
      auto v = static_cast<int64_t>(loadBig64(pos_));
      pos_ += 8;
      return v;
    }
    return static_cast<int64_t>(readFixedSlow(8));
  }

  int32_t readVInt() {
    if (end_ - pos_ >= kMaxVIntBytes) [[likely]] {
      auto r = decodeVInt(pos_, end_);
      pos_ = r.next;
      return r.value;
    }
    return readVIntSlow();
  }

  int64_t readVLong() {
    if (end_ - pos_ >= kMaxVLongBytes) [[likely]] {
      auto r = internal::decodeVLongUnchecked(pos_, false);
      pos_ = r.next;
      return static_cast<int64_t>(r.value);
    }
    return static_cast<int64_t>(readVarint64Slow(false));
  }

  int64_t readZLong() {
    if (end_ - pos_ >= kMaxZLongBytes) [[likely]] {
      auto r = internal::decodeVLongUnchecked(pos_, true);
      pos_ = r.next;
      return zigZagDecode(r.value);
    }
    return zigZagDecode(readVarint64Slow(true));
  }

  float readFloat();
  double readDouble();

  // 00 or 01; anything else is CorruptStreamError "unexpected byte [0x..]".
  bool readBoolean();
  // 00, 01, or 02 for absent.
  std::optional<bool> readOptionalBoolean();

  std::optional<int32_t> readOptionalVInt();
  std::optional<int64_t> readOptionalVLong();
  std::optional<int32_t> readOptionalInt();
  std::optional<int64_t> readOptionalLong();
  std::optional<float> readOptionalFloat();
  std::optional<double> readOptionalDouble();

  // ---- strings and bytes (wire format §2) ----

  // Returns UTF-8; surrogate pairs on the wire become 4-byte sequences.
  std::string readString();
  std::optional<std::string> readOptionalString();
  std::vector<uint8_t> readByteArray();
  std::vector<uint8_t> readBytesRef() { return readByteArray(); }

  // A VInt size for `min_bytes_each`-byte elements, validated before the
  // caller allocates: negative -> CorruptStreamError, above maxArraySize() ->
  // LimitExceededError, more than the bytes left can hold -> EndOfStreamError.
  int32_t readArraySize(size_t min_bytes_each = 1);

  std::vector<std::string> readStringArray();
  // Decoded with the SIMD batch kernels (//simd) inside each chunk; a value
  // that crosses chunks, or is malformed, goes through readVInt / readVLong,
  // so the errors are theirs.
  std::vector<int32_t> readVIntArray();
  std::vector<int64_t> readVLongArray();
  std::vector<int32_t> readIntArray();
  std::vector<int64_t> readLongArray();
  std::vector<float> readFloatArray();
  std::vector<double> readDoubleArray();
  // The ByteStreamSplit arrays of StreamOutput::writeFloatArraySplit /
  // writeDoubleArraySplit (a wirestream extension).
  std::vector<float> readFloatArraySplit();
  std::vector<double> readDoubleArraySplit();

 protected:
  // The chunk the inline reads consume. A subclass sets it in nextChunk().
  const uint8_t* pos_ = nullptr;
  const uint8_t* end_ = nullptr;

  // Called when pos_ == end_: make [pos_, end_) the next non-empty chunk and
  // return true, or return false at the end of the input.
  virtual bool nextChunk() = 0;

  // Bytes in the chunks after the current one.
  virtual size_t availableAfterChunk() const = 0;

 private:
  uint8_t readByteSlow();
  void readBytesSlow(uint8_t* out, size_t n);
  uint64_t readFixedSlow(int width);
  int32_t readVIntSlow();
  uint64_t readVarint64Slow(bool zigzag);
  uint32_t readStringUnit();
  template <typename T>
  std::vector<T> readSplit(void (*decode)(const uint8_t*, size_t, T*));
  void ensureAvailable(size_t n);

  TransportVersion version_ = TransportVersion::current();
  int32_t max_array_size_ = std::numeric_limits<int32_t>::max();
};

// A StreamInput over memory it does not own; the memory must outlive it.
class ByteArrayStreamInput final : public StreamInput {
 public:
  explicit ByteArrayStreamInput(std::span<const uint8_t> bytes);

  // Bytes consumed so far.
  size_t position() const { return static_cast<size_t>(pos_ - begin_); }
  // Moves to an absolute offset within the input (std::out_of_range if past it).
  void seek(size_t position);

 protected:
  bool nextChunk() override { return false; }
  size_t availableAfterChunk() const override { return 0; }

 private:
  const uint8_t* begin_;
};

}  // namespace wirestream
