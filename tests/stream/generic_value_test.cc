// GenericValue on the wire (wire format §3): expected bytes for every tag,
// read-back equality, the 8.7.0 map-key gate, truncation and corruption.
#include "stream/structured/generic_value.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <type_traits>

#include "stream/bytes_stream_output.h"
#include "stream/structured/structured_stream.h"
#include "tests/stream/structured_test_util.h"

namespace wirestream {
namespace {

using testing::bytesOf;
using testing::hexBytes;
using testing::kPageSizes;
using testing::PiecewiseInput;
using testing::toHex;
using testing::writeAt;
using GV = GenericValue;
using Kind = GenericValue::Kind;

const TransportVersion kOld = TransportVersion::V_7_10_0;
const TransportVersion kNew = TransportVersion::V_8_7_0;

using namespace std::chrono_literals;

GV zoned(int64_t millis, std::string zone) {
  return GV::ofZonedDateTime({ZonedDateTime::Millis(std::chrono::milliseconds(millis)), zone});
}
GV joda(int64_t millis, std::string zone) {
  return GV::ofJodaDateTime({ZonedDateTime::Millis(std::chrono::milliseconds(millis)), zone});
}
GV big(std::string_view decimal) { return GV::ofBigInteger(BigInteger::fromDecimal(decimal)); }
GV offsetTime(std::chrono::nanoseconds time, std::chrono::seconds offset) {
  return GV::ofOffsetTime({time, offset});
}
// ES's writeString of an ASCII string: VInt length, then the bytes.
std::string asciiHex(const std::string& s) {
  std::vector<uint8_t> b;
  for (size_t n = s.size();; n >>= 7) {
    if (n < 0x80) {
      b.push_back(static_cast<uint8_t>(n));
      break;
    }
    b.push_back(static_cast<uint8_t>(n | 0x80));
  }
  b.insert(b.end(), s.begin(), s.end());
  return toHex(b);
}

struct Case {
  const char* what;
  GV value;
  std::string hex;           // the same at every version unless it holds a map
  std::string old_hex = "";  // at 7.10.0 when different
};

std::vector<Case> cases() {
  return {
      // The examples of wire format §3, verbatim.
      {"null", GV(), "ff"},
      {"string a", GV("a"), "00 01 61"},
      {"int32 1", GV::ofInt(1), "01 00 00 00 01"},
      {"true", GV(true), "05 01"},
      {"bytes {1,2}", GV::ofByteArray({1, 2}), "06 02 01 02"},
      {"int32 array {1,2,3}", GV::ofIntArray({1, 2, 3}),
       "11 03 00 00 00 01 00 00 00 02 00 00 00 03"},
      // Every other tag.
      {"empty string", GV(""), "00 00"},
      {"string with a surrogate pair", GV("\xF0\x9F\x98\x80"), "00 02 ed a0 bd ed b8 80"},
      {"int32 -1", GV::ofInt(-1), "01 ff ff ff ff"},
      {"int64 2", GV::ofLong(2), "02 00 00 00 00 00 00 00 02"},
      {"int64 min", GV::ofLong(std::numeric_limits<int64_t>::min()), "02 80 00 00 00 00 00 00 00"},
      {"float 1.5", GV::ofFloat(1.5f), "03 3f c0 00 00"},
      {"float NaN", GV::ofFloat(std::nanf("7")), "03 7f c0 00 00"},
      {"float -0", GV::ofFloat(-0.0f), "03 80 00 00 00"},
      {"double 1.5", GV(1.5), "04 3f f8 00 00 00 00 00 00"},
      {"double -inf", GV(-std::numeric_limits<double>::infinity()), "04 ff f0 00 00 00 00 00 00"},
      {"false", GV(false), "05 00"},
      {"empty byte array", GV::ofByteArray({}), "06 00"},
      {"list [1, \"a\"]", GV::ofList({GV::ofInt(1), GV("a")}), "07 02 01 00 00 00 01 00 01 61"},
      {"empty list", GV::ofList({}), "07 00"},
      {"object array [null]", GV::ofObjectArray({GV()}), "08 01 ff"},
      {"ordered map {a: 1}", GV::ofOrderedMap({{"a", GV::ofInt(1)}}),
       "09 01 00 01 61 01 00 00 00 01", "09 01 01 61 01 00 00 00 01"},
      {"map {k: true, j: null}", GV::ofMap({{"k", true}, {"j", nullptr}}),
       "0a 02 00 01 6b 05 01 00 01 6a ff", "0a 02 01 6b 05 01 01 6a ff"},
      {"empty map", GV::ofMap({}), "0a 00"},
      {"byte -1", GV::ofByte(-1), "0b ff"},
      {"byte 127", GV::ofByte(127), "0b 7f"},
      {"date 1000", GV::ofDate(1000), "0c 00 00 00 00 00 00 03 e8"},
      {"bytes reference {ab}", GV::ofBytesReference(GV::Bytes{0xab}), "0e 01 ab"},
      {"text é", GV::ofText("\xC3\xA9"), "0f 00 00 00 02 c3 a9"},
      {"text emoji, plain UTF-8", GV::ofText("\xF0\x9F\x98\x80"), "0f 00 00 00 04 f0 9f 98 80"},
      {"empty text", GV::ofText(""), "0f 00 00 00 00"},
      {"short -2", GV::ofShort(-2), "10 ff fe"},
      {"long array {-1}", GV::ofLongArray({-1}), "12 01 ff ff ff ff ff ff ff ff"},
      {"float array {0.5}", GV::ofFloatArray({0.5f}), "13 01 3f 00 00 00"},
      {"double array {-2}", GV::ofDoubleArray({-2.0}), "14 01 c0 00 00 00 00 00 00 00"},
      {"empty double array", GV::ofDoubleArray({}), "14 00"},
      {"bytes ref {}", GV::ofBytesRef({}), "15 00"},
      {"bytes ref {0, ff}", GV::ofBytesRef({0, 0xff}), "15 02 00 ff"},
      {"geo point (1, -1)", GV::ofGeoPoint(1.0, -1.0),
       "16 3f f0 00 00 00 00 00 00 bf f0 00 00 00 00 00 00"},
      {"ordered set {x}", GV::ofOrderedSet({GV("x")}), "18 01 00 01 78"},
      {"set {1L}", GV::ofSet({GV::ofLong(1)}), "19 01 02 00 00 00 00 00 00 00 01"},
      {"nested list in map", GV::ofMap({{"l", GV::ofList({GV::ofShort(1)})}}),
       "0a 01 00 01 6c 07 01 10 00 01", "0a 01 01 6c 07 01 10 00 01"},
      // Tags 13, 23, 26, 27: StreamOutput.WRITERS writes the zone id
      // (ZoneId.getId()) or offset id (ZoneOffset.getId()) with writeString,
      // then toInstant().toEpochMilli() / toLocalTime().toNanoOfDay() with
      // writeLong; a BigInteger is writeString(toString()). 7.x writes a Joda
      // DateTime as tag 13 with getZone().getID() and getMillis().
      {"zoned 2023-11-14T22:13:20Z in Europe/Paris", zoned(1700000000000, "Europe/Paris"),
       "17 0c 45 75 72 6f 70 65 2f 50 61 72 69 73 00 00 01 8b cf e5 68 00"},
      {"zoned epoch in Z", zoned(0, "Z"), "17 01 5a 00 00 00 00 00 00 00 00"},
      {"zoned -1 ms at +05:30", zoned(-1, "+05:30"),
       "17 06 2b 30 35 3a 33 30 ff ff ff ff ff ff ff ff"},
      {"zoned Long.MIN_VALUE ms in UTC+01:00",
       zoned(std::numeric_limits<int64_t>::min(), "UTC+01:00"),
       "17 09 55 54 43 2b 30 31 3a 30 30 80 00 00 00 00 00 00 00"},
      {"Joda 1000 ms in UTC", joda(1000, "UTC"), "0d 03 55 54 43 00 00 00 00 00 00 03 e8"},
      {"Joda Long.MAX_VALUE ms at +05:30", joda(std::numeric_limits<int64_t>::max(), "+05:30"),
       "0d 06 2b 30 35 3a 33 30 7f ff ff ff ff ff ff ff"},
      {"big integer 0", big("0"), "1a 01 30"},
      {"big integer -1", big("-1"), "1a 02 2d 31"},
      {"big integer Long.MAX_VALUE", GV::ofBigInteger(BigInteger::ofInt64(INT64_MAX)),
       "1a 13 39 32 32 33 33 37 32 30 33 36 38 35 34 37 37 35 38 30 37"},
      {"big integer Long.MIN_VALUE", GV::ofBigInteger(BigInteger::ofInt64(INT64_MIN)),
       "1a 14 2d 39 32 32 33 33 37 32 30 33 36 38 35 34 37 37 35 38 30 38"},
      {"big integer -2^64",
       GV::ofBigInteger(BigInteger(true, GV::Bytes{1, 0, 0, 0, 0, 0, 0, 0, 0})),
       "1a 15 2d 31 38 34 34 36 37 34 34 30 37 33 37 30 39 35 35 31 36 31 36"},
      {"big integer 10^100", big("1" + std::string(100, '0')),
       "1a " + asciiHex("1" + std::string(100, '0'))},
      {"offset time 09:30+05:30", offsetTime(9h + 30min, 5h + 30min),
       "1b 06 2b 30 35 3a 33 30 00 00 1f 1a ce d9 f0 00"},
      {"offset time 23:59:59.999999999Z", offsetTime(24h - 1ns, 0s),
       "1b 01 5a 00 00 4e 94 91 4e ff ff"},
      {"offset time 00:00-08:00:15", offsetTime(0ns, -(8h + 15s)),
       "1b 09 2d 30 38 3a 30 30 3a 31 35 00 00 00 00 00 00 00 00"},
      {"offset time 1ns at +18:00", offsetTime(1ns, 18h),
       "1b 06 2b 31 38 3a 30 30 00 00 00 00 00 00 00 01"},
      {"offset time 12:00:00.000001-18:00", offsetTime(12h + 1us, -18h),
       "1b 06 2d 31 38 3a 30 30 00 00 27 4a 48 a7 83 e8"},
      {"list of the new kinds", GV::ofList({zoned(0, "Z"), big("7"), offsetTime(0ns, 0s)}),
       "07 03 17 01 5a 00 00 00 00 00 00 00 00 1a 01 37 1b 01 5a 00 00 00 00 00 00 00 00"},
      // Tags 28 and 29 (ES 8.9 on, written at any version): Duration's
      // getSeconds() and getNano() as two writeLongs; Period's getYears(),
      // getMonths(), getDays() as three writeInts.
      {"duration 1.5 s", GV::ofDuration({1, 500000000}),
       "1c 00 00 00 00 00 00 00 01 00 00 00 00 1d cd 65 00"},
      {"duration -0.5 s", GV::ofDuration({-1, 500000000}),
       "1c ff ff ff ff ff ff ff ff 00 00 00 00 1d cd 65 00"},
      {"duration zero", GV::ofDuration({}), "1c 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"},
      {"period 1y -2m 3d", GV::ofPeriod({1, -2, 3}), "1d 00 00 00 01 ff ff ff fe 00 00 00 03"},
      {"map of a period", GV::ofMap({{"p", GV::ofPeriod({})}}),
       "0a 01 00 01 70 1d 00 00 00 00 00 00 00 00 00 00 00 00",
       "0a 01 01 70 1d 00 00 00 00 00 00 00 00 00 00 00 00"},
  };
}

TEST(GenericValueTest, ExpectedBytesAndReadBackAtBothVersions) {
  for (const Case& c : cases()) {
    for (TransportVersion version : {kOld, kNew}) {
      SCOPED_TRACE(std::string(c.what) + " at " + version.toString());
      const std::string& expected = version == kOld && !c.old_hex.empty() ? c.old_hex : c.hex;
      for (size_t page : kPageSizes) {
        auto bytes = writeAt(
            page, [&](StreamOutput& out) { writeGenericValue(out, c.value); }, version);
        ASSERT_EQ(toHex(bytes), expected) << "page size " << page;
        PiecewiseInput input(bytes, page);
        input.in().setTransportVersion(version);
        GV back = readGenericValue(input.in());
        EXPECT_EQ(back, c.value);
        EXPECT_EQ(back.kind(), c.value.kind());
        EXPECT_EQ(input.in().available(), 0u);
      }
    }
  }
}

TEST(GenericValueTest, EveryStrictPrefixIsEndOfStream) {
  for (const Case& c : cases()) {
    for (TransportVersion version : {kOld, kNew}) {
      auto bytes = bytesOf([&](StreamOutput& out) { writeGenericValue(out, c.value); }, version);
      for (size_t n = 0; n < bytes.size(); ++n) {
        SCOPED_TRACE(std::string(c.what) + " prefix " + std::to_string(n));
        std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + n);
        for (size_t page : {size_t{1}, size_t{3}, size_t{64}}) {
          PiecewiseInput input(prefix, page);
          input.in().setTransportVersion(version);
          EXPECT_THROW(readGenericValue(input.in()), EndOfStreamError);
        }
      }
    }
  }
}

TEST(GenericValueTest, EveryKindIsCovered) {
  std::set<Kind> seen;
  for (const Case& c : cases()) seen.insert(c.value.kind());
  // Not writable at these versions; GeoBoundingBoxIsTheNamedWriteableOfTag30 has its bytes.
  seen.insert(Kind::kGeoBoundingBox);
  EXPECT_EQ(seen.size(), GV::kKindCount);
}

TEST(GenericValueTest, GenericMapKeysFrom870) {
  GV map = GV::ofMap({{GV::ofInt(1), nullptr}, {GV::ofList({GV("k")}), GV::ofLong(0)}});
  auto bytes = bytesOf([&](StreamOutput& out) { writeGenericValue(out, map); }, kNew);
  EXPECT_EQ(toHex(bytes), "0a 02 01 00 00 00 01 ff 07 01 00 01 6b 02 00 00 00 00 00 00 00 00");
  ByteArrayStreamInput in(bytes);
  EXPECT_EQ(readGenericValue(in), map);
}

// Tag 23 from V_8_16_0 (8772001): zone id, ZLong epoch seconds, int nano of second; before
// it, epoch millis (the 7.10-8.7 bytes, unchanged). The bytes are ES 8.19.21's
// writeGenericValue(ZonedDateTime) at 8070099, 8772001 and 8841096, from its jar.
TEST(GenericValueTest, ZonedDateTimeNanosFrom8160) {
  ZonedDateTime paris{ZonedDateTime::Millis(std::chrono::milliseconds(1600000000123)),
                      "Europe/Paris"};
  paris.nano_of_milli = 456789;
  GV p = GV::ofZonedDateTime(paris);
  GV neg = zoned(-1500, "Z");
  struct Row {
    int32_t id;
    std::string paris, neg;
  };
  for (const Row& r :
       {Row{8070099, "17 0c 45 75 72 6f 70 65 2f 50 61 72 69 73 00 00 01 74 87 6e 80 7b",
            "17 01 5a ff ff ff ff ff ff fa 24"},
        Row{8772001, "17 0c 45 75 72 6f 70 65 2f 50 61 72 69 73 80 c0 f0 f5 0b 07 5b cd 15",
            "17 01 5a 03 1d cd 65 00"},
        Row{8841096, "17 0c 45 75 72 6f 70 65 2f 50 61 72 69 73 80 c0 f0 f5 0b 07 5b cd 15",
            "17 01 5a 03 1d cd 65 00"}}) {
    TransportVersion v(r.id);
    auto pb = bytesOf([&](StreamOutput& out) { writeGenericValue(out, p); }, v);
    EXPECT_EQ(toHex(pb), r.paris) << r.id;
    auto nb = bytesOf([&](StreamOutput& out) { writeGenericValue(out, neg); }, v);
    EXPECT_EQ(toHex(nb), r.neg) << r.id;
    ByteArrayStreamInput in(nb);
    in.setTransportVersion(v);
    EXPECT_EQ(readGenericValue(in), neg) << r.id;
    ByteArrayStreamInput pin(pb);
    pin.setTransportVersion(v);
    GV back = readGenericValue(pin);
    // Below 8.16 the nanoseconds under the millisecond are dropped, as ES's toEpochMilli.
    EXPECT_EQ(back.asZonedDateTime().nano_of_milli,
              v.onOrAfter(TransportVersion::V_8_16_0) ? 456789 : 0);
    EXPECT_EQ(back.asZonedDateTime().instant, paris.instant);
  }
  // Seconds whose milliseconds overflow an int64: a typed error naming them.
  std::vector<uint8_t> far = hexBytes("17 01 5a ff ff ff ff ff ff ff ff ff 01 00 00 00 00");
  ByteArrayStreamInput fin(far);
  fin.setTransportVersion(TransportVersion::V_8_16_0);
  EXPECT_THROW((void)readGenericValue(fin), CorruptStreamError);
}

TEST(GenericValueTest, NonStringKeyBefore870IsCallerError) {
  GV map = GV::ofOrderedMap({{GV::ofInt(1), nullptr}});
  try {
    bytesOf([&](StreamOutput& out) { writeGenericValue(out, map); }, kOld);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("map keys must be strings before 8.7.0"),
              std::string::npos)
        << e.what();
  }
  // Text is not a string key either: the key is writeString, text is a distinct
  // kind.
  GV text_key = GV::ofMap({{GV::ofText("t"), nullptr}});
  EXPECT_THROW(bytesOf([&](StreamOutput& out) { writeGenericValue(out, text_key); }, kOld),
               std::invalid_argument);
}

