// codec/varint.h: the bytes of Elasticsearch's StreamOutput.writeVInt / writeVLong /
// writeZLong (7 bits a byte, low group first, 0x80 on every byte but the last; ZLong is
// zigzag (i << 1) ^ (i >> 63) first), and the validity rules of StreamInput.readVInt (a
// 5th byte with a bit of 0xF0 set: "Invalid vInt") and readVLong (a 10th byte other than 0
// or 1: "Invalid vlong"), where the codec returns nullptr instead of throwing.
#include "codec/varint.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace wirestream::codec {
namespace {

using Bytes = std::vector<uint8_t>;

uint64_t testSeed(uint64_t fixed) {
  uint64_t seed = fixed;
  if (const char* env = std::getenv("WIRESTREAM_SEED")) seed = std::stoull(env);
  std::printf("seed = %llu (set WIRESTREAM_SEED to replay)\n",
              static_cast<unsigned long long>(seed));
  return seed;
}

// The bytes in a heap block of exactly their size, so that ASan catches any read at or
// past `limit`.
std::unique_ptr<uint8_t[]> exact(const Bytes& bytes) {
  auto p = std::make_unique<uint8_t[]>(bytes.size() + (bytes.empty() ? 1 : 0));
  std::copy(bytes.begin(), bytes.end(), p.get());
  return p;
}

struct VIntCase {
  int32_t value;
  Bytes bytes;
};

// Worked by hand from writeVInt's loop.
const std::vector<VIntCase> kVInts = {
    {0, {0x00}},
    {1, {0x01}},
    {127, {0x7F}},
    {128, {0x80, 0x01}},
    {300, {0xAC, 0x02}},
    {16383, {0xFF, 0x7F}},
    {16384, {0x80, 0x80, 0x01}},
    {(1 << 21) - 1, {0xFF, 0xFF, 0x7F}},
    {1 << 21, {0x80, 0x80, 0x80, 0x01}},
    {(1 << 28) - 1, {0xFF, 0xFF, 0xFF, 0x7F}},
    {1 << 28, {0x80, 0x80, 0x80, 0x80, 0x01}},
    {std::numeric_limits<int32_t>::max(), {0xFF, 0xFF, 0xFF, 0xFF, 0x07}},
    {-1, {0xFF, 0xFF, 0xFF, 0xFF, 0x0F}},
    {std::numeric_limits<int32_t>::min(), {0x80, 0x80, 0x80, 0x80, 0x08}},
};

struct VLongCase {
  uint64_t value;  // as writeVLongNoCheck sees it (unsigned shifts)
  Bytes bytes;
};

const std::vector<VLongCase> kVLongs = {
    {0, {0x00}},
    {300, {0xAC, 0x02}},
    {uint64_t{1} << 35, {0x80, 0x80, 0x80, 0x80, 0x80, 0x01}},
    {static_cast<uint64_t>(std::numeric_limits<int64_t>::max()),
     {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F}},
    {~uint64_t{0}, {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}},
    {uint64_t{1} << 63, {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}},
};

struct ZLongCase {
  int64_t value;
  Bytes bytes;
};

const std::vector<ZLongCase> kZLongs = {
    {0, {0x00}},
    {-1, {0x01}},
    {1, {0x02}},
    {-64, {0x7F}},
    {64, {0x80, 0x01}},
    {std::numeric_limits<int64_t>::min(),
     {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}},
    {std::numeric_limits<int64_t>::max(),
     {0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}},
};

TEST(Varint, EncodeVIntMatchesWriteVInt) {
  for (const VIntCase& c : kVInts) {
    auto u = static_cast<uint32_t>(c.value);
    uint8_t buf[kMaxVIntBytes];
    EXPECT_EQ(Bytes(buf, encodeVInt(buf, u)), c.bytes) << c.value;
    EXPECT_EQ(Bytes(buf, encodeVarint32(buf, u)), c.bytes) << c.value;
    EXPECT_EQ(vIntSize(u), static_cast<int>(c.bytes.size())) << c.value;
    uint8_t padded[kVIntPaddedStoreBytes];
    EXPECT_EQ(Bytes(padded, encodeVIntPadded(padded, u)), c.bytes) << c.value;
  }
}

TEST(Varint, EncodeVLongAndZLongMatchJava) {
  for (const VLongCase& c : kVLongs) {
    uint8_t buf[kMaxVLongBytes];
    EXPECT_EQ(Bytes(buf, encodeVLong(buf, c.value)), c.bytes) << c.value;
    EXPECT_EQ(vLongSize(c.value), static_cast<int>(c.bytes.size())) << c.value;
  }
  for (const ZLongCase& c : kZLongs) {
    uint8_t buf[kMaxZLongBytes];
    EXPECT_EQ(Bytes(buf, encodeZLong(buf, c.value)), c.bytes) << c.value;
    EXPECT_EQ(zigZagDecode(zigZagEncode(c.value)), c.value);
  }
}

// Decoding the exact bytes gives the value back and ends at their end; every strict
// prefix is refused without reading past it; with slack after the value (the unrolled
// path) the result is the same.
TEST(Varint, DecodeVIntExactPrefixesAndSlack) {
  for (const VIntCase& c : kVInts) {
    auto p = exact(c.bytes);
    int32_t v = 0;
    const uint8_t* end = p.get() + c.bytes.size();
    EXPECT_EQ(decodeVInt(p.get(), end, &v), end) << c.value;
    EXPECT_EQ(v, c.value);
    for (size_t k = 0; k < c.bytes.size(); ++k) {
      auto q = exact(Bytes(c.bytes.begin(), c.bytes.begin() + k));
      EXPECT_EQ(decodeVInt(q.get(), q.get() + k, &v), nullptr) << c.value << " prefix " << k;
    }
    Bytes slack = c.bytes;
    slack.resize(c.bytes.size() + kMaxVIntBytes, 0xFF);
    v = 0;
    EXPECT_EQ(decodeVInt(slack.data(), slack.data() + slack.size(), &v),
              slack.data() + c.bytes.size());
    EXPECT_EQ(v, c.value);
  }
}

TEST(Varint, DecodeVarint64ExactPrefixesAndSlack) {
  auto check = [](const Bytes& bytes, uint64_t want) {
    auto p = exact(bytes);
    uint64_t v = 0;
    const uint8_t* end = p.get() + bytes.size();
    EXPECT_EQ(decodeVarint64(p.get(), end, &v), end) << want;
    EXPECT_EQ(v, want);
    for (size_t k = 0; k < bytes.size(); ++k) {
      auto q = exact(Bytes(bytes.begin(), bytes.begin() + k));
      EXPECT_EQ(decodeVarint64(q.get(), q.get() + k, &v), nullptr) << want << " prefix " << k;
    }
    Bytes slack = bytes;
    slack.resize(bytes.size() + kMaxVLongBytes, 0xFF);
    v = 0;
    EXPECT_EQ(decodeVarint64Unchecked(slack.data(), &v), slack.data() + bytes.size());
    EXPECT_EQ(v, want);
  };
  for (const VLongCase& c : kVLongs) check(c.bytes, c.value);
  for (const ZLongCase& c : kZLongs) check(c.bytes, zigZagEncode(c.value));
}

// readVInt: "Invalid vInt" when the 5th byte has any bit of 0xF0; 0x0F is the largest.
TEST(Varint, FifthVIntByteCarriesOnlyFourBits) {
  for (int fifth = 0; fifth < 256; ++fifth) {
    Bytes b = {0x80, 0x80, 0x80, 0x80, static_cast<uint8_t>(fifth)};
    bool valid = (fifth & 0xF0) == 0;
    int32_t v = 0;
    auto p = exact(b);
    EXPECT_EQ(decodeVInt(p.get(), p.get() + 5, &v) != nullptr, valid) << fifth;
    if (valid) {
      EXPECT_EQ(static_cast<uint32_t>(v), static_cast<uint32_t>(fifth) << 28);
    }
    b.resize(12, 0);  // the unrolled path
    EXPECT_EQ(decodeVInt(b.data(), b.data() + b.size(), &v) != nullptr, valid) << fifth;
  }
}

// readVLong: "Invalid vlong" unless the 10th byte is 0 or 1.
TEST(Varint, TenthVarint64ByteIsZeroOrOne) {
  for (int tenth = 0; tenth < 256; ++tenth) {
    Bytes b(9, 0x80);
    b.push_back(static_cast<uint8_t>(tenth));
    bool valid = tenth <= 1;
    uint64_t v = 0;
    auto p = exact(b);
    EXPECT_EQ(decodeVarint64(p.get(), p.get() + 10, &v) != nullptr, valid) << tenth;
    if (valid) {
      EXPECT_EQ(v, static_cast<uint64_t>(tenth) << 63);
    }
    b.resize(16, 0);
    EXPECT_EQ(decodeVarint64(b.data(), b.data() + b.size(), &v) != nullptr, valid) << tenth;
  }
}

// Random values of every width: a run of them encodes and decodes back, value by value,
// through both the checked path (near the end) and the unrolled one.
TEST(Varint, RandomRunsRoundTrip) {
  std::mt19937_64 rng(testSeed(7101));
  for (int round = 0; round < 200; ++round) {
    size_t n = rng() % 64;
    std::vector<uint32_t> ints(n);
    std::vector<uint64_t> longs(n);
    Bytes bytes(n * (kMaxVIntBytes + kMaxVLongBytes));
    uint8_t* w = bytes.data();
    for (size_t i = 0; i < n; ++i) {
      ints[i] = static_cast<uint32_t>(rng() >> (rng() % 33));
      longs[i] = rng() >> (rng() % 64);
      w = encodeVInt(w, ints[i]);
      w = encodeVLong(w, longs[i]);
    }
    bytes.resize(static_cast<size_t>(w - bytes.data()));
    auto p = exact(bytes);
    const uint8_t* r = p.get();
    const uint8_t* end = r + bytes.size();
    for (size_t i = 0; i < n; ++i) {
      int32_t vi = 0;  // GCC 12 -O3 cannot see decodeVInt set it
      uint64_t vl = 0;
      r = decodeVInt(r, end, &vi);
      ASSERT_NE(r, nullptr);
      ASSERT_EQ(static_cast<uint32_t>(vi), ints[i]);
      r = decodeVarint64(r, end, &vl);
      ASSERT_NE(r, nullptr);
      ASSERT_EQ(vl, longs[i]);
    }
    EXPECT_EQ(r, end);
  }
}

}  // namespace
}  // namespace wirestream::codec
