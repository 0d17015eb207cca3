// codec/byte_order.h: fixed-width values in the byte order of Java's DataOutput
// (writeShort/writeInt/writeLong write the high byte first).
#include "codec/byte_order.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace wirestream::codec {
namespace {

TEST(ByteOrder, StoresHighByteFirst) {
  uint8_t buf[9] = {};
  storeBig16(buf + 1, 0xBEEF);  // unaligned on purpose
  EXPECT_EQ(std::vector<uint8_t>(buf + 1, buf + 3), (std::vector<uint8_t>{0xBE, 0xEF}));
  storeBig32(buf + 1, 0x01020304);
  EXPECT_EQ(std::vector<uint8_t>(buf + 1, buf + 5), (std::vector<uint8_t>{1, 2, 3, 4}));
  storeBig64(buf + 1, 0x0102030405060708ull);
  EXPECT_EQ(std::vector<uint8_t>(buf + 1, buf + 9), (std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(ByteOrder, LoadsHighByteFirst) {
  const uint8_t bytes[9] = {0x00, 0xFF, 0xFE, 0x80, 0x00, 0x00, 0x00, 0x00, 0x01};
  EXPECT_EQ(loadBig16(bytes + 1), 0xFFFE);
  EXPECT_EQ(loadBig32(bytes + 1), 0xFFFE8000u);
  EXPECT_EQ(loadBig64(bytes + 1), 0xFFFE800000000001ull);
  // Java's readInt of FF FF FF FF is -1: the same bits.
  const uint8_t minus_one[4] = {0xFF, 0xFF, 0xFF, 0xFF};
  EXPECT_EQ(static_cast<int32_t>(loadBig32(minus_one)), -1);
}

TEST(ByteOrder, LittleEndianStoreForRegisterVarints) {
  uint8_t buf[8];
  storeLittle64(buf, 0x0807060504030201ull);
  EXPECT_EQ(std::vector<uint8_t>(buf, buf + 8), (std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(ByteOrder, RoundTripsEveryShift) {
  for (int s = 0; s < 64; ++s) {
    uint64_t v = (uint64_t{1} << s) | (uint64_t{0x5A} << (s / 2));
    uint8_t buf[8];
    storeBig64(buf, v);
    EXPECT_EQ(loadBig64(buf), v) << s;
    storeBig32(buf, static_cast<uint32_t>(v));
    EXPECT_EQ(loadBig32(buf), static_cast<uint32_t>(v)) << s;
    storeBig16(buf, static_cast<uint16_t>(v));
    EXPECT_EQ(loadBig16(buf), static_cast<uint16_t>(v)) << s;
  }
}

}  // namespace
}  // namespace wirestream::codec
