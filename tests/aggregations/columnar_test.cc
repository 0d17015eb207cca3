// Tests of //aggregations:columnar (wire format §10, "Columnar aggregations").
// Expected bytes are assembled by hand from the grammar: the shells are the
// ES bodies of wire format §7 (ES's InternalDateHistogram / InternalTerms
// writeTo), the TSM blocks inside are the InfluxDB-derived ones of
// tests/tsm/tsm_test.cc (the comment by each names its case there).
#include "aggregations/columnar.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "aggregations/json/aggregation_json.h"
#include "aggregations/registry.h"
#include "stream/bytes_reference.h"
#include "tests/aggregations/agg_test_util.h"
#include "tests/stream/test_util.h"

namespace wirestream::aggregations {
namespace {

using Bytes = std::vector<uint8_t>;
using wirestream::testing::kPageSizes;
using wirestream::testing::toHex;

Bytes writeColumnar(const InternalAggregations& aggs, size_t page = 16384,
                    TransportVersion v = TransportVersion::current()) {
  return wirestream::testing::writeAt(
      page, [&](StreamOutput& out) { columnar::writeAggregations(out, aggs); }, v);
}

InternalAggregations readColumnar(StreamInput& in, const columnar::Limits& limits = {}) {
  return columnar::readAggregations(in, defaultRegistry(), limits);
}

InternalAggregations readColumnar(const Bytes& bytes,
                                  TransportVersion v = TransportVersion::current()) {
  ByteArrayStreamInput in(bytes);
  in.setTransportVersion(v);
  InternalAggregations back = readColumnar(in);
  EXPECT_EQ(in.available(), 0u);
  return back;
}

template <class T>
std::unique_ptr<T> withFormat(std::unique_ptr<T> a, DocValueFormat f) {
  a->setFormat(std::move(f));
  return a;
}

InternalAggregations subs(std::vector<InternalAggregations::Ptr> list) {
  return InternalAggregations(std::move(list));
}

// date_histogram "h", one bucket {key 5, doc count 5, avg "a" (1.0, 5)}.
InternalAggregations oneBucketDateHistogram() {
  auto h = std::make_unique<DateHistogram>("h", Metadata());
  std::vector<InternalAggregations::Ptr> s;
  s.push_back(std::make_unique<Avg>("a", Metadata(), 1.0, 5));
  h->buckets().push_back({5, 5, subs(std::move(s))});
  return testing::single(std::move(h));
}

const char* kOneBucketDateHistogram =
    "01"                                              // one aggregation
    "01 0E 646174655F686973746F6772616D"              // columns; "date_histogram"
    "01 68 FF"                                        // shell: name "h", no metadata
    "04 01 0000000000000000 03 726177 00 00"          // key asc, minDocCount 1, offset, raw,
                                                      // not keyed, no bucket
    "01"                                              // n = 1
    "09 1C 0000000000000005"                          // keys: time "one value" {5}
    "09 10 000000000000000A"                          // doc counts: integer "one value" {5}
    "01 03 617667 01 61 FF 03 726177"                 // one sub: "avg" "a", no metadata, raw
    "00 13 10 3FF0000000000000 C3FC0080000000000010"  // sums: float "one value" {1.0}
    "01";                                             // counts: the doc counts again

// lterms "t" with doc count errors shown, three buckets, a value_count "c" and
// a max "m" that holds a NaN (so its column is a split double array).
InternalAggregations threeBucketLongTerms() {
  auto t = std::make_unique<LongTerms>("t", Metadata());
  t->setShowTermDocCountError(true);
  const int64_t counts[] = {7, 4, 1};
  const double maxes[] = {1.0, -2.0, std::numeric_limits<double>::quiet_NaN()};
  for (int64_t k = 0; k < 3; ++k) {
    std::vector<InternalAggregations::Ptr> s;
    s.push_back(std::make_unique<ValueCount>("c", Metadata(), k + 1));
    s.push_back(std::make_unique<Max>("m", Metadata(), maxes[k]));
    t->buckets().push_back({k, counts[k], 0, subs(std::move(s))});
  }
  return testing::single(std::move(t));
}

const char* kThreeBucketLongTerms =
    "01 01 06 6C7465726D73"           // one aggregation, columns, "lterms"
    "01 74 FF"                        // name "t", no metadata
    "04 01 0A 01 01 00 03 726177 0A"  // reduce order key asc, order count desc, size 10,
                                      // minDocCount 1, error present 0, raw, shard size 10
    "01 00 00"                        // show errors, other doc count 0, no bucket
    "03"                              // n = 3
    "0B 20 0000000000000000 02 02"    // keys {0, 1, 2}: integer "RLE"
    // doc counts {7, 4, 1}: zig-zag(7) = 14, then steps -3 (zig-zag 5) twice: RLE as
    // "RLE down", with n - 1 = 2.
    "0B 20 000000000000000E 05 02"
    "0B 20 0000000000000000 00 02"        // errors {0, 0, 0}: RLE of step 0
    "02"                                  // two subs
    "0B 76616C75655F636F756E74 01 63 FF"  // "value_count" "c", no metadata, no format
    // {1, 2, 3}, not the doc counts: an integer block; zig-zag(1) = 2, steps of 1 (2).
    "00 0B 20 0000000000000002 02 02"
    "03 6D6178 01 6D FF 03 726177"  // "max" "m", no metadata, raw
    // split doubles {1.0, -2.0, NaN}, the §10 example.
    "01 03 3FC07F F000F8 000000 000000 000000 000000 000000 000000";

TEST(Columnar, ExpectedBytes) {
  struct Case {
    const char* name;
    InternalAggregations aggs;
    const char* bytes;
  };
  Case cases[] = {
      {"date_histogram, one bucket", oneBucketDateHistogram(), kOneBucketDateHistogram},
      {"lterms, NaN max", threeBucketLongTerms(), kThreeBucketLongTerms},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Bytes expected = testing::hex(c.bytes);
    // The bytes are 8.7.0's (the date_histogram shell has no downsampledResultsOffset).
    const TransportVersion v = TransportVersion::V_8_7_0;
    for (size_t page : kPageSizes) {
      EXPECT_EQ(toHex(writeColumnar(c.aggs, page, v)), toHex(expected)) << "page " << page;
      wirestream::testing::readAll(
          expected, page, [&](StreamInput& in) { EXPECT_TRUE(readColumnar(in) == c.aggs); }, v);
    }
    wirestream::testing::expectEveryPrefixFails(
        expected, 7, [](StreamInput& in) { readColumnar(in); }, v);
  }
}

// Buckets in columns, with every metric type, random formats and metadata.
class ColumnarAggs {
 public:
  explicit ColumnarAggs(testing::RandomAggs& r) : r_(r) {}

