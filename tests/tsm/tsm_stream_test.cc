// Tests of //tsm:tsm_stream: a VInt length, then the block. The blocks are
// the InfluxDB-derived ones of tsm_test.cc (each comment there says which Go
// lines write which bytes); only the length in front is ours.
#include "tsm/tsm_stream.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>
#include <vector>

#include "stream/bytes_reference.h"
#include "stream/errors.h"
#include "tests/stream/test_util.h"

namespace wirestream::tsm {
namespace {

using Bytes = std::vector<uint8_t>;
using testing::hexBytes;
using testing::kPageSizes;
using testing::toHex;

struct Case {
  const char* name;
  testing::Writer write;
  testing::Reader read;  // checks the values it reads
  const char* bytes;
};

std::vector<Case> cases() {
  static const std::vector<int64_t> kSeconds = {0, 1000000000, 2000000000};
  static const std::vector<int64_t> kInts = {1, 1, 3, 2};
  static const std::vector<uint64_t> kUnsigned = {0, 1, 2};
  static const std::vector<double> kFloat = {1.0};
  static const std::vector<bool> kBools = {true, false, true};
  static const std::vector<std::string> kNoStrings = {};
  return {
      // tsm_test "RLE seconds in ns": 29, BE64(0), uvarint(1), uvarint(3): 11 bytes.
      {"time RLE", [](StreamOutput& o) { writeTimeBlock(o, kSeconds); },
       [](StreamInput& i) { EXPECT_EQ(readTimeBlock(i), kSeconds); },
       "0B 29 0000000000000000 01 03"},
      // The empty integer array is no bytes at all: length 0.
      {"empty integers", [](StreamOutput& o) { writeIntegerBlock(o, {}); },
       [](StreamInput& i) { EXPECT_TRUE(readIntegerBlock(i).empty()); }, "00"},
      // tsm_test "simple8b three": 17 bytes.
      {"integers simple8b", [](StreamOutput& o) { writeIntegerBlock(o, kInts); },
       [](StreamInput& i) { EXPECT_EQ(readIntegerBlock(i), kInts); },
       "11 10 0000000000000002 D000010000400000"},
      // Unsigned {0, 1, 2}: deltas 0, 1, 1 (zig-zag 0, 2, 2): RLE 20, BE64(0),
      // uvarint(2), uvarint(n - 1 = 2).
      {"unsigned RLE", [](StreamOutput& o) { writeUnsignedBlock(o, kUnsigned); },
       [](StreamInput& i) { EXPECT_EQ(readUnsignedBlock(i), kUnsigned); },
       "0B 20 0000000000000000 02 02"},
      // tsm_test "one value" float: 19 bytes.
      {"float one value", [](StreamOutput& o) { writeFloatBlock(o, kFloat); },
       [](StreamInput& i) { EXPECT_EQ(readFloatBlock(i), kFloat); },
       "13 10 3FF0000000000000 C3FC0080000000000010"},
      // tsm_test booleans {true, false, true}: 10 03 A0.
      {"booleans", [](StreamOutput& o) { writeBooleanBlock(o, kBools); },
       [](StreamInput& i) { EXPECT_EQ(readBooleanBlock(i), kBools); }, "03 10 03 A0"},
      // Empty strings: 10, snappy of nothing (uvarint length 0): 10 00.
      {"no strings", [](StreamOutput& o) { writeStringBlock(o, kNoStrings); },
       [](StreamInput& i) { EXPECT_TRUE(readStringBlock(i).empty()); }, "02 10 00"},
  };
}

TEST(TsmStream, ExpectedBytesAtEveryPageSize) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    Bytes expected = hexBytes(c.bytes);
    for (size_t page : kPageSizes) {
      EXPECT_EQ(toHex(testing::writeAt(page, c.write)), toHex(expected)) << "page " << page;
      testing::readAll(expected, page, c.read);
      testing::expectEveryPrefixFails(expected, page, c.read);
    }
  }
}

TEST(TsmStream, BlocksBackToBackAcrossPages) {
  std::mt19937_64 rng(testing::testSeed(1712));
  std::vector<int64_t> times(3000), ints(3000);
  std::vector<double> floats(3000);
  int64_t t = 1700000000000;
  for (size_t i = 0; i < times.size(); ++i) {
    times[i] = t += 1000 * int64_t(1 + rng() % 3);
    ints[i] = int64_t(rng() % 1000) - 500;
    floats[i] = double(rng() % 100000) / 100;
  }
  auto write = [&](StreamOutput& o) {
    writeTimeBlock(o, times);
    writeIntegerBlock(o, ints);
    writeFloatBlock(o, floats);
    o.writeVInt(7);
  };
  auto read = [&](StreamInput& i) {
    EXPECT_EQ(readTimeBlock(i), times);
    EXPECT_EQ(readIntegerBlock(i), ints);
    EXPECT_EQ(readFloatBlock(i), floats);
    EXPECT_EQ(i.readVInt(), 7);
  };
  Bytes reference = testing::writeAt(16384, write);
  for (size_t page : kPageSizes) {
    EXPECT_EQ(testing::writeAt(page, write), reference) << "page " << page;
    testing::readAll(reference, page, read);
  }
}

