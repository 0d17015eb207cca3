// Randomized GenericValue trees (nested lists, maps, sets, arrays, date-times,
// big integers and offset times: every kind) written and read back at 7.10.0 and 8.7.0 on many page
// sizes: the value read equals the value written, writing it again gives the same bytes, and a
// mutation anywhere in the tree breaks equality. The seed is printed; set WIRESTREAM_SEED to replay
// one.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <set>

#include "stream/structured/generic_value.h"
#include "stream/structured/structured_stream.h"
#include "tests/stream/structured_test_util.h"

namespace wirestream {
namespace {

using GV = GenericValue;
using testing::bytesOf;
using testing::kPageSizes;
using testing::PiecewiseInput;
using testing::writeAt;

class TreeGen {
 public:
  TreeGen(uint64_t seed, bool generic_keys, bool bounding_boxes = false)
      : rng_(seed), generic_keys_(generic_keys), bounding_boxes_(bounding_boxes) {}

  GV value(int depth) {
    // Containers get rarer with depth so trees stay small but reach depth ~6.
    bool container = depth < 6 && uniform(0, 9) < 4 - depth / 2;
    if (container) {
      switch (uniform(0, 5)) {
        case 0:
          return GV::ofList(elements(depth));
        case 1:
          return GV::ofObjectArray(elements(depth));
        case 2:
          return set(GV::ofOrderedSet(elements(depth)));
        case 3:
          return set(GV::ofSet(elements(depth)));
        case 4:
          return map(GV::ofOrderedMap(entries(depth)));
        default:
          return map(GV::ofMap(entries(depth)));
      }
    }
    return scalar();
  }

  std::mt19937_64& rng() { return rng_; }
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

 private:
  // Sets hold no repeated element: drop the repeats the generator made.
  GV set(GV v) {
    while (auto d = v.findDuplicate()) v.elements().erase(v.elements().begin() + *d);
    return v;
  }

  // Maps hold no repeated key.
  GV map(GV v) {
    while (auto d = v.findDuplicate()) v.entries().erase(v.entries().begin() + *d);
    return v;
  }

  GV::List elements(int depth) {
    GV::List out(static_cast<size_t>(uniform(0, 5)));
    for (auto& e : out) e = value(depth + 1);
    return out;
  }

  GV::Entries entries(int depth) {
    GV::Entries out;
    int n = uniform(0, 5);
    for (int i = 0; i < n; ++i) {
      GV key = generic_keys_ && uniform(0, 2) == 0 ? value(depth + 1) : GV(string());
      out.emplace_back(std::move(key), value(depth + 1));
    }
    return out;
  }

  std::string string() {
    // Index 5 stands for a NUL, which a C string cannot hold.
    static const char* kPieces[] = {"a", "key", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80",
                                    "",  "zz"};
    std::string s;
    for (int n = uniform(0, 4); n > 0; --n) {
      int i = uniform(0, 6);
      if (i == 5)
        s.push_back('\0');
      else
        s += kPieces[i];
    }
    return s;
  }

  template <typename T>
  T integer() {
    // Mix edge values with random bits.
    switch (uniform(0, 3)) {
      case 0:
        return std::numeric_limits<T>::min();
      case 1:
        return std::numeric_limits<T>::max();
      case 2:
        return static_cast<T>(uniform(-2, 2));
      default:
        return static_cast<T>(rng_());
    }
  }

  double real() {
    switch (uniform(0, 5)) {
      case 0:
        return std::numeric_limits<double>::quiet_NaN();
      case 1:
        return -0.0;
      case 2:
        return std::numeric_limits<double>::infinity();
      case 3:
        return std::numeric_limits<double>::denorm_min();
      default:
        return std::uniform_real_distribution<double>(-1e9, 1e9)(rng_);
    }
  }

  GV::Bytes bytes() {
    GV::Bytes b(static_cast<size_t>(uniform(0, 6)));
    for (auto& x : b) x = static_cast<uint8_t>(rng_());
    return b;
  }

  template <typename T, typename F>
  std::vector<T> array(F each) {
    std::vector<T> out(static_cast<size_t>(uniform(0, 4)));
    for (auto& x : out) x = each();
    return out;
  }

  // An offset of -18h..18h, often on a whole minute as real ones are.
  std::chrono::seconds offset() {
    int64_t s = std::uniform_int_distribution<int64_t>(-18 * 3600, 18 * 3600)(rng_);
    return std::chrono::seconds(uniform(0, 1) == 0 ? s / 60 * 60 : s);
  }

