// StreamOutput::Cursor and StreamInput::Cursor: the same bytes and values as
// the stream's own writers and readers, at every page size, across chunk
// boundaries, with the same errors on truncated and malformed input.
//
// Expected bytes follow Elasticsearch's StreamOutput: writeVInt/writeVLong
// emit 7 bits a byte, low group first, 0x80 on every byte but the last
// (`while ((i & ~0x7F) != 0) { writeByte((byte) ((i & 0x7f) | 0x80)); i >>>= 7; }`);
// writeLong is big-endian; writeDouble is writeLong(doubleToLongBits(v)).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "stream/bytes_reference.h"
#include "stream/bytes_stream_output.h"
#include "stream/stream_input.h"
#include "tests/stream/test_util.h"

namespace wirestream::testing {
namespace {

struct VInt {
  int32_t v;
};
struct VLong {
  int64_t v;
};
struct ZLong {
  int64_t v;
};
struct Long {
  int64_t v;
};
struct Double {
  double v;
};
struct Byte {
  uint8_t v;
};
struct Raw {
  std::string v;  // writeBytes / readBytes of v.size() bytes
};
struct Str {
  std::string v;  // through withStream: writeString / readString
};
using Op = std::variant<VInt, VLong, ZLong, Long, Double, Byte, Raw, Str>;

struct Case {
  Op op;
  const char* hex;
};

// Expected bytes per the ES algorithms quoted at the top.
const Case kCases[] = {
    {VInt{0}, "00"},
    {VInt{1}, "01"},
    {VInt{127}, "7F"},
    {VInt{128}, "80 01"},
    {VInt{300}, "AC 02"},
    {VInt{16383}, "FF 7F"},
    {VInt{16384}, "80 80 01"},
    {VInt{(1 << 21) - 1}, "FF FF 7F"},
    {VInt{1 << 21}, "80 80 80 01"},
    {VInt{(1 << 28) - 1}, "FF FF FF 7F"},
    {VInt{1 << 28}, "80 80 80 80 01"},
    {VInt{std::numeric_limits<int32_t>::max()}, "FF FF FF FF 07"},
    {VInt{-1}, "FF FF FF FF 0F"},
    {VInt{std::numeric_limits<int32_t>::min()}, "80 80 80 80 08"},
    {VLong{0}, "00"},
    {VLong{127}, "7F"},
    {VLong{128}, "80 01"},
    {VLong{int64_t{1} << 35}, "80 80 80 80 80 01"},
    {VLong{std::numeric_limits<int64_t>::max()}, "FF FF FF FF FF FF FF FF 7F"},
    {ZLong{0}, "00"},
    {ZLong{-1}, "01"},
    {ZLong{1}, "02"},
    {ZLong{-65}, "81 01"},
    {ZLong{std::numeric_limits<int64_t>::min()}, "FF FF FF FF FF FF FF FF FF 01"},
    {Long{0x0102030405060708}, "01 02 03 04 05 06 07 08"},
    {Long{-2}, "FF FF FF FF FF FF FF FE"},
    {Double{1.0}, "3F F0 00 00 00 00 00 00"},
    {Double{std::nan("")}, "7F F8 00 00 00 00 00 00"},
    {Byte{0xAB}, "AB"},
    {Raw{""}, ""},
    {Raw{"abc"}, "61 62 63"},
    {Raw{"0123456789abcdefXY"}, "30 31 32 33 34 35 36 37 38 39 61 62 63 64 65 66 58 59"},
    {Str{"hi"}, "02 68 69"},
};

// Through a StreamOutput::Cursor, or through the StreamOutput itself (the
// reference the random runs compare the cursor with).
template <typename Out>
void writeOp(Out& c, const Op& op) {
  std::visit(
      [&c](const auto& o) {
        using T = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<T, VInt>) c.writeVInt(o.v);
        if constexpr (std::is_same_v<T, VLong>) c.writeVLong(o.v);
        if constexpr (std::is_same_v<T, ZLong>) c.writeZLong(o.v);
        if constexpr (std::is_same_v<T, Long>) c.writeLong(o.v);
        if constexpr (std::is_same_v<T, Double>) c.writeDouble(o.v);
        if constexpr (std::is_same_v<T, Byte>) c.writeByte(o.v);
        if constexpr (std::is_same_v<T, Raw>) {
          c.writeBytes({reinterpret_cast<const uint8_t*>(o.v.data()), o.v.size()});
        }
        if constexpr (std::is_same_v<T, Str>) {
          if constexpr (std::is_same_v<Out, StreamOutput::Cursor>) {
            c.withStream([&o](StreamOutput& out) { out.writeString(o.v); });
          } else {
            c.writeString(o.v);
          }
        }
      },
      op);
}

// Reads op's value back through the cursor and checks it.
void readOp(StreamInput::Cursor& c, const Op& op) {
  std::visit(
      [&c](const auto& o) {
        using T = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<T, VInt>) {
          EXPECT_EQ(c.readVInt(), o.v);
        }
        if constexpr (std::is_same_v<T, VLong>) {
          EXPECT_EQ(c.readVLong(), o.v);
        }
        if constexpr (std::is_same_v<T, ZLong>) {
          EXPECT_EQ(c.withStream([](StreamInput& in) { return in.readZLong(); }), o.v);
        }
        if constexpr (std::is_same_v<T, Long>) {
          EXPECT_EQ(c.readLong(), o.v);
        }
        if constexpr (std::is_same_v<T, Double>) {
          double d = c.readDouble();
          if (std::isnan(o.v)) {
            EXPECT_TRUE(std::isnan(d));
          } else {
            EXPECT_EQ(d, o.v);
          }
        }
        if constexpr (std::is_same_v<T, Byte>) {
          EXPECT_EQ(c.readByte(), o.v);
        }
        if constexpr (std::is_same_v<T, Raw>) {
          std::string back(o.v.size(), '\0');
          c.readBytes({reinterpret_cast<uint8_t*>(back.data()), back.size()});
          EXPECT_EQ(back, o.v);
        }
        if constexpr (std::is_same_v<T, Str>) {
          EXPECT_EQ(c.withStream([](StreamInput& in) { return in.readString(); }), o.v);
        }
      },
      op);
}

