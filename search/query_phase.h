// The query phase of a size-0 query_then_fetch search, coordinated from C++
// over Elasticsearch's own data nodes: a ShardSearchRequest to the node that
// holds each shard (action `indices:data/read/search[phase/query]`), their
// QuerySearchResults read (aggregations through //aggregations' readers),
// what a node keeps for a shard freed, wirestream's final reduce, and ES's
// response JSON. docs/coordinator.md says what is supported at which version.
//
// ClusterFile is the harness's description of a cluster (interop/, the
// coordinator check): nodes and their transport addresses, the index, which
// node holds which shard. A node that cannot be reached or fails a shard makes
// that shard a failure of the response (ES's partial results), or, when
// partial results are not allowed, SearchPhaseError; a reduce past
// max_buckets is TooManyBucketsError (ES's too_many_buckets_exception).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "aggregations/internal_aggregation.h"
#include "search/query_search_result.h"
#include "search/search_request.h"
#include "stream/stream_input.h"
#include "stream/structured/named_writeable_registry.h"

namespace wirestream::transport {
class Connection;
class TransportService;
}  // namespace wirestream::transport

namespace wirestream::search {

struct ClusterNode {
  std::string id;
  std::string name;
  std::string host;
  uint16_t port = 0;
};

struct ClusterFile {
  std::string es_version;  // the release the nodes run, e.g. "8.7.1"
  std::vector<ClusterNode> nodes;
  std::string index_name;
  std::string index_uuid;
  // shard number -> id of the node holding its primary
  std::map<int32_t, std::string> shards;

  // std::invalid_argument naming what is missing or malformed.
  static ClusterFile parse(const std::string& json);
  const ClusterNode& node(const std::string& id) const;
};

// Partial results were not allowed and a shard failed (ES's
// SearchPhaseExecutionException, "all shards failed" or the shard's failure).
class SearchPhaseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ShardFailure {
  int32_t shard = 0;
  std::string node_id;
  std::string type;  // ES's exception type, e.g. "node_disconnected_exception"
  std::string reason;
};

struct CoordinatorOptions {
  // The release whose wire version the coordinator speaks (TransportOptions::forRelease).
  std::string release;
  // Deadline of every call (connect, query, free).
  std::chrono::milliseconds timeout{30000};
  bool allow_partial_search_results = true;
  int32_t max_buckets = 65536;  // search.max_buckets
  int64_t now_in_millis = 0;    // 0: the clock
  // ES 9.x's search.batched_query_phase (its default, true): from 9.x's wire
  // version the reduce groups the shards' results by node as ES's batched query
  // phase does; false reduces them in shard order, as 8.x and a 9.x coordinator
  // with the setting off do (the order of a double sum's terms, so its last bit).
  bool batched_query_phase = true;
  // Called with each shard's result once read, and its connection's version
  // (es_coordinator --dump-shards); it must not keep the reference.
  std::function<void(int32_t shard, const QuerySearchResult&, TransportVersion)> on_shard_result;
};

struct SearchResult {
  int32_t total_shards = 0;
  int32_t successful_shards = 0;
  std::vector<ShardFailure> failures;
  int64_t total_hits = 0;
  bool total_hits_exact = true;
  bool timed_out = false;
  aggregations::InternalAggregations aggregations;
  bool has_aggregations = false;
  double took_millis = 0;
  double reduce_millis = 0;
};

// The request sent for `shard`: what runQueryPhase writes for it.
ShardSearchRequest shardRequest(const ClusterFile& cluster, const SearchSource& source,
                                int32_t shard, const CoordinatorOptions& options);

// A coordinator that keeps its transport service and its connections to the
// cluster's nodes from one search to the next, as ES's coordinator keeps its
// node connections (a node's connection opens at its first search; one whose
// call failed in the transport, a refused connect, a disconnect, a timeout or an
// answer that could not be read, is dropped and opened again by the next search;
// a shard's own exception, which its node sent over the connection, keeps it).
// One search at a time.
//
//   Coordinator coordinator(cluster, options);
//   SearchResult first = coordinator.search(source);   // connects
//   SearchResult again = coordinator.search(source);   // reuses the connections
class Coordinator {
 public:
  Coordinator(ClusterFile cluster, CoordinatorOptions options);
  ~Coordinator();
  Coordinator(const Coordinator&) = delete;
  Coordinator& operator=(const Coordinator&) = delete;

  // Runs the query phase over every shard of the cluster's shards and reduces.
  SearchResult search(const SearchSource& source);

  // Connections opened since construction (each node's first, and again after
  // a transport failure dropped one).
  uint64_t connectionsOpened() const { return connections_opened_; }

 private:
  ClusterFile cluster_;
  CoordinatorOptions options_;
  std::unique_ptr<transport::TransportService> service_;
  std::map<std::string, std::shared_ptr<transport::Connection>> connections_;
  uint64_t connections_opened_ = 0;
};

// One search through a Coordinator of its own (connections opened and closed).
SearchResult runQueryPhase(const ClusterFile& cluster, const SearchSource& source,
                           const CoordinatorOptions& options);

// ES's search response body (size 0): took, timed_out, _shards (with
// failures), hits, aggregations.
nlohmann::ordered_json toResponseJson(const SearchResult& result);

}  // namespace wirestream::search
