// TransportVersion's two id shapes: the release-shaped ids up to 8.8.1 (every one of them
// unchanged) and the release table after that (stream/transport_version_releases.cc, read
// off ES's jars and checked against them by tools/interop.sh's `versions` check).
#include "stream/transport_version.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>

namespace wirestream {
namespace {

std::tuple<int, int, int> triple(std::string_view release) {
  int parts[3] = {-1, -1, -1};
  std::string s(release);
  EXPECT_EQ(std::sscanf(s.c_str(), "%d.%d.%d", &parts[0], &parts[1], &parts[2]), 3) << s;
  return {parts[0], parts[1], parts[2]};
}

TEST(TransportVersionTest, NamedConstantsKeepTheirIds) {
  EXPECT_EQ(TransportVersion::V_7_10_0.id(), 7100099);
  EXPECT_EQ(TransportVersion::V_7_15_0.id(), 7150099);
  EXPECT_EQ(TransportVersion::V_7_17_0.id(), 7170099);
  EXPECT_EQ(TransportVersion::V_8_0_0.id(), 8000099);
  EXPECT_EQ(TransportVersion::V_8_7_0.id(), 8070099);
}

// current() is the newest release wirestream supports, the last row of the table (ES's own
// TransportVersion.current() is its newest), so a default stream writes 9.5.3's bytes.
TEST(TransportVersionTest, CurrentIsTheNewestRelease) {
  EXPECT_EQ(TransportVersion::current().id(), 9458007);
  EXPECT_EQ(TransportVersion::current().id(), TransportVersion::releases().back().id);
  EXPECT_EQ(TransportVersion::current().toString(), "9.5.3");
  for (const TransportVersionRelease& row : TransportVersion::releases()) {
    EXPECT_LE(row.id, TransportVersion::current().id()) << row.release;
  }
}

// Every release up to 8.7.x parses by arithmetic and prints back, as before the table.
TEST(TransportVersionTest, EveryReleaseUpTo87IsArithmetic) {
  for (int major = 0; major <= 8; ++major) {
    for (int minor = 0; minor <= (major == 8 ? 7 : 99); ++minor) {
      for (int revision = 0; revision <= 99; ++revision) {
        std::string name =
            std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(revision);
        TransportVersion v = TransportVersion::parse(name);
        ASSERT_EQ(v, TransportVersion::fromRelease(major, minor, revision)) << name;
        ASSERT_EQ(v.toString(), name);
        ASSERT_EQ(TransportVersion::parse(std::to_string(v.id())), v) << name;
      }
    }
  }
  EXPECT_EQ(TransportVersion::parse("8.7.1").id(), 8070199);
  EXPECT_EQ(TransportVersion::parse("7.17.29").id(), 7172999);
}

TEST(TransportVersionTest, PlainIds) {
  EXPECT_EQ(TransportVersion::parse("8070099"), TransportVersion::V_8_7_0);
  EXPECT_EQ(TransportVersion(8070099).toString(), "8.7.0");
  EXPECT_EQ(TransportVersion(8080199).toString(), "8.8.1");  // ES's V_8_8_1, the last of its kind
  // Ids of the second shape that are no release's print as ids.
  EXPECT_EQ(TransportVersion(8500020).toString(), "8500020");  // ES's V_8_9_X
  EXPECT_EQ(TransportVersion(8800000).toString(), "8800000");  // V9_HANDSHAKE_VERSION
  EXPECT_EQ(TransportVersion::parse("8500020").id(), 8500020);
  // A detached id that happens to end in 99 is not taken for a release.
  EXPECT_EQ(TransportVersion(8841099).toString(), "8841099");
  EXPECT_EQ(TransportVersion(7170000).toString(), "7170000");
  EXPECT_EQ(TransportVersion(-1).toString(), "-1");
}

TEST(TransportVersionTest, Malformed) {
  for (const char* text : {"", "9.x", "9.1", "9.1.0.1", "a", "9..0", "1.100.0", "1.1.100",
                           "2001.0.0", "-1.0.0", "9.1.0 ", " 9.1.0"}) {
    EXPECT_THROW(TransportVersion::parse(text), std::invalid_argument) << text;
  }
}

// What the jars say (tools/interop.sh checks the whole table against them): the
// releases the issue names, spelled out so that a wrong row is caught here too.
TEST(TransportVersionTest, ReleasesAfter87ComeFromTheTable) {
  EXPECT_EQ(TransportVersion::parse("8.19.7").id(), 8841072);
  EXPECT_EQ(TransportVersion::parse("9.1.0").id(), 9112003);
  EXPECT_EQ(TransportVersion(9112003).toString(), "9.1.0");
  EXPECT_EQ(TransportVersion::findRelease("9.1.0")->minimum_compatible_id, 8841000);
  EXPECT_FALSE(TransportVersion::findRelease("9.1.99").has_value());
}

TEST(TransportVersionTest, AnUnknownLaterReleaseIsRefusedNotGuessed) {
  for (const char* text : {"8.8.2", "8.19.99", "9.1.99", "10.0.0", "8.20.0"}) {
    try {
      TransportVersion::parse(text);
      ADD_FAILURE() << text << " parsed";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("unknown release [" + std::string(text) + "]"),
                std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("9.1.0"), std::string::npos) << e.what();
    }
  }
}

TEST(TransportVersionTest, TheTableIsConsistent) {
  auto rows = TransportVersion::releases();
  ASSERT_FALSE(rows.empty());
  std::set<std::string_view> names;
  std::tuple<int, int, int> previous{-1, -1, -1};
  for (const TransportVersionRelease& r : rows) {
    SCOPED_TRACE(std::string(r.release));
    EXPECT_TRUE(names.insert(r.release).second) << "twice";
    auto t = triple(r.release);
    EXPECT_LT(previous, t) << "oldest first";
    previous = t;
    auto [major, minor, revision] = t;
    if (major < 8 || (major == 8 && minor <= 7)) {
      EXPECT_EQ(r.id, TransportVersion::fromRelease(major, minor, revision).id());
    } else if (major == 8 && minor == 8) {
      EXPECT_LE(r.id, 8080199);
    } else {
      EXPECT_GE(r.id, 8500000) << "the second shape";
      EXPECT_EQ(r.id / 1000000, major) << "M_NNN_S_PP starts with the major";
    }
    EXPECT_GT(r.minimum_compatible_id, 0);
    EXPECT_LT(r.minimum_compatible_id, r.id);
    // parse gives the row's id, toString a release with that id (the first such row).
    TransportVersion v = TransportVersion::parse(std::string(r.release));
    EXPECT_EQ(v.id(), r.id);
    auto named = TransportVersion::findRelease(v.toString());
    ASSERT_TRUE(named.has_value()) << v.toString();
    EXPECT_EQ(named->id, r.id);
    EXPECT_LE(triple(named->release), t);
  }
  EXPECT_EQ(TransportVersion::findRelease("8.7.1")->id, 8070199);
  EXPECT_EQ(TransportVersion::findRelease("7.17.29")->minimum_compatible_id, 6080099);
}

// The gates after 8.7 carry ES 8.19's TransportVersions ids; isPatchFrom is ES's (at or after
// the base, same id / 1000): 8.12.1's backport of downsampledResultsOffset.
TEST(TransportVersionGates, IdsAndIsPatchFrom) {
  EXPECT_EQ(TransportVersion::V_8_8_0.id(), 8080099);
  EXPECT_EQ(TransportVersion::V_8_11_X.id(), 8512001);
  EXPECT_EQ(TransportVersion::V_8_12_1.id(), 8560001);
  EXPECT_EQ(TransportVersion::V_8_13_0.id(), 8595000);
  EXPECT_EQ(TransportVersion::V_8_14_0.id(), 8636001);
  EXPECT_EQ(TransportVersion::V_8_16_0.id(), 8772001);
  EXPECT_TRUE(TransportVersion(8560001).isPatchFrom(TransportVersion::V_8_12_1));
  EXPECT_TRUE(TransportVersion(8560999).isPatchFrom(TransportVersion::V_8_12_1));
  EXPECT_FALSE(TransportVersion(8560000).isPatchFrom(TransportVersion::V_8_12_1));
  EXPECT_FALSE(TransportVersion(8561000).isPatchFrom(TransportVersion::V_8_12_1));
  EXPECT_FALSE(TransportVersion::V_8_7_0.isPatchFrom(TransportVersion::V_8_12_1));
}

}  // namespace
}  // namespace wirestream
