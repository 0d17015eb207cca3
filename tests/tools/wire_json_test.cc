// tools/wire_json: the streamed writers print byte for byte what
// toWireJson(aggs).dump(2) and toResponseJson(aggs).dump(2) print, at every
// batch size; the bounded parser builds
// the document json::parse builds, and its errors are typed and say where.
#include "tools/wire_json.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "aggregations/date_histogram.h"
#include "aggregations/histogram.h"
#include "aggregations/json/aggregation_json.h"
#include "aggregations/metrics.h"
#include "aggregations/terms.h"
#include "stream/errors.h"
#include "tests/aggregations/agg_test_util.h"

namespace wirestream::cli {
namespace {

using aggregations::InternalAggregations;
using json = nlohmann::ordered_json;

std::string dump2(const InternalAggregations& aggs) {
  return toWireJson(aggs).dump(2, ' ', false, json::error_handler_t::replace);
}

std::string streamed(InternalAggregations& aggs, size_t batch) {
  std::ostringstream out;
  writeWireJson(out, aggs, batch);
  return out.str();
}

TEST(WireJsonWriter, RandomResultsPrintAsDump) {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    aggregations::testing::RandomAggs random(seed, TransportVersion::current());
    InternalAggregations aggs = random.aggs();
    const InternalAggregations copy = aggs;
    std::string want = dump2(aggs);
    for (size_t batch : {size_t{1}, size_t{2}, size_t{3}, kBucketBatch}) {
      EXPECT_EQ(streamed(aggs, batch), want) << "seed " << seed << " batch " << batch;
      EXPECT_EQ(aggs, copy) << "seed " << seed << ": not restored";
    }
  }
}

// 300 terms buckets each holding a 260-bucket histogram with minDocCount 0
// (whose empty bucket sub-aggregations are streamed too): streamed at the
// default batch, at every level.
TEST(WireJsonWriter, LargeNestedResultIsStreamed) {
  auto terms = std::make_unique<aggregations::StringTerms>("t", aggregations::Metadata());
  for (int i = 0; i < 300; ++i) {
    auto h = std::make_unique<aggregations::Histogram>("h", aggregations::Metadata());
    h->setMinDocCount(0);
    aggregations::Histogram::EmptyBucketInfo e;
    e.aggregations.add(std::make_unique<aggregations::Max>("m", aggregations::Metadata(), 1.5));
    h->setEmptyBucketInfo(std::move(e));
    for (int k = 0; k < 260; ++k) h->buckets().push_back({static_cast<double>(k), k + 1, {}});
    aggregations::StringTerms::Bucket b;
    b.key = "term" + std::to_string(i);
    b.doc_count = 1000 - i;
    b.aggregations.add(std::move(h));
    terms->buckets().push_back(std::move(b));
  }
  InternalAggregations aggs;
  aggs.add(std::move(terms));
  const InternalAggregations copy = aggs;
  EXPECT_EQ(streamed(aggs, kBucketBatch), dump2(aggs));
  EXPECT_EQ(aggs, copy);
}

// A date_histogram is streamed as a histogram is: 3,000 buckets with
// sub-aggregations and an empty-bucket template, at several batch sizes.
TEST(WireJsonWriter, DateHistogramIsStreamed) {
  auto h = std::make_unique<aggregations::DateHistogram>("d", aggregations::Metadata());
  h->setMinDocCount(0);
  aggregations::DateHistogram::EmptyBucketInfo e;
  e.rounding = aggregations::DateHistogram::Rounding::timeUnit(
      aggregations::DateHistogram::Unit::kDayOfMonth, "Z");
  e.aggregations.add(std::make_unique<aggregations::Max>("m", aggregations::Metadata(), 1.5));
  e.bounds = aggregations::DateHistogram::Bounds{0, 86400000, std::nullopt, "now"};
  h->setEmptyBucketInfo(std::move(e));
  h->setOffset(3600000);
  for (int64_t k = 0; k < 3000; ++k) {
    aggregations::DateHistogram::Bucket b{k * 86400000, k + 1, {}};
    b.aggregations.add(std::make_unique<aggregations::Max>("m", aggregations::Metadata(), 2.5));
    h->buckets().push_back(std::move(b));
  }
  InternalAggregations aggs;
  aggs.add(std::move(h));
  const InternalAggregations copy = aggs;
  std::string want = dump2(aggs);
  for (size_t batch : {size_t{1}, size_t{7}, kBucketBatch}) {
    EXPECT_EQ(streamed(aggs, batch), want) << "batch " << batch;
    EXPECT_EQ(aggs, copy) << "batch " << batch << ": not restored";
  }
}

std::string responseDump(const InternalAggregations& aggs) {
  return toResponseJson(aggs).dump(2, ' ', false, json::error_handler_t::replace);
}

std::string streamedResponse(InternalAggregations& aggs, size_t batch) {
  std::ostringstream out;
  writeResponseJson(out, aggs, batch);
  return out.str();
}

// Checks writeResponseJson against the dump at several batch sizes, and that
// `aggs` is restored.
void expectResponseAsDump(InternalAggregations& aggs, const std::string& what) {
  const InternalAggregations copy = aggs;
  std::string want = responseDump(aggs);
  for (size_t batch : {size_t{1}, size_t{2}, size_t{3}, kBucketBatch}) {
    EXPECT_EQ(streamedResponse(aggs, batch), want) << what << " batch " << batch;
    EXPECT_EQ(aggs, copy) << what << " batch " << batch << ": not restored";
  }
}

TEST(ResponseJsonWriter, RandomResultsPrintAsDump) {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    aggregations::testing::RandomAggs random(seed, TransportVersion::current());
    InternalAggregations aggs = random.aggs();
    expectResponseAsDump(aggs, "seed " + std::to_string(seed));
    // Read back from the wire, sub-aggregations may be held as metric columns.
    TransportVersion v = TransportVersion::current();
    InternalAggregations read =
        aggregations::testing::readAggs(aggregations::testing::writeAggs(aggs, v), v);
    expectResponseAsDump(read, "read seed " + std::to_string(seed));
  }
}

