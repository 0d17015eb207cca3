// Every row of wire format §4 that applies to the stream core: the error type,
// the message naming the value, and (through page size 1) the same outcome on
// the chunk-crossing slow paths as on the inline ones.
#include <sys/mman.h>

#include "tests/stream/test_util.h"

namespace wirestream {
namespace {

using testing::hexBytes;
using testing::kPageSizes;

template <typename E>
void expectError(const std::string& hex, const std::function<void(StreamInput&)>& read,
                 const std::string& message_part) {
  std::vector<uint8_t> bytes = hexBytes(hex);
  for (size_t page : kPageSizes) {
    BytesReference ref = testing::paged(bytes, page);
    BytesReferenceStreamInput in(ref);
    try {
      read(in);
      ADD_FAILURE() << hex << ": no error at page size " << page;
    } catch (const E& e) {
      EXPECT_NE(std::string(e.what()).find(message_part), std::string::npos)
          << "message [" << e.what() << "] lacks [" << message_part << "]";
    } catch (const std::exception& e) {
      ADD_FAILURE() << hex << ": wrong exception type: " << e.what();
    }
  }
  // Plenty of bytes after the value: the unrolled fast path must agree.
  // (Not for EndOfStreamError, which padding would cure.)
  if constexpr (std::is_same_v<E, EndOfStreamError>) return;
  std::vector<uint8_t> padded = bytes;
  padded.resize(bytes.size() + 16, 0);
  ByteArrayStreamInput in(padded);
  EXPECT_THROW(read(in), E) << hex << " with padding";
}

TEST(VarintErrors, FifthByteOfVIntCarriesOnlyFourBits) {
  auto read = [](StreamInput& in) { (void)in.readVInt(); };
  for (const char* bad : {"80 80 80 80 10", "ff ff ff ff 1f", "80 80 80 80 80", "ff ff ff ff ff"}) {
    expectError<CorruptStreamError>(bad, read, "Invalid vInt");
  }
}

TEST(VarintErrors, TenthByteOfVLongIsZeroOrOne) {
  auto read = [](StreamInput& in) { (void)in.readVLong(); };
  expectError<CorruptStreamError>("ff ff ff ff ff ff ff ff ff 02", read, "Invalid vlong");
  expectError<CorruptStreamError>("80 80 80 80 80 80 80 80 80 81 00", read, "Invalid vlong");
}

TEST(VarintErrors, TenByteVLongWithTopBitIsAccepted) {
  // ES writes negatives with writeVLongNoCheck in 10 bytes; readVLong takes them.
  std::vector<uint8_t> bytes = hexBytes("ff ff ff ff ff ff ff ff ff 01");
  for (size_t page : kPageSizes) {
    testing::readAll(bytes, page, [](StreamInput& in) { EXPECT_EQ(in.readVLong(), -1); });
  }
  EXPECT_EQ(testing::toHex(testing::writeAt(7, [](StreamOutput& o) { o.writeVLongNoCheck(-1); })),
            "ff ff ff ff ff ff ff ff ff 01");
}

TEST(VarintErrors, ZLongContinuationPastBit63) {
  auto read = [](StreamInput& in) { (void)in.readZLong(); };
  expectError<CorruptStreamError>("ff ff ff ff ff ff ff ff ff 81 00", read,
                                  "variable-length stream is too long");
  expectError<CorruptStreamError>("ff ff ff ff ff ff ff ff ff 02", read,
                                  "variable-length stream is too long");
}

TEST(VarintErrors, RawDecodersCheckTheLimit) {
  std::vector<uint8_t> b = hexBytes("80 80 01");
  EXPECT_THROW((void)decodeVInt(b.data(), b.data() + 2), EndOfStreamError);
  EXPECT_THROW((void)decodeVLong(b.data(), b.data() + 2), EndOfStreamError);
  EXPECT_THROW((void)decodeZLong(b.data(), b.data()), EndOfStreamError);
  EXPECT_EQ(decodeVInt(b.data(), b.data() + 3).value, 16384);
}

TEST(BooleanErrors, UnexpectedByte) {
  expectError<CorruptStreamError>(
      "02", [](StreamInput& in) { (void)in.readBoolean(); }, "unexpected byte [0x02]");
  expectError<CorruptStreamError>(
      "ff", [](StreamInput& in) { (void)in.readBoolean(); }, "unexpected byte [0xff]");
  expectError<CorruptStreamError>(
      "03", [](StreamInput& in) { (void)in.readOptionalBoolean(); }, "unexpected byte [0x03]");
  expectError<CorruptStreamError>(
      "05 01", [](StreamInput& in) { (void)in.readOptionalVInt(); }, "unexpected byte [0x05]");
}

std::vector<std::function<void(StreamInput&)>> sizedReaders() {
  return {
      [](StreamInput& in) { (void)in.readString(); },
      [](StreamInput& in) { (void)in.readByteArray(); },
      [](StreamInput& in) { (void)in.readStringArray(); },
      [](StreamInput& in) { (void)in.readVIntArray(); },
      [](StreamInput& in) { (void)in.readVLongArray(); },
      [](StreamInput& in) { (void)in.readIntArray(); },
      [](StreamInput& in) { (void)in.readLongArray(); },
      [](StreamInput& in) { (void)in.readFloatArray(); },
      [](StreamInput& in) { (void)in.readDoubleArray(); },
      [](StreamInput& in) { (void)in.readArraySize(); },
  };
}

TEST(SizeErrors, NegativeSize) {
  for (auto& read : sizedReaders()) {
    expectError<CorruptStreamError>("ff ff ff ff 0f", read,
                                    "array size must be positive but was: -1");
    expectError<CorruptStreamError>("80 80 80 80 08", read,
                                    "array size must be positive but was: -2147483648");
  }
}

TEST(SizeErrors, SizeLargerThanTheBytesLeftFailsBeforeAllocating) {
  // 0x7FFFFFFF elements announced, three bytes follow.
  for (auto& read : sizedReaders()) {
    expectError<EndOfStreamError>("ff ff ff ff 07 01 02 03", read, "bytes but only 3 remaining");
  }
  // Fixed-width elements count at their width: 2 longs need 16 bytes.
  expectError<EndOfStreamError>(
      "02 00 00 00 00 00 00 00 01", [](StreamInput& in) { (void)in.readLongArray(); },
      "tried to read: 16 bytes but only 8 remaining");
  expectError<EndOfStreamError>(
      "03 00 00 00 00 00 00 00 00", [](StreamInput& in) { (void)in.readIntArray(); },
      "tried to read: 12 bytes but only 8 remaining");
}

TEST(SizeErrors, ConfiguredMaximum) {
  std::vector<uint8_t> bytes = hexBytes("05 61 62 63 64 65");
  ByteArrayStreamInput in(bytes);
  in.setMaxArraySize(4);
  try {
    (void)in.readString();
    FAIL();
  } catch (const LimitExceededError& e) {
    EXPECT_NE(std::string(e.what()).find("array size 5 is above the limit of 4"),
              std::string::npos);
  }
  ByteArrayStreamInput ok(bytes);
  ok.setMaxArraySize(5);
  EXPECT_EQ(ok.readString(), "abcde");
}

TEST(StringErrors, InvalidBytes) {
  auto read = [](StreamInput& in) { (void)in.readString(); };
  expectError<CorruptStreamError>("01 80", read, "Invalid string: bad lead byte [0x80]");
  expectError<CorruptStreamError>("01 bf", read, "Invalid string: bad lead byte [0xbf]");
  expectError<CorruptStreamError>("01 f0 9f 98 80", read, "Invalid string: bad lead byte [0xf0]");
  expectError<CorruptStreamError>("01 ff", read, "Invalid string: bad lead byte [0xff]");
  expectError<CorruptStreamError>("01 c3 41", read, "Invalid string: bad continuation byte [0x41]");
  expectError<CorruptStreamError>("01 e2 82 c0", read,
                                  "Invalid string: bad continuation byte [0xc0]");
  expectError<CorruptStreamError>("01 c0 80", read, "Invalid string: overlong");
  expectError<CorruptStreamError>("01 c1 bf", read, "Invalid string: overlong");
  expectError<CorruptStreamError>("01 e0 80 80", read, "Invalid string: overlong");
  expectError<CorruptStreamError>("01 e0 9f bf", read, "Invalid string: overlong");
}

TEST(StringErrors, UnpairedSurrogates) {
  auto read = [](StreamInput& in) { (void)in.readString(); };
  expectError<CorruptStreamError>("01 ed a0 bd", read, "unpaired high surrogate [0xd83d]");
  expectError<CorruptStreamError>("02 ed a0 bd 41", read, "unpaired high surrogate [0xd83d]");
  expectError<CorruptStreamError>("01 ed b8 80", read, "unpaired low surrogate [0xde00]");
}

TEST(StringErrors, EndsInsideASequence) {
  auto read = [](StreamInput& in) { (void)in.readString(); };
  // The count promises two units; the bytes stop inside the second one.
  for (const char* hex : {"02 c3 a9 e2", "02 c3 a9 e2 82", "02 ed a0 bd ed", "02 ed a0 bd ed b8"}) {
    expectError<EndOfStreamError>(hex, read, "remaining");
  }
}

TEST(WriterErrors, InvalidUtf8IsACallerErrorAndWritesNothing) {
  for (std::string bad :
       {std::string("\x80"), std::string("a\xC3"), std::string("\xC0\x80"),
        std::string("\xED\xA0\x80"), std::string("\xF4\x90\x80\x80"),
        std::string("\xF0\x8F\xBF\xBF"), std::string("\xE0\x9F\xBF"), std::string("\xFF")}) {
    PageRecycler recycler(3);
    BytesStreamOutput out(recycler);
    EXPECT_THROW(out.writeString(bad), std::invalid_argument)
        << testing::toHex(std::vector<uint8_t>(bad.begin(), bad.end()));
    EXPECT_EQ(out.size(), 0u);
  }
}

TEST(WriterErrors, NegativeVLong) {
  BytesStreamOutput out;
  try {
    out.writeVLong(-5);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "Negative longs unsupported, use writeLong or writeZLong for negative "
                 "numbers [-5]");
  }
  std::vector<int64_t> v = {1, -2};
  EXPECT_THROW(out.writeVLongArray(v), std::invalid_argument);
  EXPECT_EQ(out.size(), 0u) << "a rejected array writes nothing";
}

// ---- the 2 GiB cap (wire format §5) ----

TEST(Capacity, SmallInjectedLimitIsExactAndAllOrNothing) {
  for (size_t page : kPageSizes) {
    PageRecycler recycler(page);
    BytesStreamOutput out(recycler, 10);
    std::vector<uint8_t> nine(9, 7);
    out.writeBytes(nine);
    EXPECT_THROW(out.writeInt(1), LimitExceededError);
    EXPECT_EQ(out.size(), 9u) << "a refused write leaves nothing behind";
    out.writeByte(1);
    EXPECT_EQ(out.size(), 10u);
    EXPECT_THROW(out.writeByte(1), LimitExceededError);
    EXPECT_THROW(out.writeVInt(1), LimitExceededError);
    EXPECT_EQ(out.size(), 10u);
  }
}

TEST(Capacity, SeekPastTwoGigabytesFailsWithoutAllocating) {
  PageRecycler recycler;
  BytesStreamOutput out(recycler);
  out.writeInt(1);
  try {
    out.seek(size_t{1} << 31);
    FAIL();
  } catch (const LimitExceededError& e) {
    EXPECT_NE(std::string(e.what()).find("BytesStreamOutput cannot hold more than 2GB of data"),
              std::string::npos);
  }
  EXPECT_THROW(out.skip(BytesStreamOutput::kMaxSize), LimitExceededError);
  EXPECT_EQ(out.size(), 4u);
  EXPECT_EQ(recycler.outstandingPages(), 1u) << "no page taken for a refused seek";
}

TEST(Capacity, WriteCrossingTwoGigabytesFailsBeforeCopying) {
  // A 2 GiB source that is never touched: reserved address space, no memory.
  const size_t len = size_t{1} << 31;
  void* src = mmap(nullptr, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(src, MAP_FAILED);
  PageRecycler recycler;
  BytesStreamOutput out(recycler);
  out.writeByte(1);
  EXPECT_THROW(out.writeBytes({static_cast<const uint8_t*>(src), len - 1}), LimitExceededError);
  EXPECT_EQ(out.size(), 1u);
  EXPECT_LE(recycler.outstandingPages(), 1u);
  munmap(src, len);
}

}  // namespace
}  // namespace wirestream
