// The JSON forms of generic values (aggregations/metadata.h) for the kinds
// of tags 13, 23, 26 and 27: the tagged form the CLI's decode/encode use
// round-trips exactly; hand-written tagged JSON that the wire could not
// carry is refused; the plain (response) form is as documented.
#include "aggregations/json/metadata_json.h"

#include <gtest/gtest.h>

#include "aggregations/metadata.h"
#include "stream/errors.h"

namespace wirestream::aggregations {
namespace {

using namespace std::chrono_literals;
using GV = GenericValue;
using json = nlohmann::ordered_json;

GV zoned(int64_t ms, std::string zone) {
  return GV::ofZonedDateTime({ZonedDateTime::Millis(std::chrono::milliseconds(ms)), zone});
}

TEST(MetadataJsonTest, TaggedFormsOfTheJavaKinds) {
  struct Case {
    GV value;
    std::string tagged;
  };
  std::vector<Case> cases = {
      {zoned(1700000000000, "Europe/Paris"),
       R"({"zoned date time":[1700000000000,"Europe/Paris"]})"},
      {GV::ofJodaDateTime({ZonedDateTime::Millis(-1ms), "UTC"}),
       R"({"joda date time":[-1,"UTC"]})"},
      {GV::ofBigInteger(BigInteger::fromDecimal("-18446744073709551616")),
       R"({"big integer":"-18446744073709551616"})"},
      {GV::ofOffsetTime({9h + 30min, 5h + 30min}), R"({"offset time":[34200000000000,"+05:30"]})"},
      {GV::ofMap({{"when", zoned(0, "Z")}, {"n", GV::ofBigInteger(BigInteger())}}),
       R"({"map":[["when",{"zoned date time":[0,"Z"]}],["n",{"big integer":"0"}]]})"},
      {GV::ofDuration({-2, 500000000}), R"({"duration":[-2,500000000]})"},
      {GV::ofPeriod({1, -2, 3}), R"({"period":[1,-2,3]})"},
      {GV::ofGeoBoundingBox({{40.5, -74.0}, {40.25, -73.5}}),
       R"({"geo bounding box":[40.5,-74.0,40.25,-73.5]})"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.tagged);
    EXPECT_EQ(genericToTaggedJson(c.value).dump(), c.tagged);
    EXPECT_EQ(genericFromTaggedJson(json::parse(c.tagged)), c.value);
  }
}

TEST(MetadataJsonTest, TaggedJsonTheWireCannotCarryIsRefused) {
  for (const char* bad : {
           R"({"zoned date time":[0,"UTC+1"]})",
           R"({"zoned date time":["0","Z"]})",
           R"({"joda date time":[0]})",
           R"({"big integer":"+1"})",
           R"({"big integer":12})",
           R"({"offset time":[86400000000000,"Z"]})",
           R"({"duration":[0,1000000000]})",
           R"({"duration":[0,-1]})",
           R"({"period":[1,2]})",
           R"({"period":[2147483648,0,0]})",
           R"({"geo bounding box":[1,2,3]})",
           R"({"offset time":[0,"+05:30:00"]})",
           R"({"offset time":"09:30+05:30"})",
       }) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(genericFromTaggedJson(json::parse(bad)), CorruptStreamError);
  }
}

// As java.time's Duration.toString() and Period.toString() (what ES's XContent writes).
TEST(MetadataJsonTest, PlainDurationsAndPeriodsAsJava) {
  struct Row {
    JavaDuration d;
    const char* text;
  };
  for (const Row& r : std::vector<Row>{{{0, 0}, "PT0S"},
                                       {{1, 500000000}, "PT1.5S"},
                                       {{-1, 500000000}, "PT-0.5S"},
                                       {{-2, 500000000}, "PT-1.5S"},
                                       {{3661, 0}, "PT1H1M1S"},
                                       {{-90, 0}, "PT-1M-30S"},
                                       {{60, 0}, "PT1M"},
                                       {{0, 1}, "PT0.000000001S"},
                                       {{7200, 120000000}, "PT2H0.12S"}}) {
    EXPECT_EQ(genericToPlainJson(GV::ofDuration(r.d)).get<std::string>(), r.text);
  }
  EXPECT_EQ(genericToPlainJson(GV::ofPeriod({1, 2, 3})).get<std::string>(), "P1Y2M3D");
  EXPECT_EQ(genericToPlainJson(GV::ofPeriod({0, 0, 0})).get<std::string>(), "P0D");
  EXPECT_EQ(genericToPlainJson(GV::ofPeriod({0, -1, 0})).get<std::string>(), "P-1M");
  EXPECT_EQ(genericToPlainJson(GV::ofGeoBoundingBox({{1.5, 2}, {-1, 3}})).dump(),
            R"({"top_left":{"lat":1.5,"lon":2.0},"bottom_right":{"lat":-1.0,"lon":3.0}})");
}

TEST(MetadataJsonTest, PlainForms) {
  EXPECT_EQ(genericToPlainJson(zoned(1700000000000, "Europe/Paris")).dump(), "1700000000000");
  EXPECT_EQ(genericToPlainJson(GV::ofOffsetTime({9h + 30min, 5h + 30min})).dump(),
            R"("09:30+05:30")");
  EXPECT_EQ(
      genericToPlainJson(GV::ofBigInteger(BigInteger::fromDecimal("18446744073709551615"))).dump(),
      "18446744073709551615");
  EXPECT_EQ(genericToPlainJson(GV::ofBigInteger(BigInteger::ofInt64(INT64_MIN))).dump(),
            "-9223372036854775808");
  EXPECT_EQ(
      genericToPlainJson(GV::ofBigInteger(BigInteger::fromDecimal("18446744073709551616"))).dump(),
      R"("18446744073709551616")");
  EXPECT_EQ(
      genericToPlainJson(GV::ofBigInteger(BigInteger::fromDecimal("-9223372036854775809"))).dump(),
      R"("-9223372036854775809")");
}

}  // namespace
}  // namespace wirestream::aggregations
