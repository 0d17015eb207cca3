// Raw varint codecs over plain memory, under StreamOutput / StreamInput.
//
//   uint8_t buf[kMaxVLongBytes];
//   uint8_t* end = encodeVLong(buf, 300);          // AC 02
//   DecodeResult<int64_t> r = decodeVLong(buf, end);  // r.value == 300, r.next == end
//
// Encoders write the whole value and return the byte after it; the caller
// guarantees room (vIntSize / kMaxVIntBytes). Decoders read at most up to
// `limit` and throw EndOfStreamError if the value runs past it,
// CorruptStreamError for encodings the wire format rejects (§4). With enough
// bytes before `limit` the decoders take an unrolled path with no per-byte
// bounds check. Stateless; thread-safe.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

#include "stream/byte_order.h"
#include "stream/errors.h"

namespace wirestream {

inline constexpr int kMaxVIntBytes = 5;
inline constexpr int kMaxVLongBytes = 10;  // the reader accepts 10; writeVLong makes at most 9
inline constexpr int kMaxZLongBytes = 10;

// Bytes writeVInt takes for v: lz >= 25 -> 1, >= 18 -> 2, >= 11 -> 3, >= 4 -> 4, else 5.
// (38 - lz) / 7 gives 5,4,3,2,1 for those bands without a branch (v | 1 folds 0 into 1).
constexpr int vIntSize(uint32_t v) { return (38 - std::countl_zero(v | 1)) / 7; }

// 1 + (63 - lz) / 7 for v > 0, 1 for v == 0.
constexpr int vLongSize(uint64_t v) { return 1 + (63 - std::countl_zero(v | 1)) / 7; }

constexpr uint64_t zigZagEncode(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
constexpr int64_t zigZagDecode(uint64_t v) {
  return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
}

// Writes v as LEB128: 7 bits a byte, low group first.
inline uint8_t* encodeVarint64(uint8_t* dst, uint64_t v) {
  while (v >= 0x80) {
    *dst++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *dst++ = static_cast<uint8_t>(v);
  return dst;
}

// Unrolled by width: the width is known up front from lzcnt, so each case is
// straight-line stores with no loop-carried branch.
inline uint8_t* encodeVInt(uint8_t* dst, uint32_t v) {
  switch (vIntSize(v)) {
    case 1:
      dst[0] = static_cast<uint8_t>(v);
      return dst + 1;
    case 2:
      dst[0] = static_cast<uint8_t>(v | 0x80);
      dst[1] = static_cast<uint8_t>(v >> 7);
      return dst + 2;
    case 3:
      dst[0] = static_cast<uint8_t>(v | 0x80);
      dst[1] = static_cast<uint8_t>((v >> 7) | 0x80);
      dst[2] = static_cast<uint8_t>(v >> 14);
      return dst + 3;
    case 4:
      dst[0] = static_cast<uint8_t>(v | 0x80);
      dst[1] = static_cast<uint8_t>((v >> 7) | 0x80);
      dst[2] = static_cast<uint8_t>((v >> 14) | 0x80);
      dst[3] = static_cast<uint8_t>(v >> 21);
      return dst + 4;
    default:
      dst[0] = static_cast<uint8_t>(v | 0x80);
      dst[1] = static_cast<uint8_t>((v >> 7) | 0x80);
      dst[2] = static_cast<uint8_t>((v >> 14) | 0x80);
      dst[3] = static_cast<uint8_t>((v >> 21) | 0x80);
      dst[4] = static_cast<uint8_t>(v >> 28);
      return dst + 5;
  }
}

// Bytes encodeVIntPadded stores, whatever the value's width.
inline constexpr int kVIntPaddedStoreBytes = 8;

// The bytes of encodeVInt, assembled in a register and written with one
// unaligned 8-byte store: dst[vIntSize(v)..7] are overwritten with
// unspecified bytes. The caller guarantees 8 writable bytes at dst and that
// nothing past the value in them is to be kept. No branch on the width, so
// values of unpredictable widths cost no branch mispredictions.
inline uint8_t* encodeVIntPadded(uint8_t* dst, uint32_t v) {
  uint64_t x = v;
  uint64_t groups = (x & 0x7F) | ((x & 0x3F80) << 1) | ((x & 0x1FC000) << 2) |
                    ((x & 0xFE00000) << 3) | ((x & 0xF0000000) << 4);
  // The last byte is the highest non-zero group (byte 0 for v == 0): one bsr
  // and a shift, cheaper than vIntSize's division by 7.
  int last = (63 - std::countl_zero(groups | 1)) >> 3;
  // 0x80 on every byte before the last.
  uint64_t continuation = 0x0000008080808080ull & ((uint64_t{1} << (8 * last)) - 1);
  storeLittle64(dst, groups | continuation);
  return dst + last + 1;
}

inline uint8_t* encodeVLong(uint8_t* dst, uint64_t v) { return encodeVarint64(dst, v); }

inline uint8_t* encodeZLong(uint8_t* dst, int64_t v) {
  return encodeVarint64(dst, zigZagEncode(v));
}

template <typename T>
struct DecodeResult {
  T value;
  const uint8_t* next;
};

namespace internal {
[[noreturn]] void throwInvalidVInt(uint8_t fifth);
[[noreturn]] void throwInvalidVLong(uint8_t tenth);
[[noreturn]] void throwZLongTooLong();

// Careful paths: check every byte against limit.
DecodeResult<int32_t> decodeVIntCareful(const uint8_t* p, const uint8_t* limit);
DecodeResult<uint64_t> decodeVLongCareful(const uint8_t* p, const uint8_t* limit, bool zigzag);

// Unrolled path: the caller guarantees kMaxVLongBytes readable bytes at p.
inline DecodeResult<uint64_t> decodeVLongUnchecked(const uint8_t* p, bool zigzag) {
  uint64_t b = p[0];
  uint64_t r = b & 0x7F;
  if (!(b & 0x80)) return {r, p + 1};
  for (int i = 1; i < 9; ++i) {
    b = p[i];
    r |= (b & 0x7F) << (7 * i);
    if (!(b & 0x80)) return {r, p + i + 1};
  }
  b = p[9];
  if (b > 1) {
    if (zigzag) throwZLongTooLong();
    throwInvalidVLong(static_cast<uint8_t>(b));
  }
  return {r | (b << 63), p + 10};
}
}  // namespace internal

// Decodes a VInt from [p, limit). Strict: a 5th byte with any bit of 0xF0 set
// is CorruptStreamError "Invalid vInt".
inline DecodeResult<int32_t> decodeVInt(const uint8_t* p, const uint8_t* limit) {
  if (limit - p < kMaxVIntBytes) return internal::decodeVIntCareful(p, limit);
  uint32_t b = p[0];
  if (!(b & 0x80)) return {static_cast<int32_t>(b), p + 1};
  uint32_t r = b & 0x7F;
  b = p[1];
  r |= (b & 0x7F) << 7;
  if (!(b & 0x80)) return {static_cast<int32_t>(r), p + 2};
  b = p[2];
  r |= (b & 0x7F) << 14;
  if (!(b & 0x80)) return {static_cast<int32_t>(r), p + 3};
  b = p[3];
  r |= (b & 0x7F) << 21;
  if (!(b & 0x80)) return {static_cast<int32_t>(r), p + 4};
  b = p[4];
  if (b & 0xF0) internal::throwInvalidVInt(static_cast<uint8_t>(b));
  r |= b << 28;
  return {static_cast<int32_t>(r), p + 5};
}

// Decodes a VLong: up to 10 bytes, the 10th only 0 or 1 ("Invalid vlong").
inline DecodeResult<int64_t> decodeVLong(const uint8_t* p, const uint8_t* limit) {
  auto r = limit - p >= kMaxVLongBytes ? internal::decodeVLongUnchecked(p, false)
                                       : internal::decodeVLongCareful(p, limit, false);
  return {static_cast<int64_t>(r.value), r.next};
}

// Decodes a ZLong: up to 10 bytes, no continuation past bit 63
// ("variable-length stream is too long").
inline DecodeResult<int64_t> decodeZLong(const uint8_t* p, const uint8_t* limit) {
  auto r = limit - p >= kMaxZLongBytes ? internal::decodeVLongUnchecked(p, true)
                                       : internal::decodeVLongCareful(p, limit, true);
  return {zigZagDecode(r.value), r.next};
}

}  // namespace wirestream