TEST(GenericValueTest, OldStreamReadsKeysAsStrings) {
  // The same bytes mean different things at the two versions: at 7.10.0 the
  // key is the string "a"; at 8.7.0 the 01 is read as an int tag.
  auto bytes = hexBytes("0a 01 01 61 ff");
  ByteArrayStreamInput old_in(bytes);
  old_in.setTransportVersion(kOld);
  EXPECT_EQ(readGenericValue(old_in), GV::ofMap({{"a", nullptr}}));
  ByteArrayStreamInput new_in(bytes);
  new_in.setTransportVersion(kNew);
  EXPECT_THROW(readGenericValue(new_in), EndOfStreamError);
}

TEST(GenericValueTest, InvalidUtf8IsCallerErrorOnWrite) {
  EXPECT_THROW(bytesOf([](StreamOutput& out) { writeGenericValue(out, GV("\xFF")); }),
               std::invalid_argument);
  EXPECT_THROW(bytesOf([](StreamOutput& out) { writeGenericValue(out, GV::ofText("\xC3")); }),
               std::invalid_argument);
}

// ---- errors of wire format §4 ----

template <typename E>
void expectError(const std::string& hex, const std::string& message,
                 TransportVersion version = kNew) {
  SCOPED_TRACE(hex);
  auto bytes = hexBytes(hex);
  ByteArrayStreamInput in(bytes);
  in.setTransportVersion(version);
  try {
    (void)readGenericValue(in);
    FAIL() << "expected an error";
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
  EXPECT_EQ(in.nestingDepth(), 0);
}

TEST(GenericValueErrorsTest, UnknownTags) {
  expectError<CorruptStreamError>("7f", "Can't read unknown type [127]");
  expectError<CorruptStreamError>("1f", "Can't read unknown type [31]");
  expectError<CorruptStreamError>("80", "Can't read unknown type [-128]");
  expectError<CorruptStreamError>("fe", "Can't read unknown type [-2]");
  // Inside containers too, and as a key from 8.7.0.
  expectError<CorruptStreamError>("07 02 ff 7f", "Can't read unknown type [127]");
  expectError<CorruptStreamError>("0a 01 7f ff", "Can't read unknown type [127]");
}

TEST(GenericValueErrorsTest, EveryUnlistedTagIsUnknown) {
  std::set<int> known;
  for (size_t k = 0; k < GV::kKindCount; ++k) known.insert(GV::wireTag(static_cast<Kind>(k)));
  EXPECT_EQ(known, (std::set<int>{-1, 0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14,
                                  15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30}));
  for (int t = -128; t < 128; ++t) {
    if (known.count(t)) continue;
    std::vector<uint8_t> bytes(64, 0);
    bytes[0] = static_cast<uint8_t>(t);
    ByteArrayStreamInput in(bytes);
    try {
      (void)readGenericValue(in);
      FAIL() << "tag " << t << " was accepted";
    } catch (const CorruptStreamError& e) {
      EXPECT_EQ(std::string(e.what()), "Can't read unknown type [" + std::to_string(t) + "]");
    }
  }
}

// Tag 30: a GenericNamedWriteable, its name then its bytes. ES's server registers one,
// GeoBoundingBox (two geo points), writable from V_8_11_X (8512001) on.
TEST(GenericValueTest, GeoBoundingBoxIsTheNamedWriteableOfTag30) {
  GV box = GV::ofGeoBoundingBox({{1.0, -1.0}, {-2.0, 2.0}});
  const std::string hex = "1e " + asciiHex("GeoBoundingBox") +
                          " 3f f0 00 00 00 00 00 00 bf f0 00 00 00 00 00 00"
                          " c0 00 00 00 00 00 00 00 40 00 00 00 00 00 00 00";
  for (TransportVersion v : {TransportVersion::V_8_11_X, TransportVersion::V_8_18_0}) {
    auto bytes = bytesOf([&](StreamOutput& out) { writeGenericValue(out, box); }, v);
    EXPECT_EQ(toHex(bytes), toHex(hexBytes(hex)));
    ByteArrayStreamInput in(bytes);
    in.setTransportVersion(v);
    EXPECT_EQ(readGenericValue(in), box);
  }
  EXPECT_EQ(box.toString(), "geo_bounding_box(1, -1, -2, 2)");
  EXPECT_NE(box, GV::ofGeoBoundingBox({{1.0, -1.0}, {-2.0, 2.1}}));
  // ES refuses it before V_8_11_X ("requires minimal transport version"); so does wirestream.
  for (TransportVersion v : {kOld, kNew, TransportVersion::V_8_10_X}) {
    try {
      bytesOf([&](StreamOutput& out) { writeGenericValue(out, GV::ofList({box})); }, v);
      FAIL() << "written at " << v.toString();
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("[GeoBoundingBox] requires transport version 8512001"),
                std::string::npos)
          << e.what();
    }
  }
  // Names wirestream has no reader for (painless's IPAddress, say) are named.
  const TransportVersion v8_11 = TransportVersion::V_8_11_X;
  expectError<CorruptStreamError>("1e " + asciiHex("IPAddress") + " 00",
                                  "Unknown NamedWriteable [GenericNamedWriteable][IPAddress]",
                                  v8_11);
  expectError<CorruptStreamError>("07 01 1e 00", "Unknown NamedWriteable [GenericNamedWriteable][]",
                                  v8_11);
  expectError<EndOfStreamError>("1e " + asciiHex("GeoBoundingBox") + " 00", "", v8_11);
  // Below V_8_11_X no ES writes a tag 30 (stricter than ES, which would read it).
  expectError<CorruptStreamError>(hex, "before 8512001", kNew);
  expectError<CorruptStreamError>(hex, "before 8512001", TransportVersion::V_8_10_X);
}