// What ordered_json's operator[] does with a repeated name is kept: a keyed
// date_histogram whose pattern prints every key alike is one bucket (the last,
// where the first was); sub-aggregations named alike, or "doc_count", replace
// the earlier member in place; two top-level aggregations named alike too.
TEST(ResponseJsonWriter, RepeatedNamesAsDump) {
  auto make = [](bool keyed, const std::string& pattern) {
    auto h = std::make_unique<aggregations::DateHistogram>("d", aggregations::Metadata());
    h->setKeyed(keyed);
    h->setFormat(aggregations::DocValueFormat::dateTime(
        pattern, "Z", aggregations::DocValueFormat::Resolution::kMilliseconds, false));
    for (int64_t k = 0; k < 300; ++k) {
      aggregations::DateHistogram::Bucket b{k * 3600000, k + 1, {}};
      b.aggregations.add(std::make_unique<aggregations::Max>("m", aggregations::Metadata(), 1.0));
      b.aggregations.add(
          std::make_unique<aggregations::Max>("doc_count", aggregations::Metadata(), 2.0));
      b.aggregations.add(std::make_unique<aggregations::Max>("m", aggregations::Metadata(), 3.0));
      h->buckets().push_back(std::move(b));
    }
    return h;
  };
  for (const char* pattern : {"'same'", "yyyy-MM-dd", "yyyy-MM-dd'T'HH"}) {
    for (bool keyed : {false, true}) {
      InternalAggregations aggs;
      aggs.add(make(keyed, pattern));
      aggs.add(std::make_unique<aggregations::Max>("x", aggregations::Metadata(), 1.0));
      aggs.add(make(!keyed, pattern));
      expectResponseAsDump(aggs, std::string(pattern) + (keyed ? " keyed" : ""));
    }
  }
}

