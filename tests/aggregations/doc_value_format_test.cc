// DocValueFormat renderings against what ES's formats print (worked out from
// ES's DocValueFormat, DateFormatters, java.time and java.text.DecimalFormat
// rules), and the formatted keys and values of the response JSON.
#include <gtest/gtest.h>

#include <limits>

#include "agg_test_util.h"
#include "aggregations/date_format.h"
#include "aggregations/json/aggregation_json.h"
#include "aggregations/json/model_json.h"

namespace wirestream::aggregations {
namespace {

using F = DocValueFormat;

std::string date(std::string pattern, std::string zone, int64_t millis) {
  return F::dateTime(std::move(pattern), std::move(zone)).formatLongAsString(millis);
}

TEST(DocValueFormatRender, DefaultDateFormat) {
  const std::string def = "strict_date_optional_time||epoch_millis";
  EXPECT_EQ(date(def, "Z", 1420070400000), "2015-01-01T00:00:00.000Z");
  EXPECT_EQ(date(def, "Z", 0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(date(def, "Z", -1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(date(def, "Z", 1420070400123), "2015-01-01T00:00:00.123Z");
  // ES's date_histogram docs: time_zone -01:00, key 1443574800000.
  EXPECT_EQ(date(def, "-01:00", 1443574800000), "2015-09-30T00:00:00.000-01:00");
  EXPECT_EQ(date(def, "+05:30", 0), "1970-01-01T05:30:00.000+05:30");
  EXPECT_EQ(date(def, "UTC", 0), "1970-01-01T00:00:00.000Z");  // offset 0 prints Z
  // Year 10000 is wider than 4 digits: EXCEEDS_PAD adds '+'.
  EXPECT_EQ(date("strict_date", "Z", 253402300800000), "+10000-01-01");
  EXPECT_EQ(date("date_optional_time", "Z", 86400000), "1970-01-02T00:00:00.000Z");
}

TEST(DocValueFormatRender, NamedAndJavaPatterns) {
  const int64_t t = 1420113845678;  // 2015-01-01T12:04:05.678Z, a Thursday
  EXPECT_EQ(date("epoch_millis", "Z", t), "1420113845678");
  EXPECT_EQ(date("epoch_second", "Z", t), "1420113845.678");
  EXPECT_EQ(date("epoch_second", "Z", 1420113845000), "1420113845");
  EXPECT_EQ(date("strict_date_time", "+01:00", t), "2015-01-01T13:04:05.678+01:00");
  EXPECT_EQ(date("date_time_no_millis", "Z", t), "2015-01-01T12:04:05Z");
  EXPECT_EQ(date("strict_hour_minute_second", "Z", t), "12:04:05");
  EXPECT_EQ(date("year_month", "Z", t), "2015-01");
  EXPECT_EQ(date("basic_date", "Z", t), "20150101");
  EXPECT_EQ(date("yyyy-MM-dd", "Z", t), "2015-01-01");
  EXPECT_EQ(date("yyyy-MM-dd HH:mm:ss", "Z", t), "2015-01-01 12:04:05");
  EXPECT_EQ(date("yyyy-MM-dd'T'HH:mm:ss.SSSXXX", "+02:00", t), "2015-01-01T14:04:05.678+02:00");
  EXPECT_EQ(date("yyyy-MM-dd'T'HH:mm:ss.SSSXXX", "Z", t), "2015-01-01T12:04:05.678Z");
  EXPECT_EQ(date("EEE, dd MMM yyyy HH:mm:ss Z", "Z", t), "Thu, 01 Jan 2015 12:04:05 +0000");
  EXPECT_EQ(date("EEEE d MMMM yy h:mm a", "Z", t), "Thursday 1 January 15 12:04 PM");
  EXPECT_EQ(date("dd/MM/yyyy||epoch_millis", "-0530", t), "01/01/2015");
  EXPECT_EQ(date("HH 'o''clock' D", "Z", t), "12 o'clock 1");
  EXPECT_EQ(date("yyyy-MM-dd VV", "UTC+01:00", t), "2015-01-01 UTC+01:00");
  // Nanosecond resolution: the value counts nanoseconds.
  F nanos = F::dateTime("strict_date_optional_time_nanos", "Z", F::Resolution::kNanoseconds);
  EXPECT_EQ(nanos.formatLongAsString(1420070400123456789), "2015-01-01T00:00:00.123456789Z");
  EXPECT_EQ(nanos.formatLongAsString(1420070400120000000), "2015-01-01T00:00:00.120Z");
  // Long.MIN_VALUE nanoseconds is ES's DateUtils.MIN_NANOSECOND_INSTANT (splitting it
  // into seconds once overflowed: found by wire_test's random damage under UBSan).
  EXPECT_EQ(nanos.formatLongAsString(INT64_MIN), "1677-09-21T00:12:43.145224192Z");
  EXPECT_EQ(nanos.formatLongAsString(INT64_MAX), "2262-04-11T23:47:16.854775807Z");
  // A double key is cast to long first, as ES's format(double).
  EXPECT_EQ(F::dateTime("yyyy", "Z").formatDoubleAsString(1420070400000.9), "2015");
}

TEST(DocValueFormatRender, UnsupportedDatesRenderRaw) {
  EXPECT_EQ(date("strict_date_optional_time", "Mars/Olympus", 1420070400000), "1420070400000");
  EXPECT_EQ(date("yyyy-MM-dd G", "Z", 1420070400000), "1420070400000");  // era: no
  EXPECT_FALSE(date_format::isSupportedPattern("QQQ"));
  EXPECT_TRUE(date_format::isSupportedPattern("strict_date_optional_time||epoch_millis"));
  EXPECT_EQ(date_format::fixedOffsetSeconds("Europe/Berlin"), std::nullopt);
  EXPECT_EQ(date_format::fixedOffsetSeconds("GMT-03:30"), -12600);
  EXPECT_EQ(date_format::fixedOffsetSeconds("+19:00"), std::nullopt);
}

// A formatter's locale (on the wire from 8.16): numbers print alike in every locale;
// names are rendered for ROOT and English only, the raw value otherwise, never the
// wrong language's name.
TEST(DocValueFormatRender, LocaleNamesOnlyWhereKnown) {
  const int64_t t = 1420070400000;  // 2015-01-01T00:00:00Z, a Thursday
  auto in = [&](const char* pattern, const char* locale) {
    return F::dateTime(pattern, "Z").withLocale(locale).formatLongAsString(t);
  };
  EXPECT_EQ(in("yyyy-MM-dd HH:mm", "de_DE"), "2015-01-01 00:00");
  EXPECT_EQ(in("dd MMM yyyy", ""), "01 Jan 2015");
  EXPECT_EQ(in("dd MMM yyyy", "en_US"), "01 Jan 2015");
  EXPECT_EQ(in("EEEE", "en"), "Thursday");
  EXPECT_EQ(in("dd MMM yyyy", "de_DE"), "1420070400000");
  EXPECT_EQ(in("EEE", "fr"), "1420070400000");
  EXPECT_EQ(in("hh a", "ja_JP"), "1420070400000");
  EXPECT_EQ(in("strict_date_optional_time", "ja_JP"), "2015-01-01T00:00:00.000Z");
}

TEST(DocValueFormatRender, Decimal) {
  EXPECT_EQ(F::decimal("#,##0.00").formatDoubleAsString(1234567.891), "1,234,567.89");
  EXPECT_EQ(F::decimal("0.###").formatDoubleAsString(1.5), "1.5");
  EXPECT_EQ(F::decimal("#.##").formatDoubleAsString(0.5), ".5");
  EXPECT_EQ(F::decimal("00.0").formatLongAsString(3), "03.0");
  EXPECT_EQ(F::decimal("#%").formatDoubleAsString(0.25), "25%");
  EXPECT_EQ(F::decimal("0").formatDoubleAsString(2.5), "2");  // HALF_EVEN
  EXPECT_EQ(F::decimal("0").formatDoubleAsString(3.5), "4");
  EXPECT_EQ(F::decimal("$#,##0").formatLongAsString(-1234567), "-$1,234,567");
  EXPECT_EQ(F::decimal("0.0").formatDoubleAsString(std::nan("")), "NaN");
  EXPECT_EQ(F::decimal("0.00").formatDoubleAsString(-0.001), "0.00");
  EXPECT_EQ(F::decimal("#,##0.00 EUR").formatDoubleAsString(1234.5), "1,234.50 EUR");
  EXPECT_EQ(F::decimal("0.###E0").formatDoubleAsString(1234.5), "1234.5");  // raw
  EXPECT_EQ(F::decimal("'#'0").formatLongAsString(7), "#7");
}

TEST(DocValueFormatRender, TheOtherFormats) {
  auto bytes = [](std::initializer_list<int> b) {
    std::string s;
    for (int c : b) s += static_cast<char>(c);
    return s;
  };
  EXPECT_EQ(F::ip().formatBytesAsString(
                bytes({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 0, 1})),
            "192.168.0.1");
  EXPECT_EQ(F::ip().formatBytesAsString(
                bytes({0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1})),
            "2001:db8::1");
  EXPECT_EQ(F::ip().formatBytesAsString(std::string(16, '\0')), "::");
  EXPECT_EQ(F::ip().formatBytesAsString(bytes({0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1})),
            "1:0:0:1::1");  // the longer zero run is compressed
  EXPECT_EQ(F::binary().formatBytesAsString("hello"), "aGVsbG8");
  EXPECT_EQ(formatLongJson(F::boolean(), 1), true);
  EXPECT_EQ(F::boolean().formatLongAsString(0), "false");
  // Geohash "u09": level 3, characters u (26), 0, 9 in 5 bits each above it.
  EXPECT_EQ(F::geoHash().formatLongAsString((((26 << 10) | 9) << 4) | 3), "u09");
  EXPECT_EQ(F::geoTile().formatLongAsString((int64_t{5} << 58) | (int64_t{10} << 29) | 12),
            "5/10/12");
  EXPECT_EQ(formatLongJson(F::unsignedLongShifted(), std::numeric_limits<int64_t>::min()), 0u);
  EXPECT_EQ(formatLongJson(F::unsignedLongShifted(), 0), uint64_t{1} << 63);
  EXPECT_EQ(F::unsignedLongShifted().formatLongAsString(-1), "9223372036854775807");
  EXPECT_EQ(F::raw().formatBytesAsString("rock"), "rock");
  // ES's format(double): BOOLEAN gives value != 0, RAW the Double (which
  // Jackson quotes when not finite), a geo_hash the String of (long) value.
  EXPECT_EQ(formatDoubleJson(F::boolean(), 0.0), false);
  EXPECT_EQ(formatDoubleJson(F::raw(), std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(formatDoubleJson(F::raw(), 2.5), 2.5);
  EXPECT_EQ(formatDoubleJson(F::geoHash(), ((((26 << 10) | 9) << 4) | 3) + 0.5), "u09");
}

TEST(DocValueFormatRender, JavaDoubleToString) {
  EXPECT_EQ(javaDoubleToString(10.0), "10.0");
  EXPECT_EQ(javaDoubleToString(-2.5), "-2.5");
  EXPECT_EQ(javaDoubleToString(0.001), "0.001");
  EXPECT_EQ(javaDoubleToString(1e-4), "1.0E-4");
  EXPECT_EQ(javaDoubleToString(1e7), "1.0E7");
  EXPECT_EQ(javaDoubleToString(123456.789), "123456.789");
  EXPECT_EQ(javaDoubleToString(1.2345e10), "1.2345E10");
  EXPECT_EQ(javaDoubleToString(-0.0), "-0.0");
  EXPECT_EQ(javaDoubleToString(INFINITY), "Infinity");
}

TEST(DocValueFormatWire, EveryRegisteredNameReadsAndRefusesBadInput) {
  for (std::string_view name : DocValueFormat::allNames()) {
    DocValueFormat f = name == "date_time" ? F::dateTime("yyyy", "Z")
                       : name == "decimal" ? F::decimal("0.0")
                                           : F::fromName(name);
    for (TransportVersion v : {TransportVersion::V_7_10_0, TransportVersion::V_8_7_0}) {
      PageRecycler r(64);
      BytesStreamOutput out(r);
      out.setTransportVersion(v);
      f.writeNamed(out);
      BytesReference bytes = out.bytes();
      BytesReferenceStreamInput in(bytes);
      in.setTransportVersion(v);
      EXPECT_TRUE(F::readFrom(in, defaultRegistry()) == f) << name;
      EXPECT_EQ(in.available(), 0u);
      EXPECT_TRUE(docValueFormatFromJson(
                      nlohmann::ordered_json::parse(docValueFormatToJson(f).dump())) == f)
          << name;
    }
  }
  // 7.x's joda flag is kept as read (ES 8 ignores it), so the bytes come back.
  std::vector<uint8_t> joda = {9,   'd', 'a', 't', 'e', '_', 't', 'i', 'm',
                               'e', 1,   'y', 1,   'Z', 0,   1,   0};
  ByteArrayStreamInput jin(joda);
  jin.setTransportVersion(TransportVersion::V_7_17_0);
  DocValueFormat j = F::readFrom(jin, defaultRegistry());
  EXPECT_TRUE(j.joda());
  PageRecycler jr(64);
  BytesStreamOutput jout(jr);
  jout.setTransportVersion(TransportVersion::V_7_17_0);
  j.writeNamed(jout);
  EXPECT_EQ(jout.bytes().toVector(), joda);
  EXPECT_TRUE(
      docValueFormatFromJson(nlohmann::ordered_json::parse(docValueFormatToJson(j).dump())) == j);
  // Resolution ordinal 2 does not exist (DateFieldMapper.Resolution.ofOrdinal).
  std::vector<uint8_t> bad = {9, 'd', 'a', 't', 'e', '_', 't', 'i', 'm', 'e', 1, 'y', 1, 'Z', 2, 0};
  ByteArrayStreamInput in(bad);
  in.setTransportVersion(TransportVersion::V_8_7_0);  // before the locale (V_8_16_0)
  EXPECT_THROW(F::readFrom(in, defaultRegistry()), CorruptStreamError);
  EXPECT_THROW(F::fromName("date_time"), CorruptStreamError);  // has a body
  EXPECT_THROW(F::fromName("nope"), CorruptStreamError);
}

// The locale of a date_time format is on the wire from V_8_16_0 (8772001), after the pattern,
// as Locale.toString ("" is ROOT); below it ES drops it. The bytes are ES 8.19.21's
// writeNamedWriteable(DateTime("yyyy-MM-dd", de_DE, UTC, milliseconds)) at 8070099, 8772001
// and 8841096, from its jar (interop/src/test, compat-es819).
TEST(DocValueFormatWire, LocaleFrom8160AndNotBefore) {
  const std::string v87 =
      "09 64 61 74 65 5f 74 69 6d 65 0a 79 79 79 79 2d 4d 4d 2d 64 64 03 55 54 43 00 00";
  const std::string v816 =
      "09 64 61 74 65 5f 74 69 6d 65 0a 79 79 79 79 2d 4d 4d 2d 64 64 05 64 65 5f 44 45 03 55 54 "
      "43 "
      "00 00";
  F f = F::dateTime("yyyy-MM-dd", "UTC").withLocale("de_DE");
  for (auto [id, hex] : {std::pair{8070099, v87}, {8772001, v816}, {8841096, v816}}) {
    TransportVersion v(id);
    PageRecycler r(64);
    BytesStreamOutput out(r);
    out.setTransportVersion(v);
    f.writeNamed(out);
    EXPECT_EQ(out.bytes().toHex(), hex) << id;
    std::vector<uint8_t> bytes = out.bytes().toVector();
    ByteArrayStreamInput in(bytes);
    in.setTransportVersion(v);
    F back = F::readFrom(in, defaultRegistry());
    EXPECT_EQ(back.locale(), v.onOrAfter(TransportVersion::V_8_16_0) ? "de_DE" : "") << id;
    EXPECT_EQ(in.available(), 0u);
  }
  EXPECT_TRUE(
      docValueFormatFromJson(nlohmann::ordered_json::parse(docValueFormatToJson(f).dump())) == f);
  // The renderings are the root locale's, whatever the locale.
  EXPECT_EQ(f.formatLongAsString(0), "1970-01-01");
}

// ES's name for the format is "unsigned_long_shifted" (wirestream wrote and looked for
// "unsigned_long_shift" before, so neither side read the other's terms or metrics over
// unsigned longs). The bytes are ES 8.7.1's writeNamedWriteable(UNSIGNED_LONG_SHIFTED),
// taken from its jar by the interop harness.
TEST(DocValueFormatWire, UnsignedLongShiftedHasEsName) {
  const std::vector<uint8_t> es = {0x15, 'u', 'n', 's', 'i', 'g', 'n', 'e', 'd', '_', 'l',
                                   'o',  'n', 'g', '_', 's', 'h', 'i', 'f', 't', 'e', 'd'};
  PageRecycler r(64);
  BytesStreamOutput out(r);
  F::unsignedLongShifted().writeNamed(out);
  EXPECT_EQ(out.bytes().toVector(), es);
  ByteArrayStreamInput in(es);
  EXPECT_TRUE(F::readFrom(in, defaultRegistry()) == F::unsignedLongShifted());
  // The wire JSON writes the new name and still reads the old one (deprecated).
  EXPECT_EQ(docValueFormatToJson(F::unsignedLongShifted()), "unsigned_long_shifted");
  EXPECT_TRUE(docValueFormatFromJson("unsigned_long_shift") == F::unsignedLongShifted());
  std::vector<uint8_t> old = {0x13, 'u', 'n', 's', 'i', 'g', 'n', 'e', 'd', '_',
                              'l',  'o', 'n', 'g', '_', 's', 'h', 'i', 'f', 't'};
  ByteArrayStreamInput old_in(old);
  EXPECT_THROW(F::readFrom(old_in, defaultRegistry()), CorruptStreamError);
}

// The response JSON carries the formatted keys and values as ES does.
TEST(DocValueFormatResponse, KeysAndValuesAsString) {
  const F date_format = F::dateTime("strict_date_optional_time||epoch_millis", "Z");
  LongTerms t("t", GenericValue());
  t.setFormat(date_format);
  t.buckets().push_back({1420070400000, 3, 0, {}});
  EXPECT_EQ(toResponseJson(t).dump(),
            R"({"doc_count_error_upper_bound":0,"sum_other_doc_count":0,"buckets":[)"
            R"({"key":1420070400000,"key_as_string":"2015-01-01T00:00:00.000Z","doc_count":3}]})");
  Histogram h("h", GenericValue());
  h.setFormat(F::decimal("0.0"));
  h.setKeyed(true);
  h.buckets().push_back({10, 2, {}});
  EXPECT_EQ(toResponseJson(h).dump(),
            R"({"buckets":{"10.0":{"key_as_string":"10.0","key":10.0,"doc_count":2}}})");
  Max m("m", GenericValue(), 1420070400000.0);
  m.setFormat(date_format);
  EXPECT_EQ(toResponseJson(m).dump(),
            R"({"value":1420070400000.0,"value_as_string":"2015-01-01T00:00:00.000Z"})");
  Max empty("m", GenericValue(), -INFINITY);
  empty.setFormat(date_format);
  EXPECT_EQ(toResponseJson(empty).dump(), R"({"value":null})");
  StringTerms ips("ips", GenericValue());
  ips.setFormat(F::ip());
  ips.buckets().push_back({std::string("\0\0\0\0\0\0\0\0\0\0\xff\xff\x0a\0\0\x01", 16), 1, 0, {}});
  EXPECT_EQ(toResponseJson(ips)["buckets"][0]["key"], "10.0.0.1");
  LongTerms flags("f", GenericValue());
  flags.setFormat(F::boolean());
  flags.buckets().push_back({1, 4, 0, {}});
  EXPECT_EQ(toResponseJson(flags)["buckets"][0]["key_as_string"], "true");
}

}  // namespace
}  // namespace wirestream::aggregations
