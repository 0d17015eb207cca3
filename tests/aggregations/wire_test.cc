// Byte-level tests of the aggregation wire format (§7): expected bytes
// written out by hand, mutations that must break equality, and corrupt inputs
// that must fail with typed errors.
#include <gtest/gtest.h>

#include <functional>

#include "agg_test_util.h"
#include "aggregations/json/aggregation_json.h"

namespace wirestream::aggregations {
namespace {

using testing::hex;

std::unique_ptr<StringTerms> smallStringTerms() {
  auto t = std::make_unique<StringTerms>("genres", GenericValue());
  t->setReduceOrder(BucketOrder::key(true));
  t->setOrder(BucketOrder::count(false));
  t->setRequiredSize(10);
  t->setMinDocCount(1);
  t->setDocCountError(0);
  t->setShardSize(25);
  t->setShowTermDocCountError(false);
  t->setOtherDocCount(5);
  StringTerms::Bucket b;
  b.key = "rock";
  b.doc_count = 3;
  b.aggregations.add(std::make_unique<Max>("max_price", GenericValue(), 10.0));
  t->buckets().push_back(std::move(b));
  return t;
}

// Written out from §7 by hand.
const char* kSmallStringTerms_8_7 =
    "01"                              // one aggregation
    " 06 73 74 65 72 6d 73"           // type "sterms"
    " 06 67 65 6e 72 65 73"           // name "genres"
    " ff"                             // metadata: null
    " 04"                             // reduce order: KEY_ASC
    " 01"                             // order: COUNT_DESC
    " 0a"                             // requiredSize 10
    " 01"                             // minDocCount 1
    " 01 00"                          // hasDocCountError, ZLong 0
    " 03 72 61 77"                    // format "raw"
    " 19"                             // shardSize 25
    " 00"                             // showTermDocCountError false
    " 05"                             // otherDocCount 5
    " 01"                             // one bucket
    " 03"                             //   docCount 3
    " 01"                             //   one sub-aggregation
    " 03 6d 61 78"                    //     type "max"
    " 09 6d 61 78 5f 70 72 69 63 65"  //     name "max_price"
    " ff"                             //     metadata: null
    " 03 72 61 77"                    //     format "raw"
    " 40 24 00 00 00 00 00 00"        //     10.0
    " 04 72 6f 63 6b";                //   key "rock", last

// 7.10.0: docCountError is a ZLong without the presence boolean.
const char* kSmallStringTerms_7_10 =
    "01 06 73 74 65 72 6d 73 06 67 65 6e 72 65 73 ff 04 01 0a 01"
    " 00"
    " 03 72 61 77 19 00 05 01 03 01 03 6d 61 78 09 6d 61 78 5f 70 72 69 63 65 ff"
    " 03 72 61 77 40 24 00 00 00 00 00 00 04 72 6f 63 6b";

TEST(AggregationWire, SmallStringTermsExpectedBytes) {
  InternalAggregations aggs = testing::single(smallStringTerms());
  EXPECT_EQ(testing::writeAggs(aggs, TransportVersion::V_8_7_0), hex(kSmallStringTerms_8_7));
  EXPECT_EQ(testing::writeAggs(aggs, TransportVersion::V_7_10_0), hex(kSmallStringTerms_7_10));
  EXPECT_TRUE(testing::readAggs(hex(kSmallStringTerms_8_7), TransportVersion::V_8_7_0) == aggs);
  // Before 7.15.0 the 0 means "not computed": it reads back absent.
  InternalAggregations absent = aggs;
  dynamic_cast<StringTerms&>(absent[0]).setDocCountError(std::nullopt);
  EXPECT_TRUE(testing::readAggs(hex(kSmallStringTerms_7_10), TransportVersion::V_7_10_0) == absent);
  EXPECT_EQ(testing::writeAggs(absent, TransportVersion::V_7_10_0), hex(kSmallStringTerms_7_10));
}

TEST(AggregationWire, BucketOrderBytes) {
  auto bytes = [](const BucketOrder& o) {
    PageRecycler r(64);
    BytesStreamOutput out(r);
    o.writeTo(out);
    return out.bytes().toHex();
  };
  EXPECT_EQ(bytes(BucketOrder::count(false)), "01");
  EXPECT_EQ(bytes(BucketOrder::count(true)), "02");
  EXPECT_EQ(bytes(BucketOrder::key(false)), "03");
  EXPECT_EQ(bytes(BucketOrder::key(true)), "04");
  EXPECT_EQ(bytes(BucketOrder::aggregation("avg", true)), "00 01 03 61 76 67");
  EXPECT_EQ(
      bytes(BucketOrder::compound({BucketOrder::aggregation("x", false), BucketOrder::key(true)})),
      "ff 02 00 00 01 78 04");
  EXPECT_THROW(BucketOrder::compound({}), std::invalid_argument);
}

TEST(AggregationWire, MetricBodies) {
  auto bytes = [](const InternalAggregation& a) {
    PageRecycler r(64);
    BytesStreamOutput out(r);
    a.writeTo(out);
    return out.bytes().toHex();
  };
  const std::string head = "01 61 ff 03 72 61 77";  // name "a", null metadata, raw
  EXPECT_EQ(bytes(Max("a", {}, -std::numeric_limits<double>::infinity())),
            head + " ff f0 00 00 00 00 00 00");
  EXPECT_EQ(bytes(Min("a", {}, std::numeric_limits<double>::infinity())),
            head + " 7f f0 00 00 00 00 00 00");
  EXPECT_EQ(bytes(Sum("a", {}, 1.5)), head + " 3f f8 00 00 00 00 00 00");
  EXPECT_EQ(bytes(Avg("a", {}, 2.0, 300)), head + " 40 00 00 00 00 00 00 00 ac 02");
  EXPECT_EQ(bytes(ValueCount("a", {}, 7)), "01 61 ff 07");  // no format
  EXPECT_EQ(bytes(Stats("a", {}, 2, 1.0, 2.0, 3.0)),
            head + " 02 3f f0 00 00 00 00 00 00 40 00 00 00 00 00 00 00 40 08 00 00 00 00 00 00");
  EXPECT_EQ(bytes(Cardinality("a", {}, std::nullopt)), head + " 00");
  HyperLogLogPlusPlus s(4);
  s.collect(0);  // e = 0: encoded (0 << 7) | (40 << 1) | 1 = 81
  EXPECT_EQ(bytes(Cardinality("a", {}, s)), head + " 01 04 00 01 00 00 00 51");
}

TEST(AggregationWire, HistogramBytes) {
  Histogram h("h", GenericValue());
  h.setOrder(BucketOrder::key(true));
  h.setMinDocCount(0);
  // No max bound: -infinity, a plain double (ES's EmptyBucketInfo.writeTo).
  h.setEmptyBucketInfo(
      Histogram::EmptyBucketInfo{10, 0, 0.0, -std::numeric_limits<double>::infinity(), {}});
  h.buckets().push_back({10, 2, {}});
  PageRecycler r(64);
  BytesStreamOutput out(r);
  h.writeTo(out);
  EXPECT_EQ(out.bytes().toHex(),
            "01 68 ff 04 00"                    // name, metadata, KEY_ASC, minDocCount 0
            " 40 24 00 00 00 00 00 00"          // interval 10
            " 00 00 00 00 00 00 00 00"          // offset 0
            " 00 00 00 00 00 00 00 00"          // min bound 0
            " ff f0 00 00 00 00 00 00"          // no max bound: -infinity
            " 00"                               // no empty-bucket aggs
            " 03 72 61 77 00 01"                // raw, not keyed, one bucket
            " 40 24 00 00 00 00 00 00 02 00");  // key 10, docCount 2, no aggs
  h.setMinDocCount(0);
  h.setEmptyBucketInfo(std::nullopt);
  BytesStreamOutput out2(r);
  EXPECT_THROW(h.writeTo(out2), std::invalid_argument);
}

// ---- mutations: every field takes part in equality ----

template <class T>
T& as(InternalAggregations& aggs) {
  return dynamic_cast<T&>(aggs[0]);
}

void expectMutationsBreakEquality(
    const InternalAggregations& base,
    const std::vector<std::pair<std::string, std::function<void(InternalAggregations&)>>>& ms) {
  for (const auto& [what, mutate] : ms) {
    InternalAggregations copy = base;
    ASSERT_TRUE(copy == base);
    mutate(copy);
    EXPECT_FALSE(copy == base) << "mutating " << what << " kept equality";
    EXPECT_NE(testing::writeAggs(copy, TransportVersion::current()),
              testing::writeAggs(base, TransportVersion::current()))
        << "mutating " << what << " kept the bytes";
  }
}

template <class Key>
void mutateTerms(typename Key::Type other_key) {
  testing::RandomAggs gen(7, TransportVersion::current());
  auto t = std::make_unique<InternalTerms<Key>>("t", GenericValue::ofMap({{"a", "b"}}));
  t->setShowTermDocCountError(true);
  t->setDocCountError(3);
  for (int i = 0; i < 3; ++i) {
    TermsBucket<Key> b;
    b.doc_count = 10 + i;
    b.doc_count_error = i;
    b.aggregations.add(std::make_unique<Sum>("s", GenericValue(), 1.0 * i));
    t->buckets().push_back(std::move(b));
  }
  InternalAggregations base = testing::single(std::move(t));
  using T = InternalTerms<Key>;
  expectMutationsBreakEquality(
      base,
      {
          {"name", [](auto& a) { a[0].setName("u"); }},
          {"metadata", [](auto& a) { a[0].setMetadata(GenericValue()); }},
          {"reduce order", [](auto& a) { as<T>(a).setReduceOrder(BucketOrder::key(false)); }},
          {"order", [](auto& a) { as<T>(a).setOrder(BucketOrder::aggregation("s", true)); }},
          {"required size", [](auto& a) { as<T>(a).setRequiredSize(11); }},
          {"min doc count", [](auto& a) { as<T>(a).setMinDocCount(2); }},
          {"doc count error", [](auto& a) { as<T>(a).setDocCountError(4); }},
          {"doc count error absent", [](auto& a) { as<T>(a).setDocCountError(std::nullopt); }},
          {"shard size", [](auto& a) { as<T>(a).setShardSize(11); }},
          {"show error", [](auto& a) { as<T>(a).setShowTermDocCountError(false); }},
          {"other doc count", [](auto& a) { as<T>(a).setOtherDocCount(1); }},
          {"bucket key", [=](auto& a) { as<T>(a).buckets()[1].key = other_key; }},
          {"bucket doc count", [](auto& a) { as<T>(a).buckets()[1].doc_count++; }},
          {"bucket error", [](auto& a) { as<T>(a).buckets()[1].doc_count_error++; }},
          {"bucket sub-aggregation",
           [](auto& a) { dynamic_cast<Sum&>(as<T>(a).buckets()[2].aggregations[0]).setValue(9); }},
          {"bucket removed", [](auto& a) { as<T>(a).buckets().pop_back(); }},
          {"aggregation added",
           [](auto& a) { a.add(std::make_unique<Max>("m", GenericValue(), 1)); }},
      });
}

TEST(AggregationMutation, Terms) {
  mutateTerms<StringKey>("zz");
  mutateTerms<LongKey>(42);
  mutateTerms<DoubleKey>(-0.0);
}

TEST(AggregationMutation, Histogram) {
  auto h = std::make_unique<Histogram>("h", GenericValue());
  h->setMinDocCount(0);
  h->setEmptyBucketInfo(Histogram::EmptyBucketInfo{5, 1, 0.0, 100.0, {}});
  h->buckets().push_back({1, 2, {}});
  h->buckets().push_back(
      {6, 3, testing::single(std::make_unique<ValueCount>("c", GenericValue(), 3))});
  InternalAggregations base = testing::single(std::move(h));
  using H = Histogram;
  expectMutationsBreakEquality(
      base, {
                {"order", [](auto& a) { as<H>(a).setOrder(BucketOrder::count(true)); }},
                {"min doc count",
                 [](auto& a) {
                   as<H>(a).setMinDocCount(1);
                   as<H>(a).setEmptyBucketInfo(std::nullopt);
                 }},
                {"interval", [](auto& a) { as<H>(a).emptyBucketInfo()->interval = 6; }},
                {"offset", [](auto& a) { as<H>(a).emptyBucketInfo()->offset = 2; }},
                {"min bound", [](auto& a) { as<H>(a).emptyBucketInfo()->min_bound = INFINITY; }},
                {"max bound", [](auto& a) { as<H>(a).emptyBucketInfo()->max_bound = 99; }},
                {"empty aggs",
                 [](auto& a) {
                   as<H>(a).emptyBucketInfo()->aggregations.add(
                       std::make_unique<Min>("x", GenericValue(), 1));
                 }},
                {"keyed", [](auto& a) { as<H>(a).setKeyed(true); }},
                {"bucket key", [](auto& a) { as<H>(a).buckets()[0].key = 2; }},
                {"bucket doc count", [](auto& a) { as<H>(a).buckets()[0].doc_count = 9; }},
                {"bucket sub-aggregation",
                 [](auto& a) {
                   dynamic_cast<ValueCount&>(as<H>(a).buckets()[1].aggregations[0]).setValue(4);
                 }},
            });
}

TEST(AggregationMutation, Metrics) {
  auto one = [](std::unique_ptr<InternalAggregation> a) { return testing::single(std::move(a)); };
  expectMutationsBreakEquality(one(std::make_unique<Max>("m", GenericValue(), 1.0)),
                               {
                                   {"value", [](auto& a) { as<Max>(a).setValue(2.0); }},
                                   {"name", [](auto& a) { a[0].setName("n"); }},
                               });
  expectMutationsBreakEquality(one(std::make_unique<Min>("m", GenericValue(), 0.0)),
                               {
                                   {"value -0", [](auto& a) { as<Min>(a).setValue(-0.0); }},
                               });
  expectMutationsBreakEquality(one(std::make_unique<Sum>("m", GenericValue(), 1.0)),
                               {
                                   {"value", [](auto& a) { as<Sum>(a).setValue(std::nan("")); }},
                               });
  expectMutationsBreakEquality(one(std::make_unique<Avg>("m", GenericValue(), 1.0, 2)),
                               {
                                   {"sum", [](auto& a) { as<Avg>(a).setSum(3.0); }},
                                   {"count", [](auto& a) { as<Avg>(a).setCount(3); }},
                               });
  expectMutationsBreakEquality(one(std::make_unique<ValueCount>("m", GenericValue(), 1)),
                               {
                                   {"value", [](auto& a) { as<ValueCount>(a).setValue(2); }},
                               });
  expectMutationsBreakEquality(one(std::make_unique<Stats>("m", GenericValue(), 1, 2, 3, 4)),
                               {
                                   {"count", [](auto& a) { as<Stats>(a).setCount(2); }},
                                   {"min", [](auto& a) { as<Stats>(a).setMin(0); }},
                                   {"max", [](auto& a) { as<Stats>(a).setMax(0); }},
                                   {"sum", [](auto& a) { as<Stats>(a).setSum(0); }},
                               });
  HyperLogLogPlusPlus sparse(10), dense(4);
  for (int i = 0; i < 20; ++i) {
    sparse.collect(HyperLogLogPlusPlus::hashLong(i));
    dense.collect(HyperLogLogPlusPlus::hashLong(i));
  }
  ASSERT_TRUE(dense.isDense());
  ASSERT_FALSE(sparse.isDense());
  expectMutationsBreakEquality(
      one(std::make_unique<Cardinality>("c", GenericValue(), sparse)),
      {
          {"no sketch", [](auto& a) { as<Cardinality>(a).sketch().reset(); }},
          {"one more hash",
           [](auto& a) {
             as<Cardinality>(a).sketch()->collect(HyperLogLogPlusPlus::hashLong(99));
           }},
      });
  expectMutationsBreakEquality(one(std::make_unique<Cardinality>("c", GenericValue(), dense)),
                               {
                                   {"merge",
                                    [](auto& a) {
                                      HyperLogLogPlusPlus more(4);
                                      for (int i = 100; i < 200; ++i)
                                        more.collect(HyperLogLogPlusPlus::hashLong(i));
                                      as<Cardinality>(a).sketch()->merge(more);
                                    }},
                               });
}

// ---- corrupt inputs: typed errors, never wrong data ----

template <class E>
void expectReadError(const std::vector<uint8_t>& bytes, const std::string& message_part,
                     TransportVersion v = TransportVersion::current()) {
  ByteArrayStreamInput in(bytes);
  in.setTransportVersion(v);
  try {
    InternalAggregations::readFrom(in, defaultRegistry());
    ADD_FAILURE() << "no error for " << BytesReference(std::span<const uint8_t>(bytes)).toHex();
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(message_part), std::string::npos) << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong error type: " << e.what();
  }
}

std::string withByteAt(const std::string& hex_text, size_t index, const std::string& replacement) {
  std::vector<uint8_t> b = hex(hex_text);
  std::string out;
  for (size_t i = 0; i < b.size(); ++i) {
    char buf[4];
    std::snprintf(buf, sizeof buf, "%02x ", b[i]);
    out += i == index ? replacement + " " : buf;
  }
  return out;
}

TEST(AggregationCorrupt, UnknownTypeName) {
  expectReadError<CorruptStreamError>(hex("01 06 78 74 65 72 6d 73 00"),
                                      "Unknown NamedWriteable [InternalAggregation][xterms]");
}

// Found by fuzzing (fuzz/regressions/aggregations/duplicate-name-of-another-type): a
// list holding "a" as a max and again as a min made reduce throw std::invalid_argument
// from decoded input. Names are unique within a list, whatever the types.
TEST(AggregationCorrupt, DuplicateNameInOneList) {
  const std::string max_a = "03 6d 61 78 01 61 ff 03 72 61 77 3f f0 00 00 00 00 00 00 ";
  const std::string min_a = "03 6d 69 6e 01 61 ff 03 72 61 77 3f f0 00 00 00 00 00 00 ";
  expectReadError<CorruptStreamError>(hex("02 " + max_a + min_a),
                                      "duplicate aggregation name [a] in a list of 2");
  expectReadError<CorruptStreamError>(hex("02 " + max_a + max_a), "duplicate aggregation name [a]");
  std::vector<uint8_t> distinct = hex("02 " + max_a + min_a);
  distinct[1 + 19 + 5] = 0x62;  // the min is named "b"
  ByteArrayStreamInput in(distinct);
  EXPECT_EQ(InternalAggregations::readFrom(in, defaultRegistry()).size(), 2u);
}

TEST(AggregationCorrupt, UnknownFormat) {
  // A max whose format is "rax".
  expectReadError<CorruptStreamError>(
      hex("01 03 6d 61 78 01 61 ff 03 72 61 78 00 00 00 00 00 00 00 00"),
      "Unknown NamedWriteable [DocValueFormat][rax]");
}

TEST(AggregationCorrupt, UnknownOrderId) {
  // Byte 16 of the small terms is the reduce order.
  expectReadError<CorruptStreamError>(hex(withByteAt(kSmallStringTerms_8_7, 16, "07")),
                                      "Unknown BucketOrder id [7]");
  expectReadError<CorruptStreamError>(hex(withByteAt(kSmallStringTerms_8_7, 17, "fe")),
                                      "Unknown BucketOrder id [-2]");
}

TEST(AggregationCorrupt, NestedCompoundOrder) {
  std::string t = kSmallStringTerms_8_7;
  // reduce order := compound of one compound.
  std::string bad = withByteAt(t, 16, "ff 01 ff 01 04");
  expectReadError<CorruptStreamError>(hex(bad), "compound BucketOrder nested");
}

TEST(AggregationCorrupt, BucketCountLargerThanTheBytesLeft) {
  // Bucket count byte (index 29) from 1 to 100: EndOfStreamError before allocating.
  expectReadError<EndOfStreamError>(hex(withByteAt(kSmallStringTerms_8_7, 29, "64")),
                                    "tried to read");
  // A huge count (2^31 - 1) too.
  expectReadError<EndOfStreamError>(hex(withByteAt(kSmallStringTerms_8_7, 29, "ff ff ff ff 07")),
                                    "tried to read");
  // And a negative one.
  expectReadError<CorruptStreamError>(hex(withByteAt(kSmallStringTerms_8_7, 29, "ff ff ff ff 0f")),
                                      "array size must be positive");
}

TEST(AggregationCorrupt, NegativeDocCount) {
  // Bucket doc count (index 30) as a 10-byte VLong of -1.
  expectReadError<CorruptStreamError>(
      hex(withByteAt(kSmallStringTerms_8_7, 30, "ff ff ff ff ff ff ff ff ff 01")),
      "negative doc count [-1]");
  // otherDocCount (index 28) too.
  expectReadError<CorruptStreamError>(
      hex(withByteAt(kSmallStringTerms_8_7, 28, "ff ff ff ff ff ff ff ff ff 01")),
      "negative other doc count");
}

TEST(AggregationCorrupt, NegativeSize) {
  expectReadError<CorruptStreamError>(hex(withByteAt(kSmallStringTerms_8_7, 18, "ff ff ff ff 0f")),
                                      "negative required size");
}

TEST(AggregationCorrupt, BadPrecision) {
  for (const char* p : {"03", "13", "ff ff ff ff 0f"}) {
    expectReadError<CorruptStreamError>(
        hex(std::string("01 0b 63 61 72 64 69 6e 61 6c 69 74 79 01 61 ff 03 72 61 77 01 ") + p +
            " 00 00"),
        "precision must be in [4, 18]");
  }
}

TEST(AggregationCorrupt, BadSketchContents) {
  const std::string head = "01 0b 63 61 72 64 69 6e 61 6c 69 74 79 01 61 ff 03 72 61 77 01 04";
  // Sparse, more hashes than the threshold (3 at precision 4).
  expectReadError<CorruptStreamError>(
      hex(head + " 00 04 00 00 00 51 00 00 00 53 00 00 00 55 00 00 00 57"), "sparse size [4]");
  // Sparse, an encoding no hash produces (run length field 0).
  expectReadError<CorruptStreamError>(hex(head + " 00 01 00 00 00 01"), "invalid HyperLogLog++");
  // Sparse, the same hash twice.
  expectReadError<CorruptStreamError>(hex(head + " 00 02 00 00 00 51 00 00 00 51"), "duplicate");
  // Dense, a register above 65 - 4.
  std::string regs;
  for (int i = 0; i < 16; ++i) regs += i == 5 ? " 3e" : " 01";
  expectReadError<CorruptStreamError>(hex(head + " 01" + regs), "register [62]");
  // Dense, too few registers.
  expectReadError<EndOfStreamError>(hex(head + " 01 01 01"), "tried to read");
}

TEST(AggregationCorrupt, MetadataThatIsNotAMap) {
  expectReadError<CorruptStreamError>(
      hex("01 03 6d 61 78 01 61 00 01 61 03 72 61 77 00 00 00 00 00 00 00 00"),
      "metadata must be a map or null");
}

TEST(AggregationCorrupt, BadHistogramInterval) {
  // minDocCount 0, interval 0.
  expectReadError<CorruptStreamError>(
      hex("01 09 68 69 73 74 6f 67 72 61 6d 01 68 ff 04 00 00 00 00 00 00 00 00 00"
          " 00 00 00 00 00 00 00 00 00 00 00 03 72 61 77 00 00"),
      "interval must be positive");
}

TEST(AggregationCorrupt, DeepNestingIsLimited) {
  // 200 levels of a terms bucket holding a terms aggregation.
  std::vector<uint8_t> bytes;
  auto push = [&](const std::string& h) {
    auto b = hex(h);
    bytes.insert(bytes.end(), b.begin(), b.end());
  };
  for (int i = 0; i < 200; ++i) {
    push("01 06 6c 74 65 72 6d 73 01 61 ff 04 01 0a 01 00 03 72 61 77 0a 00 00 01 01");
  }
  expectReadError<LimitExceededError>(bytes, "");
}

// Random byte flips, cuts and insertions in valid encodings: every read either
// succeeds (and the result writes, reduces and renders) or throws a
// StreamError. Run under --config=asan this also checks memory safety.
TEST(AggregationCorrupt, RandomDamageGivesTypedErrorsOnly) {
  uint64_t seed = testing::testSeed();
  for (TransportVersion v : {TransportVersion::V_7_10_0, TransportVersion::V_8_7_0}) {
    testing::RandomAggs gen(seed, v);
    int failures = 0, successes = 0;
    for (int iter = 0; iter < 100; ++iter) {
      InternalAggregations aggs =
          testing::single(gen.agg(testing::kAllTypes[iter % testing::kAllTypes.size()], 1));
      std::vector<uint8_t> bytes = testing::writeAggs(aggs, v);
      for (int k = 0; k < 20; ++k) {
        std::vector<uint8_t> bad = bytes;
        size_t at = static_cast<size_t>(gen.uniform(0, static_cast<int64_t>(bad.size()) - 1));
        switch (gen.uniform(0, 2)) {
          case 0:
            bad[at] = static_cast<uint8_t>(gen.uniform(0, 255));
            break;
          case 1:
            bad[at] ^= static_cast<uint8_t>(1 << gen.uniform(0, 7));
            break;
          default:
            bad.insert(bad.begin() + static_cast<std::ptrdiff_t>(at), 0xFF);
            break;
        }
        ByteArrayStreamInput in(bad);
        in.setTransportVersion(v);
        try {
          InternalAggregations back = InternalAggregations::readFrom(in, defaultRegistry());
          ++successes;
          testing::writeAggs(back, v);
          toResponseJson(back).dump(-1, ' ', false,
                                    nlohmann::ordered_json::error_handler_t::replace);
          const InternalAggregations* twice[] = {&back, &back};
          try {
            InternalAggregations::reduce(twice, ReduceContext::finalReduce());
          } catch (const StreamError&) {
            // results no valid reduce exists for: a damaged histogram asking for too
            // many empty buckets, buckets of one key whose sub-aggregations differ
          }
        } catch (const StreamError&) {
          ++failures;
        } catch (const std::exception& e) {
          ADD_FAILURE() << "seed " << seed << " iter " << iter << ": untyped error " << e.what();
        }
      }
    }
    EXPECT_GT(failures, 0);
    EXPECT_GT(successes, 0);
  }
}

TEST(AggregationCorrupt, DeepWireJsonIsLimited) {
  std::string deep = "\"x\"";
  for (int i = 0; i < 1000; ++i) deep = "{\"list\":[" + deep + "]}";
  auto j = nlohmann::ordered_json::parse(
      R"([{"type":"max","name":"m","format":"raw","value":1,"metadata":{"map":[["k",)" + deep +
      "]]}}]");
  EXPECT_THROW(aggregationsFromWireJson(j), LimitExceededError);
  std::string aggs = "[]";
  for (int i = 0; i < 300; ++i) {
    aggs =
        R"([{"type":"histogram","name":"h","metadata":null,"order":{"_key":"asc"},"min_doc_count":1,)"
        R"("empty_bucket_info":null,"format":"raw","keyed":false,"buckets":[{"key":1,"doc_count":1,"aggregations":)" +
        aggs + "}]}]";
  }
  EXPECT_THROW(aggregationsFromWireJson(nlohmann::ordered_json::parse(aggs)), LimitExceededError);
}

}  // namespace
}  // namespace wirestream::aggregations
