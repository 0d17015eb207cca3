// Collections, maps, optional writeables, enums and enum sets, time values,
// instants and bytes references (wire format §2): expected bytes, read back,
// prefixes, and the errors of §4.
#include <gtest/gtest.h>

#include <map>
#include <unordered_map>

#include "stream/bytes_stream_output.h"
#include "stream/stream_input.h"
#include "stream/stream_output.h"
#include "tests/stream/structured_test_util.h"

namespace wirestream {

enum class Color { kRed, kGreen, kBlue };

template <>
struct WireEnumTraits<Color> {
  static constexpr std::string_view kName = "Color";
  static constexpr int32_t kCount = 3;
};

namespace {

using testing::bytesOf;
using testing::hexBytes;
using testing::kPageSizes;
using testing::PiecewiseInput;
using testing::toHex;
using testing::writeAt;

struct Point : Writeable {
  int32_t x = 0;
  std::string label;
  Point() = default;
  Point(int32_t x_, std::string label_) : x(x_), label(std::move(label_)) {}
  explicit Point(StreamInput& in) : x(in.readVInt()), label(in.readString()) {}
  void writeTo(StreamOutput& out) const override {
    out.writeVInt(x);
    out.writeString(label);
  }
  friend bool operator==(const Point& a, const Point& b) {
    return a.x == b.x && a.label == b.label;
  }
};

template <typename E, typename F>
void expectThrows(const std::string& hex, F read, const std::string& message) {
  SCOPED_TRACE(hex);
  auto bytes = hexBytes(hex);
  ByteArrayStreamInput in(bytes);
  try {
    read(in);
    FAIL() << "expected an error";
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

// Every strict prefix of what `write` produces fails to `read` with
// EndOfStreamError.
template <typename W, typename R>
void expectPrefixesFail(W write, R read) {
  testing::expectEveryPrefixFails(bytesOf(write), 2, [&](StreamInput& in) { read(in); });
}

// ---- collections ----

TEST(CollectionTest, WithCallbacks) {
  std::vector<int64_t> values = {1, 300, -1};
  auto write = [&](StreamOutput& out) {
    out.writeCollection(values, [](StreamOutput& o, int64_t v) { o.writeZLong(v); });
  };
  auto read = [](StreamInput& in) {
    return in.readCollection([](StreamInput& i) { return i.readZLong(); });
  };
  EXPECT_EQ(toHex(bytesOf(write)), "03 02 d8 04 01");
  for (size_t page : kPageSizes) {
    auto bytes = writeAt(page, write, TransportVersion::current());
    PiecewiseInput input(bytes, page);
    EXPECT_EQ(read(input.in()), values);
  }
  expectPrefixesFail(write, read);
  EXPECT_EQ(toHex(bytesOf([](StreamOutput& out) {
              out.writeCollection(std::vector<int>{}, [](StreamOutput&, int) {});
            })),
            "00");
}

TEST(CollectionTest, OfWriteablesAndPointers) {
  std::vector<Point> points = {{1, "a"}, {2, "b"}};
  auto bytes = bytesOf([&](StreamOutput& out) { out.writeCollection(points); });
  EXPECT_EQ(toHex(bytes), "02 01 01 61 02 01 62");
  std::vector<std::unique_ptr<Point>> owned;
  owned.push_back(std::make_unique<Point>(1, "a"));
  owned.push_back(std::make_unique<Point>(2, "b"));
  EXPECT_EQ(bytesOf([&](StreamOutput& out) { out.writeCollection(owned); }), bytes);
  std::vector<const Point*> raw = {&points[0], &points[1]};
  EXPECT_EQ(bytesOf([&](StreamOutput& out) { out.writeCollection(raw); }), bytes);
  ByteArrayStreamInput in(bytes);
  EXPECT_EQ(in.readCollection([](StreamInput& i) { return Point(i); }), points);

  raw[1] = nullptr;
  EXPECT_THROW(bytesOf([&](StreamOutput& out) { out.writeCollection(raw); }),
               std::invalid_argument);
}

TEST(CollectionTest, SizeErrors) {
  auto read = [](StreamInput& in) {
    return in.readCollection([](StreamInput& i) { return i.readByte(); });
  };
  expectThrows<CorruptStreamError>("ff ff ff ff 0f", read,
                                   "array size must be positive but was: -1");
  expectThrows<EndOfStreamError>("ff ff ff ff 07 00", read,
                                 "tried to read: 2147483647 bytes but only 1 remaining");
  auto bytes = hexBytes("03 01 02 03");
  ByteArrayStreamInput in(bytes);
  in.setMaxArraySize(2);
  EXPECT_THROW(read(in), LimitExceededError);
}

TEST(CollectionTest, ReserveIsBoundedByTheInput) {
  ByteArrayStreamInput in(std::span<const uint8_t>{});
  // 1000 bytes left: the budget is max(4 KiB, 4000 bytes), of which a
  // reader at nesting depth 0 gets half, at depth 1 a quarter.
  std::vector<uint8_t> bytes(1000);
  ByteArrayStreamInput big(bytes);
  EXPECT_EQ(big.boundedReserve(1000, 1), 1000u);
  EXPECT_EQ(big.boundedReserve(1000, 64), 2048u / 64);
  EXPECT_EQ(in.boundedReserve(10, 8), 10u);
  EXPECT_EQ(in.boundedReserve(1u << 30, 0), 2048u);
  StreamInput::NestingScope level(big);
  EXPECT_EQ(big.boundedReserve(1000, 64), 1024u / 64);
}

// ---- maps ----

TEST(MapTest, WithCallbacksInIterationOrder) {
  std::map<std::string, int32_t> map = {{"a", 1}, {"b", 300}};
  auto write = [&](StreamOutput& out) {
    out.writeMap(
        map, [](StreamOutput& o, const std::string& k) { o.writeString(k); },
        [](StreamOutput& o, int32_t v) { o.writeVInt(v); });
  };
  auto read = [](StreamInput& in) {
    return in.readMap([](StreamInput& i) { return i.readString(); },
                      [](StreamInput& i) { return i.readVInt(); });
  };
  EXPECT_EQ(toHex(bytesOf(write)), "02 01 61 01 01 62 ac 02");
  auto bytes = bytesOf(write);
  ByteArrayStreamInput in(bytes);
  std::map<std::string, int32_t> back = read(in);
  EXPECT_EQ(back, map);
  expectPrefixesFail(write, read);

  ByteArrayStreamInput in2(bytes);
  auto unordered = in2.readMap<std::unordered_map<std::string, int32_t>>(
      [](StreamInput& i) { return i.readString(); }, [](StreamInput& i) { return i.readVInt(); });
  EXPECT_EQ(unordered.size(), 2u);
  EXPECT_EQ(unordered.at("b"), 300);
}

TEST(MapTest, Errors) {
  auto read = [](StreamInput& in) {
    return in.readMap([](StreamInput& i) { return i.readString(); },
                      [](StreamInput& i) { return i.readVInt(); });
  };
  expectThrows<CorruptStreamError>("02 01 61 01 01 61 02", read, "duplicate map key at entry [1]");
  expectThrows<CorruptStreamError>("ff ff ff ff 0f", read,
                                   "array size must be positive but was: -1");
  expectThrows<EndOfStreamError>("05 01 61 01", read, "tried to read: 5 bytes");
}

// ---- optional writeables ----

TEST(OptionalWriteableTest, PresentAndAbsent) {
  Point p(7, "p");
  EXPECT_EQ(toHex(bytesOf([&](StreamOutput& out) { out.writeOptionalWriteable(&p); })),
            "01 07 01 70");
  EXPECT_EQ(toHex(bytesOf([](StreamOutput& out) { out.writeOptionalWriteable(nullptr); })), "00");
  EXPECT_EQ(toHex(bytesOf([&](StreamOutput& out) {
              out.writeOptionalWriteable(std::optional<Point>(p));
              out.writeOptionalWriteable(std::optional<Point>());
            })),
            "01 07 01 70 00");

  auto bytes = hexBytes("01 07 01 70 00");
  ByteArrayStreamInput in(bytes);
  std::optional<Point> a = in.readOptionalWriteable([](StreamInput& i) { return Point(i); });
  std::optional<Point> b = in.readOptionalWriteable([](StreamInput& i) { return Point(i); });
  EXPECT_EQ(a, p);
  EXPECT_EQ(b, std::nullopt);

  ByteArrayStreamInput in2(bytes);
  std::unique_ptr<Point> c =
      in2.readOptionalWriteable([](StreamInput& i) { return std::make_unique<Point>(i); });
  std::unique_ptr<Point> d =
      in2.readOptionalWriteable([](StreamInput& i) { return std::make_unique<Point>(i); });
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(*c, p);
  EXPECT_EQ(d, nullptr);

  expectThrows<CorruptStreamError>(
      "02",
      [](StreamInput& i) {
        (void)i.readOptionalWriteable([](StreamInput& j) { return Point(j); });
      },
      "unexpected byte [0x02]");
}

// ---- enums ----

TEST(EnumTest, OrdinalsAndErrors) {
  EXPECT_EQ(toHex(bytesOf([](StreamOutput& out) {
              writeEnum(out, Color::kRed);
              writeEnum(out, Color::kBlue);
              writeOptionalEnum<Color>(out, std::nullopt);
              writeOptionalEnum(out, std::optional(Color::kGreen));
            })),
            "00 02 00 01 01");
  auto bytes = hexBytes("00 02 00 01 01");
  ByteArrayStreamInput in(bytes);
  EXPECT_EQ(readEnum<Color>(in), Color::kRed);
  EXPECT_EQ(readEnum<Color>(in), Color::kBlue);
  EXPECT_EQ(readOptionalEnum<Color>(in), std::nullopt);
  EXPECT_EQ(readOptionalEnum<Color>(in), Color::kGreen);

  auto readColor = [](StreamInput& i) { (void)readEnum<Color>(i); };
  expectThrows<CorruptStreamError>("03", readColor, "Unknown Color ordinal [3]");
  expectThrows<CorruptStreamError>("ff ff ff ff 0f", readColor, "Unknown Color ordinal [-1]");
  expectThrows<CorruptStreamError>("80 80 80 80 08", readColor,
                                   "Unknown Color ordinal [-2147483648]");
  expectThrows<EndOfStreamError>("", readColor, "");
  EXPECT_THROW(bytesOf([](StreamOutput& out) { writeEnum(out, static_cast<Color>(3)); }),
               std::invalid_argument);
}

TEST(EnumTest, EnumSets) {
  std::set<Color> colors = {Color::kBlue, Color::kRed};
  auto write = [&](StreamOutput& out) { writeEnumSet(out, colors); };
  auto read = [](StreamInput& in) { return readEnumSet<Color>(in); };
  EXPECT_EQ(toHex(bytesOf(write)), "02 00 02");
  auto bytes = bytesOf(write);
  ByteArrayStreamInput in(bytes);
  EXPECT_EQ(read(in), colors);
  EXPECT_EQ(toHex(bytesOf([](StreamOutput& out) { writeEnumSet(out, std::set<Color>{}); })), "00");
  expectPrefixesFail(write, read);
  auto descending = hexBytes("02 02 00");
  ByteArrayStreamInput unordered(descending);
  EXPECT_EQ(read(unordered),
            colors);  // order is not checked: Java's EnumSet reads any
  expectThrows<CorruptStreamError>("02 01 01", read, "duplicate Color ordinal [1] in enum set");
  expectThrows<CorruptStreamError>("01 07", read, "Unknown Color ordinal [7]");
  expectThrows<CorruptStreamError>("ff ff ff ff 0f", read,
                                   "array size must be positive but was: -1");
  expectThrows<EndOfStreamError>("05 00", read, "tried to read: 5 bytes but only 1 remaining");
}

// ---- time values ----

TEST(TimeValueTest, ExpectedBytes) {
  struct {
    TimeValue value;
    std::string hex;
    std::string text;
  } cases[] = {
      {TimeValue::timeValueDays(100), "c8 01 06", "100d"},  // wire format §2
      {TimeValue::timeValueSeconds(30), "3c 03", "30s"},    // wire format §2
      {TimeValue::timeValueNanos(0), "00 00", "0nanos"},
      {TimeValue(5, TimeUnit::kMicroseconds), "0a 01", "5micros"},
      {TimeValue::timeValueMillis(1500), "b8 17 02", "1500ms"},
      {TimeValue::timeValueMinutes(1), "02 04", "1m"},
      {TimeValue::timeValueHours(2), "04 05", "2h"},
      {TimeValue::minusOne(), "01 02", "-1"},
      {TimeValue(std::numeric_limits<int64_t>::max(), TimeUnit::kDays),
       "fe ff ff ff ff ff ff ff ff 01 06", "9223372036854775807d"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    auto bytes = bytesOf([&](StreamOutput& out) { writeTimeValue(out, c.value); });
    EXPECT_EQ(toHex(bytes), c.hex);
    EXPECT_EQ(c.value.toString(), c.text);
    for (size_t page : kPageSizes) {
      PiecewiseInput input(bytes, page);
      EXPECT_EQ(readTimeValue(input.in()), c.value);
    }
    expectPrefixesFail([&](StreamOutput& out) { writeTimeValue(out, c.value); },
                       [](StreamInput& in) { return readTimeValue(in); });
  }
  EXPECT_NE(TimeValue::timeValueSeconds(60), TimeValue::timeValueMinutes(1));
  EXPECT_EQ(TimeValue::timeValueSeconds(60).nanos(), TimeValue::timeValueMinutes(1).nanos());
  EXPECT_EQ(TimeValue::timeValueSeconds(2).millis(), 2000);
  EXPECT_EQ(TimeValue(1999999, TimeUnit::kNanoseconds).millis(), 1);
  EXPECT_EQ(TimeValue(std::numeric_limits<int64_t>::max(), TimeUnit::kDays).nanos(),
            std::numeric_limits<int64_t>::max());
}

TEST(TimeValueTest, OptionalAndErrors) {
  EXPECT_EQ(toHex(bytesOf([](StreamOutput& out) {
              writeOptionalTimeValue(out, std::nullopt);
              writeOptionalTimeValue(out, TimeValue::timeValueSeconds(30));
            })),
            "00 01 3c 03");
  auto optional_bytes = hexBytes("00 01 3c 03");
  ByteArrayStreamInput in(optional_bytes);
  EXPECT_EQ(readOptionalTimeValue(in), std::nullopt);
  EXPECT_EQ(readOptionalTimeValue(in), TimeValue::timeValueSeconds(30));

  auto read = [](StreamInput& i) { (void)readTimeValue(i); };
  expectThrows<CorruptStreamError>("02 07", read, "Unknown TimeUnit ordinal [7]");
  expectThrows<CorruptStreamError>("02 ff", read, "Unknown TimeUnit ordinal [255]");
  expectThrows<CorruptStreamError>("03 02", read, "duration cannot be negative, was given [-2]");
  expectThrows<CorruptStreamError>("ff ff ff ff ff ff ff ff ff 7f 02", read,
                                   "variable-length stream is too long");
  EXPECT_THROW(TimeValue(-2, TimeUnit::kSeconds), std::invalid_argument);
}

// ---- instants ----

TEST(InstantTest, ExpectedBytesAndErrors) {
  Instant i = Instant::ofEpochMilli(1500);
  EXPECT_EQ(i, (Instant{1, 500000000}));
  EXPECT_EQ(Instant::ofEpochMilli(-1), (Instant{-1, 999000000}));
  auto bytes = bytesOf([&](StreamOutput& out) { writeInstant(out, i); });
  EXPECT_EQ(toHex(bytes), "00 00 00 00 00 00 00 01 1d cd 65 00");
  ByteArrayStreamInput in(bytes);
  EXPECT_EQ(readInstant(in), i);
  EXPECT_EQ(i.toString(), "1.500000000s");
  expectPrefixesFail([&](StreamOutput& out) { writeInstant(out, i); },
                     [](StreamInput& in) { return readInstant(in); });
  for (Instant edge : {Instant{Instant::kMinSecond, 0}, Instant{Instant::kMaxSecond, 999999999}}) {
    auto b = bytesOf([&](StreamOutput& out) { writeOptionalInstant(out, edge); });
    ByteArrayStreamInput e(b);
    EXPECT_EQ(readOptionalInstant(e), edge);
  }
  auto absent_bytes = hexBytes("00");
  ByteArrayStreamInput absent(absent_bytes);
  EXPECT_EQ(readOptionalInstant(absent), std::nullopt);

  auto read = [](StreamInput& s) { (void)readInstant(s); };
  expectThrows<CorruptStreamError>("00 00 00 00 00 00 00 01 3b 9a ca 00", read,
                                   "Invalid Instant [1s, 1000000000ns]");
  expectThrows<CorruptStreamError>("00 00 00 00 00 00 00 01 ff ff ff ff", read,
                                   "Invalid Instant [1s, -1ns]");
  expectThrows<CorruptStreamError>("7f ff ff ff ff ff ff ff 00 00 00 00", read,
                                   "Invalid Instant [9223372036854775807s");
  EXPECT_THROW(bytesOf([](StreamOutput& out) {
                 writeInstant(out, Instant{0, -1});
               }),
               std::invalid_argument);
}

// ---- bytes references ----

TEST(BytesReferenceTest, ExpectedBytes) {
  std::vector<uint8_t> a = {1, 2}, b = {3};
  BytesReference ref(std::vector<BytesReference::Piece>{a, b});
  EXPECT_EQ(toHex(bytesOf([&](StreamOutput& out) { out.writeBytesReference(ref); })),
            "03 01 02 03");
  EXPECT_EQ(toHex(bytesOf([](StreamOutput& out) { out.writeBytesReference({}); })), "00");
  EXPECT_EQ(toHex(bytesOf([&](StreamOutput& out) {
              out.writeOptionalBytesReference(std::nullopt);
              out.writeOptionalBytesReference(BytesReference());
              out.writeOptionalBytesReference(ref);
            })),
            "00 01 04 01 02 03");

  for (size_t page : kPageSizes) {
    auto bytes = hexBytes("03 01 02 03 00 01 04 01 02 03");
    PiecewiseInput input(bytes, page);
    StreamInput& in = input.in();
    EXPECT_EQ(in.readBytesReference(), ref);
    EXPECT_EQ(in.readOptionalBytesReference(), std::nullopt);
    std::optional<BytesReference> empty = in.readOptionalBytesReference();
    ASSERT_TRUE(empty.has_value());
    EXPECT_TRUE(empty->empty());
    EXPECT_EQ(in.readOptionalBytesReference(), ref);
    EXPECT_EQ(in.available(), 0u);
  }
}

TEST(BytesReferenceTest, ReadOutlivesTheInput) {
  BytesReference ref;
  {
    auto bytes = hexBytes("02 aa bb");
    ByteArrayStreamInput in(bytes);
    ref = in.readBytesReference();
  }
  EXPECT_EQ(ref.toHex(), "aa bb");
}

TEST(BytesReferenceTest, Errors) {
  auto read = [](StreamInput& in) { (void)in.readBytesReference(); };
  auto readOptional = [](StreamInput& in) { (void)in.readOptionalBytesReference(); };
  expectThrows<CorruptStreamError>("ff ff ff ff 0f", read,
                                   "array size must be positive but was: -1");
  expectThrows<CorruptStreamError>("ff ff ff ff 0f", readOptional,
                                   "array size must be positive but was: -1");
  expectThrows<EndOfStreamError>("03 01 02", read, "tried to read: 3 bytes but only 2 remaining");
  expectThrows<EndOfStreamError>("04 01 02", readOptional,
                                 "tried to read: 3 bytes but only 2 remaining");
  expectThrows<EndOfStreamError>("ff ff ff ff 07", readOptional,
                                 "tried to read: 2147483646 bytes but only 0 remaining");
  auto bytes = hexBytes("04 01 02 03");
  ByteArrayStreamInput in(bytes);
  in.setMaxArraySize(2);
  EXPECT_THROW(in.readOptionalBytesReference(), LimitExceededError);
}

}  // namespace
}  // namespace wirestream
