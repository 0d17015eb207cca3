#include "search/query_phase.h"

#include <algorithm>
#include <exception>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "aggregations/json/aggregation_json.h"
#include "aggregations/registry.h"
#include "stream/bytes_reference.h"
#include "stream/errors.h"
#include "stream/writeable.h"
#include "transport/transport_errors.h"
#include "transport/transport_service.h"

namespace wirestream::search {
namespace {

using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

constexpr const char* kFreeContextAction = "indices:data/read/search[free_context]";

double millisSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// A request body the transport writes after the parent TaskId.
class WriteableOf final : public Writeable {
 public:
  explicit WriteableOf(std::function<void(StreamOutput&)> write) : write_(std::move(write)) {}
  void writeTo(StreamOutput& out) const override { write_(out); }

 private:
  std::function<void(StreamOutput&)> write_;
};

// ES's exception type names of the failures a coordinator records itself.
std::string failureType(std::exception_ptr e, std::string* reason) {
  try {
    std::rethrow_exception(e);
  } catch (const transport::RemoteTransportError& r) {
    *reason = r.what();
    return r.cause().type;
  } catch (const transport::ConnectTransportError& c) {
    *reason = c.what();
    return "connect_transport_exception";
  } catch (const transport::NodeDisconnectedError& c) {
    *reason = c.what();
    return "node_disconnected_exception";
  } catch (const transport::ReceiveTimeoutError& c) {
    *reason = c.what();
    return "receive_timeout_transport_exception";
  } catch (const std::exception& x) {
    *reason = x.what();
    return "exception";
  }
}

// The node sent this failure over its connection (a shard's exception): the
// connection is sound and is kept.
bool nodeAnswered(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const transport::RemoteTransportError&) {
    return true;
  } catch (...) {
    return false;
  }
}

}  // namespace

// ---- the cluster file ----

