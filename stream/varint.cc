#include "stream/varint.h"

#include <cstdio>
#include <string>

namespace wirestream::internal {

namespace {
std::string hexByte(uint8_t b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", b);
  return buf;
}
}  // namespace

void throwInvalidVInt(uint8_t fifth) {
  throwCorrupt("Invalid vInt ((" + hexByte(fifth) +
               " & 0x7f) << 28) | ... : the fifth byte may only carry 4 bits");
}

void throwInvalidVLong(uint8_t tenth) {
  throwCorrupt("Invalid vlong (" + hexByte(tenth) +
               " << 63) | ... : the tenth byte must be 0 or 1");
}

void throwZLongTooLong() { throwCorrupt("variable-length stream is too long"); }

DecodeResult<int32_t> decodeVIntCareful(const uint8_t* p, const uint8_t* limit) {
  uint32_t r = 0;
  for (int i = 0; i < kMaxVIntBytes; ++i) {
    if (p + i >= limit) throwEndOfStream(i + 1, limit - p);
    uint32_t b = p[i];
    if (i == 4 && (b & 0xF0)) throwInvalidVInt(static_cast<uint8_t>(b));
    r |= (b & 0x7F) << (7 * i);
    if (!(b & 0x80)) return {static_cast<int32_t>(r), p + i + 1};
  }
  __builtin_unreachable();
}

DecodeResult<uint64_t> decodeVLongCareful(const uint8_t* p, const uint8_t* limit, bool zigzag) {
  uint64_t r = 0;
  for (int i = 0; i < kMaxVLongBytes; ++i) {
    if (p + i >= limit) throwEndOfStream(i + 1, limit - p);
    uint64_t b = p[i];
    if (i == 9) {
      if (b > 1) {
        if (zigzag) throwZLongTooLong();
        throwInvalidVLong(static_cast<uint8_t>(b));
      }
      return {r | (b << 63), p + 10};
    }
    r |= (b & 0x7F) << (7 * i);
    if (!(b & 0x80)) return {r, p + i + 1};
  }
  __builtin_unreachable();
}

}  // namespace wirestream::internal
