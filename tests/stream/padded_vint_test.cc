// writeVInt stores 8 bytes at a time for widths 2 to 4 (encodeVIntPadded):
// the encoding must equal encodeVInt's, and the bytes past the value must
// never be bytes somebody wrote, in particular after BytesStreamOutput::seek
// went back to fill in a header.
#include <random>

#include "stream/varint.h"
#include "tests/stream/test_util.h"

namespace wirestream {
namespace {

using testing::kPageSizes;

TEST(EncodeVIntPadded, SameBytesAsEncodeVIntAtEveryWidthBoundary) {
  std::vector<uint32_t> values = {0,         1,          127,        128,       300,
                                  16383,     16384,      2097151,    2097152,   268435455,
                                  268435456, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF};
  for (int shift = 0; shift < 32; ++shift) {
    values.push_back(uint32_t{1} << shift);
    values.push_back((uint32_t{1} << shift) - 1);
  }
  for (uint32_t v : values) {
    uint8_t expected[16] = {}, padded[16];
    std::memset(padded, 0xEE, sizeof padded);
    uint8_t* expected_end = encodeVInt(expected, v);
    uint8_t* padded_end = encodeVIntPadded(padded, v);
    ASSERT_EQ(expected_end - expected, padded_end - padded) << v;
    ASSERT_EQ(0, std::memcmp(expected, padded, expected_end - expected)) << v;
    // Nothing past the 8-byte store is touched.
    for (int i = kVIntPaddedStoreBytes; i < 16; ++i) ASSERT_EQ(padded[i], 0xEE) << v;
  }
}

TEST(EncodeVIntPadded, RandomValuesOfEveryWidth) {
  const uint32_t seed = 20261130;
  std::printf("seed %u\n", seed);
  std::mt19937 rng(seed);
  for (int i = 0; i < 100000; ++i) {
    uint32_t v = static_cast<uint32_t>(rng()) >> (rng() % 32);
    uint8_t expected[8], padded[8];
    int n = static_cast<int>(encodeVInt(expected, v) - expected);
    ASSERT_EQ(encodeVIntPadded(padded, v) - padded, n) << v;
    ASSERT_EQ(0, std::memcmp(expected, padded, n)) << v;
    ASSERT_EQ(n, vIntSize(v));
  }
}

// The ES pattern: leave room, write the body, seek back, write the header,
// seek forward. The header's VInts go through writeVInt and must not
// overwrite the body that follows them.
TEST(BytesStreamOutput, VIntsWrittenAfterSeekingBackKeepTheBytesAfterThem) {
  const std::vector<int32_t> header = {300, 16384, 2097152, -1, 1, 1000000};
  for (size_t page : kPageSizes) {
    PageRecycler recycler(page);
    BytesStreamOutput out(recycler);
    size_t header_bytes = 0;
    for (int32_t v : header) header_bytes += vIntSize(static_cast<uint32_t>(v));
    out.skip(header_bytes);
    std::vector<uint8_t> body(100);
    for (size_t i = 0; i < body.size(); ++i) body[i] = static_cast<uint8_t>(0xA0 + i);
    out.writeBytes(body);
    size_t end = out.size();
    out.seek(0);
    for (int32_t v : header) out.writeVInt(v);
    ASSERT_EQ(out.size(), header_bytes) << "page " << page;
    out.seek(end);
    BytesReferenceStreamInput in(out.bytes());
    for (int32_t v : header) ASSERT_EQ(in.readVInt(), v) << "page " << page;
    std::vector<uint8_t> back(body.size());
    in.readBytes(back);
    EXPECT_EQ(back, body) << "page " << page;
  }
}

// Overwriting in the middle of written data, then writing on past the old
// end: exact writes below the old end, the full page again after it.
TEST(BytesStreamOutput, WritesAcrossTheOldEndAfterSeekingBack) {
  for (size_t page : kPageSizes) {
    PageRecycler recycler(page);
    BytesStreamOutput out(recycler);
    std::vector<uint8_t> expected;
    for (int i = 0; i < 50; ++i) {
      out.writeByte(0x55);
      expected.push_back(0x55);
    }
    out.seek(10);
    expected.resize(10);
    for (int32_t v : {300, 70000, 5, -7, 1 << 22, 200, 3, 123456789}) {
      out.writeVInt(v);
      uint8_t buf[kMaxVIntBytes];
      expected.insert(expected.end(), buf, encodeVInt(buf, static_cast<uint32_t>(v)));
    }
    out.writeLong(0x0102030405060708);
    for (uint8_t b : {1, 2, 3, 4, 5, 6, 7, 8}) expected.push_back(b);
    for (int i = 0; i < 40; ++i) {
      out.writeVInt(1 << (i % 31));
      uint8_t buf[kMaxVIntBytes];
      expected.insert(expected.end(), buf, encodeVInt(buf, uint32_t{1} << (i % 31)));
    }
    ASSERT_GT(expected.size(), 50u);
    EXPECT_EQ(out.bytes().toVector(), expected) << "page " << page;
  }
}

TEST(BytesStreamOutput, PartOverwriteKeepsTheTail) {
  for (size_t page : kPageSizes) {
    PageRecycler recycler(page);
    BytesStreamOutput out(recycler);
    std::vector<uint8_t> expected(64);
    for (size_t i = 0; i < expected.size(); ++i) expected[i] = static_cast<uint8_t>(i);
    out.writeBytes(expected);
    out.seek(20);
    out.writeVInt(300);  // AC 02
    expected[20] = 0xAC;
    expected[21] = 0x02;
    out.seek(64);
    EXPECT_EQ(out.bytes().toVector(), expected) << "page " << page;
  }
}

}  // namespace
}  // namespace wirestream
