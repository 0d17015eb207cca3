// BytesReference views and the StreamInput over them.
#include "tests/stream/test_util.h"

namespace wirestream {
namespace {

std::vector<uint8_t> iota(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i);
  return v;
}

TEST(BytesReference, IndexSliceAndEqualityAcrossLayouts) {
  std::vector<uint8_t> data = iota(50);
  BytesReference flat{std::span<const uint8_t>(data)};
  for (size_t piece : {1u, 3u, 7u, 50u}) {
    BytesReference ref = testing::paged(data, piece);
    ASSERT_EQ(ref.length(), 50u);
    EXPECT_EQ(ref, flat);
    for (size_t i = 0; i < 50; ++i) EXPECT_EQ(ref[i], i);
    EXPECT_THROW(ref[50], std::out_of_range);
    for (size_t off = 0; off <= 50; off += 5) {
      for (size_t len = 0; off + len <= 50; len += 6) {
        BytesReference s = ref.slice(off, len);
        std::vector<uint8_t> want(data.begin() + off, data.begin() + off + len);
        EXPECT_EQ(s.toVector(), want) << off << "+" << len << " piece " << piece;
        EXPECT_EQ(s, flat.slice(off, len));
      }
    }
    EXPECT_THROW(ref.slice(40, 11), std::out_of_range);
    EXPECT_THROW(ref.slice(51, 0), std::out_of_range);
  }
  std::vector<uint8_t> other = data;
  other[33] ^= 1;
  EXPECT_NE(testing::paged(other, 7), flat);
  EXPECT_NE(flat.slice(0, 49), flat);
  EXPECT_EQ(BytesReference(), BytesReference(std::vector<BytesReference::Piece>{{}, {}}));
}

TEST(BytesReference, CopyOfOwnsItsBytes) {
  BytesReference ref;
  {
    std::vector<uint8_t> temp = iota(10);
    ref = BytesReference::copyOf(temp);
  }
  EXPECT_EQ(ref.toVector(), iota(10));
  BytesReference part = ref.slice(2, 3);
  ref = BytesReference();
  EXPECT_EQ(part.toVector(), (std::vector<uint8_t>{2, 3, 4})) << "a slice keeps the owner alive";
  EXPECT_EQ(part.toHex(), "02 03 04");
}

TEST(BytesReferenceStreamInput, ReadsSkipsAndCountsAcrossPieces) {
  std::vector<uint8_t> data = iota(40);
  for (size_t piece : testing::kPageSizes) {
    BytesReference ref = testing::paged(data, piece);
    BytesReferenceStreamInput in(ref);
    EXPECT_EQ(in.available(), 40u);
    std::vector<uint8_t> buf(9);
    in.readBytes(buf);
    EXPECT_EQ(buf, std::vector<uint8_t>(data.begin(), data.begin() + 9));
    in.skip(11);
    EXPECT_EQ(in.available(), 20u);
    EXPECT_EQ(in.readByte(), 20);
    EXPECT_EQ(in.readInt(), 0x15161718);
    std::vector<uint8_t> too_many(16);
    EXPECT_THROW(in.readBytes(too_many), EndOfStreamError);
    EXPECT_EQ(in.available(), 15u) << "a failed read consumes nothing";
    EXPECT_THROW(in.skip(16), EndOfStreamError);
    in.skip(15);
    EXPECT_EQ(in.available(), 0u);
    EXPECT_THROW((void)in.readByte(), EndOfStreamError);
  }
}

TEST(ByteArrayStreamInput, PositionAndSeek) {
  std::vector<uint8_t> data = {0xac, 0x02, 0x05};
  ByteArrayStreamInput in(data);
  EXPECT_EQ(in.readVInt(), 300);
  EXPECT_EQ(in.position(), 2u);
  in.seek(0);
  EXPECT_EQ(in.readVInt(), 300);
  EXPECT_THROW(in.seek(4), std::out_of_range);
}

}  // namespace
}  // namespace wirestream