// From 8.16 tag 23 is epoch seconds and nanos: the extreme milliseconds wirestream writes read
// back (second x 1000 passes int64 at Long.MIN_VALUE ms before the 192 ms are added).
TEST(GenericValueTest, ZonedDateTimesAtTheInt64EdgesRoundTripFrom8_16) {
  for (int64_t ms : {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}) {
    GV v = zoned(ms, "Z");
    auto bytes =
        bytesOf([&](StreamOutput& out) { writeGenericValue(out, v); }, TransportVersion::V_8_16_0);
    ByteArrayStreamInput in(bytes);
    in.setTransportVersion(TransportVersion::V_8_16_0);
    EXPECT_EQ(readGenericValue(in), v) << ms;
  }
  // One millisecond further is refused.
  // (ZLong second -9223372036854776, int nanos 191000000)
  expectError<CorruptStreamError>("17 01 5a ef cf 9a de f4 a6 e2 20 0b 62 6d c0",
                                  "zoned date-time out of range", TransportVersion::V_8_16_0);
}

// Duration.ofSeconds(seconds, nanos) takes any long nanos and carries them into the
// seconds; ES writes getNano(), 0..999999999, and wirestream reads only that (stricter).
TEST(GenericValueTest, DurationNanosOnlyAsEsWritesThem) {
  expectError<CorruptStreamError>("1c 00 00 00 00 00 00 00 01 ff ff ff ff ff ff ff ff",
                                  "duration nanos [-1] not in 0..999999999");
  expectError<CorruptStreamError>("1c 00 00 00 00 00 00 00 00 00 00 00 00 3b 9a ca 00",
                                  "duration nanos [1000000000] not in 0..999999999");
  EXPECT_EQ(GV::ofDuration({-1, 5}).toString(), "duration(-1s, 5ns)");
  EXPECT_EQ(GV::ofPeriod({1, 2, -3}).toString(), "period(1y, 2m, -3d)");
  EXPECT_NE(GV::ofPeriod({1, 2, 3}), GV::ofPeriod({1, 2, 4}));
  EXPECT_EQ(GV::ofDuration({7, 8}).hash(), GV::ofDuration({7, 8}).hash());
  for (int32_t nanos : {-1, 1000000000}) {
    EXPECT_THROW(bytesOf([&](StreamOutput& out) {
                   writeGenericValue(out, GV::ofDuration({0, nanos}));
                 }),
                 std::invalid_argument);
  }
  EXPECT_EQ(GV::wireTag(Kind::kDuration), 28);
  EXPECT_EQ(GV::wireTag(Kind::kPeriod), 29);
  EXPECT_EQ(GV::wireTag(Kind::kGeoBoundingBox), 30);
  EXPECT_THROW(GV::ofPeriod({}).asDuration(), std::invalid_argument);
}

