// TermsBuckets, the flat bucket columns behind InternalTerms::buckets(): the
// vector-like API over them keeps every bucket's key, counts and
// sub-aggregations as a std::vector<TermsBucket> would, whichever columns
// exist; and the bytes written from them are the bytes of §7 (a key in its
// wire form: VInt length + bytes, as ES's writeBytesRef).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "agg_test_util.h"

namespace wirestream::aggregations {
namespace {

using testing::hex;

// The model: what the buckets must read back as.
struct Model {
  std::string key;
  int64_t doc_count;
  int64_t error;
  bool has_sub;
};

void expectSame(const TermsBuckets<StringKey>& bs, const std::vector<Model>& model) {
  ASSERT_EQ(bs.size(), model.size());
  size_t i = 0;
  for (const auto& b : bs) {
    EXPECT_EQ(b.key, model[i].key) << i;
    EXPECT_EQ(b.doc_count, model[i].doc_count) << i;
    EXPECT_EQ(b.doc_count_error, model[i].error) << i;
    EXPECT_EQ(b.aggregations.size(), model[i].has_sub ? 1u : 0u) << i;
    ++i;
  }
}

TEST(TermsBuckets, RandomEditsMatchAVectorOfBuckets) {
  std::mt19937_64 rng(testing::testSeed());
  for (int run = 0; run < 50; ++run) {
    TermsBuckets<StringKey> bs;
    std::vector<Model> model;
    for (int step = 0; step < 60; ++step) {
      // Keys of 0..200 bytes: one- and two-byte length prefixes.
      std::string key(rng() % 3 == 0 ? rng() % 201 : rng() % 8,
                      static_cast<char>('a' + rng() % 26));
      int64_t count = static_cast<int64_t>(rng() % 1000);
      switch (rng() % 6) {
        case 0:
        case 1: {
          StringTerms::Bucket b{key, count, 0, {}};
          bool sub = rng() % 4 == 0;
          if (sub) b.aggregations.add(std::make_unique<Max>("m", GenericValue(), 1.0));
          int64_t error = rng() % 3 == 0 ? static_cast<int64_t>(rng() % 9) - 1 : 0;
          b.doc_count_error = error;
          bs.push_back(std::move(b));
          model.push_back({key, count, error, sub});
          break;
        }
        case 2:
          if (!model.empty()) {
            bs.pop_back();
            model.pop_back();
          }
          break;
        case 3:
          if (!model.empty()) {  // a key of another length, in the middle
            size_t i = rng() % model.size();
            bs[i].key = key;
            model[i].key = key;
          }
          break;
        case 4:
          if (!model.empty()) {
            size_t i = rng() % model.size();
            bs[i].doc_count = count;
            bs[i].doc_count_error = count - 1;
            model[i].doc_count = count;
            model[i].error = count - 1;
          }
          break;
        default: {
          auto b = bs.emplace_back();
          b.key = key;
          b.doc_count = count;
          model.push_back({key, count, 0, false});
          break;
        }
      }
      const TermsBuckets<StringKey>& view = bs;
      expectSame(view, model);
    }
    TermsBuckets<StringKey> copy = bs;
    EXPECT_TRUE(copy == bs);
    if (!model.empty()) {
      copy[0].doc_count += 1;
      EXPECT_FALSE(copy == bs);
    }
  }
}

// A bucket whose key needs a two-byte length, next to one-byte ones, with
// the errors column present: the bytes of §7 written by hand.
TEST(TermsBuckets, KeysOfEveryLengthPrefixWriteTheBytesOfSection7) {
  StringTerms t("t", GenericValue());
  t.setReduceOrder(BucketOrder::key(true));
  t.setOrder(BucketOrder::key(true));
  t.setShowTermDocCountError(true);
  t.setDocCountError(std::nullopt);
  t.setRequiredSize(10);
  t.setShardSize(10);
  t.setMinDocCount(1);
  std::string long_key(130, 'k');
  t.buckets().push_back({"a", 1, 0, {}});
  t.buckets().push_back({long_key, 300, 2, {}});
  BytesStreamOutput out;
  t.writeTo(out);
  std::vector<uint8_t> got = out.bytes().toVector();
  // ... bucket count 02; bucket 1: VLong 1, long error 0, 00 aggregations,
  // key 01 61; bucket 2: VLong 300 = AC 02, long 2, 00, key length 130 =
  // 82 01, then 130 x 6B.
  std::string want_hex =
      "02 01 00 00 00 00 00 00 00 00 00 01 61 AC 02 00 00 00 00 00 00 00 02 00 82 01";
  for (int i = 0; i < 130; ++i) want_hex += " 6b";
  std::vector<uint8_t> want = hex(want_hex);
  ASSERT_GE(got.size(), want.size());
  EXPECT_EQ(std::vector<uint8_t>(got.end() - static_cast<ptrdiff_t>(want.size()), got.end()), want);

  // And they read back into the same columns.
  InternalAggregations list;
  list.add(t.clone());
  BytesStreamOutput listed;
  list.writeTo(listed);
  std::vector<uint8_t> bytes = listed.bytes().toVector();
  ByteArrayStreamInput in(bytes);
  InternalAggregations read = InternalAggregations::readFrom(in, defaultRegistry());
  const auto& back = dynamic_cast<const StringTerms&>(read[0]);
  EXPECT_TRUE(back.buckets() == t.buckets());
  EXPECT_EQ(back.buckets()[1].key, long_key);
  EXPECT_EQ(back.buckets()[1].doc_count_error, 2);
}

}  // namespace
}  // namespace wirestream::aggregations