std::vector<uint8_t> writeOps(size_t page_size, const std::vector<Op>& ops) {
  return writeAt(page_size, [&ops](StreamOutput& out) {
    StreamOutput::Cursor c(out);
    for (const Op& op : ops) writeOp(c, op);
  });
}

void readOps(const std::vector<uint8_t>& bytes, size_t piece_size, const std::vector<Op>& ops) {
  readAll(bytes, piece_size, [&ops](StreamInput& in) {
    StreamInput::Cursor c(in);
    for (const Op& op : ops) readOp(c, op);
  });
}

TEST(Cursor, EachValueHasTheReferenceBytesAtEveryPageSize) {
  for (const Case& k : kCases) {
    std::vector<uint8_t> expected = hexBytes(k.hex);
    for (size_t page : kPageSizes) {
      EXPECT_EQ(toHex(writeOps(page, {k.op})), toHex(expected)) << k.hex << ", page " << page;
      readOps(expected, page, {k.op});
    }
  }
}

TEST(Cursor, AllValuesInOneRunCrossEveryBoundary) {
  std::vector<Op> ops;
  std::vector<uint8_t> expected;
  for (int round = 0; round < 3; ++round) {
    for (const Case& k : kCases) {
      ops.push_back(k.op);
      std::vector<uint8_t> b = hexBytes(k.hex);
      expected.insert(expected.end(), b.begin(), b.end());
    }
  }
  for (size_t page : kPageSizes) {
    EXPECT_EQ(toHex(writeOps(page, ops)), toHex(expected)) << "page " << page;
    readOps(expected, page, ops);
  }
}