  InternalAggregations subsLike(const std::vector<InternalAggregations::Ptr>& shape) {
    std::vector<InternalAggregations::Ptr> out;
    for (const auto& a : shape) {
      auto c = a->clone();
      if (auto* m = dynamic_cast<Max*>(c.get())) m->setValue(value());
      if (auto* m = dynamic_cast<Min*>(c.get())) m->setValue(value());
      if (auto* m = dynamic_cast<Sum*>(c.get())) m->setValue(value());
      if (auto* m = dynamic_cast<Avg*>(c.get())) {
        m->setSum(value());
        m->setCount(r_.uniform(0, 1000));
      }
      if (auto* m = dynamic_cast<ValueCount*>(c.get())) m->setValue(r_.uniform(0, 1 << 20));
      if (auto* m = dynamic_cast<Stats*>(c.get())) {
        m->setCount(r_.uniform(0, 1000));
        m->setMin(value());
        m->setMax(value());
        m->setSum(value());
      }
      out.push_back(std::move(c));
    }
    return InternalAggregations(std::move(out));
  }

  double value() {
    if (r_.coin(0.02)) return std::numeric_limits<double>::quiet_NaN();
    if (r_.coin(0.5)) return double(r_.uniform(0, 100000)) / 4;
    return r_.anyDouble();
  }

