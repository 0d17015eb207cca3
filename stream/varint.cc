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

// The codec refused the value: walk it again to say why (the first byte past limit, or
// the bad last byte).
void throwVIntError(const uint8_t* p, const uint8_t* limit) {
  for (int i = 0; i < kMaxVIntBytes; ++i) {
    if (p + i >= limit) throwEndOfStream(i + 1, limit - p);
    if (i == 4 || !(p[i] & 0x80)) break;
  }
  throwInvalidVInt(p[4]);
}

void throwVarint64Error(const uint8_t* p, const uint8_t* limit, bool zigzag) {
  for (int i = 0; i < kMaxVLongBytes; ++i) {
    if (p + i >= limit) throwEndOfStream(i + 1, limit - p);
    if (i == 9 || !(p[i] & 0x80)) break;
  }
  if (zigzag) throwZLongTooLong();
  throwInvalidVLong(p[9]);
}

}  // namespace wirestream::internal