// A date_histogram over downsampled data (ES 8.13+) ends its response with
// "downsampled_results_offset": true after "buckets"; streamed in batches, it still does.
TEST(ResponseJsonWriter, DownsampledResultsOffsetAsDump) {
  for (bool keyed : {false, true}) {
    auto h = std::make_unique<aggregations::DateHistogram>("d", aggregations::Metadata());
    h->setKeyed(keyed);
    h->setDownsampledResultsOffset(true);
    for (int64_t k = 0; k < 20; ++k) h->buckets().push_back({k * 3600000, k + 1, {}});
    InternalAggregations aggs;
    aggs.add(std::move(h));
    const std::string want = responseDump(aggs);
    ASSERT_NE(want.find("\"downsampled_results_offset\": true"), std::string::npos) << want;
    expectResponseAsDump(aggs, keyed ? "keyed" : "unkeyed");
  }
}

// A pattern long enough that a few buckets' key_as_string fill a batch: the
// buckets are written fewer at a time, and the text is still the dump's.
TEST(ResponseJsonWriter, LongPatternAsDump) {
  std::string pattern = "'" + std::string(20000, 'x') + "'yyyy";
  for (bool keyed : {false, true}) {
    auto h = std::make_unique<aggregations::DateHistogram>("d", aggregations::Metadata());
    h->setKeyed(keyed);
    h->setFormat(aggregations::DocValueFormat::dateTime(
        pattern, "Z", aggregations::DocValueFormat::Resolution::kMilliseconds, false));
    for (int64_t k = 0; k < 40; ++k) h->buckets().push_back({k * 86400000 * 200, 1, {}});
    InternalAggregations aggs;
    aggs.add(std::move(h));
    expectResponseAsDump(aggs, keyed ? "keyed" : "unkeyed");
  }
}

TEST(WireJsonParser, BuildsWhatJsonParseBuilds) {
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    aggregations::testing::RandomAggs random(seed, TransportVersion::current());
    std::string text = toWireJson(random.aggs()).dump();
    EXPECT_EQ(parseJsonLimited(text), json::parse(text)) << "seed " << seed;
  }
  EXPECT_EQ(parseJsonLimited(R"({"b":1,"a":[true,null,"x",-2.5,18446744073709551615]})").dump(),
            R"({"b":1,"a":[true,null,"x",-2.5,18446744073709551615]})");
}

TEST(WireJsonParser, NestingIsLimitedWhileParsing) {
  std::string ok = std::string(kMaxJsonNesting, '[') + std::string(kMaxJsonNesting, ']');
  EXPECT_NO_THROW(parseJsonLimited(ok));
  // One level more fails as it opens, before the rest is even well-formed.
  std::string deep = std::string(kMaxJsonNesting + 1, '[') + "garbage";
  try {
    parseJsonLimited(deep);
    FAIL() << "no error";
  } catch (const LimitExceededError& e) {
    std::string m = e.what();
    EXPECT_EQ(m.rfind("JSON nested deeper than 1024 at $[0][0]", 0), 0u) << m;
    EXPECT_LT(m.size(), 400u) << m;
  }
}

struct ErrorCase {
  std::string text;
  std::string message;  // exactly
};

TEST(WireJsonParser, ErrorsSayWhere) {
  const ErrorCase cases[] = {
      {R"({"a":1,"b":2,"a":3})", "duplicate key [a] in the object at $"},
      {R"([{"x":[1,{"k":1,"k":2}]}])", "duplicate key [k] in the object at $[0].x[1]"},
  };
  for (const ErrorCase& c : cases) {
    try {
      parseJsonLimited(c.text);
      ADD_FAILURE() << c.text << ": no error";
    } catch (const CorruptStreamError& e) {
      EXPECT_EQ(e.what(), c.message) << c.text;
    }
  }
  try {
    parseJsonLimited(R"([{"a":[1,2,)");
    ADD_FAILURE() << "no error";
  } catch (const CorruptStreamError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("invalid JSON at byte 12 ($[0].a[1]): ", 0), 0u)
        << e.what();
  }
}