  ZonedDateTime dateTime() {
    static const char* kZones[] = {"Z",
                                   "UTC",
                                   "GMT",
                                   "UT",
                                   "Europe/Paris",
                                   "Asia/Kolkata",
                                   "America/Argentina/Buenos_Aires",
                                   "Etc/GMT+5"};
    std::string zone;
    switch (uniform(0, 2)) {
      case 0:
        zone = kZones[uniform(0, std::size(kZones) - 1)];
        break;
      case 1:
        zone = OffsetTime::offsetIdOf(offset());
        break;
      default: {
        std::chrono::seconds o = offset();
        zone =
            std::string(kZones[uniform(1, 3)]) + (o.count() == 0 ? "" : OffsetTime::offsetIdOf(o));
      }
    }
    return {ZonedDateTime::Millis(std::chrono::milliseconds(integer<int64_t>())), zone};
  }

  BigInteger bigInteger() {
    GV::Bytes magnitude = bytes();
    if (uniform(0, 3) == 0) magnitude.resize(static_cast<size_t>(uniform(0, 64)), 0xff);
    return BigInteger(uniform(0, 1) == 1, magnitude);
  }

  OffsetTime offsetTime() {
    int64_t day = OffsetTime::kDay.count();
    int64_t n =
        uniform(0, 2) == 0 ? day - 1 : std::uniform_int_distribution<int64_t>(0, day - 1)(rng_);
    return {std::chrono::nanoseconds(n), offset()};
  }

  GV scalar() {
    switch (uniform(0, bounding_boxes_ ? 25 : 24)) {
      case 0:
        return GV();
      case 1:
        return GV(string());
      case 2:
        return GV::ofInt(integer<int32_t>());
      case 3:
        return GV::ofLong(integer<int64_t>());
      case 4:
        return GV::ofFloat(static_cast<float>(real()));
      case 5:
        return GV::ofDouble(real());
      case 6:
        return GV(uniform(0, 1) == 1);
      case 7:
        return GV::ofByteArray(bytes());
      case 8:
        return GV::ofByte(integer<int8_t>());
      case 9:
        return GV::ofDate(integer<int64_t>());
      case 10:
        return GV::ofBytesReference(bytes());
      case 11:
        return GV::ofText(string());
      case 12:
        return GV::ofShort(integer<int16_t>());
      case 13:
        return GV::ofIntArray(array<int32_t>([&] { return integer<int32_t>(); }));
      case 14:
        return GV::ofLongArray(array<int64_t>([&] { return integer<int64_t>(); }));
      case 15:
        return GV::ofFloatArray(array<float>([&] { return static_cast<float>(real()); }));
      case 16:
        return GV::ofDoubleArray(array<double>([&] { return real(); }));
      case 17:
        return GV::ofBytesRef(bytes());
      case 18:
        return GV::ofJodaDateTime(dateTime());
      case 19:
        return GV::ofZonedDateTime(dateTime());
      case 20:
        return GV::ofBigInteger(bigInteger());
      case 21:
        return GV::ofOffsetTime(offsetTime());
      case 23:
        return GV::ofDuration({integer<int64_t>(), static_cast<int32_t>(uniform(0, 999999999))});
      case 24:
        return GV::ofPeriod({integer<int32_t>(), integer<int32_t>(), integer<int32_t>()});
      case 25:
        return GV::ofGeoBoundingBox({{real(), real()}, {real(), real()}});
      default:
        return GV::ofGeoPoint(real(), real());
    }
  }

