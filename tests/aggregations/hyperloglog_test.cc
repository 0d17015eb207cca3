// HyperLogLog++: the sparse encoding, the switch to dense, accuracy against
// exact counts at several precisions, merges, and the wire form.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>
#include <unordered_set>

#include "agg_test_util.h"
#include "aggregations/json/model_json.h"

namespace wirestream::aggregations {
namespace {

using H = HyperLogLogPlusPlus;

TEST(HyperLogLog, PrecisionIsChecked) {
  EXPECT_THROW(H(3), std::invalid_argument);
  EXPECT_THROW(H(19), std::invalid_argument);
  EXPECT_NO_THROW(H(4));
  EXPECT_NO_THROW(H(18));
}

// The encoding keeps what the dense registers need at every precision.
TEST(HyperLogLog, EncodedHashesDecodeToTheDenseRegister) {
  std::mt19937_64 rng(testing::testSeed());
  for (int p = H::kMinPrecision; p <= H::kMaxPrecision; ++p) {
    for (int i = 0; i < 2000; ++i) {
      uint64_t hash = rng();
      if (i % 3 == 0) hash &= ~((uint64_t{1} << (64 - 25)) - 1) | (rng() >> 60);  // long runs
      if (i == 0) hash = 0;
      uint32_t index = static_cast<uint32_t>(hash >> (64 - p));
      int run = std::countl_zero((hash << p) | (uint64_t{1} << (p - 1))) + 1;
      uint32_t e = H::encodeHash(hash, p);
      ASSERT_EQ(H::decodeIndex(e, p), index) << "p " << p << " hash " << hash;
      ASSERT_EQ(H::decodeRunLength(e, p), run) << "p " << p << " hash " << hash;
    }
  }
}

TEST(HyperLogLog, SwitchesToDenseAfterTheThreshold) {
  H s(10);
  EXPECT_EQ(s.sparseThreshold(), 192u);
  for (int64_t i = 0; !s.isDense(); ++i) {
    s.collect(H::hashLong(i));
    if (!s.isDense()) {
      EXPECT_LE(s.sparseHashes().size(), 192u);
    }
  }
  EXPECT_EQ(s.registers().size(), 1024u);
  EXPECT_TRUE(s.sparseHashes().empty());
}

double relativeError(int64_t estimate, int64_t exact) {
  return std::abs(static_cast<double>(estimate - exact)) / static_cast<double>(exact);
}

// Estimates against exact counts over the whole range, sparse and dense.
TEST(HyperLogLog, AccuracyAgainstExactCounts) {
  std::mt19937_64 rng(testing::testSeed());
  for (int p : {4, 8, 12, 14, 16}) {
    double se = 1.04 / std::sqrt(static_cast<double>(1 << p));
    H s(p);
    std::unordered_set<uint64_t> exact;
    double worst = 0;
    int64_t next_check = 1;
    while (exact.size() < 300000) {
      uint64_t v = rng() % 2000000;  // repeats happen
      exact.insert(v);
      s.collect(H::hashLong(static_cast<int64_t>(v)));
      if (static_cast<int64_t>(exact.size()) >= next_check) {
        double err = relativeError(s.cardinality(), static_cast<int64_t>(exact.size()));
        worst = std::max(worst, err / se);
        next_check = next_check * 3 / 2 + 1;
      }
    }
    // Within 4 standard errors everywhere (small counts are nearly exact).
    EXPECT_LT(worst, 4.0) << "precision " << p;
  }
}

TEST(HyperLogLog, SmallCountsAreExactWhileSparse) {
  H s(14);
  for (int64_t i = 0; i < 1000; ++i)
    s.collect(H::hashBytes({reinterpret_cast<const uint8_t*>(&i), 8}));
  ASSERT_FALSE(s.isDense());
  EXPECT_NEAR(s.cardinality(), 1000, 1);
}

TEST(HyperLogLog, MergeEqualsCollectingEverything) {
  H a(12), b(12), all(12);
  for (int64_t i = 0; i < 5000; ++i) {
    (i % 3 ? a : b).collect(H::hashLong(i));
    all.collect(H::hashLong(i));
  }
  H sparse(12);
  sparse.collect(H::hashLong(77777));
  all.collect(H::hashLong(77777));
  a.merge(b);
  a.merge(sparse);
  ASSERT_TRUE(a.isDense());
  EXPECT_EQ(a.registers(), all.registers());
  // Sparse into sparse stays sparse; sparse + dense becomes dense.
  H x(12), y(12);
  x.collect(H::hashLong(1));
  y.collect(H::hashLong(2));
  x.merge(y);
  EXPECT_FALSE(x.isDense());
  EXPECT_EQ(x.sparseHashes().size(), 2u);
  x.merge(all);
  EXPECT_TRUE(x.isDense());
}

TEST(HyperLogLog, HashesMatchElasticsearch) {
  // BitMixer.mix64(0) == 0 and MurmurHash3 x64 128 of "" with seed 0 is 0.
  EXPECT_EQ(H::hashLong(0), 0u);
  // hppc's BitMixer.mix64 worked by hand for 1, 2, -1 (multipliers
  // 0x4cd6944c5cc20b6d and 0xfc12c5b19d3259e9).
  EXPECT_EQ(H::hashLong(1), 0xdd2fccc0739bd967ULL);
  EXPECT_EQ(H::hashLong(2), 0xb6725f324ce8da05ULL);
  EXPECT_EQ(H::hashBytes({}), 0u);
  // MurmurHash3_x64_128("hello", seed 0) h1 = 0xcbd8a7b341bd9b02 (reference vector).
  const std::string hello = "hello";
  EXPECT_EQ(H::hashBytes({reinterpret_cast<const uint8_t*>(hello.data()), hello.size()}),
            0xcbd8a7b341bd9b02ULL);
}

TEST(HyperLogLog, WireRoundTripBothForms) {
  for (int n : {0, 3, 100, 5000}) {
    H s(10);
    for (int i = 0; i < n; ++i) s.collect(H::hashLong(i));
    PageRecycler r(7);
    BytesStreamOutput out(r);
    s.writeTo(out);
    BytesReference bytes = out.bytes();
    BytesReferenceStreamInput in(bytes);
    H back = H::readFrom(in);
    EXPECT_TRUE(back == s) << n;
    EXPECT_EQ(back.cardinality(), s.cardinality());
    EXPECT_EQ(in.available(), 0u);
    EXPECT_EQ(bytes.length(), s.isDense() ? 2 + 1024u
                                          : 2 + 1 + 4u * s.sparseHashes().size() +
                                                (s.sparseHashes().size() >= 128 ? 1 : 0));
    H from_json = hllFromJson(nlohmann::ordered_json::parse(hllToJson(s).dump()));
    EXPECT_TRUE(from_json == s);
  }
}

}  // namespace
}  // namespace wirestream::aggregations