void expectThrowsNaming(const Bytes& bytes, const std::function<void(StreamInput&)>& read,
                        const char* what, int kind) {
  auto run = [&] {
    ByteArrayStreamInput in(bytes);
    read(in);
  };
  if (kind == 0) testing::expectErrorNaming<CorruptStreamError>(run, what);
  if (kind == 1) testing::expectErrorNaming<EndOfStreamError>(run, what);
  if (kind == 2) testing::expectErrorNaming<LimitExceededError>(run, what);
}

TEST(TsmStream, HostileLengthsAndBlocks) {
  auto ints = [](StreamInput& i) { (void)readIntegerBlock(i); };
  // VInt -1.
  expectThrowsNaming(hexBytes("FF FF FF FF 0F"), ints, "negative TSM block length [-1]", 0);
  // 2^31 - 1 bytes claimed, 3 present: refused before anything is allocated.
  expectThrowsNaming(hexBytes("FF FF FF FF 07 20 00 00"), ints,
                     "tried to read: 2147483647 bytes but only 3 remaining", 1);
  // Encoding nibble 3 is none of the integer layouts.
  expectThrowsNaming(hexBytes("09 30 0000000000000000"), ints, "integer", 0);
  // An RLE of 2^24 + 1 values in 11 bytes: above the default limit.
  expectThrowsNaming(hexBytes("0E 20 0000000000000000 02 80808008"), ints, "16777217", 2);
  // The same RLE of 4 values under max_values 3, and under maxArraySize 3.
  Bytes four = hexBytes("0B 20 0000000000000000 02 03");
  expectThrowsNaming(
      four, [](StreamInput& i) { (void)readIntegerBlock(i, 3); }, "above the limit of 3", 2);
  expectThrowsNaming(
      four,
      [](StreamInput& i) {
        i.setMaxArraySize(3);
        (void)readIntegerBlock(i);
      },
      "above the limit of 3", 2);
  {
    ByteArrayStreamInput in(four);
    EXPECT_EQ(readIntegerBlock(in, 4), (std::vector<int64_t>{0, 1, 2, 3}));
  }
  // The length cuts the block: the decoder sees 10 of its 11 bytes.
  expectThrowsNaming(hexBytes("0A 20 0000000000000000 02 03"), ints, "tried to read", 1);
  // The length leaves a byte of the block outside it: trailing bytes in RLE.
  expectThrowsNaming(hexBytes("0C 20 0000000000000000 02 03 00"), ints, "integer", 0);
  // A NaN cannot be written, and nothing is.
  BytesStreamOutput out;
  const double nan[] = {std::numeric_limits<double>::quiet_NaN()};
  EXPECT_THROW(writeFloatBlock(out, nan), std::invalid_argument);
  EXPECT_EQ(out.size(), 0u);
}

TEST(TsmStream, RandomizedRoundTrip) {
  std::mt19937_64 rng(testing::testSeed(99));
  for (int iter = 0; iter < 200; ++iter) {
    size_t n = rng() % 3000;
    std::vector<int64_t> v(n);
    std::vector<double> f(n);
    std::vector<bool> b(n);
    std::vector<std::string> s(n % 50);
    for (size_t i = 0; i < n; ++i) {
      v[i] = int64_t(rng() >> (rng() % 64));
      f[i] = double(int64_t(rng() % 2000) - 1000) / 8;
      b[i] = rng() & 1;
    }
    for (auto& e : s) e = std::string(rng() % 20, char('a' + rng() % 26));
    size_t page = kPageSizes[rng() % kPageSizes.size()];
    Bytes bytes = testing::writeAt(page, [&](StreamOutput& o) {
      writeIntegerBlock(o, v);
      writeFloatBlock(o, f);
      writeBooleanBlock(o, b);
      writeStringBlock(o, s);
    });
    testing::readAll(bytes, page, [&](StreamInput& i) {
      ASSERT_EQ(readIntegerBlock(i), v);
      ASSERT_EQ(readFloatBlock(i), f);
      ASSERT_EQ(readBooleanBlock(i), b);
      ASSERT_EQ(readStringBlock(i), s);
    });
  }
}

}  // namespace
}  // namespace wirestream::tsm
