// Varint codecs that throw, for StreamOutput / StreamInput: the non-throwing codecs of
// codec/varint.h (//codec) under their old names, with decoders that throw the typed
// errors.
//
// Example (runs: stream_varint):
//   uint8_t buf[kMaxVLongBytes] = {};
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

#include <cstdint>

#include "codec/varint.h"
#include "stream/errors.h"

namespace wirestream {

using codec::encodeVarint64;
using codec::encodeVInt;
using codec::encodeVIntPadded;
using codec::encodeVLong;
using codec::encodeZLong;
using codec::kMaxVIntBytes;
using codec::kMaxVLongBytes;
using codec::kMaxZLongBytes;
using codec::kVIntPaddedStoreBytes;
using codec::vIntSize;
using codec::vLongSize;
using codec::zigZagDecode;
using codec::zigZagEncode;

template <typename T>
struct DecodeResult {
  T value;
  const uint8_t* next;
};

namespace internal {
[[noreturn, gnu::cold]] void throwInvalidVInt(uint8_t fifth);
[[noreturn, gnu::cold]] void throwInvalidVLong(uint8_t tenth);
[[noreturn, gnu::cold]] void throwZLongTooLong();
// Why the codec refused the value at p: EndOfStreamError or CorruptStreamError.
[[noreturn, gnu::cold]] void throwVIntError(const uint8_t* p, const uint8_t* limit);
[[noreturn, gnu::cold]] void throwVarint64Error(const uint8_t* p, const uint8_t* limit,
                                                bool zigzag);

// Unrolled path: the caller guarantees kMaxVLongBytes readable bytes at p.
[[nodiscard]] inline DecodeResult<uint64_t> decodeVLongUnchecked(const uint8_t* p, bool zigzag) {
  uint64_t v;
  const uint8_t* next = codec::decodeVarint64Unchecked(p, &v);
  if (next == nullptr) [[unlikely]]
    throwVarint64Error(p, p + kMaxVLongBytes, zigzag);
  return {v, next};
}
}  // namespace internal

// Decodes a VInt from [p, limit). Strict: a 5th byte with any bit of 0xF0 set
// is CorruptStreamError "Invalid vInt".
[[nodiscard]] inline DecodeResult<int32_t> decodeVInt(const uint8_t* p, const uint8_t* limit) {
  int32_t v;
  const uint8_t* next = codec::decodeVInt(p, limit, &v);
  if (next == nullptr) [[unlikely]]
    internal::throwVIntError(p, limit);
  return {v, next};
}

// Decodes a VLong: up to 10 bytes, the 10th only 0 or 1 ("Invalid vlong").
[[nodiscard]] inline DecodeResult<int64_t> decodeVLong(const uint8_t* p, const uint8_t* limit) {
  uint64_t v;
  const uint8_t* next = codec::decodeVarint64(p, limit, &v);
  if (next == nullptr) [[unlikely]]
    internal::throwVarint64Error(p, limit, false);
  return {static_cast<int64_t>(v), next};
}

// Decodes a ZLong: up to 10 bytes, no continuation past bit 63
// ("variable-length stream is too long").
[[nodiscard]] inline DecodeResult<int64_t> decodeZLong(const uint8_t* p, const uint8_t* limit) {
  uint64_t v;
  const uint8_t* next = codec::decodeVarint64(p, limit, &v);
  if (next == nullptr) [[unlikely]]
    internal::throwVarint64Error(p, limit, true);
  return {zigZagDecode(v), next};
}

}  // namespace wirestream
