// Region time zones: the TZif reader (aggregations/time_zone.h) over Debian's
// tzdata, date_histogram's rounding in region zones and dates rendered in
// them. Expected instants come from the zones' published rules (EU: last
// Sunday of March / October at 01:00Z; US: second Sunday of March / first of
// November at 02:00 local) and from ES's Rounding.java applied by hand to
// them (java.time's getValidOffsets / getTransition), never from our output.
#include "aggregations/time_zone.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "aggregations/date_format.h"
#include "aggregations/date_histogram.h"
#include "aggregations/doc_value_format.h"

namespace wirestream::aggregations {
namespace {

using time_zone::TimeZoneDataError;
using time_zone::ZoneRules;
using Unit = DateHistogram::Unit;

const ZoneRules& zone(const char* id) {
  auto z = time_zone::load(id);
  if (!z) throw std::runtime_error(std::string("no tz file for ") + id);
  static std::vector<std::shared_ptr<const ZoneRules>> keep;
  keep.push_back(z);
  return *z;
}

TEST(TimeZone, OffsetsAroundTransitions) {
  const ZoneRules& berlin = zone("Europe/Berlin");
  EXPECT_EQ(berlin.offsetAt(1616893200 - 1), 3600);  // 2021-03-28T00:59:59Z
  EXPECT_EQ(berlin.offsetAt(1616893200), 7200);      // 01:00Z: CEST
  EXPECT_EQ(berlin.offsetAt(1635642000 - 1), 7200);  // 2021-10-31T00:59:59Z
  EXPECT_EQ(berlin.offsetAt(1635642000), 3600);
  const ZoneRules& ny = zone("America/New_York");
  EXPECT_EQ(ny.offsetAt(1615705200 - 1), -18000);  // 2021-03-14T06:59:59Z
  EXPECT_EQ(ny.offsetAt(1615705200), -14400);
  EXPECT_EQ(ny.offsetAt(1636264800 - 1), -14400);  // 2021-11-07T05:59:59Z
  EXPECT_EQ(ny.offsetAt(1636264800), -18000);
  // Far beyond the listed transitions, from the footer rule: 2300-03-31T01:00Z
  // (last Sunday of March 2300) and 2300-03-08T07:00Z (second Sunday).
  EXPECT_EQ(berlin.offsetAt(10420966800 - 1), 3600);
  EXPECT_EQ(berlin.offsetAt(10420966800), 7200);
  EXPECT_EQ(ny.offsetAt(10419778800 - 1), -18000);
  EXPECT_EQ(ny.offsetAt(10419778800), -14400);
  // Southern hemisphere, DST across the new year: Sydney 2150-04-03T16:00Z.
  const ZoneRules& sydney = zone("Australia/Sydney");
  EXPECT_EQ(sydney.offsetAt(5688374400 - 1), 39600);
  EXPECT_EQ(sydney.offsetAt(5688374400), 36000);
  // Before the first transition: local mean time, to the second (+00:53:28).
  EXPECT_EQ(berlin.offsetAt(-3000000000), 3208);
}

TEST(TimeZone, GapsAndOverlapsAsJavaTime) {
  const ZoneRules& berlin = zone("Europe/Berlin");
  constexpr int64_t kMar28 = 1616889600;  // 2021-03-28T00:00 as local seconds
  EXPECT_EQ(berlin.validOffsets(kMar28 + 2 * 3600 + 1800), std::vector<int32_t>{});  // 02:30
  EXPECT_EQ(berlin.gapTransition(kMar28 + 2 * 3600 + 1800), 1616893200);
  EXPECT_EQ(berlin.validOffsets(kMar28 + 3 * 3600), std::vector<int32_t>{7200});
  EXPECT_EQ(berlin.gapTransition(kMar28 + 3 * 3600), std::nullopt);
  constexpr int64_t kOct31 = 1635638400;  // 2021-10-31T00:00 local
  EXPECT_EQ(berlin.validOffsets(kOct31 + 2 * 3600 + 1800), (std::vector<int32_t>{7200, 3600}));
  EXPECT_EQ(berlin.validOffsets(kOct31 + 3 * 3600), std::vector<int32_t>{3600});
  // previousTransition is strictly before the instant.
  EXPECT_EQ(berlin.previousTransition(int64_t{1616893200} * 1000 + 1), 1616893200);
  EXPECT_NE(berlin.previousTransition(int64_t{1616893200} * 1000), 1616893200);
}

int64_t next(Unit u, const char* zone_id, int64_t utc_ms) {
  return DateHistogram::Rounding::timeUnit(u, zone_id).nextRoundingValue(utc_ms);
}

TEST(TimeZoneRounding, CalendarUnitsAcrossDst) {
  // Days: 2021-03-28 has 23 hours in Berlin, 2021-10-31 has 25.
  EXPECT_EQ(next(Unit::kDayOfMonth, "Europe/Berlin", 1616886000000), 1616968800000);
  EXPECT_EQ(next(Unit::kDayOfMonth, "Europe/Berlin", 1635631200000), 1635721200000);
  // Week from Monday 2021-03-22, month from 2021-03-01 (local midnights).
  EXPECT_EQ(next(Unit::kWeekOfWeekyear, "Europe/Berlin", 1616367600000), 1616968800000);
  EXPECT_EQ(next(Unit::kMonthOfYear, "Europe/Berlin", 1614553200000), 1617228000000);
  // Hours: 01:00 CET is followed by 03:00 CEST; 02:00 CEST by 02:00 CET.
  EXPECT_EQ(next(Unit::kHourOfDay, "Europe/Berlin", 1616889600000), 1616893200000);
  EXPECT_EQ(next(Unit::kHourOfDay, "Europe/Berlin", 1635638400000), 1635642000000);
  EXPECT_EQ(next(Unit::kHourOfDay, "Europe/Berlin", 1635642000000), 1635645600000);
  // New York days around 2021-03-14 and 2021-11-07.
  EXPECT_EQ(next(Unit::kDayOfMonth, "America/New_York", 1615698000000), 1615780800000);
  EXPECT_EQ(next(Unit::kDayOfMonth, "America/New_York", 1636257600000), 1636347600000);
  // Sao Paulo 2018-11-04 had no midnight (00:00 -03 became 01:00 -02): the
  // day starts at the transition (ES's firstTimeOnDay), then at midnight.
  EXPECT_EQ(next(Unit::kDayOfMonth, "America/Sao_Paulo", 1541214000000), 1541300400000);
  EXPECT_EQ(next(Unit::kDayOfMonth, "America/Sao_Paulo", 1541300400000), 1541383200000);
}

TEST(TimeZoneRounding, FixedIntervalsAcrossDst) {
  // 3 hours in Berlin from 2021-03-28T00:00+01:00: local 03:00 is the next
  // rounded value (01:00Z), as JavaTimeRounding's search finds.
  auto three = DateHistogram::Rounding::timeInterval(3 * 3600000, "Europe/Berlin");
  EXPECT_EQ(three.nextRoundingValue(1616886000000), 1616893200000);
  // Then every 3 local hours: 06:00+02:00.
  EXPECT_EQ(three.nextRoundingValue(1616893200000), 1616904000000);
  // An offset rounding shifts around it.
  three.offset = 60000;
  EXPECT_EQ(three.nextRoundingValue(1616886000000 + 60000), 1616893200000 + 60000);
}

TEST(TimeZoneRender, RegionZonesAsJavaTime) {
  auto berlin = DocValueFormat::dateTime("strict_date_optional_time", "Europe/Berlin");
  EXPECT_EQ(berlin.formatLongAsString(int64_t{1616893200} * 1000 - 1000),
            "2021-03-28T01:59:59.000+01:00");
  EXPECT_EQ(berlin.formatLongAsString(int64_t{1616893200} * 1000), "2021-03-28T03:00:00.000+02:00");
  EXPECT_EQ(berlin.formatLongAsString(1420070400000), "2015-01-01T01:00:00.000+01:00");
  auto ny = DocValueFormat::dateTime("yyyy-MM-dd HH:mm xxx VV", "America/New_York");
  EXPECT_EQ(ny.formatLongAsString(int64_t{1636264800 - 1800} * 1000),
            "2021-11-07 01:30 -04:00 America/New_York");
  EXPECT_EQ(ny.formatLongAsString(int64_t{1636264800 + 1800} * 1000),
            "2021-11-07 01:30 -05:00 America/New_York");
  // No tz file: the raw value, as before.
  EXPECT_EQ(DocValueFormat::dateTime("strict_date_optional_time", "Mars/Olympus")
                .formatLongAsString(1420070400000),
            "1420070400000");
}

std::vector<uint8_t> fileBytes(const char* path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

TEST(TimeZoneFile, MalformedFilesAreTypedErrors) {
  std::vector<uint8_t> good = fileBytes("/usr/share/zoneinfo/Europe/Berlin");
  ASSERT_GT(good.size(), 100u);
  EXPECT_NO_THROW(ZoneRules::parse(good, "Berlin"));
  // Every truncation.
  for (size_t n = 0; n < good.size(); ++n) {
    EXPECT_THROW(ZoneRules::parse(std::span(good).first(n), "Berlin"), TimeZoneDataError) << n;
  }
  auto broken = [&](size_t at, uint8_t value) {
    std::vector<uint8_t> b = good;
    b[at] = value;
    return b;
  };
  EXPECT_THROW(ZoneRules::parse(broken(0, 'X'), "x"), TimeZoneDataError);    // magic
  EXPECT_THROW(ZoneRules::parse(broken(4, '9'), "x"), TimeZoneDataError);    // version
  EXPECT_THROW(ZoneRules::parse(broken(32, 0x7f), "x"), TimeZoneDataError);  // timecnt
  std::vector<uint8_t> bad_footer = good;
  bad_footer[bad_footer.size() - 3] = '!';  // "...,M10.5.0/!\n"
  EXPECT_THROW(ZoneRules::parse(bad_footer, "x"), TimeZoneDataError);
  std::vector<uint8_t> huge(time_zone::kMaxFileBytes + 1, 0);
  EXPECT_THROW(ZoneRules::parse(huge, "x"), TimeZoneDataError);
  try {
    ZoneRules::parse(broken(0, 'X'), "Some/Zone");
  } catch (const TimeZoneDataError& e) {
    EXPECT_EQ(std::string(e.what()), "time zone file [Some/Zone]: no TZif magic");
  }
}

TEST(TimeZoneFile, IdsAreCheckedBeforeOpening) {
  EXPECT_EQ(time_zone::load("Mars/Olympus"), nullptr);  // no such file
  EXPECT_EQ(time_zone::load("Europe"), nullptr);        // a directory
  EXPECT_EQ(time_zone::load("../../../etc/passwd"), nullptr);
  EXPECT_EQ(time_zone::load("/etc/passwd"), nullptr);
  EXPECT_EQ(time_zone::load("Europe/"), nullptr);
  EXPECT_EQ(time_zone::load(""), nullptr);
  EXPECT_EQ(time_zone::load(std::string(65, 'A')), nullptr);
  // A file that is not TZif is a typed error, not a zone.
  EXPECT_THROW(time_zone::load("leapseconds"), TimeZoneDataError);
  EXPECT_NE(time_zone::load("America/Argentina/Buenos_Aires"), nullptr);
  EXPECT_EQ(time_zone::load("Europe/Berlin"), time_zone::load("Europe/Berlin"));  // cached
}

// A version 2 file assembled from RFC 8536's layout: no transitions, one
// type (EST, -5h), footer "EST5EDT,M3.2.0,M11.1.0": every offset comes from
// the rule.
TEST(TimeZoneFile, FooterRuleAlone) {
  std::vector<uint8_t> f;
  auto header = [&](uint8_t typecnt, uint8_t charcnt) {
    for (char c : std::string("TZif2")) f.push_back(static_cast<uint8_t>(c));
    f.insert(f.end(), 15, 0);
    for (uint8_t count : {0, 0, 0, 0, static_cast<int>(typecnt), static_cast<int>(charcnt)}) {
      f.insert(f.end(), {0, 0, 0, count});
    }
  };
  auto block = [&] {
    f.insert(f.end(), {0xff, 0xff, 0xb9, 0xb0, 0, 0});  // utoff -18000, std, "EST"
    f.insert(f.end(), {'E', 'S', 'T', 0});
  };
  header(1, 4);
  block();
  header(1, 4);
  block();
  for (char c : std::string("\nEST5EDT,M3.2.0,M11.1.0\n")) f.push_back(static_cast<uint8_t>(c));
  ZoneRules z = ZoneRules::parse(f, "synthetic");
  EXPECT_EQ(z.offsetAt(1615705200 - 1), -18000);  // 2021-03-14T06:59:59Z
  EXPECT_EQ(z.offsetAt(1615705200), -14400);
  EXPECT_EQ(z.offsetAt(1636264800), -18000);
}

}  // namespace
}  // namespace wirestream::aggregations