TEST(GenericValueErrorsTest, BadBoolean) {
  expectError<CorruptStreamError>("05 02", "unexpected byte [0x02]");
  expectError<CorruptStreamError>("07 01 05 ff", "unexpected byte [0xff]");
}

TEST(GenericValueErrorsTest, NegativeSizes) {
  const std::string kNeg = "array size must be positive but was: -1";
  for (const char* tag :
       {"06", "07", "08", "09", "0a", "0e", "11", "12", "13", "14", "15", "18", "19"}) {
    expectError<CorruptStreamError>(std::string(tag) + " ff ff ff ff 0f", kNeg);
  }
  expectError<CorruptStreamError>("00 ff ff ff ff 0f", kNeg);  // string
  expectError<CorruptStreamError>("0f ff ff ff ff", kNeg);     // text: int length
  expectError<CorruptStreamError>("0f 80 00 00 00",
                                  "array size must be positive but was: -2147483648");
}

TEST(GenericValueErrorsTest, SizesBeyondTheInput) {
  // Counted as at least one byte an element (tag), 2 per map entry, the
  // fixed width for primitive arrays; checked before anything is allocated.
  expectError<EndOfStreamError>("07 05 ff", "tried to read: 5 bytes but only 1 remaining");
  expectError<EndOfStreamError>("0a 03 ff ff", "tried to read: 6 bytes but only 2 remaining");
  expectError<EndOfStreamError>("11 02 00 00 00 01", "tried to read: 8 bytes but only 4 remaining");
  expectError<EndOfStreamError>("14 ff ff ff ff 07",
                                "tried to read: 17179869176 bytes but only 0 remaining");
  expectError<EndOfStreamError>("06 ff ff ff ff 07",
                                "tried to read: 2147483647 bytes but only 0 remaining");
  expectError<EndOfStreamError>("0f 7f ff ff ff 61",
                                "tried to read: 2147483647 bytes but only 1 remaining");
}

