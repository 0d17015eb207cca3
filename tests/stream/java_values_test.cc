// The value types behind generic-value tags 13, 23, 26 and 27: BigInteger's
// decimal conversions, checked against values computed outside this code
// (Python's int, unsigned __int128), and java.time's offset and zone ids and
// OffsetTime.toString(), as Java's ZoneOffset / LocalTime write them.
#include <gtest/gtest.h>

#include <random>

#include "stream/structured/big_integer.h"
#include "stream/structured/generic_value.h"
#include "stream/structured/java_hash.h"
#include "stream/structured/java_time.h"
#include "stream/structured/structured_stream.h"
#include "tests/stream/test_util.h"

namespace wirestream {
namespace {

using namespace std::chrono_literals;
using testing::hexBytes;
using testing::toHex;

struct BigCase {
  std::string decimal;
  bool negative;
  std::string magnitude_hex;  // from Python: abs(v).to_bytes(...).hex()
};

TEST(BigIntegerTest, KnownValues) {
  std::vector<BigCase> cases = {
      {"0", false, ""},
      {"1", false, "01"},
      {"-1", true, "01"},
      {"255", false, "ff"},
      {"256", false, "01 00"},
      {"4294967295", false, "ff ff ff ff"},
      {"4294967296", false, "01 00 00 00 00"},
      {"999999999", false, "3b 9a c9 ff"},
      {"1000000000", false, "3b 9a ca 00"},
      {"9223372036854775807", false, "7f ff ff ff ff ff ff ff"},
      {"-9223372036854775808", true, "80 00 00 00 00 00 00 00"},
      {"18446744073709551616", false, "01 00 00 00 00 00 00 00 00"},
      {"-340282366920938463463374607431768211456", true,
       "01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"},
      {"1" + std::string(100, '0'), false,
       "12 49 ad 25 94 c3 7c eb 0b 27 84 c4 ce 0b f3 8a ce 40 8e 21 1a 7c aa b2 43 08 a8 2e 8f 10 "
       "00 00 00 00 00 00 00 00 00 00 00 00"},
  };
  for (const BigCase& c : cases) {
    SCOPED_TRACE(c.decimal);
    BigInteger b = BigInteger::fromDecimal(c.decimal);
    EXPECT_EQ(b.negative(), c.negative);
    EXPECT_EQ(toHex(b.magnitude()), toHex(hexBytes(c.magnitude_hex)));
    EXPECT_EQ(b.toDecimal(), c.decimal);
    EXPECT_EQ(BigInteger(c.negative, hexBytes(c.magnitude_hex)), b);
  }
  EXPECT_EQ(BigInteger::ofInt64(INT64_MIN), BigInteger::fromDecimal("-9223372036854775808"));
  EXPECT_EQ(BigInteger::ofInt64(-5).toDecimal(), "-5");
  EXPECT_EQ(BigInteger::ofInt64(0), BigInteger());
}

TEST(BigIntegerTest, CanonicalFormAndSignum) {
  std::vector<uint8_t> zeros = {0, 0, 0};
  EXPECT_EQ(BigInteger(true, zeros), BigInteger());
  EXPECT_FALSE(BigInteger(true, zeros).negative());
  EXPECT_EQ(BigInteger(true, zeros).toDecimal(), "0");
  std::vector<uint8_t> padded = {0, 0, 1, 2};
  EXPECT_EQ(toHex(BigInteger(false, padded).magnitude()), "01 02");
  EXPECT_EQ(BigInteger::fromDecimal("-3").signum(), -1);
  EXPECT_EQ(BigInteger().signum(), 0);
  EXPECT_EQ(BigInteger::fromDecimal("3").signum(), 1);
  EXPECT_NE(BigInteger::fromDecimal("3"), BigInteger::fromDecimal("-3"));
}

TEST(BigIntegerTest, Limits) {
  std::vector<uint8_t> max(BigInteger::kMaxMagnitudeBytes, 0xff);
  BigInteger b(false, max);  // 2^32768 - 1: 9865 digits
  std::string d = b.toDecimal();
  EXPECT_EQ(d.size(), BigInteger::kMaxDigits);
  EXPECT_EQ(BigInteger::fromDecimal(d), b);
  max.insert(max.begin(), 0);  // a leading zero does not count
  EXPECT_NO_THROW(BigInteger(false, max));
  max[0] = 1;
  EXPECT_THROW(BigInteger(false, max), std::length_error);
  EXPECT_THROW(BigInteger::fromDecimal(std::string(BigInteger::kMaxDigits + 1, '1')),
               std::length_error);
  EXPECT_THROW(BigInteger::fromDecimal("+1"), std::invalid_argument);
}

std::string decimalOf(unsigned __int128 v) {
  if (v == 0) return "0";
  std::string s;
  for (; v != 0; v /= 10) s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
  return s;
}

TEST(BigIntegerTest, RandomRoundTrips) {
  const uint64_t seed = testing::testSeed(4242);
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (int iter = 0; iter < 3000; ++iter) {
    // Mostly short magnitudes, sometimes long ones, often with 00 / ff runs.
    size_t n = iter % 10 == 0 ? rng() % 600 : rng() % 17;
    std::vector<uint8_t> mag(n);
    for (auto& byte : mag) {
      uint64_t r = rng() % 4;
      byte = r == 0 ? 0 : r == 1 ? 0xff : static_cast<uint8_t>(rng());
    }
    bool negative = rng() % 2 == 1;
    BigInteger b(negative, mag);
    std::string d = b.toDecimal();
    ASSERT_EQ(BigInteger::fromDecimal(d), b) << d;
    if (b.magnitude().size() <= 16) {
      unsigned __int128 v = 0;
      for (uint8_t byte : b.magnitude()) v = v << 8 | byte;
      ASSERT_EQ(d, (b.negative() ? "-" : "") + decimalOf(v));
    }
  }
}

TEST(OffsetTimeTest, OffsetIdsAsZoneOffsetWritesThem) {
  EXPECT_EQ(OffsetTime::offsetIdOf(0s), "Z");
  EXPECT_EQ(OffsetTime::offsetIdOf(5h + 30min), "+05:30");
  EXPECT_EQ(OffsetTime::offsetIdOf(-(8h + 15s)), "-08:00:15");
  EXPECT_EQ(OffsetTime::offsetIdOf(-18h), "-18:00");
  EXPECT_EQ(OffsetTime::offsetIdOf(59s), "+00:00:59");
  EXPECT_EQ(OffsetTime::offsetIdOf(-1min), "-00:01");
  // Every offset (in 7-second steps, and the ends) reads back from its id.
  std::vector<int64_t> offsets = {18 * 3600};
  for (int64_t s = -18 * 3600; s < 18 * 3600; s += 7) offsets.push_back(s);
  for (int64_t s : offsets) {
    std::string id = OffsetTime::offsetIdOf(std::chrono::seconds(s));
    ASSERT_EQ(OffsetTime::parseOffsetId(id), std::chrono::seconds(s)) << id;
  }
  EXPECT_EQ(OffsetTime::parseOffsetId("+18:00:01"), std::nullopt);
  EXPECT_EQ(OffsetTime::parseOffsetId("+05:30:00"), std::nullopt);
  EXPECT_EQ(OffsetTime::parseOffsetId("+05-30"), std::nullopt);
}

TEST(OffsetTimeTest, ToStringAsJava) {
  EXPECT_EQ((OffsetTime{9h + 30min, 5h + 30min}).toString(), "09:30+05:30");
  EXPECT_EQ((OffsetTime{24h - 1ns, 0s}).toString(), "23:59:59.999999999Z");
  EXPECT_EQ((OffsetTime{1s + 500ms, -1h}).toString(), "00:00:01.500-01:00");
  EXPECT_EQ((OffsetTime{12h + 1us, 18h}).toString(), "12:00:00.000001+18:00");
  EXPECT_EQ((OffsetTime{0ns, 0s}).toString(), "00:00Z");
  EXPECT_FALSE((OffsetTime{24h, 0s}).valid());
  EXPECT_FALSE((OffsetTime{0ns, -18h - 1s}).valid());
}

TEST(GenericValueJavaKindsTest, KindsEqualityAndSize) {
  // Date-times are kept behind a pointer so that no kind grows every value.
  static_assert(sizeof(GenericValue) == 48);
  ZonedDateTime t{ZonedDateTime::Millis(5ms), "Europe/Paris"};
  GenericValue zoned = GenericValue::ofZonedDateTime(t);
  EXPECT_EQ(zoned, GenericValue::ofZonedDateTime(t));  // values, not pointers
  EXPECT_EQ(zoned.hash(), GenericValue::ofZonedDateTime(t).hash());
  EXPECT_NE(zoned, GenericValue::ofJodaDateTime(t));
  EXPECT_NE(zoned, GenericValue::ofZonedDateTime({t.instant, "Europe/Berlin"}));
  EXPECT_NE(zoned, GenericValue::ofZonedDateTime({t.instant + 1ms, t.zone_id}));
  EXPECT_EQ(GenericValue::ofJodaDateTime(t).asZonedDateTime(), t);
  EXPECT_EQ(zoned.toString(), "zoned_date_time(5ms, \"Europe/Paris\")");
  GenericValue big = GenericValue::ofBigInteger(BigInteger::fromDecimal("-12"));
  EXPECT_EQ(big.toString(), "big_integer(-12)");
  EXPECT_NE(big, GenericValue::ofBigInteger(BigInteger::fromDecimal("12")));
  EXPECT_NE(big, GenericValue::ofLong(-12));
  GenericValue ot = GenericValue::ofOffsetTime({9h, 1h});
  EXPECT_EQ(ot.toString(), "offset_time(09:00+01:00)");
  EXPECT_EQ(GenericValue::ofOffsetTime({25h, 0s}).toString(), "offset_time(90000000000000ns, 0s)");
  EXPECT_NE(ot, GenericValue::ofOffsetTime({9h, 2h}));
  EXPECT_THROW(ot.asZonedDateTime(), std::invalid_argument);
  EXPECT_THROW(zoned.asLong(), std::invalid_argument);
  EXPECT_EQ(GenericValue::kindName(GenericValue::Kind::kBigInteger), "big integer");
  EXPECT_EQ(GenericValue::wireTag(GenericValue::Kind::kJodaDateTime), 13);
  EXPECT_EQ(GenericValue::wireTag(GenericValue::Kind::kOffsetTime), 27);
}

// What Java 17's jshell printed for String#hashCode and for the key set of a
// `new HashMap<>()` the keys were put into in this order.
TEST(JavaHash, StringHashAndHashMapOrderAsJava) {
  const std::string unicode =
      "\xC3\xBC"
      "n"
      "\xC3\xAF"
      "c"
      "\xC3\xB6"
      "d"
      "\xC3\xA9";  // "ünïcödé"
  EXPECT_EQ(javaStringHash("n"), 110);
  EXPECT_EQ(javaStringHash(unicode), -609221899);
  EXPECT_EQ(javaStringHash("\xF0\x9F\x98\x80"), 1772899);  // U+1F600: two UTF-16 units
  auto order = [](std::vector<std::string_view> keys) {
    std::string out;
    for (size_t i : javaHashMapPutOrder(keys))
      out += std::string(out.empty() ? "" : ",") += keys[i];
    return out;
  };
  EXPECT_EQ(order({"owner", "n"}), "owner,n");
  // 12 keys fit 16 bins ("q" shares "a"'s bin and came first); the 13th doubles the table
  // to 32 bins, where "q" has a bin of its own after "j".
  EXPECT_EQ(order({"q", "r", "s", "a", "b", "c", "d", "e", "f", "g", "h", "i"}),
            "q,a,r,b,s,c,d,e,f,g,h,i");
  EXPECT_EQ(order({"q", "r", "s", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}),
            "a,b,c,d,e,f,g,h,i,j,q,r,s");
  EXPECT_EQ(order({"zeta", "alpha", "Aa", "BB", unicode, "\xF0\x9F\x98\x80"}),
            "zeta,Aa,BB," + unicode + ",alpha,\xF0\x9F\x98\x80");
}

}  // namespace
}  // namespace wirestream