  // One of the four types, its buckets' sub-aggregations all of one shape;
  // keys sometimes evenly spaced and sorted (RLE and simple8b blocks).
  std::unique_ptr<InternalAggregation> make() {
    static const char* kTypes[] = {"date_histogram", "histogram", "lterms", "dterms"};
    static const char* kMetrics[] = {"max", "min", "sum", "avg", "value_count", "stats"};
    auto agg = r_.agg(kTypes[r_.uniform(0, 3)], 2);
    std::vector<InternalAggregations::Ptr> shape;
    InternalAggregations named;
    for (int64_t j = r_.uniform(0, 3); j >= 0; --j) {
      testing::RandomAggs::addUnique(named, r_.agg(kMetrics[r_.uniform(0, 5)], 5),
                                     static_cast<int64_t>(named.size()));
    }
    for (const auto& a : named.list()) shape.push_back(a->clone());
    const int64_t n = r_.coin(0.2) ? r_.uniform(1, 3000) : r_.uniform(1, 40);
    const bool even = r_.coin();
    const int64_t start = r_.uniform(-(int64_t{1} << 40), int64_t{1} << 40);
    const int64_t step = r_.coin() ? 60000 : r_.uniform(1, 1000);
    auto fill = [&](auto& buckets) {
      buckets.clear();
      for (int64_t i = 0; i < n; ++i) {
        auto&& b = buckets.emplace_back();  // a bucket, or a proxy into terms' columns
        using K = std::remove_reference_t<decltype(b.key)>;
        b.key = even ? static_cast<K>(start + i * step)
                     : static_cast<K>(r_.uniform(-(int64_t{1} << 50), int64_t{1} << 50));
        b.doc_count = r_.coin(0.1) ? r_.uniform(0, int64_t{1} << 40) : r_.uniform(0, 100);
        b.aggregations = subsLike(shape);
        if constexpr (requires { b.doc_count_error; }) {
          b.doc_count_error = 0;
        }
      }
    };
    if (auto* h = dynamic_cast<DateHistogram*>(agg.get())) fill(h->buckets());
    if (auto* h = dynamic_cast<Histogram*>(agg.get())) fill(h->buckets());
    if (auto* t = dynamic_cast<LongTerms*>(agg.get())) {
      fill(t->buckets());
      for (auto&& b : t->buckets())
        b.doc_count_error = t->showTermDocCountError() ? r_.uniform(-1, 50) : 0;
    }
    if (auto* t = dynamic_cast<DoubleTerms*>(agg.get())) {
      fill(t->buckets());
      for (auto&& b : t->buckets())
        b.doc_count_error = t->showTermDocCountError() ? r_.uniform(-1, 50) : 0;
    }
    return agg;
  }