TEST(GenericValueErrorsTest, SizesAboveTheConfiguredLimit) {
  for (const char* hex : {"07 03 ff ff ff", "06 03 01 02 03", "0f 00 00 00 03 61 62 63",
                          "11 03 00 00 00 01 00 00 00 02 00 00 00 03"}) {
    auto bytes = hexBytes(hex);
    ByteArrayStreamInput in(bytes);
    in.setMaxArraySize(2);
    EXPECT_THROW(readGenericValue(in), LimitExceededError) << hex;
  }
}

TEST(GenericValueErrorsTest, RepeatedKeysAndElements) {
  expectError<CorruptStreamError>("19 02 01 00 00 00 01 01 00 00 00 01",
                                  "duplicate element [1] in set");
  expectError<CorruptStreamError>("18 03 00 01 61 00 01 62 00 01 61",
                                  "duplicate element [\"a\"] in ordered set");
  expectError<CorruptStreamError>("0a 02 00 01 6b ff 00 01 6b 05 01",
                                  "duplicate key [\"k\"] in map");
  expectError<CorruptStreamError>("09 02 01 6b ff 01 6b ff", "duplicate key [\"k\"] in ordered map",
                                  kOld);
  // Hostile repeats are shown shortened.
  std::string hex = "19 02";
  for (int i = 0; i < 2; ++i) {
    hex += " 00 c8 01";
    for (int j = 0; j < 200; ++j) hex += " 61";
  }
  expectError<CorruptStreamError>(hex, "...] in set");
  // The same key at different levels is fine.
  auto nested = hexBytes("0a 01 00 01 6b 0a 01 00 01 6b ff");
  ByteArrayStreamInput in(nested);
  EXPECT_EQ(readGenericValue(in), GV::ofMap({{"k", GV::ofMap({{"k", nullptr}})}}));
}