TEST(Cursor, PositionGoesBackToTheStreams) {
  BytesStreamOutput out;
  out.writeByte(1);
  {
    StreamOutput::Cursor c(out);
    c.writeVInt(300);
  }
  out.writeByte(2);
  EXPECT_EQ(toHex(out.bytes().toVector()), toHex(hexBytes("01 AC 02 02")));

  std::vector<uint8_t> bytes = hexBytes("01 AC 02 02");
  ByteArrayStreamInput in(bytes);
  EXPECT_EQ(in.readByte(), 1);
  {
    StreamInput::Cursor c(in);
    EXPECT_EQ(c.readVInt(), 300);
  }
  EXPECT_EQ(in.available(), 1u);
  EXPECT_EQ(in.readByte(), 2);
}

TEST(Cursor, EveryTruncationIsEndOfStream) {
  std::vector<Op> ops;
  std::vector<uint8_t> bytes;
  for (const Case& k : kCases) {
    ops.push_back(k.op);
    std::vector<uint8_t> b = hexBytes(k.hex);
    bytes.insert(bytes.end(), b.begin(), b.end());
  }
  for (size_t page : kPageSizes) {
    expectEveryPrefixFails(bytes, page, [&ops](StreamInput& in) {
      StreamInput::Cursor c(in);
      for (const Op& op : ops) readOp(c, op);
    });
    // And through an array input (one chunk: the cursor's own inline checks).
    for (size_t n = 0; n < bytes.size(); ++n) {
      std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + n);
      ByteArrayStreamInput in(prefix);
      EXPECT_THROW(
          {
            StreamInput::Cursor c(in);
            for (const Op& op : ops) readOp(c, op);
          },
          EndOfStreamError)
          << "prefix " << n;
      EXPECT_LE(in.available(), prefix.size());
    }
  }
}

TEST(Cursor, ReadArraySizeChecksAsTheStreamDoes) {
  for (size_t piece : kPageSizes) {
    auto read = [](const char* hex, size_t piece, int32_t max, size_t each) {
      std::vector<uint8_t> bytes = hexBytes(hex);
      BytesReference ref = paged(bytes, piece);
      BytesReferenceStreamInput in(ref);
      in.setMaxArraySize(max);
      StreamInput::Cursor c(in);
      return c.readArraySize(each);
    };
    EXPECT_EQ(read("03 61 62 63", piece, 100, 1), 3);
    EXPECT_EQ(read("01 61 62 63", piece, 100, 3), 1);
    EXPECT_EQ(read("00", piece, 0, 1), 0);
    EXPECT_THROW(read("FF FF FF FF 0F", piece, 100, 1), CorruptStreamError);  // -1
    EXPECT_THROW(read("03 61 62 63", piece, 2, 1), LimitExceededError);
    EXPECT_THROW(read("04 61 62 63", piece, 100, 1), EndOfStreamError);
    EXPECT_THROW(read("02 61 62 63", piece, 100, 2), EndOfStreamError);
    EXPECT_THROW(read("FF FF FF FF 10", piece, 100, 1), CorruptStreamError);  // bad 5th byte
  }
}

TEST(Cursor, ReadByteIfConsumesOnlyAMatch) {
  std::vector<uint8_t> bytes = hexBytes("00 01");
  ByteArrayStreamInput in(bytes);
  StreamInput::Cursor c(in);
  EXPECT_FALSE(c.readByteIf(1));
  EXPECT_TRUE(c.readByteIf(0));
  EXPECT_FALSE(c.readByteIf(0));
  EXPECT_TRUE(c.readByteIf(1));
  EXPECT_FALSE(c.readByteIf(0));  // at the end: false, nothing thrown
  EXPECT_EQ(c.readInChunk(1), nullptr);
}

