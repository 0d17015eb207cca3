// //search: the size-0 search request's builders (JSON in, ES's wire form out
// and back) and the query-phase result as ES 8.7.1 data nodes sent it. The
// bytes ES writes for the same requests are compared by the harness (interop/,
// the coordinator check: every shard's request of every search); here the
// writers and readers agree with each other and refuse what they do not model.
#include "search/search_request.h"

#include <gtest/gtest.h>

#include <iterator>
#include <string>
#include <vector>

#include "aggregations/json/aggregation_json.h"
#include "aggregations/registry.h"
#include "search/query_phase.h"
#include "stream/bytes_stream_output.h"
#include "stream/errors.h"
#include "stream/stream_input.h"
#include "tests/search/es_query_results.h"
#include "tests/search/es_shard_requests.h"

namespace wirestream::search {
namespace {

constexpr TransportVersion kV8_7_1 = TransportVersion(8070199);

std::vector<uint8_t> fromHex(const std::string& hex) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

std::vector<uint8_t> write(const ShardSearchRequest& r, TransportVersion v) {
  BytesStreamOutput out;
  out.setTransportVersion(v);
  r.writeTo(out);
  return out.bytes().toVector();
}

ShardSearchRequest request(const std::string& json) {
  ShardSearchRequest r;
  r.shard_id = {"idx", "uuid-1", 3};
  r.shard_request_index = 3;
  r.number_of_shards = 6;
  r.source = SearchSource::fromJson(json);
  r.now_in_millis = 1700000000000;
  r.channel_version = kV8_7_1.id();
  r.original_indices.indices = {"idx"};
  return r;
}

const char* kSearches[] = {
    R"({"size":0,"query":{"match_all":{}},"aggs":{"a":{"max":{"field":"price"}}}})",
    R"({"size":0,"query":{"term":{"tag":"t1"}},"aggs":{"t":{"terms":{"field":"tag","size":3,)"
    R"("shard_size":9,"min_doc_count":2,"missing":"none","order":{"m":"asc"}},)"
    R"("aggs":{"m":{"avg":{"field":"score"}}}}}})",
    R"({"size":0,"query":{"range":{"@timestamp":{"gte":"2024-03-01T00:00:00Z","lt":"now"}}},)"
    R"("aggs":{"d":{"date_histogram":{"field":"@timestamp","calendar_interval":"week",)"
    R"("time_zone":"Europe/Paris","offset":"+6h","min_doc_count":0,)"
    R"("extended_bounds":{"min":1709251200000,"max":1714521600000}}},)"
    R"("h":{"histogram":{"field":"price","interval":50,"offset":3,"hard_bounds":{"min":0}}},)"
    R"("c":{"cardinality":{"field":"ip","precision_threshold":100}},"s":{"stats":{"field":"score"}}}})",
};

TEST(SearchRequestTest, RoundTripsAtEveryGate) {
  for (const char* json : kSearches) {
    for (TransportVersion v :
         {TransportVersion(7100099), TransportVersion(7170099), TransportVersion(8040099), kV8_7_1,
          TransportVersion(8080099), TransportVersion(8841096)}) {
      SCOPED_TRACE(std::string(json) + " at " + std::to_string(v.id()));
      ShardSearchRequest r = request(json);
      std::vector<uint8_t> bytes = write(r, v);
      ByteArrayStreamInput in(bytes);
      in.setTransportVersion(v);
      ShardSearchRequest back = ShardSearchRequest::readFrom(in);
      EXPECT_EQ(in.position(), bytes.size());
      EXPECT_EQ(write(back, v), bytes);
      if (v.onOrAfter(TransportVersion(7110099))) {
        EXPECT_EQ(back, r);
      }
    }
  }
}

// The request the harness's small program asked ES for, at a release's wire version.
ShardSearchRequest esRequest(const std::string& json, TransportVersion v) {
  ShardSearchRequest r;
  r.shard_id = {"wirestream-coord", "UUID", 0};
  r.shard_request_index = 0;
  r.number_of_shards = 6;
  r.source = SearchSource::fromJson(json);
  r.now_in_millis = 1700000000000;
  r.channel_version = v.id();
  r.original_indices.indices = {"wirestream-coord"};
  return r;
}

std::string toHex(const std::vector<uint8_t>& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (uint8_t b : bytes) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

// ES 8.7.1's and 8.19.21's own bytes (tests/search/es_shard_requests.h). At 8.19: the terms
// builder's exclude_deleted_docs (8.14), the source's rank builder (8.8) and skip_inner_hits
// (8.16.x/8.17), the query as sub_searches (8.9, the same bytes), IndicesOptions'
// ALLOW_SELECTORS (8.18).
TEST(SearchRequestTest, WritesWhatEsWrites) {
  constexpr TransportVersion kV8_19_21(8841096);
  // ES's writeTo starts with its TransportRequest's parent task id: "00", no parent.
  auto body = [](const char* hex) { return std::string(hex).substr(2); };
  for (size_t i = 0; i < std::size(testing::kEsSearches); ++i) {
    SCOPED_TRACE(testing::kEsSearches[i]);
    EXPECT_EQ(toHex(write(esRequest(testing::kEsSearches[i], kV8_7_1), kV8_7_1)),
              body(testing::kEs871Requests[i]));
    ShardSearchRequest r = esRequest(testing::kEsSearches[i], kV8_19_21);
    EXPECT_EQ(toHex(write(r, kV8_19_21)), body(testing::kEs81921Requests[i]));
    std::vector<uint8_t> bytes = fromHex(body(testing::kEs81921Requests[i]));
    ByteArrayStreamInput in(bytes);
    in.setTransportVersion(kV8_19_21);
    EXPECT_EQ(ShardSearchRequest::readFrom(in), r);
    EXPECT_EQ(in.position(), bytes.size());
  }
}

// ES 9.5.3's: the shard-results skip flag (true, as ES's coordinator sets it), slice routing,
// the split-shard count summary, chunked fetch and IndicesOptions' cross-project mode.
TEST(SearchRequestTest, WritesWhatEs953Writes) {
  constexpr TransportVersion kV9_5_3(9458007);
  for (size_t i = 0; i < std::size(testing::kEsSearches); ++i) {
    SCOPED_TRACE(testing::kEsSearches[i]);
    ShardSearchRequest r = esRequest(testing::kEsSearches[i], kV9_5_3);
    const std::string es = std::string(testing::kEs953Requests[i]).substr(2);  // no parent task
    EXPECT_EQ(toHex(write(r, kV9_5_3)), es);
    std::vector<uint8_t> bytes = fromHex(es);
    ByteArrayStreamInput in(bytes);
    in.setTransportVersion(kV9_5_3);
    EXPECT_EQ(ShardSearchRequest::readFrom(in), r);
    EXPECT_EQ(in.position(), bytes.size());
  }
}

TEST(SearchRequestTest, BuildersFollowEsDefaults) {
  SearchSource s = SearchSource::fromJson(
      R"({"size":0,"aggs":{"t":{"terms":{"field":"tag"}},"k":{"terms":{"field":"tag","order":{"_key":"desc"}}}}})");
  ASSERT_EQ(s.aggregations.size(), 2u);
  // ES's default order, and a count order, get `_key asc` as tie-breaker; a key order stays alone.
  EXPECT_EQ(s.aggregations[0].order,
            aggregations::BucketOrder::compound(
                {aggregations::BucketOrder::count(false), aggregations::BucketOrder::key(true)}));
  EXPECT_EQ(s.aggregations[1].order, aggregations::BucketOrder::key(false));
  EXPECT_EQ(s.aggregations[0].size, 10);
  EXPECT_EQ(s.aggregations[0].shard_size, -1);
  EXPECT_EQ(s.aggregations[0].min_doc_count, 1);
  // A term's string travels as a BytesRef (ES converts it).
  SearchSource q = SearchSource::fromJson(R"({"size":0,"query":{"term":{"tag":"x"}}})");
  EXPECT_EQ(q.query->value.kind(), GenericValue::Kind::kBytesRef);
}

// meta as ES's parser.map() gives it: a HashMap (generic tag 10) in its table's order, which
// the harness's coordinator check compares with ES's own bytes; date bounds as strings.
TEST(SearchRequestTest, MetaIsAJavaHashMapAndDateBoundsKeepTheirStrings) {
  SearchSource s = SearchSource::fromJson(
      R"({"size":0,"aggs":{"d":{"date_histogram":{"field":"@timestamp","fixed_interval":"1d",)"
      R"("extended_bounds":{"min":"2024-02-10","max":1714521600000}},)"
      R"("meta":{"alpha":1,"zeta":"z","list":[true,2.5]}}}})");
  const AggregationBuilder& d = s.aggregations.at(0);
  ASSERT_EQ(d.metadata.kind(), GenericValue::Kind::kMap);
  std::vector<std::string> keys;
  for (const auto& [k, v] : d.metadata.entries()) keys.push_back(k.asString());
  EXPECT_EQ(keys, (std::vector<std::string>{"zeta", "alpha", "list"}));  // jshell's order
  ASSERT_TRUE(d.date_extended_bounds.has_value());
  EXPECT_EQ(d.date_extended_bounds->min_as_str, "2024-02-10");
  EXPECT_FALSE(d.date_extended_bounds->min.has_value());
  EXPECT_EQ(d.date_extended_bounds->max, 1714521600000);
  ShardSearchRequest r;
  r.source = s;
  for (TransportVersion v : {TransportVersion(7170099), kV8_7_1}) {
    std::vector<uint8_t> bytes = write(r, v);
    ByteArrayStreamInput in(bytes);
    in.setTransportVersion(v);
    EXPECT_EQ(ShardSearchRequest::readFrom(in).source->aggregations.at(0), d);
  }
}

TEST(SearchRequestTest, RefusesWhatItDoesNotModel) {
  for (const char* json : {
           R"({"size":10})",
           R"({"size":0,"sort":["price"]})",
           R"({"size":0,"query":{"bool":{}}})",
           R"({"size":0,"aggs":{"x":{"geohash_grid":{"field":"loc"}}}})",
           R"({"size":0,"aggs":{"x":{"terms":{"field":"tag","include":"t.*"}}}})",
           R"({"size":0,"aggs":{"x":{"avg":{"field":"price"},"meta":[1]}}})",
           R"({"size":0,"aggs":{"d":{"date_histogram":{"field":"@timestamp","fixed_interval":"1d",)"
           R"("extended_bounds":{"min":true}}}}})",
       }) {
    SCOPED_TRACE(json);
    EXPECT_THROW(SearchSource::fromJson(json), UnsupportedSearchError);
  }
  EXPECT_THROW(SearchSource::fromJson("{"), std::invalid_argument);
  EXPECT_THROW(SearchSource::fromJson(R"({"size":0,"aggs":{"h":{"histogram":{"field":"p"}}}})"),
               std::invalid_argument);
}

QuerySearchResult readResult(const std::vector<uint8_t>& bytes) {
  ByteArrayStreamInput in(bytes);
  in.setTransportVersion(kV8_7_1);
  QuerySearchResult r = QuerySearchResult::readFrom(in, aggregations::defaultRegistry());
  EXPECT_EQ(in.position(), bytes.size());
  return r;
}

TEST(QuerySearchResultTest, ReadsWhatEs871Sent) {
  QuerySearchResult r = readResult(fromHex(testing::kTermsDateHistogram));
  EXPECT_FALSE(r.is_null);
  EXPECT_FALSE(r.hasSearchContext());
  EXPECT_FALSE(r.timed_out);
  ASSERT_TRUE(r.aggregations.has_value());
  EXPECT_EQ(r.aggregations->size(), 2u);
  ASSERT_TRUE(r.shard_request.has_value());
  EXPECT_EQ(r.shard_request->shard_id.index_name, "wirestream-coord");
  EXPECT_EQ(r.shard_request->number_of_shards, 6);
  ASSERT_TRUE(r.shard_request->source.has_value());
  EXPECT_EQ(r.shard_request->source->aggregations.size(), 2u);

  QuerySearchResult m = readResult(fromHex(testing::kMax));
  ASSERT_TRUE(m.aggregations.has_value());
  EXPECT_EQ(aggregations::toResponseJson(*m.aggregations).dump().substr(0, 15),
            R"({"a0":{"value":)");
}

// 8.19.21 writes the batched query phase's form (8841019 on 8.19's line): an optional
// context id and top docs, a rank result (8.8) and the `reduced` flag.
TEST(QuerySearchResultTest, ReadsWhatEs81921Wrote) {
  std::vector<uint8_t> bytes = fromHex(testing::kEs81921QueryResult);
  ByteArrayStreamInput in(bytes);
  in.setTransportVersion(TransportVersion(8841096));
  QuerySearchResult r = QuerySearchResult::readFrom(in, aggregations::defaultRegistry());
  EXPECT_EQ(in.position(), bytes.size());
  EXPECT_FALSE(r.is_null);
  EXPECT_EQ(r.context_id.id, 7);
  EXPECT_EQ(r.context_id.session_id, "sess");
  EXPECT_EQ(r.total_hits, 42);
  EXPECT_EQ(r.service_time_ewma, 1234);
  EXPECT_EQ(r.node_queue_size, 2);
  EXPECT_FALSE(r.reduced);
  EXPECT_FALSE(r.shard_request.has_value());
  ASSERT_TRUE(r.aggregations.has_value());
  EXPECT_EQ(aggregations::toResponseJson(*r.aggregations).dump(), R"({"a0":{"value":12.5}})");
}

// 9.5.3: the aggregations compressed (an int, a VLong, "DFL\0" and DEFLATE), the timestamp
// range telemetry's optional long and the (empty) directory metrics at the end.
TEST(QuerySearchResultTest, ReadsWhatEs953Wrote) {
  std::vector<uint8_t> bytes = fromHex(testing::kEs953QueryResult);
  ByteArrayStreamInput in(bytes);
  in.setTransportVersion(TransportVersion(9458007));
  QuerySearchResult r = QuerySearchResult::readFrom(in, aggregations::defaultRegistry());
  EXPECT_EQ(in.position(), bytes.size());
  EXPECT_EQ(r.context_id.id, 7);
  EXPECT_EQ(r.total_hits, 42);
  EXPECT_EQ(r.service_time_ewma, 1234);
  EXPECT_FALSE(r.timestamp_range_telemetry.has_value());
  ASSERT_TRUE(r.aggregations.has_value());
  EXPECT_EQ(aggregations::toResponseJson(*r.aggregations).dump(), R"({"a0":{"value":12.5}})");
}

TEST(QuerySearchResultTest, EveryTruncationIsAStreamError) {
  for (const char* hex : {testing::kTermsDateHistogram, testing::kMax}) {
    std::vector<uint8_t> bytes = fromHex(hex);
    for (size_t n = 0; n < bytes.size(); ++n) {
      std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
      ByteArrayStreamInput in(cut);
      in.setTransportVersion(kV8_7_1);
      EXPECT_THROW(QuerySearchResult::readFrom(in, aggregations::defaultRegistry()), StreamError)
          << "cut at " << n;
    }
  }
}

TEST(QuerySearchResultTest, RefusesSortedTopDocsTyped) {
  std::vector<uint8_t> bytes = fromHex(testing::kMax);
  // After isNull, the context id (long, session string, searcher), from, size, formats:
  // the top docs' type byte; 1 is ES's sorted TopFieldDocs.
  ByteArrayStreamInput probe(bytes);
  probe.setTransportVersion(kV8_7_1);
  (void)probe.readBoolean();
  (void)ShardSearchContextId::readFrom(probe);
  (void)probe.readVInt();
  (void)probe.readVInt();
  (void)probe.readVInt();
  bytes[probe.position()] = 1;
  ByteArrayStreamInput in(bytes);
  in.setTransportVersion(kV8_7_1);
  EXPECT_THROW(QuerySearchResult::readFrom(in, aggregations::defaultRegistry()),
               UnsupportedWireValueError);
}

}  // namespace
}  // namespace wirestream::search