TEST(GenericValueErrorsTest, InvalidStringsAndText) {
  expectError<CorruptStreamError>("00 01 ff", "Invalid string");
  // Stricter than ES, whose readString keeps a bad continuation byte's low six
  // bits: it reads these as "é" and "€".
  expectError<CorruptStreamError>("00 01 c3 29", "Invalid string");
  expectError<CorruptStreamError>("00 01 e2 82 ec", "Invalid string");
  expectError<CorruptStreamError>("0f 00 00 00 01 ff", "Invalid string");
  expectError<CorruptStreamError>("0f 00 00 00 02 c0 80",
                                  "Invalid string");  // overlong NUL
  // CESU-8 surrogates are the string encoding, not valid UTF-8 text.
  expectError<CorruptStreamError>("0f 00 00 00 03 ed a0 bd", "Invalid string");
}

const std::string kZeroLong = " 00 00 00 00 00 00 00 00";

// Java's ZoneId.of reads other spellings and rewrites them ("+5" becomes
// "+05:00", "UTC+1" "UTC+01:00", "+00:00" "Z"): stricter than ES, refused.
// The last few ES refuses too.
TEST(GenericValueErrorsTest, ZoneIdsNotAsJavaWritesThem) {
  for (std::string id :
       {"+5",        "+05",   "+0530",    "+05:30:00",     "+00:00", "-00:00", "UTC+1",
        "UTC+00:00", "GMT+5", "UT-00:00", "+18:00:01",     "+19:00", "+05:60", "",
        "9Z",        "Z ",    "/Paris",   "Europe/Par is", "UTC+",   "-"}) {
    for (const char* tag : {"17 ", "0d "}) {
      expectError<CorruptStreamError>(tag + asciiHex(id) + kZeroLong,
                                      "Invalid zone id [" + id + "]");
    }
  }
  // Read both fields first, as ES does: a cut long is the end of the stream.
  expectError<EndOfStreamError>("17 02 2b 35 00 00", "tried to read");
}

TEST(GenericValueTest, ZoneIdsJavaWrites) {
  // Region ids are checked for their form only: Java would also refuse one
  // its time-zone database lacks ("Mars/Olympus").
  for (std::string id :
       {"Z", "UTC", "GMT", "UT", "GMT-03:00", "UT+01:00", "UTC-12:34:56", "+14:00", "-18:00",
        "America/Argentina/Buenos_Aires", "Etc/GMT+5", "EST5EDT", "GMT0", "UTCX", "Mars/Olympus"}) {
    SCOPED_TRACE(id);
    auto bytes = hexBytes("17 " + asciiHex(id) + kZeroLong);
    ByteArrayStreamInput in(bytes);
    EXPECT_EQ(readGenericValue(in), zoned(0, id));
  }
}

TEST(GenericValueErrorsTest, BigIntegersNotAsJavaWritesThem) {
  // new BigInteger(String) takes '+', leading zeros and "-0" (stricter than
  // ES to refuse them); the rest ES refuses too.
  for (std::string s : {"+1", "01", "00", "-0", "-01", "", "-", "1-", "1 ", "0x1", "1e3", "--1"}) {
    expectError<CorruptStreamError>("1a " + asciiHex(s), "Invalid BigInteger");
  }
  // It also takes any Unicode decimal digit: U+0661, ARABIC-INDIC DIGIT ONE,
  // reads as 1 in ES (stricter than ES).
  expectError<CorruptStreamError>("1a 01 d9 a1", "not an ASCII digit");
  // Above 32,768 bits (stricter than ES): refused before any conversion when
  // the digits alone are too many, after it when the value is.
  expectError<LimitExceededError>("1a " + asciiHex(std::string(9866, '1')),
                                  "BigInteger of 9866 digits is above the limit of 9865");
  expectError<LimitExceededError>("1a " + asciiHex(std::string(9865, '9')),
                                  "magnitude bytes is above the limit of 4096");
  // 10^9864 < 2^32768 is fine.
  auto bytes = hexBytes("1a " + asciiHex("1" + std::string(9864, '0')));
  ByteArrayStreamInput in(bytes);
  GV v = readGenericValue(in);
  EXPECT_EQ(v.asBigInteger().magnitude().size(), 4096u);
  EXPECT_EQ(v.asBigInteger().toDecimal(), "1" + std::string(9864, '0'));
}

TEST(GenericValueErrorsTest, OffsetTimesOutOfRangeOrNotAsJavaWritesThem) {
  // LocalTime.ofNanoOfDay refuses these in ES too.
  expectError<CorruptStreamError>(
      "1b " + asciiHex("+05:30") + " ff ff ff ff ff ff ff ff",
      "Invalid value for NanoOfDay (valid values 0 - 86399999999999): -1");
  expectError<CorruptStreamError>("1b " + asciiHex("Z") + " 00 00 4e 94 91 4f 00 00",
                                  "Invalid value for NanoOfDay (valid values 0 - "
                                  "86399999999999): 86400000000000");
  // ZoneOffset.of reads "+5", "+0530", "+00:00" and the rest (stricter than
  // ES); "UTC", region ids and anything past 18:00 it refuses too.
  for (std::string id : {"+5", "+05", "+0530", "+05:30:00", "+00:00", "-00:00:00", "+18:00:01",
                         "+18:30", "UTC", "Europe/Paris", "", "z"}) {
    expectError<CorruptStreamError>("1b " + asciiHex(id) + kZeroLong,
                                    "Invalid ZoneOffset id [" + id + "]");
  }
}

TEST(GenericValueTest, DateTimesAndOffsetTimesNotAsJavaWritesThemAreCallerErrors) {
  for (GV bad : {zoned(0, "UTC+1"), joda(0, ""), offsetTime(24h, 0s), offsetTime(-1ns, 0s),
                 offsetTime(0ns, 18h + 1s)}) {
    SCOPED_TRACE(bad.toString());
    EXPECT_THROW(bytesOf([&](StreamOutput& out) { writeGenericValue(out, bad); }),
                 std::invalid_argument);
  }
}

