// A first end-to-end check of the core: write, read back, compare bytes.
#include <gtest/gtest.h>

#include "stream/bytes_stream_output.h"

namespace wirestream {
namespace {

TEST(Smoke, VIntAndStringRoundTrip) {
  PageRecycler recycler(3);
  BytesStreamOutput out(recycler);
  out.writeVInt(300);
  out.writeString("h\xC3\xA9\xF0\x9F\x98\x80");
  BytesReference bytes = out.bytes();
  EXPECT_EQ(bytes.toHex(), "ac 02 04 68 c3 a9 ed a0 bd ed b8 80");
  BytesReferenceStreamInput in(bytes);
  EXPECT_EQ(in.readVInt(), 300);
  EXPECT_EQ(in.readString(), "h\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_EQ(in.available(), 0u);
  EXPECT_THROW(in.readByte(), EndOfStreamError);
}

}  // namespace
}  // namespace wirestream