namespace wirestream::aggregations {
namespace {

// ES's LinearCounting at p = 4: 4 slots, home slot encoded & 3, forward
// probing. mix64(1), mix64(3) and mix64(4) all have home slot 2 (encoded
// 0x0374bf32, 0x02cff9ca, 0x01fd92d2, worked out from ES's encodeHash), so
// collected in the order 1, 3, 4 they sit in slots 2, 3 and (wrapping) 0,
// and ES writes them in slot order: 4, 1, 3.
TEST(HyperLogLog, SparseHashesInEsSlotOrder) {
  H s(4);
  for (int64_t v : {1, 3, 4, 1}) s.collect(H::hashLong(v));
  const std::vector<uint32_t> slot_order = {0x01fd92d2, 0x0374bf32, 0x02cff9ca};
  EXPECT_EQ(s.sparseHashes(), slot_order);
  PageRecycler r(64);
  BytesStreamOutput out(r);
  s.writeTo(out);
  EXPECT_EQ(out.bytes().toHex(), "04 00 03 01 fd 92 d2 03 74 bf 32 02 cf f9 ca");
  // Read back, a sketch keeps the order it was read in (ES's sparse reader),
  // and one more hash takes it over the threshold (3 at p = 4): dense.
  BytesReference bytes = out.bytes();
  BytesReferenceStreamInput in(bytes);
  H back = H::readFrom(in);
  EXPECT_TRUE(back == s);
  back.collect(H::hashLong(5));
  EXPECT_TRUE(back.isDense());
}

// Merging inserts in the other sketch's write order, and the order of
// insertion decides collisions, as in ES.
TEST(HyperLogLog, MergeRebuildsTheTable) {
  H a(4);
  for (int64_t v : {4, 3, 1}) a.collect(H::hashLong(v));
  // 4 -> slot 2, 3 -> slot 3, 1 -> slot 0.
  const std::vector<uint32_t> expect = {0x0374bf32, 0x01fd92d2, 0x02cff9ca};
  EXPECT_EQ(a.sparseHashes(), expect);
  // Merged into a new sketch (ES's reduce, even of one shard) they go in
  // in that order, 1, 4, 3: slots 2, 3 and 0, written 3, 1, 4.
  H merged(4);
  merged.merge(a);
  const std::vector<uint32_t> remerged = {0x02cff9ca, 0x0374bf32, 0x01fd92d2};
  EXPECT_EQ(merged.sparseHashes(), remerged);
  // Many values: the same hashes (their order may differ where a probe
  // wrapped around, as in ES).
  H big(14), again(14);
  for (int64_t v = 0; v < 3000; ++v) big.collect(H::hashLong(v * 7919));
  again.merge(big);
  EXPECT_FALSE(again.isDense());
  std::vector<uint32_t> x = big.sparseHashes(), y = again.sparseHashes();
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  EXPECT_EQ(x, y);
  EXPECT_EQ(again.cardinality(), big.cardinality());
}

// The sparse order of ES's two tables, with values from ES's jars: a
// HyperLogLogPlusPlus(10, BigArrays.NON_RECYCLING_INSTANCE, 1) collecting, at
// bucket 0, the hashes i * 0x9E3779B97F4A7C15 for i = 1..30, then listed by
// AbstractHyperLogLogPlusPlus.getLinearCounting(0) (what writeTo writes).
// ES 8.19.21 (HyperLogLogPlusPlus.LinearCountingCell: 32 slots, doubled to 64
// before the 26th addition) is SparseTable::kGrowing; ES 9.5.3 (bucket 0 gets
// all 2^10 / 4 slots at once) lists as the fixed table of 8.7.
TEST(HyperLogLog, SparseOrderOfTheFixedAndTheGrowingTable) {
  H growing(10, H::SparseTable::kGrowing);
  H fixed(10);
  for (uint64_t i = 1; i <= 30; ++i) {
    growing.collect(i * 0x9E3779B97F4A7C15ULL);
    fixed.collect(i * 0x9E3779B97F4A7C15ULL);
  }
  const std::vector<uint32_t> es_8_19_21 = {
      20464960u, 6051202u,  12102404u, 18153606u, 24204808u, 15842252u, 30256012u, 36307214u,
      21893456u, 27944658u, 33995860u, 40047062u, 31684506u, 46098266u, 37735710u, 43786912u,
      49838114u, 55889316u, 41475558u, 47526760u, 61940520u, 53577962u, 59629166u, 65680368u,
      4622706u,  57317812u, 63369014u, 2311352u,  8362556u,  14413758u};
  const std::vector<uint32_t> es_9_5_3 = {
      12102404u, 24204808u, 36307214u, 37735710u, 49838114u, 61940520u, 63369014u, 8362556u,
      20464960u, 21893456u, 33995860u, 46098266u, 47526760u, 59629166u, 4622706u,  6051202u,
      18153606u, 30256012u, 31684506u, 43786912u, 55889316u, 57317812u, 2311352u,  14413758u,
      15842252u, 27944658u, 40047062u, 41475558u, 53577962u, 65680368u};
  EXPECT_EQ(growing.sparseHashes(), es_8_19_21);
  EXPECT_EQ(fixed.sparseHashes(), es_9_5_3);
  EXPECT_EQ(growing.cardinality(), fixed.cardinality());
}

}  // namespace
}  // namespace wirestream::aggregations
