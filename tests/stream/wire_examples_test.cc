// Every example of wire format §1 and §2 as an expected-bytes table, each run
// at every page size: the bytes written, the value read back through both
// inputs, and every strict prefix failing with EndOfStreamError.
#include <cmath>
#include <limits>

#include "tests/stream/test_util.h"

namespace wirestream {
namespace {

using testing::hexBytes;
using testing::kPageSizes;
using testing::Reader;
using testing::Writer;

struct WireCase {
  std::string name;
  Writer write;
  Reader read;  // reads the value and EXPECTs it
  std::string hex;
};

template <typename T>
WireCase valueCase(std::string name, void (StreamOutput::*w)(T), T v,
                   std::function<T(StreamInput&)> r, std::string hex) {
  return {std::move(name), [=](StreamOutput& out) { (out.*w)(v); },
          [=](StreamInput& in) { EXPECT_EQ(r(in), v); }, std::move(hex)};
}

WireCase vint(int32_t v, std::string hex) {
  return valueCase<int32_t>(
      "VInt " + std::to_string(v), &StreamOutput::writeVInt, v,
      [](StreamInput& in) { return in.readVInt(); }, std::move(hex));
}
WireCase vlong(int64_t v, std::string hex) {
  return valueCase<int64_t>(
      "VLong " + std::to_string(v), &StreamOutput::writeVLong, v,
      [](StreamInput& in) { return in.readVLong(); }, std::move(hex));
}
WireCase zlong(int64_t v, std::string hex) {
  return valueCase<int64_t>(
      "ZLong " + std::to_string(v), &StreamOutput::writeZLong, v,
      [](StreamInput& in) { return in.readZLong(); }, std::move(hex));
}
WireCase str(std::string v, std::string hex) {
  return {"String " + hex, [=](StreamOutput& out) { out.writeString(v); },
          [=](StreamInput& in) { EXPECT_EQ(in.readString(), v); }, std::move(hex)};
}

constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int32_t kI32Min = std::numeric_limits<int32_t>::min();
constexpr int32_t kI32Max = std::numeric_limits<int32_t>::max();

std::vector<WireCase> cases() {
  std::vector<WireCase> c = {
      // §1 VInt reference bytes, and each width boundary.
      vint(0, "00"),
      vint(1, "01"),
      vint(127, "7f"),
      vint(128, "80 01"),
      vint(300, "ac 02"),
      vint(16383, "ff 7f"),
      vint(16384, "80 80 01"),
      vint(2097151, "ff ff 7f"),
      vint(2097152, "80 80 80 01"),
      vint(268435455, "ff ff ff 7f"),
      vint(268435456, "80 80 80 80 01"),
      vint(-1, "ff ff ff ff 0f"),
      vint(kI32Min, "80 80 80 80 08"),
      vint(kI32Max, "ff ff ff ff 07"),
      // VLong: up to 9 bytes for non-negative values.
      vlong(0, "00"),
      vlong(127, "7f"),
      vlong(128, "80 01"),
      vlong(300, "ac 02"),
      vlong(int64_t{1} << 35, "80 80 80 80 80 01"),
      vlong(kI64Max, "ff ff ff ff ff ff ff ff 7f"),
      // ZLong reference bytes.
      zlong(0, "00"),
      zlong(-1, "01"),
      zlong(1, "02"),
      zlong(-2, "03"),
      zlong(2, "04"),
      zlong(-64, "7f"),
      zlong(64, "80 01"),
      zlong(kI64Min, "ff ff ff ff ff ff ff ff ff 01"),
      zlong(kI64Max, "fe ff ff ff ff ff ff ff ff 01"),
      // Fixed width, big-endian.
      valueCase<int16_t>(
          "Short", &StreamOutput::writeShort, int16_t{-2},
          [](StreamInput& in) { return in.readShort(); }, "ff fe"),
      valueCase<int32_t>(
          "Int", &StreamOutput::writeInt, 0x01020304, [](StreamInput& in) { return in.readInt(); },
          "01 02 03 04"),
      valueCase<int64_t>(
          "Long", &StreamOutput::writeLong, int64_t{0x0102030405060708},
          [](StreamInput& in) { return in.readLong(); }, "01 02 03 04 05 06 07 08"),
      valueCase<int64_t>(
          "Long -1", &StreamOutput::writeLong, int64_t{-1},
          [](StreamInput& in) { return in.readLong(); }, "ff ff ff ff ff ff ff ff"),
      valueCase<float>(
          "Float 1.5", &StreamOutput::writeFloat, 1.5f,
          [](StreamInput& in) { return in.readFloat(); }, "3f c0 00 00"),
      valueCase<double>(
          "Double -2", &StreamOutput::writeDouble, -2.0,
          [](StreamInput& in) { return in.readDouble(); }, "c0 00 00 00 00 00 00 00"),
      valueCase<bool>(
          "Boolean false", &StreamOutput::writeBoolean, false,
          [](StreamInput& in) { return in.readBoolean(); }, "00"),
      valueCase<bool>(
          "Boolean true", &StreamOutput::writeBoolean, true,
          [](StreamInput& in) { return in.readBoolean(); }, "01"),
      // NaN is canonicalised; read back as the quiet NaN bits.
      {"Float NaN", [](StreamOutput& out) { out.writeFloat(std::bit_cast<float>(0x7fa00001u)); },
       [](StreamInput& in) { EXPECT_EQ(std::bit_cast<uint32_t>(in.readFloat()), 0x7fc00000u); },
       "7f c0 00 00"},
      {"Double NaN",
       [](StreamOutput& out) { out.writeDouble(-std::numeric_limits<double>::quiet_NaN()); },
       [](StreamInput& in) {
         EXPECT_EQ(std::bit_cast<uint64_t>(in.readDouble()), 0x7ff8000000000000ull);
       },
       "7f f8 00 00 00 00 00 00"},
      // Optionals: presence boolean, then the value.
      {"OptionalBoolean",
       [](StreamOutput& out) {
         out.writeOptionalBoolean(false);
         out.writeOptionalBoolean(true);
         out.writeOptionalBoolean(std::nullopt);
       },
       [](StreamInput& in) {
         EXPECT_EQ(in.readOptionalBoolean(), std::optional<bool>(false));
         EXPECT_EQ(in.readOptionalBoolean(), std::optional<bool>(true));
         EXPECT_EQ(in.readOptionalBoolean(), std::nullopt);
       },
       "00 01 02"},
      {"OptionalVInt",
       [](StreamOutput& out) {
         out.writeOptionalVInt(300);
         out.writeOptionalVInt(std::nullopt);
       },
       [](StreamInput& in) {
         EXPECT_EQ(in.readOptionalVInt(), std::optional<int32_t>(300));
         EXPECT_EQ(in.readOptionalVInt(), std::nullopt);
       },
       "01 ac 02 00"},
      {"OptionalVLong",
       [](StreamOutput& out) {
         out.writeOptionalVLong(128);
         out.writeOptionalVLong(std::nullopt);
       },
       [](StreamInput& in) {
         EXPECT_EQ(in.readOptionalVLong(), std::optional<int64_t>(128));
         EXPECT_EQ(in.readOptionalVLong(), std::nullopt);
       },
       "01 80 01 00"},
      {"OptionalLong",
       [](StreamOutput& out) {
         out.writeOptionalLong(1);
         out.writeOptionalLong(std::nullopt);
       },
       [](StreamInput& in) {
         EXPECT_EQ(in.readOptionalLong(), std::optional<int64_t>(1));
         EXPECT_EQ(in.readOptionalLong(), std::nullopt);
       },
       "01 00 00 00 00 00 00 00 01 00"},
      {"OptionalInt/Float/Double",
       [](StreamOutput& out) {
         out.writeOptionalInt(-1);
         out.writeOptionalFloat(std::nullopt);
         out.writeOptionalDouble(1.0);
       },
       [](StreamInput& in) {
         EXPECT_EQ(in.readOptionalInt(), std::optional<int32_t>(-1));
         EXPECT_EQ(in.readOptionalFloat(), std::nullopt);
         EXPECT_EQ(in.readOptionalDouble(), std::optional<double>(1.0));
       },
       "01 ff ff ff ff 00 01 3f f0 00 00 00 00 00 00"},
      // §2 strings: UTF-16 unit count, each unit on its own.
      str("", "00"),
      str("hello", "05 68 65 6c 6c 6f"),
      str("\xC3\xA9", "01 c3 a9"),
      str("\xE2\x82\xAC", "01 e2 82 ac"),
      str("\xF0\x9F\x98\x80", "02 ed a0 bd ed b8 80"),
      str(std::string(1, '\0'), "01 00"),
      str("a\xF0\x9F\x98\x80z\xC3\xA9", "05 61 ed a0 bd ed b8 80 7a c3 a9"),
      str("\xEF\xBF\xBF", "01 ef bf bf"),               // U+FFFF
      str("\xF4\x8F\xBF\xBF", "02 ed af bf ed bf bf"),  // U+10FFFF
      {"OptionalString",
       [](StreamOutput& out) {
         out.writeOptionalString("a");
         out.writeOptionalString(std::nullopt);
       },
       [](StreamInput& in) {
         EXPECT_EQ(in.readOptionalString(), std::optional<std::string>("a"));
         EXPECT_EQ(in.readOptionalString(), std::nullopt);
       },
       "01 01 61 00"},
      // Byte arrays and BytesRef: VInt length, then the bytes.
      {"ByteArray",
       [](StreamOutput& out) {
         std::vector<uint8_t> b = {1, 2, 0xff};
         out.writeByteArray(b);
         out.writeBytesRef({});
       },
       [](StreamInput& in) {
         EXPECT_EQ(in.readByteArray(), (std::vector<uint8_t>{1, 2, 0xff}));
         EXPECT_TRUE(in.readBytesRef().empty());
       },
       "03 01 02 ff 00"},
      {"Bytes (no prefix)",
       [](StreamOutput& out) {
         std::vector<uint8_t> b = {9, 8, 7};
         out.writeBytes(b);
       },
       [](StreamInput& in) {
         std::vector<uint8_t> b(3);
         in.readBytes(b);
         EXPECT_EQ(b, (std::vector<uint8_t>{9, 8, 7}));
       },
       "09 08 07"},
      // Arrays: VInt count, then the elements.
      {"StringArray",
       [](StreamOutput& out) {
         std::vector<std::string> v = {"a", "", "bc"};
         out.writeStringArray(v);
       },
       [](StreamInput& in) {
         EXPECT_EQ(in.readStringArray(), (std::vector<std::string>{"a", "", "bc"}));
       },
       "03 01 61 00 02 62 63"},
      {"VIntArray",
       [](StreamOutput& out) {
         std::vector<int32_t> v = {1, 300, -1};
         out.writeVIntArray(v);
       },
       [](StreamInput& in) {
         EXPECT_EQ(in.readVIntArray(), (std::vector<int32_t>{1, 300, -1}));
       },
       "03 01 ac 02 ff ff ff ff 0f"},
      {"VLongArray",
       [](StreamOutput& out) {
         std::vector<int64_t> v = {0, 128};
         out.writeVLongArray(v);
       },
       [](StreamInput& in) {
         EXPECT_EQ(in.readVLongArray(), (std::vector<int64_t>{0, 128}));
       },
       "02 00 80 01"},
      {"LongArray",
       [](StreamOutput& out) {
         std::vector<int64_t> v = {1, -1};
         out.writeLongArray(v);
       },
       [](StreamInput& in) {
         EXPECT_EQ(in.readLongArray(), (std::vector<int64_t>{1, -1}));
       },
       "02 00 00 00 00 00 00 00 01 ff ff ff ff ff ff ff ff"},
      {"DoubleArray",
       [](StreamOutput& out) {
         std::vector<double> v = {1.0};
         out.writeDoubleArray(v);
       },
       [](StreamInput& in) { EXPECT_EQ(in.readDoubleArray(), (std::vector<double>{1.0})); },
       "01 3f f0 00 00 00 00 00 00"},
      {"IntArray/FloatArray",
       [](StreamOutput& out) {
         std::vector<int32_t> i = {1, 2};
         std::vector<float> f = {};
         out.writeIntArray(i);
         out.writeFloatArray(f);
       },
       [](StreamInput& in) {
         EXPECT_EQ(in.readIntArray(), (std::vector<int32_t>{1, 2}));
         EXPECT_TRUE(in.readFloatArray().empty());
       },
       "02 00 00 00 01 00 00 00 02 00"},
  };
  return c;
}

class WireExamples : public ::testing::TestWithParam<size_t> {};

TEST_P(WireExamples, BytesReadBackAndPrefixes) {
  size_t page = GetParam();
  for (const WireCase& c : cases()) {
    SCOPED_TRACE(c.name + " at page size " + std::to_string(page));
    std::vector<uint8_t> expected = hexBytes(c.hex);
    std::vector<uint8_t> got = testing::writeAt(page, c.write);
    EXPECT_EQ(testing::toHex(got), testing::toHex(expected));
    testing::readAll(expected, page, c.read);
    testing::expectEveryPrefixFails(expected, page, c.read);
  }
}

INSTANTIATE_TEST_SUITE_P(PageSizes, WireExamples, ::testing::ValuesIn(kPageSizes));

// The raw codecs under the stream agree with the table, and with the widths of §1.
TEST(RawVarint, WidthsFollowLeadingZeros) {
  for (int shift = 0; shift < 32; ++shift) {
    uint32_t v = uint32_t{1} << shift;
    int lz = std::countl_zero(v);
    int want = lz >= 25 ? 1 : lz >= 18 ? 2 : lz >= 11 ? 3 : lz >= 4 ? 4 : 5;
    EXPECT_EQ(vIntSize(v), want) << v;
    uint8_t buf[kMaxVIntBytes];
    EXPECT_EQ(encodeVInt(buf, v) - buf, want);
    auto r = decodeVInt(buf, buf + want);
    EXPECT_EQ(static_cast<uint32_t>(r.value), v);
    EXPECT_EQ(r.next, buf + want);
  }
  EXPECT_EQ(vIntSize(0), 1);
  for (int shift = 0; shift < 64; ++shift) {
    uint64_t v = uint64_t{1} << shift;
    EXPECT_EQ(vLongSize(v), 1 + (63 - std::countl_zero(v)) / 7) << v;
  }
  EXPECT_EQ(vLongSize(0), 1);
}

}  // namespace
}  // namespace wirestream
