// TypedWrites: the typed writers of wire format §1, written once for the three
// writers that share them (CRTP, as folly's Cursor and Appender share theirs):
// StreamOutput, StreamOutput::Cursor and StreamOutput::Reserved. The rules (a
// VLong is not negative, NaN is canonical, a size fits a VInt) are codec/'s
// (codec/value_rules.h); what differs between the writers is only how each makes
// room and puts bytes, which each brings as four members:
//
//   void writeByte(uint8_t b);          one byte
//   template <class U> void putBig(U);  uint16_t / uint32_t / uint64_t, big-endian
//   void putVarint32(uint32_t u);       a VInt's bytes (5 for a negative)
//   void putVarint64(uint64_t u);       a VLong's bytes (10 for a negative)
//
// StreamOutput checks room per value and crosses buffers out of line, its Cursor
// does the same from a register, and Reserved checks nothing (its run was
// checked once). Each keeps its own measured varint fast path there.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/value_rules.h"
#include "codec/varint.h"

namespace wirestream {

namespace internal {
// std::invalid_argument naming the value (stream_output.cc): caller errors.
[[noreturn, gnu::cold]] void throwNegativeVLong(int64_t v);
[[noreturn, gnu::cold]] void throwArraySizeTooLarge(size_t size);
}  // namespace internal

template <class Writer>
class TypedWrites {
 public:
  void writeBoolean(bool v) { self().writeByte(v ? 1 : 0); }
  void writeShort(int16_t v) { self().putBig(static_cast<uint16_t>(v)); }
  void writeInt(int32_t v) { self().putBig(static_cast<uint32_t>(v)); }
  void writeLong(int64_t v) { self().putBig(static_cast<uint64_t>(v)); }
  // NaN is canonicalised to the quiet NaN (0x7fc00000 / 0x7ff8000000000000).
  void writeFloat(float v) { self().putBig(codec::canonicalFloatBits(v)); }
  void writeDouble(double v) { self().putBig(codec::canonicalDoubleBits(v)); }

  // Negatives always take 5 bytes (the 32-bit two's complement, unsigned).
  void writeVInt(int32_t v) { self().putVarint32(static_cast<uint32_t>(v)); }

  // A negative value is a caller error (std::invalid_argument), as in ES.
  void writeVLong(int64_t v) {
    if (!codec::isVLong(v)) [[unlikely]]
      internal::throwNegativeVLong(v);
    self().putVarint64(static_cast<uint64_t>(v));
  }
  // Writes any value as a 64-bit LEB128 (10 bytes for negatives). ES uses it
  // where a negative sentinel must round-trip through readVLong.
  void writeVLongNoCheck(int64_t v) { self().putVarint64(static_cast<uint64_t>(v)); }
  void writeZLong(int64_t v) { self().putVarint64(codec::zigZagEncode(v)); }

  // A collection size (VInt); above INT32_MAX a caller error.
  void writeArraySize(size_t size) {
    if (!codec::isArraySize(size)) [[unlikely]]
      internal::throwArraySizeTooLarge(size);
    self().putVarint32(static_cast<uint32_t>(size));
  }

 protected:
  TypedWrites() = default;
  ~TypedWrites() = default;

 private:
  Writer& self() { return static_cast<Writer&>(*this); }
};

}  // namespace wirestream