TEST(GenericValueErrorsTest, DeepNestingIsLimitExceeded) {
  auto nested = [](int depth, const std::string& open) {
    std::string hex;
    for (int i = 0; i < depth; ++i) hex += open + " ";
    return hex + "ff";
  };
  // 100 levels are fine, 101 are not; the message names the depth.
  for (const std::string open :
       {"07 01", "08 01", "18 01", "19 01", "0a 01 00 01 61", "09 01 ff"}) {
    SCOPED_TRACE(open);
    auto ok = hexBytes(nested(100, open));
    ByteArrayStreamInput in(ok);
    EXPECT_NO_THROW(readGenericValue(in));
    EXPECT_EQ(in.nestingDepth(), 0);
    expectError<LimitExceededError>(nested(101, open), "nesting depth [101]");
  }
  // Nesting through map keys counts too (8.7.0 keys are generic values).
  std::string keys;
  for (int i = 0; i < 101; ++i) keys += "0a 01 ";
  expectError<LimitExceededError>(keys + "ff ff", "exceeds the limit of [100]");
}

TEST(GenericValueErrorsTest, NestingLimitIsConfigurable) {
  auto bytes = hexBytes("07 01 07 01 07 01 ff");
  ByteArrayStreamInput in(bytes);
  in.setMaxNestingDepth(2);
  try {
    (void)readGenericValue(in);
    FAIL();
  } catch (const LimitExceededError& e) {
    EXPECT_EQ(std::string(e.what()), "nesting depth [3] exceeds the limit of [2]");
  }
  EXPECT_EQ(in.nestingDepth(), 0);
  in.seek(0);
  in.setMaxNestingDepth(3);
  EXPECT_EQ(readGenericValue(in), GV::ofList({GV::ofList({GV::ofList({GV()})})}));
  EXPECT_EQ(in.nestingDepth(), 0);
}

// ---- the value type ----

// Pointers other than C strings do not quietly become booleans.
static_assert(!std::is_constructible_v<GV, int*>);
static_assert(!std::is_constructible_v<GV, const GV*>);
static_assert(std::is_constructible_v<GV, char*>);
static_assert(std::is_constructible_v<GV, const char*>);

TEST(GenericValueTest, ConvenienceConversions) {
  char buf[] = "x";
  EXPECT_EQ(GV(buf).kind(), Kind::kString);
  EXPECT_EQ(GV(int64_t{1}).kind(), Kind::kLong);
  EXPECT_EQ(GV(1).kind(), Kind::kInt);
  EXPECT_EQ(GV(1.0f).kind(), Kind::kDouble);  // ofFloat() for a float
  EXPECT_EQ(GV(nullptr).kind(), Kind::kNull);
  EXPECT_EQ(GV(std::string_view("v")), GV("v"));
}

TEST(GenericValueTest, EqualityDistinguishesKinds) {
  EXPECT_NE(GV::ofInt(1), GV::ofLong(1));
  EXPECT_NE(GV::ofLong(1), GV::ofDate(1));
  EXPECT_NE(GV("a"), GV::ofText("a"));
  EXPECT_NE(GV::ofByteArray({1}), GV::ofBytesRef({1}));
  EXPECT_NE(GV::ofByteArray({1}), GV::ofBytesReference(GV::Bytes{1}));
  EXPECT_NE(GV::ofList({}), GV::ofObjectArray({}));
  EXPECT_NE(GV::ofSet({}), GV::ofOrderedSet({}));
  EXPECT_NE(GV::ofMap({}), GV::ofOrderedMap({}));
  EXPECT_NE(GV::ofFloat(1), GV::ofDouble(1));
  EXPECT_NE(GV::ofByte(1), GV::ofShort(1));
  EXPECT_NE(GV(), GV(false));
}

TEST(GenericValueTest, FloatsCompareLikeJava) {
  EXPECT_EQ(GV::ofDouble(std::nan("")), GV::ofDouble(-std::nan("1")));
  EXPECT_NE(GV::ofDouble(0.0), GV::ofDouble(-0.0));
  EXPECT_EQ(GV::ofFloatArray({std::nanf("")}), GV::ofFloatArray({std::nanf("3")}));
  EXPECT_NE(GV::ofFloatArray({0.0f}), GV::ofFloatArray({-0.0f}));
  EXPECT_EQ(GV::ofGeoPoint(std::nan(""), 1), GV::ofGeoPoint(std::nan("2"), 1));
  EXPECT_EQ(GV::ofDouble(std::nan("")).hash(), GV::ofDouble(std::nan("5")).hash());
}

TEST(GenericValueTest, PlainMapsAndSetsIgnoreOrderOrderedOnesDoNot) {
  GV::Entries ab = {{"a", 1}, {"b", 2}};
  GV::Entries ba = {{"b", 2}, {"a", 1}};
  EXPECT_EQ(GV::ofMap(ab), GV::ofMap(ba));
  EXPECT_EQ(GV::ofMap(ab).hash(), GV::ofMap(ba).hash());
  EXPECT_NE(GV::ofOrderedMap(ab), GV::ofOrderedMap(ba));
  EXPECT_EQ(GV::ofSet({1, 2, 3}), GV::ofSet({3, 1, 2}));
  EXPECT_EQ(GV::ofSet({1, 2, 3}).hash(), GV::ofSet({3, 1, 2}).hash());
  // Values built with repeats (which cannot be written) compare as multisets.
  EXPECT_EQ(GV::ofSet({1, 2, 2}), GV::ofSet({2, 1, 2}));
  EXPECT_NE(GV::ofSet({1, 2, 2}), GV::ofSet({1, 1, 2}));
  EXPECT_NE(GV::ofOrderedSet({1, 2}), GV::ofOrderedSet({2, 1}));
  EXPECT_NE(GV::ofMap(ab), GV::ofMap({{"a", 1}, {"b", 3}}));
  EXPECT_NE(GV::ofMap(ab), GV::ofMap({{"a", 1}}));
}

