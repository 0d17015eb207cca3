// Varint codecs over plain memory that never throw: the LEB128 forms of the wire format
// (§4) shared by //stream (which throws the typed errors) and //simd (whose batch
// kernels fall back to them).
//
// Example (runs: codec_varint):
//   uint8_t buf[codec::kMaxVLongBytes];
//   uint8_t* end = codec::encodeVLong(buf, 300);                  // AC 02
//   uint64_t v;
//   const uint8_t* next = codec::decodeVarint64(buf, end, &v);    // v == 300, next == end
//   bool bad = next == nullptr;                                   // truncated or invalid
//
// Encoders write the whole value and return the byte after it; the caller guarantees room
// (vIntSize / kMaxVIntBytes). Decoders read nothing at or past `limit` and return nullptr,
// leaving *out unspecified, when the value runs past `limit` or breaks the wire format's
// rule for its last byte (a VInt's 5th byte may carry only 4 bits, a 64-bit varint's 10th
// byte only 0 or 1); //stream tells the two apart when it throws. With enough bytes before
// `limit` they take an unrolled path with no per-byte bounds check.
// Stateless; thread-safe; header-only.
#pragma once

#include <bit>
#include <cstdint>

#include "codec/byte_order.h"

namespace wirestream::codec {

inline constexpr int kMaxVIntBytes = 5;
inline constexpr int kMaxVLongBytes = 10;  // the reader accepts 10; writeVLong makes at most 9
inline constexpr int kMaxZLongBytes = 10;

// Bytes writeVInt takes for v: lz >= 25 -> 1, >= 18 -> 2, >= 11 -> 3, >= 4 -> 4, else 5.
// (38 - lz) / 7 gives 5,4,3,2,1 for those bands without a branch (v | 1 folds 0 into 1).
[[nodiscard]] constexpr int vIntSize(uint32_t v) { return (38 - std::countl_zero(v | 1)) / 7; }

// 1 + (63 - lz) / 7 for v > 0, 1 for v == 0.
[[nodiscard]] constexpr int vLongSize(uint64_t v) { return 1 + (63 - std::countl_zero(v | 1)) / 7; }

[[nodiscard]] constexpr uint64_t zigZagEncode(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
[[nodiscard]] constexpr int64_t zigZagDecode(uint64_t v) {
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

// The same loop for a 32-bit value (VInt), in 32-bit arithmetic.
inline uint8_t* encodeVarint32(uint8_t* dst, uint32_t v) {
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

// One VInt; the caller guarantees kMaxVIntBytes readable bytes at p. nullptr if its 5th
// byte has any bit of 0xF0 set.
//
// The first four bytes come in one load, so a value costs one load whatever its width
// (byte loads let the compiler hoist the second byte's load above the first byte's test:
// two loads a one-byte value, and the load ports, not the branches, bound a run of them).
// The one- and two-byte cases are marked likely: geometric counts are mostly one or two
// bytes, and they fall through to the caller with no jump taken.
[[nodiscard]] inline const uint8_t* decodeVIntUnchecked(const uint8_t* p, int32_t* out) {
  const uint32_t w = loadLittle32(p);
  if (!(w & 0x80)) [[likely]] {
    *out = static_cast<int32_t>(w & 0x7F);
    return p + 1;
  }
  uint32_t r = (w & 0x7F) | ((w >> 1) & 0x3F80);
  if (!(w & 0x8000)) [[likely]] {
    *out = static_cast<int32_t>(r);
    return p + 2;
  }
  r |= (w >> 2) & 0x1FC000;
  if (!(w & 0x800000)) {
    *out = static_cast<int32_t>(r);
    return p + 3;
  }
  r |= (w >> 3) & 0xFE00000;
  if (!(w & 0x80000000)) {
    *out = static_cast<int32_t>(r);
    return p + 4;
  }
  const uint32_t b = p[4];
  if (b & 0xF0) return nullptr;
  *out = static_cast<int32_t>(r | (b << 28));
  return p + 5;
}

// One VInt from [p, limit), checking every byte against limit.
[[nodiscard]] inline const uint8_t* decodeVIntChecked(const uint8_t* p, const uint8_t* limit,
                                                      int32_t* out) {
  uint32_t r = 0;
  for (int i = 0; i < kMaxVIntBytes; ++i) {
    if (p + i >= limit) return nullptr;
    uint32_t b = p[i];
    if (i == 4 && (b & 0xF0)) return nullptr;
    r |= (b & 0x7F) << (7 * i);
    if (!(b & 0x80)) {
      *out = static_cast<int32_t>(r);
      return p + i + 1;
    }
  }
  return nullptr;  // not reached: the 5th byte has no continuation bit
}

// One VInt from [p, limit), or nullptr (truncated, or a bad 5th byte).
[[nodiscard]] inline const uint8_t* decodeVInt(const uint8_t* p, const uint8_t* limit,
                                               int32_t* out) {
  return limit - p >= kMaxVIntBytes ? decodeVIntUnchecked(p, out)
                                    : decodeVIntChecked(p, limit, out);
}

// One 64-bit varint (VLong, or a ZLong before zigzag decoding); the caller guarantees
// kMaxVLongBytes readable bytes at p. nullptr if its 10th byte is neither 0 nor 1.
[[nodiscard]] inline const uint8_t* decodeVarint64Unchecked(const uint8_t* p, uint64_t* out) {
  uint64_t b = p[0];
  uint64_t r = b & 0x7F;
  if (!(b & 0x80)) {
    *out = r;
    return p + 1;
  }
  for (int i = 1; i < 9; ++i) {
    b = p[i];
    r |= (b & 0x7F) << (7 * i);
    if (!(b & 0x80)) {
      *out = r;
      return p + i + 1;
    }
  }
  b = p[9];
  if (b > 1) return nullptr;
  *out = r | (b << 63);
  return p + 10;
}

// One 64-bit varint from [p, limit), checking every byte against limit.
[[nodiscard]] inline const uint8_t* decodeVarint64Checked(const uint8_t* p, const uint8_t* limit,
                                                          uint64_t* out) {
  uint64_t r = 0;
  for (int i = 0; i < 9; ++i) {
    if (p + i >= limit) return nullptr;
    uint64_t b = p[i];
    r |= (b & 0x7F) << (7 * i);
    if (!(b & 0x80)) {
      *out = r;
      return p + i + 1;
    }
  }
  if (p + 9 >= limit || p[9] > 1) return nullptr;
  *out = r | (uint64_t{p[9]} << 63);
  return p + 10;
}

// One 64-bit varint from [p, limit), or nullptr (truncated, or a bad 10th byte).
[[nodiscard]] inline const uint8_t* decodeVarint64(const uint8_t* p, const uint8_t* limit,
                                                   uint64_t* out) {
  return limit - p >= kMaxVLongBytes ? decodeVarint64Unchecked(p, out)
                                     : decodeVarint64Checked(p, limit, out);
}

}  // namespace wirestream::codec