TEST(WireJsonParser, ReaderErrorsNameTheElement) {
  std::string text = R"([{"type":"max","name":"ok","metadata":null,"format":"raw","value":1},)"
                     R"({"type":"max","name":"m","metadata":null,"format":"raw"}])";
  try {
    aggregationsFromWireJsonText(text);
    FAIL() << "no error";
  } catch (const CorruptStreamError& e) {
    EXPECT_EQ(std::string(e.what()), "$[1] (max [m]): missing field [value]");
  }
}

// The path goes down to the bucket and the field, and names the innermost
// aggregation on the way; a member no reader asks for is refused by its path.
TEST(WireJsonParser, ErrorsNameTheBucketAndField) {
  auto terms = [](const std::string& bucket) {
    return R"([{"type":"lterms","name":"t","metadata":null,"reduce_order":{"_key":"asc"},)"
           R"("order":{"_count":"desc"},"required_size":1,"min_doc_count":1,)"
           R"("doc_count_error":null,"format":"raw","shard_size":1,)"
           R"("show_term_doc_count_error":false,"other_doc_count":0,"buckets":[)"
           R"({"doc_count":1,"aggregations":[],"key":1},)" +
           bucket + "]}]";
  };
  aggregationsFromWireJsonText(terms(R"({"doc_count":2,"aggregations":[],"key":2})"));
  struct Case {
    std::string bucket, message;
  };
  for (const Case& c : std::vector<Case>{
           {R"({"doc_count":"2","aggregations":[],"key":2})",
            R"($[0].buckets[1].doc_count (lterms [t]): field [doc_count] is not an integer: "2")"},
           {R"({"doc_count":2,"aggregations":[],"key":2,"kee":3})",
            "$[0].buckets[1].kee (lterms [t]): unknown field [kee]"},
           {R"({"doc_count":2,"aggregations":[],"key":2,"doc_count_error":0})",
            "$[0].buckets[1].doc_count_error (lterms [t]): unknown field [doc_count_error]"},
           {R"({"doc_count":2,"key":2})",
            "$[0].buckets[1] (lterms [t]): missing field [aggregations]"},
           {R"({"doc_count":2,"aggregations":[{"type":"max","name":"m","metadata":null,)"
            R"("format":"raw","value":true}],"key":2})",
            "$[0].buckets[1].aggregations[0].value (max [m]): field [value] is not a double: true"},
           {R"({"doc_count":2,"aggregations":[{"type":"max","name":"m","metadata":null,)"
            R"("format":"raw","value":1,"values":2}],"key":2})",
            "$[0].buckets[1].aggregations[0].values (max [m]): unknown field [values]"},
       }) {
    try {
      aggregationsFromWireJsonText(terms(c.bucket));
      ADD_FAILURE() << "no error for " << c.bucket;
    } catch (const CorruptStreamError& e) {
      EXPECT_EQ(std::string(e.what()), c.message) << c.bucket;
    }
  }
}

TEST(WireJsonParser, EchoIsCapped) {
  EXPECT_EQ(capEcho(std::string(200, 'x')), std::string(200, 'x'));
  EXPECT_EQ(capEcho(std::string(300, 'x')), std::string(200, 'x') + "... (100 more characters)");
  std::string huge(1 << 20, 'y');
  try {
    aggregationsFromWireJsonText(R"([{"type":")" + huge + R"(","name":"a","metadata":null}])");
    FAIL() << "no error";
  } catch (const CorruptStreamError& e) {
    EXPECT_LT(std::string(e.what()).size(), 1000u);
  }
}

}  // namespace
}  // namespace wirestream::cli