  std::mt19937_64 rng_;
  bool generic_keys_;
  bool bounding_boxes_;  // tag 30 is writable from V_8_11_X on
};

// Every node of the tree (keys included), pre-order.
void collect(GV& v, std::vector<GV*>& out) {
  out.push_back(&v);
  if (v.isSequence()) {
    for (auto& e : v.elements()) collect(e, out);
  } else if (v.isMap()) {
    for (auto& [k, val] : v.entries()) {
      collect(k, out);
      collect(val, out);
    }
  }
}

void runRoundTrips(TransportVersion version) {
  std::printf("GenericValue random round trips at %s\n", version.toString().c_str());
  const uint64_t s = testing::testSeed(20261130);
  bool generic_keys = version.onOrAfter(TransportVersion::V_8_7_0);
  bool boxes = version.onOrAfter(TransportVersion::V_8_11_X);
  TreeGen gen(s + static_cast<uint64_t>(version.id()), generic_keys, boxes);
  int max_depth_seen = 0;
  std::set<GenericValue::Kind> kinds_seen;
  for (int iter = 0; iter < 400; ++iter) {
    SCOPED_TRACE("iteration " + std::to_string(iter) + ", seed " + std::to_string(s));
    GV original = gen.value(0);
    size_t page = kPageSizes[static_cast<size_t>(gen.uniform(0, kPageSizes.size() - 1))];
    auto bytes = writeAt(
        page, [&](StreamOutput& out) { writeGenericValue(out, original); }, version);
    PiecewiseInput input(bytes, static_cast<size_t>(gen.uniform(1, 17)));
    input.in().setTransportVersion(version);
    GV back = readGenericValue(input.in());
    ASSERT_EQ(back, original) << original;
    ASSERT_EQ(back.hash(), original.hash());
    ASSERT_EQ(back.toString(), original.toString());
    ASSERT_EQ(input.in().available(), 0u);
    auto again = writeAt(
        kPageSizes[static_cast<size_t>(iter) % kPageSizes.size()],
        [&](StreamOutput& out) { writeGenericValue(out, back); }, version);
    ASSERT_EQ(again, bytes) << original;

    std::vector<GV*> nodes;
    collect(back, nodes);
    for (GV* n : nodes) kinds_seen.insert(n->kind());
    int depth = 0;
    {
      // Depth of the read tree: count nested containers along the deepest path.
      std::function<int(const GV&)> d = [&](const GV& v) -> int {
        int best = 0;
        if (v.isSequence())
          for (const auto& e : v.elements()) best = std::max(best, d(e));
        if (v.isMap()) {
          for (const auto& [k, val] : v.entries()) best = std::max({best, d(k), d(val)});
        }
        return v.isSequence() || v.isMap() ? best + 1 : 0;
      };
      depth = d(back);
    }
    max_depth_seen = std::max(max_depth_seen, depth);

    // Wrapping any node in a list must break equality of the whole tree.
    GV* victim = nodes[static_cast<size_t>(gen.uniform(0, nodes.size() - 1))];
    *victim = GV::ofList({std::move(*victim)});
    ASSERT_NE(back, original) << original;
  }
  // The generator is worth something only if it reaches every kind and nests.
  EXPECT_EQ(kinds_seen.size(), GenericValue::kKindCount - (boxes ? 0 : 1));
  EXPECT_GE(max_depth_seen, 4);
}

// Damaged encodings (a byte flipped, inserted or removed, a random tag
// planted, the end cut off) either fail with a StreamError or decode to a
// value that itself round-trips; nothing else may happen.
void runDamage(TransportVersion version) {
  std::printf("GenericValue damage at %s\n", version.toString().c_str());
  const uint64_t s = testing::testSeed(777);
  TreeGen gen(s + static_cast<uint64_t>(version.id()), version.onOrAfter(TransportVersion::V_8_7_0),
              version.onOrAfter(TransportVersion::V_8_11_X));
  int failed = 0, decoded = 0;
  for (int iter = 0; iter < 1500; ++iter) {
    SCOPED_TRACE("iteration " + std::to_string(iter) + ", seed " + std::to_string(s));
    GV original = gen.value(0);
    auto bytes = bytesOf([&](StreamOutput& out) { writeGenericValue(out, original); }, version);
    size_t at = static_cast<size_t>(gen.rng()() % bytes.size());
    switch (gen.uniform(0, 4)) {
      case 0:
        bytes[at] ^= static_cast<uint8_t>(1 + gen.rng()() % 255);
        break;
      case 1:
        bytes.insert(bytes.begin() + at, static_cast<uint8_t>(gen.rng()()));
        break;
      case 2:
        bytes.erase(bytes.begin() + at);
        break;
      case 3:
        bytes[at] = static_cast<uint8_t>(gen.uniform(-2, 32));
        break;
      default:
        bytes.resize(at);
        break;
    }
    PiecewiseInput input(bytes, static_cast<size_t>(gen.uniform(1, 9)));
    input.in().setTransportVersion(version);
    std::optional<GV> damaged;
    try {
      damaged = readGenericValue(input.in());
    } catch (const StreamError&) {
      ++failed;
      ASSERT_EQ(input.in().nestingDepth(), 0);
      continue;
    }
    ++decoded;
    auto again = bytesOf([&](StreamOutput& out) { writeGenericValue(out, *damaged); }, version);
    ByteArrayStreamInput in(again);
    in.setTransportVersion(version);
    ASSERT_EQ(readGenericValue(in), *damaged);
  }
  std::printf("%d damaged inputs refused, %d decoded to other values\n", failed, decoded);
  EXPECT_GT(failed, 0);
  EXPECT_GT(decoded, 0);
}

TEST(GenericValueRandomTest, DamageAt7100) { runDamage(TransportVersion::V_7_10_0); }
TEST(GenericValueRandomTest, DamageAt870) { runDamage(TransportVersion::V_8_7_0); }

TEST(GenericValueRandomTest, RoundTripAt7100) { runRoundTrips(TransportVersion::V_7_10_0); }
TEST(GenericValueRandomTest, RoundTripAt870) { runRoundTrips(TransportVersion::V_8_7_0); }
TEST(GenericValueRandomTest, RoundTripAt8_18) { runRoundTrips(TransportVersion::V_8_18_0); }
TEST(GenericValueRandomTest, DamageAt8_18) { runDamage(TransportVersion::V_8_18_0); }

}  // namespace
}  // namespace wirestream
