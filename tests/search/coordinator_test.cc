// search::Coordinator over loopback: a wirestream node stands in for an ES data
// node and answers the query phase with what an ES 8.7.1 data node sent
// (es_query_results.h). Checks the connection reuse across searches and the
// per-shard hook; the answers' bytes and the reduce against ES's own
// coordinator are the real-ES harness's coordinator check.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "aggregations/json/aggregation_json.h"
#include "search/query_phase.h"
#include "search/search_request.h"
#include "stream/stream_input.h"
#include "stream/stream_output.h"
#include "stream/writeable.h"
#include "tests/search/es_query_results.h"
#include "transport/transport_service.h"

namespace wirestream::search {
namespace {

std::vector<uint8_t> fromHex(const std::string& hex) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

// A recorded answer, written back as it came.
class RawAnswer final : public Writeable {
 public:
  explicit RawAnswer(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) {}
  void writeTo(StreamOutput& out) const override { out.writeBytes(bytes_); }

 private:
  std::vector<uint8_t> bytes_;
};

bool waitUntil(const std::function<bool()>& done) {
  for (int i = 0; i < 500 && !done(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

class CoordinatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    transport::TransportOptions o = transport::TransportOptions::forRelease("8.7.1");
    o.node_name = "data-node";
    o.logger = [](transport::LogLevel, const std::string&) {};
    node = std::make_unique<transport::TransportService>(o);
    node->registerRequestHandler(
        std::string(ShardSearchRequest::kAction),
        [](StreamInput& in) { return ShardSearchRequest::readFrom(in); },
        [this](const ShardSearchRequest& r) {
          shards_asked.fetch_add(1);
          if (r.shard_id.id == failing_shard) throw std::runtime_error("shard failed");
          return RawAnswer(fromHex(testing::kMax));
        });
    const uint16_t port = node->listen();
    cluster = ClusterFile::parse(
        R"({"es_version":"8.7.1","nodes":[{"id":"n0","name":"n0","address":"127.0.0.1:)" +
        std::to_string(port) +
        R"("}],"index":{"name":"wirestream-coord","uuid":"u"},"shards":[{"shard":0,"node":"n0"},)"
        R"({"shard":1,"node":"n0"}]})");
    options.release = "8.7.1";
    options.timeout = std::chrono::milliseconds(5000);
  }

  std::unique_ptr<transport::TransportService> node;
  std::atomic<int> shards_asked{0};
  std::atomic<int32_t> failing_shard{-1};
  ClusterFile cluster;
  CoordinatorOptions options;
  SearchSource source =
      SearchSource::fromJson(R"({"size":0,"aggs":{"a0":{"max":{"field":"price"}}}})");
};

TEST_F(CoordinatorTest, SearchesReuseTheirConnections) {
  std::vector<int32_t> seen;
  options.on_shard_result = [&seen](int32_t shard, const QuerySearchResult& r,
                                    TransportVersion version) {
    seen.push_back(shard);
    EXPECT_TRUE(r.aggregations.has_value());
    EXPECT_EQ(version, transport::TransportOptions::forRelease("8.7.1").version);
  };
  Coordinator coordinator(cluster, options);
  const SearchResult first = coordinator.search(source);
  const SearchResult second = coordinator.search(source);
  EXPECT_EQ(shards_asked.load(), 4);
  EXPECT_EQ(seen, (std::vector<int32_t>{0, 1, 0, 1}));
  for (const SearchResult* r : {&first, &second}) {
    EXPECT_EQ(r->successful_shards, 2);
    EXPECT_TRUE(r->failures.empty());
    ASSERT_TRUE(r->has_aggregations);
  }
  EXPECT_EQ(aggregations::toResponseJson(first.aggregations).dump(),
            aggregations::toResponseJson(second.aggregations).dump());
  // One connection served both searches.
  EXPECT_EQ(node->stats().inbound_connections, 1u);
}

TEST_F(CoordinatorTest, RunQueryPhaseClosesWhatItOpened) {
  const SearchResult r = runQueryPhase(cluster, source, options);
  EXPECT_EQ(r.successful_shards, 2);
  EXPECT_TRUE(waitUntil([&] { return node->stats().inbound_connections == 0; }));
}

TEST_F(CoordinatorTest, AFailedShardIsPartialAndTheNextSearchStillAnswers) {
  failing_shard = 1;
  Coordinator coordinator(cluster, options);
  const SearchResult partial = coordinator.search(source);
  EXPECT_EQ(partial.successful_shards, 1);
  ASSERT_EQ(partial.failures.size(), 1u);
  EXPECT_EQ(partial.failures[0].shard, 1);
  failing_shard = -1;
  const SearchResult whole = coordinator.search(source);
  EXPECT_EQ(whole.successful_shards, 2);
  EXPECT_TRUE(whole.failures.empty());
  // The shard's exception came over a sound connection: it was kept.
  EXPECT_EQ(coordinator.connectionsOpened(), 1u);
}

TEST_F(CoordinatorTest, ADroppedConnectionIsOpenedAgainByTheNextSearch) {
  Coordinator coordinator(cluster, options);
  EXPECT_EQ(coordinator.search(source).successful_shards, 2);
  // The node goes away: both shards fail in the transport (all shards failed).
  const uint16_t port = cluster.nodes[0].port;
  node.reset();
  EXPECT_THROW(coordinator.search(source), SearchPhaseError);
  // It comes back on the same port; the next search connects again.
  transport::TransportOptions o = transport::TransportOptions::forRelease("8.7.1");
  o.logger = [](transport::LogLevel, const std::string&) {};
  node = std::make_unique<transport::TransportService>(o);
  node->registerRequestHandler(
      std::string(ShardSearchRequest::kAction),
      [](StreamInput& in) { return ShardSearchRequest::readFrom(in); },
      [](const ShardSearchRequest&) { return RawAnswer(fromHex(testing::kMax)); });
  ASSERT_EQ(node->listen("127.0.0.1", port), port);
  EXPECT_EQ(coordinator.search(source).successful_shards, 2);
  EXPECT_EQ(coordinator.connectionsOpened(), 2u);
}

}  // namespace
}  // namespace wirestream::search