ClusterFile ClusterFile::parse(const std::string& text) {
  ClusterFile c;
  try {
    Json j = Json::parse(text);
    c.es_version = j.at("es_version").get<std::string>();
    for (const Json& n : j.at("nodes")) {
      ClusterNode node;
      node.id = n.at("id").get<std::string>();
      node.name = n.value("name", "");
      const std::string address = n.at("address").get<std::string>();
      const size_t colon = address.rfind(':');
      if (colon == std::string::npos) {
        throw std::invalid_argument("cluster file: address without a port: " + address);
      }
      node.host = address.substr(0, colon);
      const int port = std::stoi(address.substr(colon + 1));
      if (port <= 0 || port > 65535) throw std::invalid_argument("cluster file: port " + address);
      node.port = static_cast<uint16_t>(port);
      c.nodes.push_back(std::move(node));
    }
    c.index_name = j.at("index").at("name").get<std::string>();
    c.index_uuid = j.at("index").at("uuid").get<std::string>();
    for (const Json& s : j.at("shards")) {
      c.shards[s.at("shard").get<int32_t>()] = s.at("node").get<std::string>();
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(std::string("cluster file: ") + e.what());
  }
  for (const auto& [shard, node] : c.shards) (void)c.node(node);
  if (c.shards.empty()) throw std::invalid_argument("cluster file: no shards");
  return c;
}

const ClusterNode& ClusterFile::node(const std::string& id) const {
  for (const ClusterNode& n : nodes) {
    if (n.id == id) return n;
  }
  throw std::invalid_argument("cluster file: no node [" + id + "]");
}

// ---- the coordinator ----

ShardSearchRequest shardRequest(const ClusterFile& cluster, const SearchSource& source,
                                int32_t shard, const CoordinatorOptions& options) {
  ShardSearchRequest r;
  r.shard_id = {cluster.index_name, cluster.index_uuid, shard};
  r.shard_request_index = shard;
  r.number_of_shards = static_cast<int32_t>(cluster.shards.size());
  r.source = source;
  r.now_in_millis = options.now_in_millis;
  r.allow_partial_search_results = options.allow_partial_search_results;
  r.channel_version = transport::TransportOptions::forRelease(options.release).version.id();
  r.original_indices.indices = {cluster.index_name};
  return r;
}

Coordinator::Coordinator(ClusterFile cluster, CoordinatorOptions options)
    : cluster_(std::move(cluster)), options_(std::move(options)) {
  transport::TransportOptions topts = transport::TransportOptions::forRelease(options_.release);
  topts.node_name = "wirestream-coordinator";
  topts.connect_timeout = options_.timeout;
  topts.logger = [](transport::LogLevel, const std::string&) {};
  service_ = std::make_unique<transport::TransportService>(topts);
}

Coordinator::~Coordinator() = default;

SearchResult Coordinator::search(const SearchSource& source) {
  const auto start = Clock::now();
  const ClusterFile& cluster = cluster_;
  transport::TransportService& service = *service_;
  CoordinatorOptions opts = options_;
  if (opts.now_in_millis == 0) {
    opts.now_in_millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  }

  SearchResult result;
  result.total_shards = static_cast<int32_t>(cluster.shards.size());
  std::map<std::string, std::shared_ptr<transport::Connection>>& connections = connections_;
  std::map<std::string, std::exception_ptr> unreachable;
  struct Pending {
    int32_t shard;
    std::string node;
    std::shared_ptr<transport::Connection> connection;
    std::future<QuerySearchResult> answer;
  };
  std::vector<Pending> pending;
  std::map<int32_t, QuerySearchResult> answers;  // by shard: ES reduces in shard order
  auto fail = [&](int32_t shard, const std::string& node, std::exception_ptr e) {
    ShardFailure f;
    f.shard = shard;
    f.node_id = node;
    f.type = failureType(e, &f.reason);
    result.failures.push_back(std::move(f));
    if (!nodeAnswered(e)) connections.erase(node);  // the next search connects again
  };
  for (const auto& [shard, node_id] : cluster.shards) {
    const ClusterNode& node = cluster.node(node_id);
    if (unreachable.count(node_id)) {
      fail(shard, node_id, unreachable[node_id]);
      continue;
    }
    if (!connections.count(node_id)) {
      try {
        connections[node_id] = service.connect(node.host, node.port);
        ++connections_opened_;
      } catch (...) {
        unreachable[node_id] = std::current_exception();
        fail(shard, node_id, unreachable[node_id]);
        continue;
      }
    }
    auto conn = connections[node_id];
    ShardSearchRequest request = shardRequest(cluster, source, shard, opts);
    request.channel_version = conn->version().id();
    auto body =
        std::make_shared<WriteableOf>([request](StreamOutput& out) { request.writeTo(out); });
    pending.push_back({shard, node_id, conn,
                       service.submitRequest(
                           conn, ShardSearchRequest::kAction, *body,
                           [](StreamInput& in) {
                             return QuerySearchResult::readFrom(in,
                                                                aggregations::defaultRegistry());
                           },
                           opts.timeout)});
  }
  for (Pending& p : pending) {
    try {
      QuerySearchResult r = p.answer.get();
      if (r.hasSearchContext()) {
        // The node keeps the shard's reader for a fetch phase this search has
        // not got: free it, as ES's coordinator does for shards it does not fetch.
        ShardSearchContextId id = r.context_id;
        OriginalIndices indices;
        indices.indices = {cluster.index_name};
        WriteableOf free([id, indices](StreamOutput& out) {
          id.writeTo(out);
          indices.writeTo(out);
        });
        try {
          service
              .submitRequest(
                  p.connection, kFreeContextAction, free,
                  [](StreamInput& in) { return in.readBoolean(); }, opts.timeout)
              .get();
        } catch (...) {
          // ES's coordinator ignores a failed free too: the node's keep-alive reaps it.
        }
      }
      if (opts.on_shard_result) opts.on_shard_result(p.shard, r, p.connection->version());
      answers.emplace(p.shard, std::move(r));
    } catch (...) {
      fail(p.shard, p.node, std::current_exception());
    }
  }
  std::sort(result.failures.begin(), result.failures.end(),
            [](const ShardFailure& a, const ShardFailure& b) { return a.shard < b.shard; });
  if (!result.failures.empty() && (!opts.allow_partial_search_results || answers.empty())) {
    const ShardFailure& f = result.failures.front();
    throw SearchPhaseError(answers.empty()
                               ? "all shards failed: shard " + std::to_string(f.shard) + " [" +
                                     f.type + "] " + f.reason
                               : "partial shards failure: shard " + std::to_string(f.shard) + " [" +
                                     f.type + "] " + f.reason);
  }
  result.successful_shards = static_cast<int32_t>(answers.size());
  std::vector<const aggregations::InternalAggregations*> lists;
  TransportVersion version = TransportVersion::current();
  for (const auto& [shard, r] : answers) {
    result.total_hits += r.total_hits;
    result.total_hits_exact &= r.total_hits_relation == 0;
    result.timed_out |= r.timed_out;
    if (r.aggregations) lists.push_back(&*r.aggregations);
  }
  for (const auto& [id, c] : connections) version = c->version();
  const auto reduce_start = Clock::now();
  // ES 9.x's coordinator runs the batched query phase (BATCHED_QUERY_PHASE_VERSION): each data
  // node reduces its own shards' results (a partial reduce, in shard order) and the
  // coordinator reduces the nodes' (in the order of their first shard). That changes the
  // reduced aggregations' order (a HashMap walk of walks) and the order of the sums.
  std::vector<aggregations::InternalAggregations> node_partials;
  if (!lists.empty() && opts.batched_query_phase &&
      version.onOrAfter(TransportVersion::BATCHED_QUERY_PHASE_VERSION)) {
    std::vector<std::string> node_order;
    std::map<std::string, std::vector<const aggregations::InternalAggregations*>> by_node;
    for (const auto& [shard, r] : answers) {
      if (!r.aggregations) continue;
      const std::string& node = cluster.shards.at(shard);
      if (!by_node.count(node)) node_order.push_back(node);
      by_node[node].push_back(&*r.aggregations);
    }
    node_partials.reserve(node_order.size());
    for (const std::string& node : node_order) {
      auto partial = aggregations::ReduceContext::partialReduce();
      partial.version = version;
      node_partials.push_back(aggregations::InternalAggregations::reduce(by_node[node], partial));
    }
    lists.clear();
    for (const auto& p : node_partials) lists.push_back(&p);
  }
  if (!lists.empty()) {
    auto context = aggregations::ReduceContext::finalReduce(opts.max_buckets);
    context.version = version;
    result.aggregations = aggregations::InternalAggregations::reduce(lists, context);
    result.has_aggregations = true;
  }
  result.reduce_millis = millisSince(reduce_start);
  result.took_millis = millisSince(start);
  return result;
}

SearchResult runQueryPhase(const ClusterFile& cluster, const SearchSource& source,
                           const CoordinatorOptions& options) {
  Coordinator coordinator(cluster, options);
  return coordinator.search(source);
}

Json toResponseJson(const SearchResult& result) {
  Json j;
  j["took"] = static_cast<int64_t>(result.took_millis);
  j["timed_out"] = result.timed_out;
  Json shards;
  shards["total"] = result.total_shards;
  shards["successful"] = result.successful_shards;
  shards["skipped"] = 0;
  shards["failed"] = static_cast<int32_t>(result.failures.size());
  if (!result.failures.empty()) {
    Json failures = Json::array();
    for (const ShardFailure& f : result.failures) {
      Json x;
      x["shard"] = f.shard;
      x["node"] = f.node_id;
      x["reason"] = {{"type", f.type}, {"reason", f.reason}};
      failures.push_back(std::move(x));
    }
    shards["failures"] = std::move(failures);
  }
  j["_shards"] = std::move(shards);
  Json hits;
  hits["total"] = {{"value", result.total_hits},
                   {"relation", result.total_hits_exact ? "eq" : "gte"}};
  hits["max_score"] = nullptr;
  hits["hits"] = Json::array();
  j["hits"] = std::move(hits);
  if (result.has_aggregations)
    j["aggregations"] = aggregations::toResponseJson(result.aggregations);
  return j;
}

}  // namespace wirestream::search
