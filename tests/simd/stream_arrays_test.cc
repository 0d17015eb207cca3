// The batch paths of StreamOutput / StreamInput at every SIMD level and every
// page size: the same bytes as the per-value writers, the same values and the
// same typed errors (with the same messages) as the per-value readers.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "simd/simd.h"
#include "stream/bytes_stream_output.h"
#include "tests/stream/test_util.h"

namespace wirestream {
namespace {

using simd::Level;
using testing::kPageSizes;

int32_t mixedVInt(std::mt19937_64& rng) {
  uint64_t r = rng();
  int width = static_cast<int>((r >> 8) % 5);
  uint32_t bits = static_cast<uint32_t>(r >> 32);
  return static_cast<int32_t>(width == 4 ? bits : bits >> (32 - 7 * (width + 1)));
}

int64_t mixedVLong(std::mt19937_64& rng) {
  uint64_t r = rng();
  int width = static_cast<int>(rng() % 9);
  return static_cast<int64_t>((r >> (64 - 7 * (width + 1))) & 0x7fffffffffffffffULL);
}

// Lengths 0..257, then a few that span many 16 KiB pages.
std::vector<size_t> lengths() {
  std::vector<size_t> out;
  for (size_t n = 0; n <= 257; ++n) out.push_back(n);
  for (size_t n : {1000u, 4099u, 20000u}) out.push_back(n);
  return out;
}

// Page sizes to combine with every length: small ones only for short arrays.
bool worthIt(size_t page, size_t n) { return page >= 1024 || n <= 257; }

class StreamArraysTest : public ::testing::TestWithParam<Level> {
 protected:
  void SetUp() override { ASSERT_EQ(simd::setLevel(GetParam()), GetParam()); }
  void TearDown() override { simd::setLevel(std::nullopt); }
};

TEST_P(StreamArraysTest, VIntArrayBytesAndValuesAtEveryPageSize) {
  std::mt19937_64 rng(testing::testSeed(6101));
  for (size_t n : lengths()) {
    std::vector<int32_t> values(n);
    for (auto& v : values) v = mixedVInt(rng);
    std::vector<uint8_t> expected = testing::writeAt(16384, [&](StreamOutput& out) {
      out.writeArraySize(n);
      for (int32_t v : values) out.writeVInt(v);
    });
    for (size_t page : kPageSizes) {
      if (!worthIt(page, n)) continue;
      std::vector<uint8_t> got =
          testing::writeAt(page, [&](StreamOutput& out) { out.writeVIntArray(values); });
      ASSERT_EQ(got, expected) << "n=" << n << " page=" << page;
      testing::readAll(got, page, [&](StreamInput& in) {
        ASSERT_EQ(in.readVIntArray(), values) << "n=" << n << " piece=" << page;
      });
    }
  }
}

TEST_P(StreamArraysTest, VLongArrayBytesAndValuesAtEveryPageSize) {
  std::mt19937_64 rng(testing::testSeed(6102));
  for (size_t n : lengths()) {
    std::vector<int64_t> values(n);
    for (auto& v : values) v = mixedVLong(rng);
    std::vector<uint8_t> expected = testing::writeAt(16384, [&](StreamOutput& out) {
      out.writeArraySize(n);
      for (int64_t v : values) out.writeVLong(v);
    });
    for (size_t page : kPageSizes) {
      if (!worthIt(page, n)) continue;
      std::vector<uint8_t> got =
          testing::writeAt(page, [&](StreamOutput& out) { out.writeVLongArray(values); });
      ASSERT_EQ(got, expected) << "n=" << n << " page=" << page;
      testing::readAll(got, page, [&](StreamInput& in) {
        ASSERT_EQ(in.readVLongArray(), values) << "n=" << n << " piece=" << page;
      });
    }
  }
}

TEST_P(StreamArraysTest, NegativeVLongInArrayWritesNothing) {
  PageRecycler recycler(7);
  BytesStreamOutput out(recycler);
  std::vector<int64_t> values = {1, 2, -3, 4};
  EXPECT_THROW(out.writeVLongArray(values), std::invalid_argument);
  EXPECT_EQ(out.size(), 0u);
}

TEST_P(StreamArraysTest, EveryStrictPrefixFails) {
  std::mt19937_64 rng(testing::testSeed(6103));
  std::vector<int32_t> ints(40);
  for (auto& v : ints) v = mixedVInt(rng);
  std::vector<int64_t> longs(20);
  for (auto& v : longs) v = mixedVLong(rng);
  auto ib = testing::writeAt(16384, [&](StreamOutput& out) { out.writeVIntArray(ints); });
  auto lb = testing::writeAt(16384, [&](StreamOutput& out) { out.writeVLongArray(longs); });
  for (size_t piece : {1u, 3u, 13u, 1024u}) {
    testing::expectEveryPrefixFails(ib, piece, [](StreamInput& in) { (void)in.readVIntArray(); });
    testing::expectEveryPrefixFails(lb, piece, [](StreamInput& in) { (void)in.readVLongArray(); });
  }
}

// What the per-value loop throws on `bytes` (type and message), or "" if it
// reads them fine.
template <typename ReadOne>
std::string perValueError(const std::vector<uint8_t>& bytes, size_t piece, ReadOne read_one) {
  BytesReference ref = testing::paged(bytes, piece);
  BytesReferenceStreamInput in(ref);
  try {
    int32_t n = in.readArraySize(1);
    for (int32_t i = 0; i < n; ++i) read_one(in);
  } catch (const EndOfStreamError& e) {
    return std::string("EOS: ") + e.what();
  } catch (const CorruptStreamError& e) {
    return std::string("Corrupt: ") + e.what();
  } catch (const LimitExceededError& e) {
    return std::string("Limit: ") + e.what();
  }
  return "";
}

template <typename ReadArray>
std::string batchError(const std::vector<uint8_t>& bytes, size_t piece, ReadArray read_array) {
  BytesReference ref = testing::paged(bytes, piece);
  BytesReferenceStreamInput in(ref);
  try {
    read_array(in);
  } catch (const EndOfStreamError& e) {
    return std::string("EOS: ") + e.what();
  } catch (const CorruptStreamError& e) {
    return std::string("Corrupt: ") + e.what();
  } catch (const LimitExceededError& e) {
    return std::string("Limit: ") + e.what();
  }
  return "";
}

TEST_P(StreamArraysTest, MalformedArraysFailLikeThePerValueLoop) {
  std::mt19937_64 rng(testing::testSeed(6104));
  int failures = 0;
  for (int round = 0; round < 600; ++round) {
    bool vlong = round % 2 == 1;
    size_t n = rng() % 60 + 1;
    std::vector<uint8_t> bytes;
    if (vlong) {
      std::vector<int64_t> values(n);
      for (auto& v : values) v = mixedVLong(rng);
      bytes = testing::writeAt(16384, [&](StreamOutput& out) { out.writeVLongArray(values); });
    } else {
      std::vector<int32_t> values(n);
      for (auto& v : values) v = mixedVInt(rng);
      bytes = testing::writeAt(16384, [&](StreamOutput& out) { out.writeVIntArray(values); });
    }
    // Corrupt a byte after the count (so the size stays as written).
    size_t at = 1 + rng() % (bytes.size() - 1);
    switch (rng() % 3) {
      case 0:
        bytes[at] |= 0x80;
        break;
      case 1:
        bytes[at] = 0xFF;
        break;
      default:
        bytes[at] = static_cast<uint8_t>(rng() | 0x80);
        break;
    }
    for (size_t piece : {1u, 7u, 32u, 16384u}) {
      std::string want, got;
      if (vlong) {
        want = perValueError(bytes, piece, [](StreamInput& in) { (void)in.readVLong(); });
        got = batchError(bytes, piece, [](StreamInput& in) { (void)in.readVLongArray(); });
      } else {
        want = perValueError(bytes, piece, [](StreamInput& in) { (void)in.readVInt(); });
        got = batchError(bytes, piece, [](StreamInput& in) { (void)in.readVIntArray(); });
      }
      ASSERT_EQ(got, want) << "round " << round << " piece " << piece;
      failures += !want.empty();
    }
  }
  EXPECT_GT(failures, 400) << "the corruptions should mostly be caught";
}

TEST_P(StreamArraysTest, InvalidVIntAndVLongMessages) {
  // 3 values, the second with a bad 5th byte; then a VLong with a bad 10th.
  std::vector<uint8_t> ib = testing::hexBytes("03 01 ff ff ff ff 1f 02");
  for (size_t piece : kPageSizes) {
    std::string got = batchError(ib, piece, [](StreamInput& in) { (void)in.readVIntArray(); });
    EXPECT_NE(got.find("Corrupt: Invalid vInt"), std::string::npos) << got;
  }
  std::vector<uint8_t> lb = testing::hexBytes("02 01 ff ff ff ff ff ff ff ff ff 02");
  for (size_t piece : kPageSizes) {
    std::string got = batchError(lb, piece, [](StreamInput& in) { (void)in.readVLongArray(); });
    EXPECT_NE(got.find("Corrupt: Invalid vlong"), std::string::npos) << got;
  }
}

// ---- ByteStreamSplit arrays ----

TEST_P(StreamArraysTest, SplitArraysExpectedBytes) {
  // 1.0 = 3f f0 00.., -2.0 = c0 00 00..; NaN canonical 7f f8 00..
  std::vector<double> d = {1.0, -2.0, std::nan("1")};
  auto bytes = testing::writeAt(16384, [&](StreamOutput& out) { out.writeDoubleArraySplit(d); });
  EXPECT_EQ(testing::toHex(bytes),
            "03 3f c0 7f f0 00 f8 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 "
            "00 00 00");
  std::vector<float> f = {1.0f, -2.0f};
  auto fb = testing::writeAt(16384, [&](StreamOutput& out) { out.writeFloatArraySplit(f); });
  EXPECT_EQ(testing::toHex(fb), "02 3f c0 80 00 00 00 00 00");
}

TEST_P(StreamArraysTest, SplitArraysRoundTripAtEveryPageSize) {
  std::mt19937_64 rng(testing::testSeed(6105));
  for (size_t n : {0u, 1u, 15u, 16u, 17u, 31u, 32u, 33u, 100u, 257u, 3000u}) {
    std::vector<double> d(n);
    std::vector<float> f(n);
    for (size_t i = 0; i < n; ++i) {
      d[i] = std::ldexp(static_cast<double>(rng() % 100000), static_cast<int>(rng() % 40) - 20);
      f[i] = static_cast<float>(d[i]);
    }
    for (size_t page : kPageSizes) {
      if (!worthIt(page, n)) continue;
      auto db = testing::writeAt(page, [&](StreamOutput& out) { out.writeDoubleArraySplit(d); });
      auto fb = testing::writeAt(page, [&](StreamOutput& out) { out.writeFloatArraySplit(f); });
      ASSERT_EQ(db.size(), testing::writeAt(16384, [&](StreamOutput& out) {
                             out.writeDoubleArray(d);
                           }).size());
      testing::readAll(db, page, [&](StreamInput& in) { ASSERT_EQ(in.readDoubleArraySplit(), d); });
      testing::readAll(fb, page, [&](StreamInput& in) { ASSERT_EQ(in.readFloatArraySplit(), f); });
      if (n > 0 && n < 40 && page <= 3) {
        testing::expectEveryPrefixFails(db, page,
                                        [](StreamInput& in) { (void)in.readDoubleArraySplit(); });
        testing::expectEveryPrefixFails(fb, page,
                                        [](StreamInput& in) { (void)in.readFloatArraySplit(); });
      }
    }
  }
}

TEST_P(StreamArraysTest, SplitArraySizeCheckedBeforeAllocating) {
  // A count of 2^30 doubles with 3 bytes behind it: EndOfStreamError, no 8 GiB.
  std::vector<uint8_t> bytes = testing::hexBytes("80 80 80 80 04 00 00 00");
  ByteArrayStreamInput in(bytes);
  EXPECT_THROW(in.readDoubleArraySplit(), EndOfStreamError);
}

// ---- strings through the vector ASCII scan ----

TEST_P(StreamArraysTest, StringsRoundTripWithAsciiRuns) {
  std::mt19937_64 rng(testing::testSeed(6106));
  const char* pieces[] = {"a", "bcdefghijklmnopqrstuvwxyz0123456789", "\xC3\xA9", "\xE2\x82\xAC",
                          "\xF0\x9F\x98\x80"};
  std::string long_ascii(70, 'q');
  for (int round = 0; round < 300; ++round) {
    std::string s;
    int parts = static_cast<int>(rng() % 12);
    for (int p = 0; p < parts; ++p) {
      size_t which = rng() % 6;
      s += which == 5 ? long_ascii : std::string(pieces[which]);
    }
    // The per-value reference: units counted by hand, bytes by the scalar
    // level.
    simd::setLevel(Level::kScalar);
    auto expected = testing::writeAt(16384, [&](StreamOutput& out) { out.writeString(s); });
    simd::setLevel(GetParam());
    for (size_t page : {1u, 5u, 32u, 16384u}) {
      auto got = testing::writeAt(page, [&](StreamOutput& out) { out.writeString(s); });
      ASSERT_EQ(got, expected) << round;
      testing::readAll(got, page, [&](StreamInput& in) { ASSERT_EQ(in.readString(), s); });
    }
  }
  // Invalid UTF-8 after a long ASCII run is still refused.
  std::string bad = std::string(100, 'a') + "\xC0\x80";
  BytesStreamOutput out;
  EXPECT_THROW(out.writeString(bad), std::invalid_argument);
  EXPECT_EQ(out.size(), 0u);
}

// The span copy in readString hands anything unusual to the careful path:
// errors after a copied span are the careful path's, at every page size.
TEST_P(StreamArraysTest, StringErrorsAfterACopiedSpan) {
  struct Case {
    const char* tail;  // wire bytes after "abc" + "é" (4 units so far)
    int units;         // total unit count
    const char* message;
  };
  const Case cases[] = {
      {"c0 80", 5, "Invalid string: overlong form of"},
      {"e0 80 80", 5, "Invalid string: overlong form of"},
      {"ed b0 80", 5, "Invalid string: unpaired low surrogate"},
      {"ed a0 80 61", 6, "Invalid string: unpaired high surrogate"},
      {"80", 5, "Invalid string: bad lead byte"},
      {"f0 9f 98 80", 5, "Invalid string: bad lead byte"},
      {"c3 41", 5, "Invalid string: bad continuation byte"},
      {"e2 82 41", 5, "Invalid string: bad continuation byte"},
  };
  for (const Case& c : cases) {
    std::vector<uint8_t> bytes =
        testing::hexBytes("0" + std::to_string(c.units) + " 61 62 63 c3 a9 " + c.tail);
    for (size_t piece : kPageSizes) {
      BytesReference ref = testing::paged(bytes, piece);
      BytesReferenceStreamInput in(ref);
      try {
        (void)in.readString();
        ADD_FAILURE() << c.tail << " was accepted, piece " << piece;
      } catch (const CorruptStreamError& e) {
        EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos)
            << c.tail << ": " << e.what() << ", piece " << piece;
      }
    }
  }
  // A surrogate pair after a span is read back as one 4-byte sequence, and a
  // string cut inside a unit after a span is EndOfStreamError.
  std::vector<uint8_t> pair = testing::hexBytes("06 61 62 63 c3 a9 ed a0 bd ed b8 80");
  testing::readAll(
      pair, 3, [](StreamInput& in) { EXPECT_EQ(in.readString(), "abc\xC3\xA9\xF0\x9F\x98\x80"); });
  for (size_t piece : kPageSizes) {
    testing::expectEveryPrefixFails(pair, piece, [](StreamInput& in) { (void)in.readString(); });
  }
}

std::string levelParamName(const ::testing::TestParamInfo<Level>& info) {
  return simd::levelName(info.param);
}

INSTANTIATE_TEST_SUITE_P(AllLevels, StreamArraysTest, ::testing::ValuesIn(simd::supportedLevels()),
                         levelParamName);

}  // namespace
}  // namespace wirestream