TEST(Cursor, RandomRunsMatchTheStreamWriters) {
  std::mt19937_64 rng(testSeed(0xC0550));
  for (int run = 0; run < 200; ++run) {
    std::vector<Op> ops;
    int n = static_cast<int>(rng() % 60);
    for (int i = 0; i < n; ++i) {
      int width = static_cast<int>(rng() % 64);
      uint64_t x = width == 0 ? 0 : rng() >> (64 - width);
      switch (rng() % 7) {
        case 0:
          ops.push_back(VInt{static_cast<int32_t>(x)});
          break;
        case 1:
          ops.push_back(VLong{static_cast<int64_t>(x >> 1)});
          break;
        case 2:
          ops.push_back(ZLong{static_cast<int64_t>(x)});
          break;
        case 3:
          ops.push_back(Long{static_cast<int64_t>(x)});
          break;
        case 4:
          ops.push_back(Byte{static_cast<uint8_t>(x)});
          break;
        case 5:
          ops.push_back(Raw{std::string(x % 40, static_cast<char>('a' + x % 26))});
          break;
        default:
          ops.push_back(Str{std::string(x % 20, 'z')});
          break;
      }
    }
    size_t page = kPageSizes[rng() % kPageSizes.size()];
    // The reference: the same values through StreamOutput's own writers.
    std::vector<uint8_t> expected = writeAt(page, [&ops](StreamOutput& out) {
      for (const Op& op : ops) writeOp(out, op);
    });
    ASSERT_EQ(toHex(writeOps(page, ops)), toHex(expected)) << "run " << run << ", page " << page;
    readOps(expected, page, ops);
  }
}

// ES's writeVInt loop, quoted at the top, for writeEach's expected bytes.
void esVInt(std::vector<uint8_t>& out, uint32_t i) {
  while ((i & ~0x7Fu) != 0) {
    out.push_back(static_cast<uint8_t>((i & 0x7F) | 0x80));
    i >>= 7;
  }
  out.push_back(static_cast<uint8_t>(i));
}

// Values of every VInt width, negatives included, in a seeded order.
std::vector<int32_t> vintsOfEveryWidth(uint64_t seed, size_t n) {
  std::mt19937_64 rng(seed);
  std::vector<int32_t> values;
  for (size_t i = 0; i < n; ++i) {
    int bits = static_cast<int>(rng() % 33);
    values.push_back(static_cast<int32_t>(bits == 0 ? 0 : rng() >> (64 - bits)));
  }
  return values;
}

TEST(CursorEach, WriteEachHasTheReferenceBytesAtEveryPageSize) {
  uint64_t seed = testSeed(0xEAC4);
  for (size_t n : {0, 1, 2, 3, 4, 5, 7, 8, 9, 100, 5000}) {
    std::vector<int32_t> values = vintsOfEveryWidth(seed + n, n);
    std::vector<uint8_t> expected;
    for (int32_t v : values) esVInt(expected, static_cast<uint32_t>(v));
    for (size_t page : kPageSizes) {
      std::vector<uint8_t> got = writeAt(page, [&values](StreamOutput& out) {
        out.writeByte(0xEE);  // a run that starts mid-buffer
        StreamOutput::Cursor c(out);
        c.writeEach(values, kMaxVIntBytes, [](auto& w, int32_t v) { w.writeVInt(v); });
        c.writeByte(0xFF);  // and the cursor goes on after it
      });
      std::vector<uint8_t> want = {0xEE};
      want.insert(want.end(), expected.begin(), expected.end());
      want.push_back(0xFF);
      ASSERT_EQ(toHex(got), toHex(want)) << "n " << n << ", page " << page;

      std::vector<int32_t> back;
      readAll(want, page, [&](StreamInput& in) {
        back.clear();
        EXPECT_EQ(in.readByte(), 0xEE);
        StreamInput::Cursor c(in);
        c.readEach(n, kMaxVIntBytes, [&](auto& r) { back.push_back(r.readVInt()); });
        EXPECT_EQ(c.readByte(), 0xFF);
      });
      ASSERT_EQ(back, values) << "n " << n << ", page " << page;
    }
  }
}