TEST(GenericValueTest, FindDuplicate) {
  EXPECT_EQ(GV::ofSet({}).findDuplicate(), std::nullopt);
  EXPECT_EQ(GV::ofSet({1, 2, GV::ofLong(1)}).findDuplicate(), std::nullopt);
  EXPECT_EQ(GV::ofSet({1, 2, 3, 2, 1}).findDuplicate(), 3u);
  EXPECT_EQ(
      GV::ofOrderedSet({GV::ofDouble(std::nan("")), GV::ofDouble(-std::nan("1"))}).findDuplicate(),
      1u);
  EXPECT_EQ(GV::ofOrderedSet({0.0, -0.0}).findDuplicate(), std::nullopt);
  EXPECT_EQ(GV::ofMap({{"a", 1}, {"b", 1}, {"a", 2}}).findDuplicate(), 2u);
  EXPECT_EQ(GV::ofOrderedMap({{GV::ofList({}), 1}, {GV::ofList({}), 1}}).findDuplicate(), 1u);
  EXPECT_THROW(GV::ofList({1, 1}).findDuplicate(), std::invalid_argument);
}

TEST(GenericValueTest, RepeatsCannotBeWritten) {
  for (const GV& v :
       {GV::ofSet({1, 1}), GV::ofOrderedSet({"x", "x"}), GV::ofMap({{"k", 1}, {"k", 2}}),
        GV::ofOrderedMap({{"k", 1}, {"k", 1}}), GV::ofList({GV::ofSet({GV(), GV()})})}) {
    for (TransportVersion version : {kOld, kNew}) {
      try {
        bytesOf([&](StreamOutput& out) { writeGenericValue(out, v); }, version);
        ADD_FAILURE() << v << " was written";
      } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("duplicate"), std::string::npos) << e.what();
      }
    }
  }
}

TEST(GenericValueTest, Accessors) {
  GV meta = GV::ofMap({{"owner", "ops"}, {"n", GV::ofLong(3)}});
  ASSERT_NE(meta.find("owner"), nullptr);
  EXPECT_EQ(meta.find("owner")->asString(), "ops");
  EXPECT_EQ(meta.find("n")->asLong(), 3);
  EXPECT_EQ(meta.find("missing"), nullptr);
  EXPECT_TRUE(meta.isMap());
  EXPECT_THROW(meta.asInt(), std::invalid_argument);
  EXPECT_THROW(GV(1).find("x"), std::invalid_argument);
  EXPECT_EQ(GV::ofDate(5).asLong(), 5);
  EXPECT_EQ(GV::ofText("t").asString(), "t");
  EXPECT_EQ(GV::ofBytesRef({7}).asBytes()[0], 7);
  try {
    GV("s").asInt();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "GenericValue is a string, not a int");
  }
}

TEST(GenericValueTest, ToString) {
  GV v = GV::ofMap({{"a", 1},
                    {"b", GV::ofLong(2)},
                    {"c", GV::ofList({GV::ofFloat(1.5f), GV::ofShort(3), GV::ofByte(-1)})},
                    {"d", GV::ofDate(0)},
                    {"e", GV::ofText("q\"")},
                    {"f", GV::ofByteArray({1, 0xab})},
                    {"g", GV::ofIntArray({1, 2})},
                    {"h", GV::ofGeoPoint(1.5, -2)},
                    {"i", GV::ofSet({nullptr})},
                    {"j", GV::ofOrderedMap({{GV::ofInt(1), true}})},
                    {"k", 0.1}});
  EXPECT_EQ(v.toString(),
            "{\"a\": 1, \"b\": 2L, \"c\": [1.5f, (short)3, (byte)-1], \"d\": "
            "date(0), "
            "\"e\": text(\"q\\\"\"), \"f\": bytes[01 ab], \"g\": int[1, 2], "
            "\"h\": geo(1.5, -2), \"i\": set{null}, \"j\": ordered{1: true}, "
            "\"k\": 0.1}");
  EXPECT_EQ(GV::ofObjectArray({"x"}).toString(), "array[\"x\"]");
  EXPECT_EQ(GV::ofOrderedSet({}).toString(), "ordered_set{}");
  EXPECT_EQ(GV::ofBytesReference(GV::Bytes{}).toString(), "bytes_reference[]");
  EXPECT_EQ(GV::ofBytesRef({0}).toString(), "bytes_ref[00]");
  EXPECT_EQ(GV::ofLongArray({-1}).toString(), "long[-1]");
  EXPECT_EQ(GV::ofFloatArray({0.5f}).toString(), "float[0.5]");
  EXPECT_EQ(GV::ofDoubleArray({}).toString(), "double[]");
  EXPECT_EQ(GV("tab\t").toString(), "\"tab\\u0009\"");
}

TEST(GenericValueTest, FromBytesReference) {
  std::vector<uint8_t> a = {1, 2}, b = {3};
  BytesReference ref(std::vector<BytesReference::Piece>{a, b});
  EXPECT_EQ(GV::ofBytesReference(ref), GV::ofBytesReference(GV::Bytes{1, 2, 3}));
}

// The members that became free functions still compile, deprecated, and
// write and read the same bytes (CHANGELOG, Deprecated).
TEST(GenericValueTest, DeprecatedMembersForwardToTheFreeFunctions) {
  const GV value("a");
  BytesStreamOutput members, free;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  members.writeGenericValue(value);
#pragma GCC diagnostic pop
  writeGenericValue(free, value);
  EXPECT_EQ(toHex(members.bytes().toVector()), "00 01 61");
  EXPECT_EQ(members.bytes().toVector(), free.bytes().toVector());
  const std::vector<uint8_t> bytes = members.bytes().toVector();
  ByteArrayStreamInput in(bytes);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  EXPECT_EQ(in.readGenericValue(), value);
#pragma GCC diagnostic pop
}

}  // namespace
}  // namespace wirestream
