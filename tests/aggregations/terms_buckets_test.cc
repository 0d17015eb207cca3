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

// ES's writeVLong: seven bits at a time, low first, high bit = more.
void appendVarint(std::vector<uint8_t>& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<uint8_t>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<uint8_t>(v));
}

// Many leaf buckets (keys of 0-40 bytes, so padded and plain copies; counts
// of one to nine bytes; the arena's last keys) written in runs: at every
// page size the bytes end with the buckets of §7 encoded here (VLong count,
// long error when shown, 00 for no sub-aggregations, VInt key length + key),
// and the whole output is the same at every page size.
TEST(TermsBuckets, LeafRunsWriteTheBytesOfSection7AtEveryPageSize) {
  std::mt19937_64 rng(testing::testSeed());
  for (bool show_error : {false, true}) {
    StringTerms t("t", GenericValue());
    t.setShowTermDocCountError(show_error);
    std::vector<uint8_t> want;
    appendVarint(want, 700);
    for (int i = 0; i < 700; ++i) {
      std::string key(rng() % 41, static_cast<char>('a' + i % 26));
      int64_t count = static_cast<int64_t>((rng() >> 1) >> (rng() % 63));
      int64_t error = show_error ? static_cast<int64_t>(rng() % 1000) : 0;
      t.buckets().push_back({key, count, error, {}});
      appendVarint(want, static_cast<uint64_t>(count));
      if (show_error) {
        for (int b = 7; b >= 0; --b) want.push_back(static_cast<uint8_t>(error >> (8 * b)));
      }
      want.push_back(0);
      appendVarint(want, key.size());
      want.insert(want.end(), key.begin(), key.end());
    }
    std::vector<uint8_t> first;
    for (size_t page :
         {size_t{1}, size_t{7}, size_t{16}, size_t{17}, size_t{100}, size_t{1000}, size_t{16384}}) {
      PageRecycler recycler(page);
      BytesStreamOutput out(recycler);
      t.writeTo(out);
      std::vector<uint8_t> got = out.bytes().toVector();
      ASSERT_GE(got.size(), want.size()) << page;
      EXPECT_EQ(std::vector<uint8_t>(got.end() - static_cast<ptrdiff_t>(want.size()), got.end()),
                want)
          << "page " << page << " show_error " << show_error;
      if (first.empty()) first = got;
      EXPECT_EQ(got, first) << "page " << page;
    }
    // A negative count inside a run is the caller's error, as in ES.
    t.buckets()[350].doc_count = -1;
    BytesStreamOutput out;
    EXPECT_THROW(t.writeTo(out), std::invalid_argument);
  }
}

}  // namespace
}  // namespace wirestream::aggregations