// Every writer Reserved has, several to a value, against the stream's own.
TEST(CursorEach, EveryReservedWriterMatchesTheStream) {
  std::mt19937_64 rng(testSeed(0xEAC5));
  std::vector<uint64_t> values(3000);
  for (uint64_t& v : values) v = rng() >> (rng() % 64);
  auto write_one = [](auto& w, uint64_t v) {
    w.writeVLong(static_cast<int64_t>(v >> 1));
    w.writeZLong(static_cast<int64_t>(v));
    w.writeLong(static_cast<int64_t>(v));
    w.writeDouble(static_cast<double>(v));
    w.writeBoolean(v & 1);
    w.writeByte(static_cast<uint8_t>(v));
    w.writeVLongNoCheck(-static_cast<int64_t>(v & 0xFF));
    // The typed writers each writer has had since TypedWrites (stream/typed_writes.h).
    w.writeShort(static_cast<int16_t>(v));
    w.writeInt(static_cast<int32_t>(v));
    w.writeFloat(v % 7 == 0 ? std::nanf("") : static_cast<float>(v));
    w.writeVInt(static_cast<int32_t>(v));
    w.writeArraySize(static_cast<size_t>(v & 0x7FFFFFFF));
  };
  constexpr size_t kMax = 9 + 10 + 8 + 8 + 1 + 1 + 10 + 2 + 4 + 4 + 5 + 5;
  for (size_t page : kPageSizes) {
    std::vector<uint8_t> expected = writeAt(page, [&](StreamOutput& out) {
      for (uint64_t v : values) write_one(out, v);
    });
    std::vector<uint8_t> got = writeAt(page, [&](StreamOutput& out) {
      StreamOutput::Cursor c(out);
      c.writeEach(values, kMax, write_one);
    });
    ASSERT_EQ(toHex(got), toHex(expected)) << "page " << page;
  }
}

// Every typed reader of TypedReads (stream/typed_reads.h) gives the same values
// through the stream, its Cursor and readEach's Reserved reader, and the same
// error for a boolean that is neither 00 nor 01.
TEST(CursorEach, EveryTypedReaderMatchesTheStream) {
  std::mt19937_64 rng(testSeed(0xEAC7));
  std::vector<uint64_t> values(500);
  for (uint64_t& v : values) v = rng() >> (rng() % 64);
  auto write_one = [](StreamOutput& out, uint64_t v) {
    out.writeBoolean(v & 1);
    out.writeShort(static_cast<int16_t>(v));
    out.writeInt(static_cast<int32_t>(v));
    out.writeLong(static_cast<int64_t>(v));
    out.writeFloat(static_cast<float>(v));
    out.writeDouble(static_cast<double>(v));
    out.writeVInt(static_cast<int32_t>(v));
    out.writeVLongNoCheck(static_cast<int64_t>(v));
    out.writeZLong(static_cast<int64_t>(v));
  };
  constexpr size_t kMax = 1 + 2 + 4 + 8 + 4 + 8 + 5 + 10 + 10;
  using Row = std::tuple<bool, int16_t, int32_t, int64_t, float, double, int32_t, int64_t, int64_t>;
  auto read_one = [](auto& r) {
    // Named locals: the order of reads is the order of the bytes.
    bool b = r.readBoolean();
    int16_t sh = r.readShort();
    int32_t i = r.readInt();
    int64_t l = r.readLong();
    float f = r.readFloat();
    double d = r.readDouble();
    int32_t vi = r.readVInt();
    int64_t vl = r.readVLong();
    int64_t z = r.readZLong();
    return Row{b, sh, i, l, f, d, vi, vl, z};
  };
  for (size_t page : {size_t{1}, size_t{7}, size_t{16384}}) {
    std::vector<uint8_t> bytes = writeAt(page, [&](StreamOutput& out) {
      for (uint64_t v : values) write_one(out, v);
    });
    // readAll may call each reader more than once (once per input kind).
    std::vector<Row> expected;
    readAll(bytes, page, [&](StreamInput& in) {
      expected.clear();
      for (size_t k = 0; k < values.size(); ++k) expected.push_back(read_one(in));
    });
    ASSERT_EQ(expected.size(), values.size());
    readAll(bytes, page, [&](StreamInput& in) {
      std::vector<Row> got;
      StreamInput::Cursor c(in);
      for (size_t k = 0; k < values.size(); ++k) got.push_back(read_one(c));
      EXPECT_TRUE(got == expected) << "Cursor, page " << page;
    });
    readAll(bytes, page, [&](StreamInput& in) {
      std::vector<Row> got;
      StreamInput::Cursor c(in);
      c.readEach(values.size(), kMax, [&](auto& r) { got.push_back(read_one(r)); });
      EXPECT_TRUE(got == expected) << "readEach, page " << page;
    });
  }
  std::vector<uint8_t> bad(40, 0x02);
  ByteArrayStreamInput in(bad);
  EXPECT_THROW((void)in.readBoolean(), CorruptStreamError);
  StreamInput::Cursor c(in);
  EXPECT_THROW((void)c.readBoolean(), CorruptStreamError);
  EXPECT_THROW(c.readEach(1, 1, [](auto& r) { (void)r.readBoolean(); }), CorruptStreamError);
}

