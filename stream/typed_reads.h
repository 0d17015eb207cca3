// TypedReads: the typed readers of wire format §1, written once for the three
// readers that share them (CRTP): StreamInput, StreamInput::Cursor and
// StreamInput::Reserved. What differs between them is only how each checks that
// the bytes are there and what it does when they are not, which each brings as
// four members:
//
//   uint8_t readByte();                  one byte
//   template <class U> U getBig();       uint16_t / uint32_t / uint64_t, big-endian
//   int32_t getVarint32();               a VInt (its 5th byte validated)
//   uint64_t getVarint64(bool zigzag);   a VLong or a ZLong's raw bits (10th byte validated)
//
// Untrusted input: every refusal is a CorruptStreamError or EndOfStreamError
// naming the value, the same from each reader.
#pragma once

#include <bit>
#include <cstdint>

#include "codec/varint.h"

namespace wirestream {

namespace internal {
// CorruptStreamError "unexpected byte [0x..]" (stream_input.cc).
[[noreturn, gnu::cold]] void throwNotABoolean(uint8_t b);
}  // namespace internal

template <class Reader>
class TypedReads {
 public:
  // 00 or 01; anything else is CorruptStreamError "unexpected byte [0x..]".
  [[nodiscard]] bool readBoolean() {
    uint8_t b = self().readByte();
    if (b > 1) [[unlikely]]
      internal::throwNotABoolean(b);
    return b == 1;
  }
  [[nodiscard]] int16_t readShort() {
    return static_cast<int16_t>(self().template getBig<uint16_t>());
  }
  [[nodiscard]] int32_t readInt() {
    return static_cast<int32_t>(self().template getBig<uint32_t>());
  }
  [[nodiscard]] int64_t readLong() {
    return static_cast<int64_t>(self().template getBig<uint64_t>());
  }
  [[nodiscard]] float readFloat() {
    return std::bit_cast<float>(self().template getBig<uint32_t>());
  }
  [[nodiscard]] double readDouble() {
    return std::bit_cast<double>(self().template getBig<uint64_t>());
  }
  [[nodiscard]] int32_t readVInt() { return self().getVarint32(); }
  [[nodiscard]] int64_t readVLong() { return static_cast<int64_t>(self().getVarint64(false)); }
  [[nodiscard]] int64_t readZLong() { return codec::zigZagDecode(self().getVarint64(true)); }

 protected:
  TypedReads() = default;
  ~TypedReads() = default;

 private:
  Reader& self() { return static_cast<Reader&>(*this); }
};

}  // namespace wirestream