 private:
  testing::RandomAggs& r_;
};

bool sameBits(const InternalAggregations& a, const InternalAggregations& b) {
  return a == b && testing::writeAggs(a, TransportVersion::current()) ==
                       testing::writeAggs(b, TransportVersion::current());
}

TEST(Columnar, RandomizedRoundTripMatchesTheEsEncoding) {
  const uint64_t seed = testing::testSeed();
  for (TransportVersion v :
       {TransportVersion::V_7_10_0, TransportVersion::V_7_17_0, TransportVersion::current()}) {
    testing::RandomAggs r(seed + static_cast<uint64_t>(v.id()), v);
    ColumnarAggs gen(r);
    for (int iter = 0; iter < 60; ++iter) {
      InternalAggregations aggs;
      // Columnar aggregations beside random ones (mostly in the ES encoding).
      int64_t k = 0;
      for (int64_t j = r.uniform(1, 3); j > 0; --j) {
        testing::RandomAggs::addUnique(aggs, gen.make(), k++);
      }
      if (r.coin(0.3)) {
        InternalAggregations others = r.aggs(1);
        for (const auto& a : others.list()) testing::RandomAggs::addUnique(aggs, a->clone(), k++);
      }
      // Small pages for small results only: a 1-byte page per byte is slow.
      size_t page = kPageSizes[static_cast<size_t>(r.uniform(0, kPageSizes.size() - 1))];
      if (testing::writeAggs(aggs, v).size() > 4096) page = std::max<size_t>(page, 1024);
      Bytes bytes = writeColumnar(aggs, page, v);
      Bytes es = testing::writeAggs(aggs, v);
      InternalAggregations from_es = testing::readAggs(es, v);
      InternalAggregations back;
      wirestream::testing::readAll(
          bytes, page, [&](StreamInput& in) { back = readColumnar(in); }, v);
      ASSERT_TRUE(back == aggs) << "iteration " << iter;
      // The same objects as the ES bytes read back: same bytes again, same reduce.
      ASSERT_TRUE(sameBits(back, from_es)) << "iteration " << iter;
      const InternalAggregations* lists[] = {&back, &from_es};
      ReduceContext c1 = ReduceContext::finalReduce(5000), c2 = ReduceContext::finalReduce(5000);
      const InternalAggregations* es_lists[] = {&from_es, &from_es};
      try {
        InternalAggregations r1 = InternalAggregations::reduce(lists, c1);
        InternalAggregations r2 = InternalAggregations::reduce(es_lists, c2);
        ASSERT_TRUE(toResponseJson(r1) == toResponseJson(r2)) << "iteration " << iter;
      } catch (const StreamError&) {
        // Random bounds can ask for more empty buckets than any budget holds.
      }
    }
  }
}

TEST(Columnar, WhatGoesInColumns) {
  InternalAggregations dh = oneBucketDateHistogram();
  EXPECT_TRUE(columnar::isColumnar(dh[0]));
  // Buckets whose sub-aggregations differ in name stay in the ES encoding.
  auto h = std::make_unique<Histogram>("h", Metadata());
  for (int i = 0; i < 2; ++i) {
    std::vector<InternalAggregations::Ptr> s;
    s.push_back(std::make_unique<Sum>(i == 0 ? "x" : "y", Metadata(), 1.0));
    h->buckets().push_back({double(i), 1, subs(std::move(s))});
  }
  EXPECT_FALSE(columnar::isColumnar(*h));
  // So do empty aggregations, string terms and non-metric subs.
  EXPECT_FALSE(columnar::isColumnar(Histogram("e", Metadata())));
  EXPECT_FALSE(columnar::isColumnar(StringTerms("s", Metadata())));
  InternalAggregations list = testing::single(std::move(h));
  Bytes bytes = writeColumnar(list);
  EXPECT_EQ(bytes[1], 0x00);  // the ES tag
  EXPECT_TRUE(readColumnar(bytes) == list);
}

// ---- hostile input ----

// Read at 8.7.0: the inputs are kOneBucketDateHistogram's 8.7.0 bytes, altered.
void expectRefused(const Bytes& bytes, const char* what, int kind,
                   const columnar::Limits& limits = {}) {
  auto run = [&] {
    ByteArrayStreamInput in(bytes);
    in.setTransportVersion(TransportVersion::V_8_7_0);
    readColumnar(in, limits);
  };
  if (kind == 0) wirestream::testing::expectErrorNaming<CorruptStreamError>(run, what);
  if (kind == 1) wirestream::testing::expectErrorNaming<EndOfStreamError>(run, what);
  if (kind == 2) wirestream::testing::expectErrorNaming<LimitExceededError>(run, what);
}

// `s` with the hex digits `from` replaced by `to` (spaces do not count).
std::string replaced(std::string s, std::string from, const std::string& to) {
  std::erase(s, ' ');
  std::erase(from, ' ');
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

TEST(Columnar, HostileInputs) {
  const std::string dh = kOneBucketDateHistogram;
  const std::string lt = kThreeBucketLongTerms;
  // Unknown aggregation tag.
  expectRefused(testing::hex(replaced(dh, "01 0E", "02 0E")), "encoding [2]", 0);
  // A metric in columns.
  expectRefused(testing::hex("01 01 03 6D6178 01 6D FF 03 726177 0000000000000000"),
                "has no columnar form", 0);
  // Doc counts: two values where there are three buckets; four values.
  expectRefused(
      testing::hex(replaced(lt, "0B 20 000000000000000E 05 02", "0B 20 000000000000000E 05 01")),
      "hold 2 values", 0);
  expectRefused(
      testing::hex(replaced(lt, "0B 20 000000000000000E 05 02", "0B 20 000000000000000E 05 03")),
      "more than one value a bucket (3)", 0);
  // The NaN column's split array of 2 values.
  expectRefused(
      testing::hex(replaced(lt, "01 03 3FC07F F000F8 000000 000000 000000 000000 000000 000000",
                            "01 02 3FC0 F000 0000 0000 0000 0000 0000 0000")),
      "hold 2 values", 0);
  // Unknown count column encoding.
  expectRefused(testing::hex(replaced(dh, "C3FC0080000000000010 01", "C3FC0080000000000010 02")),
                "unknown count column encoding [2] of avg count", 0);
  // Unknown double column encoding.
  expectRefused(testing::hex(replaced(lt, "01 03 3FC07F", "05 03 3FC07F")),
                "unknown double column encoding [5]", 0);
  // A negative block length; a length past the end.
  expectRefused(testing::hex(replaced(dh, "09 10 000000000000000A 01", "FFFFFFFF0F")),
                "negative TSM block length [-1]", 0);
  expectRefused(testing::hex(replaced(dh, "09 1C", "7F 1C")), "tried to read: 127 bytes", 1);
  // A negative doc count: zig-zag(-1) = 1.
  expectRefused(
      testing::hex(replaced(dh, "09 10 000000000000000A 01", "09 10 0000000000000001 01")),
      "negative doc count [-1]", 0);
  // An unknown sub-aggregation type.
  expectRefused(testing::hex(replaced(dh, "03 617667", "03 617668")),
                "unknown columnar sub-aggregation type [avh]", 0);
  // The shell holds a bucket: ES bytes of a one-bucket histogram as the shell.
  {
    auto h = std::make_unique<DateHistogram>("h", Metadata());
    h->buckets().push_back({1, 1, {}});
    Bytes es = testing::writeAggs(testing::single(std::move(h)), TransportVersion::V_8_7_0);
    es.insert(es.begin() + 1, 0x01);
    expectRefused(es, "holds 1 buckets", 0);
  }
  // 2^24 buckets in a few bytes (RLE keys): refused by the object limit,
  // before any bucket exists, and by maxArraySize.
  const std::string big = replaced(
      replaced(dh, "01 09 1C 0000000000000005", "80808008 0E 2C 0000000000000001 00 80808008"),
      "09 10 000000000000000A 01", "0E 20 0000000000000001 00 80808008 01");
  expectRefused(testing::hex(big), "above the limit of 1048576 for one response", 2);
  // With a higher limit the keys are read and the doc counts column is short.
  columnar::Limits roomy;
  roomy.max_objects = int64_t{1} << 26;
  expectRefused(testing::hex(big), "more than one value a bucket", 0, roomy);
  {
    Bytes b = testing::hex(dh);
    ByteArrayStreamInput in(b);
    in.setTransportVersion(TransportVersion::V_8_7_0);
    in.setMaxArraySize(0);
    EXPECT_THROW(readColumnar(in), LimitExceededError);
  }
}

}  // namespace
}  // namespace wirestream::aggregations