TEST(CursorEach, WriteEachRefusesANegativeVLong) {
  BytesStreamOutput out;
  std::vector<int64_t> values = {1, 2, -3};
  StreamOutput::Cursor c(out);
  EXPECT_THROW(c.writeEach(values, kMaxVLongBytes, [](auto& w, int64_t v) { w.writeVLong(v); }),
               std::invalid_argument);
}

TEST(CursorEach, ReadEachFailsAsTheStreamOnTruncatedAndInvalidInput) {
  std::vector<int32_t> values = vintsOfEveryWidth(testSeed(0xEAC6), 200);
  std::vector<uint8_t> bytes;
  for (int32_t v : values) esVInt(bytes, static_cast<uint32_t>(v));
  for (size_t page : {size_t{1}, size_t{7}, size_t{16384}}) {
    expectEveryPrefixFails(bytes, page, [&](StreamInput& in) {
      StreamInput::Cursor c(in);
      c.readEach(values.size(), kMaxVIntBytes, [](auto& r) { (void)r.readVInt(); });
    });
  }
  // A fifth byte with high bits set, inside a run and in the tail alike.
  for (size_t at : {size_t{0}, size_t{100}}) {
    std::vector<uint8_t> bad(at, 0x01);
    for (uint8_t b : {0xFF, 0xFF, 0xFF, 0xFF, 0x10}) bad.push_back(b);
    bad.resize(bad.size() + 40, 0x01);
    ByteArrayStreamInput in(bad);
    StreamInput::Cursor c(in);
    EXPECT_THROW(c.readEach(at + 41, kMaxVIntBytes, [](auto& r) { (void)r.readVInt(); }),
                 CorruptStreamError)
        << "at " << at;
  }
}

TEST(CursorEach, ReadEachReadsEveryReservedReader) {
  std::vector<uint8_t> bytes =
      hexBytes("07 AC 02 00 00 00 00 00 00 01 2C 80 80 80 80 80 80 80 80 80 01");
  // 07; VInt 300; long 300; VLong 2^63 (ES: ten bytes, the tenth 01).
  for (size_t page : kPageSizes) {
    readAll(bytes, page, [](StreamInput& in) {
      StreamInput::Cursor c(in);
      int calls = 0;
      c.readEach(1, 1 + 5 + 8 + 10, [&](auto& r) {
        EXPECT_EQ(r.readByte(), 7);
        EXPECT_EQ(r.readVInt(), 300);
        EXPECT_EQ(r.readLong(), 300);
        EXPECT_EQ(static_cast<uint64_t>(r.readVLong()), uint64_t{1} << 63);
        ++calls;
      });
      EXPECT_EQ(calls, 1);
    });
  }
}

}  // namespace
}  // namespace wirestream::testing
