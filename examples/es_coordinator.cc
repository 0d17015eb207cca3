// es_coordinator: the query phase of a size-0 search over a real Elasticsearch
// cluster, coordinated by wirestream (search/query_phase.h,
// docs/coordinator.md).
//
//   es_coordinator --cluster FILE --query JSON
//       prints ES's search response (took, _shards, hits, aggregations)
//   es_coordinator --cluster FILE --query JSON --request-hex --shard N --now MS
//       prints, in hex, the ShardSearchRequest it sends for shard N (the parent
//       TaskId's 00 first, as ES's writeTo), for the harness to compare with ES's
//   es_coordinator --cluster FILE --query JSON --repeat N [--dump-shards DIR]
//       runs the search N times over the same connections (the first opens
//       them) and prints, after the last response, a line on stderr:
//       `es_coordinator: timings {"took_ms":[...],"reduce_ms":[...]}`;
//       --dump-shards writes each shard's aggregations as ES wrote them
//       (DIR/shard-N.bin, at DIR/version) for the harness's ES reduce
//
// FILE is the harness's cluster file (interop/, the coordinator check): nodes
// with transport addresses, the index's name and UUID, shard -> node. Exit
// codes: 0 answered, 1 the search failed (a typed error on stderr: a shard
// failure without partial results, too many buckets), 2 bad arguments or a
// search the builders do not model.
#include <CLI/CLI.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <typeinfo>

#include "aggregations/text_util.h"
#include "search/query_phase.h"
#include "search/search_request.h"
#include "stream/bytes_stream_output.h"
#include "stream/errors.h"
#include "transport/transport_service.h"

using namespace wirestream;

int main(int argc, char** argv) {
  CLI::App app{"wirestream's coordinator over Elasticsearch data nodes (size-0 searches)"};
  std::string cluster_path, query;
  bool request_hex = false;
  int32_t shard = 0;
  int64_t now = 0;
  int64_t timeout_ms = 30000;
  int32_t max_buckets = 65536;
  bool allow_partial = true;
  bool batched_query_phase = true;
  int32_t repeat = 1;
  std::string dump_dir;
  app.add_option("--cluster", cluster_path, "Cluster file (JSON)")->required();
  app.add_option("--query", query, "Search body (JSON)")->required();
  app.add_flag("--request-hex", request_hex, "Print shard --shard's request bytes and exit");
  app.add_option("--shard", shard, "Shard of --request-hex");
  app.add_option("--now", now, "The request's nowInMillis (0: the clock)");
  app.add_option("--timeout-ms", timeout_ms, "Deadline of every call")
      ->check(CLI::Range(1, 3600000));
  app.add_option("--max-buckets", max_buckets, "search.max_buckets")->check(CLI::Range(1, 1 << 30));
  app.add_option("--allow-partial-search-results", allow_partial,
                 "Answer with the shards that did not fail (true) or fail the search");
  app.add_option("--batched-query-phase", batched_query_phase,
                 "search.batched_query_phase (ES 9.x): reduce by node (true) or by shard");
  app.add_option("--repeat", repeat, "Run the search N times over the same connections")
      ->check(CLI::Range(1, 100000));
  app.add_option("--dump-shards", dump_dir,
                 "Write each shard's aggregations to DIR/shard-N.bin (their version: DIR/version)");
  CLI11_PARSE(app, argc, argv);

  search::ClusterFile cluster;
  search::SearchSource source;
  try {
    std::ifstream f(cluster_path);
    if (!f) throw std::invalid_argument("cannot read " + cluster_path);
    std::stringstream text;
    text << f.rdbuf();
    cluster = search::ClusterFile::parse(text.str());
    source = search::SearchSource::fromJson(query);
  } catch (const std::exception& e) {
    std::cerr << "es_coordinator: " << typeid(e).name() << ": " << e.what() << "\n";
    return 2;
  }
  search::CoordinatorOptions options;
  options.release = cluster.es_version;
  options.timeout = std::chrono::milliseconds(timeout_ms);
  options.max_buckets = max_buckets;
  options.allow_partial_search_results = allow_partial;
  options.batched_query_phase = batched_query_phase;
  options.now_in_millis = now;
  try {
    if (request_hex) {
      if (!cluster.shards.count(shard))
        throw std::invalid_argument("no shard " + std::to_string(shard));
      search::ShardSearchRequest r = search::shardRequest(cluster, source, shard, options);
      BytesStreamOutput out;
      out.setTransportVersion(TransportVersion(r.channel_version));
      out.writeByte(0);  // the empty parent TaskId
      r.writeTo(out);
      std::vector<uint8_t> b = out.bytes().toVector();
      std::cout << aggregations::text_util::toHex(
                       {reinterpret_cast<const char*>(b.data()), b.size()})
                << "\n";
      return 0;
    }
    if (!dump_dir.empty()) {
      std::filesystem::create_directories(dump_dir);
      options.on_shard_result = [&dump_dir](int32_t shard, const search::QuerySearchResult& r,
                                            TransportVersion version) {
        BytesStreamOutput out;
        out.setTransportVersion(version);
        if (r.aggregations) r.aggregations->writeTo(out);
        const std::vector<uint8_t> b = out.bytes().toVector();
        std::ofstream(dump_dir + "/shard-" + std::to_string(shard) + ".bin", std::ios::binary)
            .write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
        std::ofstream(dump_dir + "/version") << version.id() << "\n";
      };
    }
    search::Coordinator coordinator(cluster, options);
    nlohmann::json took = nlohmann::json::array(), reduce = nlohmann::json::array();
    search::SearchResult result;
    for (int32_t i = 0; i < repeat; ++i) {
      result = coordinator.search(source);
      took.push_back(result.took_millis);
      reduce.push_back(result.reduce_millis);
    }
    std::cout << search::toResponseJson(result).dump() << "\n";
    if (repeat == 1) {
      std::cerr << "es_coordinator: took " << result.took_millis << " ms, reduce "
                << result.reduce_millis << " ms\n";
    } else {
      std::cerr << "es_coordinator: timings "
                << nlohmann::json{{"took_ms", took}, {"reduce_ms", reduce}}.dump() << "\n";
    }
    return 0;
  } catch (const TooManyBucketsError& e) {
    std::cerr << "es_coordinator: too_many_buckets_exception: " << e.what() << "\n";
    return 1;
  } catch (const std::invalid_argument& e) {
    std::cerr << "es_coordinator: " << typeid(e).name() << ": " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "es_coordinator: " << typeid(e).name() << ": " << e.what() << "\n";
    return 1;
  }
}
