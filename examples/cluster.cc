// A small search cluster on loopback: N shard nodes and one coordinating node,
// each a TransportService, answering a terms aggregation (with an avg
// sub-aggregation) and a cardinality over generated documents, the whole path
// a search takes in Elasticsearch: request frames out, shard results
// serialized as InternalAggregations, reduced on the coordinator.
//
//   bazel run -c opt //examples:cluster -- --shards 3 --docs 1000000 --size 10
//
// Every document has a keyword `term` drawn from a Zipf distribution over
// --terms values and a numeric `price` that depends on the term. Documents are
// spread round-robin over the shards. Each shard computes its top shard_size
// terms (ES's default, size * 1.5 + 10) with an avg of `price` per term, and
// a HyperLogLog++ sketch of the terms, and sends them back. The coordinator
// reduces, computes the exact answer over all documents in one place, checks
// the error bounds the response claims, and prints one JSON document:
// {"response": <the ES-shaped response>, "check": <the exact answer, the
// bounds, bytes on the wire, the time of each phase>}. Exit status 1 if a
// bound does not hold, 2 on a usage error.
//
// Documents also have a timestamp (one a second from 2026-11-01), and each
// shard returns a date_histogram `per_minute` of them (interval one minute, or
// longer so that there are at most 50,000 buckets) with an avg of `price`; the
// coordinator checks every reduced bucket against the exact answer and leaves
// it out of the printed response. With --columnar the coordinator negotiates
// wirestream's extensions with each shard node after the handshake
// (transport/features.h) and asks for the columnar encoding of the
// aggregations (wire format §10), which the shards then send; compare
// bytes_received_from_shards with and without it.
//
// Shards are threads of this process with their own TransportService (own
// I/O thread, own loopback port), or with --processes child processes of
// their own; either way nothing but frames passes between them. With --tls
// every connection is mutual TLS: an ephemeral CA and one certificate per
// node are made in a temporary directory, removed at exit.
//
// For clusters whose nodes run apart (tools/faults.sh puts each in a network
// namespace of its own), --serve-shard I --listen HOST:PORT runs shard node I
// alone in the foreground until SIGTERM, with the same documents (the same
// --shards, --docs, --terms, --zipf and --seed); --make-certs DIR writes a CA
// and a certificate for each node, which --certs DIR then uses for mutual TLS.
// The search itself is in cluster_search.h.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "aggregations/cardinality.h"
#include "aggregations/columnar.h"
#include "aggregations/date_histogram.h"
#include "aggregations/internal_aggregation.h"
#include "aggregations/json/aggregation_json.h"
#include "aggregations/metrics.h"
#include "aggregations/registry.h"
#include "aggregations/terms.h"
#include "examples/cluster_search.h"
#include "stream/stream_input.h"
#include "stream/stream_output.h"
#include "transport/features.h"
#include "transport/testing/certgen.h"
#include "transport/transport_service.h"

namespace wirestream::examples {
namespace {

using namespace std::chrono_literals;
using transport::TransportOptions;
using transport::TransportService;

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// ---- the exact answer ----

struct Exact {
  std::vector<int64_t> counts;
  std::vector<double> sums;
  int64_t distinct = 0;
  std::map<int64_t, std::pair<int64_t, double>> per_minute;  // key -> count, sum
};

Exact exactAnswer(const std::vector<Shard>& shards, uint32_t vocabulary, int64_t interval) {
  Exact e;
  e.counts.assign(vocabulary, 0);
  e.sums.assign(vocabulary, 0.0);
  for (const Shard& s : shards) {
    for (size_t i = 0; i < s.terms.size(); ++i) {
      ++e.counts[s.terms[i]];
      e.sums[s.terms[i]] += s.prices[i];
      auto& [count, sum] =
          e.per_minute[s.timestamps[i] - (s.timestamps[i] - kFirstTimestamp) % interval];
      ++count;
      sum += s.prices[i];
    }
  }
  for (int64_t c : e.counts) e.distinct += c > 0;
  return e;
}

// ---- shard nodes as child processes ----

struct ShardProcess {
  pid_t pid = -1;
  uint16_t port = 0;
  int stop_fd = -1;  // closing it tells the child to exit
};

// Forks a child that starts node `i` (the child inherits the generated
// documents copy-on-write), reports its port through a pipe and serves until
// the parent closes the stop pipe. Call before this process starts threads.
template <class StartNode>
ShardProcess forkShard(int i, StartNode& startNode, const std::vector<ShardProcess>& earlier) {
  int port_pipe[2], stop_pipe[2];
  if (::pipe(port_pipe) != 0 || ::pipe(stop_pipe) != 0) throw std::runtime_error("pipe failed");
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::close(port_pipe[0]);
    ::close(stop_pipe[1]);
    // Or an earlier child would never see its stop pipe close.
    for (const ShardProcess& e : earlier) ::close(e.stop_fd);
    int status = 0;
    {
      auto node = startNode(i);
      uint16_t port = node->listen("127.0.0.1", 0);
      if (::write(port_pipe[1], &port, sizeof port) != sizeof port) status = 1;
      ::close(port_pipe[1]);
      char c;
      while (::read(stop_pipe[0], &c, 1) > 0) {
      }
    }
    std::fflush(nullptr);
    ::_exit(status);
  }
  ::close(port_pipe[1]);
  ::close(stop_pipe[0]);
  ShardProcess p;
  p.pid = pid;
  p.stop_fd = stop_pipe[1];
  if (::read(port_pipe[0], &p.port, sizeof p.port) != sizeof p.port) {
    throw std::runtime_error("shard process " + std::to_string(i) + " did not start");
  }
  ::close(port_pipe[0]);
  return p;
}

void stopShard(ShardProcess& p) {
  ::close(p.stop_fd);
  int status = 0;
  ::waitpid(p.pid, &status, 0);
}

// SIGTERM and SIGINT, blocked in every thread started after blockStopSignals()
// and waited for with sigwait.
sigset_t& stopSignals() {
  static sigset_t set = [] {
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGTERM);
    sigaddset(&s, SIGINT);
    return s;
  }();
  return set;
}
void blockStopSignals() { pthread_sigmask(SIG_BLOCK, &stopSignals(), nullptr); }

// --serve-shard: listens on HOST:PORT, prints "listening HOST:PORT" and
// serves until SIGTERM or SIGINT (then closes its connections and exits 0).
int serveShard(std::unique_ptr<TransportService> node, const std::string& address) {
  const auto host_port = splitHostPort(address);
  if (!host_port) {
    std::cerr << "cluster: --listen wants HOST:PORT, got " << address << " (see --help)\n";
    return 2;
  }
  const std::string& host = host_port->first;
  const uint16_t port = node->listen(host, host_port->second);
  std::cout << "listening " << host << ":" << port << std::endl;
  int sig = 0;
  sigwait(&stopSignals(), &sig);
  node.reset();
  return 0;
}

int run(int argc, char** argv) {
  int shards = 3;
  int64_t docs = 1000000;
  int32_t size = 10;
  uint32_t vocabulary = 100000;
  double exponent = 1.0;
  uint32_t seed = 42;
  bool compress = false;
  bool processes = false;
  bool tls = false;
  bool columnar = false;
  CLI::App app{"wirestream cluster example: shard nodes and a coordinator on loopback"};
  app.add_option("--shards", shards, "Shard nodes")->check(CLI::Range(1, 64));
  app.add_option("--docs", docs, "Documents over all shards")
      ->check(CLI::Range(int64_t{1}, int64_t{200000000}));
  app.add_option("--size", size, "Terms to return")->check(CLI::Range(1, 10000));
  app.add_option("--terms", vocabulary, "Distinct keyword values")
      ->check(CLI::Range(1u, 10000000u));
  // CLI::Range lets NaN through (every comparison with it is false).
  app.add_option("--zipf", exponent, "Zipf exponent of the keyword field, 0 to 100")
      ->check(CLI::Validator(
          [](const std::string& text) -> std::string {
            double v = std::strtod(text.c_str(), nullptr);
            return std::isfinite(v) && v >= 0 && v <= 100 ? "" : "must be a number from 0 to 100";
          },
          "0..100", "finite"));
  app.add_option("--seed", seed, "Seed of the generated documents");
  app.add_flag("--compress", compress,
               "LZ4-compress request bodies (status bit 0x04); responses follow");
  app.add_flag("--processes", processes, "Run each shard node in a child process");
  app.add_flag("--tls", tls, "Mutual TLS between the nodes, with ephemeral certificates");
  app.add_flag("--columnar", columnar,
               "Negotiate wirestream's extensions and receive the aggregations in the columnar "
               "encoding (wire format section 10)");
  // One shard node in the foreground, for clusters of separate hosts (the
  // network-fault suite, tools/faults.sh): no coordinator, no check.
  int serve_shard = -1;
  std::string listen_address = "127.0.0.1:0";
  std::string certs_dir;
  std::string make_certs_dir;
  std::vector<std::string> cert_ips = {"127.0.0.1"};
  app.add_option("--serve-shard", serve_shard,
                 "Run shard node I of --shards in the foreground until SIGTERM or SIGINT; "
                 "prints its address when it listens")
      ->check(CLI::Range(0, 63));
  app.add_option("--listen", listen_address, "HOST:PORT the --serve-shard node listens on");
  app.add_option("--certs", certs_dir,
                 "Mutual TLS with the certificates --make-certs wrote in this directory");
  app.add_option("--make-certs", make_certs_dir,
                 "Write a CA (cluster-ca.crt) and a certificate and key for each shard-I and "
                 "the coordinator into this directory, then exit");
  app.add_option("--cert-ips", cert_ips, "IP addresses the --make-certs certificates are for")
      ->delimiter(',');
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help
    return app.exit(e);
  } catch (const CLI::ParseError& e) {  // usage errors: one line, exit status 2
    std::cerr << "cluster: " << e.what() << " (see --help)\n";
    return 2;
  }

  if (!make_certs_dir.empty()) {
    transport::testing::CertAuthority made_ca(make_certs_dir, "cluster-ca");
    transport::testing::CertSpec spec;
    spec.ip_addresses = cert_ips;
    for (int i = 0; i < shards; ++i) made_ca.issue("shard-" + std::to_string(i), spec);
    made_ca.issue("coordinator", spec);
    return 0;
  }
  if (serve_shard >= shards) {
    std::cerr << "cluster: --serve-shard must be below --shards (see --help)\n";
    return 2;
  }

  auto t = Clock::now();
  std::vector<Shard> data = generate(shards, docs, vocabulary, exponent, seed);
  const double generate_ms = msSince(t);

  // Shard nodes: each its own TransportService on an ephemeral loopback port,
  // in this process or (--processes) in a child process of its own.
  t = Clock::now();
  // --tls: the cluster's CA and every node's certificate, made before any
  // child process forks (each inherits the files).
  std::optional<transport::testing::TempDir> cert_dir;
  std::optional<transport::testing::CertAuthority> ca;
  auto tlsFor = [&](const std::string& node_name) -> std::optional<transport::TlsOptions> {
    if (!tls) return std::nullopt;
    transport::testing::IssuedFiles files = ca->issue(node_name, {});
    transport::TlsOptions o;
    o.certificate = files.certificate;
    o.key = files.key;
    o.certificate_authorities = ca->certificateFile();
    return o;
  };
  if (tls) {
    cert_dir.emplace("wirestream-cluster");
    ca.emplace(cert_dir->path(), "cluster-ca");
  }
  std::vector<std::optional<transport::TlsOptions>> shard_tls;
  for (int i = 0; i < shards; ++i) {
    shard_tls.push_back(certs_dir.empty()
                            ? tlsFor("shard-" + std::to_string(i))
                            : std::optional(certsIn(certs_dir, "shard-" + std::to_string(i))));
  }
  TransportOptions node_options;
  node_options.compress = compress;
  auto startNode = [&](int i) {
    node_options.node_name = "shard-" + std::to_string(i);
    node_options.tls = shard_tls[static_cast<size_t>(i)];
    auto node = std::make_unique<TransportService>(node_options);
    const Shard* shard = &data[static_cast<size_t>(i)];
    // Every shard node can read and write the columnar encoding; it uses it
    // for an answer when the request asks (the coordinator negotiated it).
    transport::registerFeaturesHandler(*node, {std::string(transport::kColumnarAggregations)});
    node->registerAsyncRequestHandler(
        std::string(kQueryAction), [](StreamInput& in) { return ShardQuery(in); },
        [shard, vocabulary](ShardQuery&& q,
                            const std::shared_ptr<transport::TransportChannel>& ch) {
          ShardResult r = executeQuery(*shard, q, vocabulary);
          r.columnar = transport::requestedFeature(*ch, transport::kColumnarAggregations);
          ch->sendResponse(r);
        });
    return node;
  };
  if (serve_shard >= 0) {
    blockStopSignals();  // before the node starts its I/O threads
    return serveShard(startNode(serve_shard), listen_address);
  }
  std::vector<std::unique_ptr<TransportService>> nodes;
  std::vector<uint16_t> ports;
  std::vector<ShardProcess> children;
  for (int i = 0; i < shards; ++i) {
    if (processes) {
      children.push_back(forkShard(i, startNode, children));
      ports.push_back(children.back().port);
    } else {
      nodes.push_back(startNode(i));
      ports.push_back(nodes.back()->listen("127.0.0.1", 0));
    }
  }
  TransportOptions coordinator_options;
  coordinator_options.node_name = "coordinator";
  coordinator_options.compress = compress;
  coordinator_options.tls = tlsFor("coordinator");
  TransportService coordinator(coordinator_options);
  std::vector<std::shared_ptr<transport::Connection>> connections;
  for (uint16_t port : ports) connections.push_back(coordinator.connect("127.0.0.1", port));
  // --columnar: ask each shard node what it understands, after the handshake.
  transport::FeatureNegotiator negotiator(coordinator,
                                          {std::string(transport::kColumnarAggregations)});
  if (columnar) {
    for (auto& c : connections) negotiator.negotiate(c, 10s);
  }
  const double connect_ms = msSince(t);

  // Query phase: one request to every shard at once.
  t = Clock::now();
  ShardQuery query;
  query.size = size;
  query.shard_size = static_cast<int32_t>(size * 1.5 + 10);
  query.interval = histogramInterval(docs);
  std::vector<std::future<ShardResult>> pending;
  nlohmann::ordered_json columnar_peers = nlohmann::ordered_json::array();
  for (auto& c : connections) {
    const bool use_columnar = negotiator.has(*c, transport::kColumnarAggregations);
    columnar_peers.push_back(use_columnar);
    pending.push_back(coordinator.submitRequest(
        c, kQueryAction, query,
        [use_columnar](StreamInput& in) { return ShardResult(in, use_columnar); }, 60s,
        negotiator.callContext(*c)));
  }
  std::vector<ShardResult> results;
  for (auto& f : pending) results.push_back(f.get());
  const double query_ms = msSince(t);

  // Reduce phase.
  t = Clock::now();
  std::vector<const InternalAggregations*> lists;
  int64_t searched = 0;
  for (const ShardResult& r : results) {
    lists.push_back(&r.aggs);
    searched += r.docs;
  }
  InternalAggregations reduced =
      InternalAggregations::reduce(lists, aggregations::ReduceContext::finalReduce());
  const double reduce_ms = msSince(t);

  nlohmann::ordered_json response;
  response["took"] = static_cast<int64_t>(std::llround(query_ms + reduce_ms));
  response["timed_out"] = false;
  response["_shards"] = {{"total", shards}, {"successful", shards}, {"skipped", 0}, {"failed", 0}};
  response["hits"] = {{"total", {{"value", searched}, {"relation", "eq"}}},
                      {"max_score", nullptr},
                      {"hits", nlohmann::ordered_json::array()}};
  // The histogram is checked below rather than printed (thousands of buckets).
  response["aggregations"] = toResponseJson(reduced);
  response["aggregations"].erase(query.histogram_name);

  // The exact answer, over all documents in one place, and the bounds.
  t = Clock::now();
  Exact exact = exactAnswer(data, vocabulary, query.interval);
  const double exact_ms = msSince(t);
  const auto& terms = static_cast<const StringTerms&>(*reduced.get("top_terms"));
  const auto& card = static_cast<const Cardinality&>(*reduced.get("distinct_terms"));
  const int64_t error_bound = terms.docCountError().value_or(0);
  bool ok = true;
  nlohmann::ordered_json exact_json = nlohmann::ordered_json::array();
  int64_t in_buckets = 0;
  int64_t smallest = INT64_MAX;
  std::unordered_set<uint32_t> returned;
  for (const auto& b : terms.buckets()) {
    uint32_t id = static_cast<uint32_t>(std::stoul(std::string(b.key.substr(5))));
    returned.insert(id);
    const int64_t true_count = exact.counts[id];
    const double true_avg = exact.sums[id] / static_cast<double>(true_count);
    const auto& avg = static_cast<const Avg&>(*b.aggregations.get("avg_price"));
    // ES's promise: the count is never above the truth, and at most the
    // error bound below it; with the full count, the avg is exact.
    bool count_ok = b.doc_count <= true_count && true_count - b.doc_count <= error_bound;
    bool avg_ok = b.doc_count != true_count ||
                  std::abs(avg.value() - true_avg) <= 1e-9 * std::max(1.0, std::abs(true_avg));
    ok = ok && count_ok && avg_ok;
    exact_json.push_back({{"key", b.key},
                          {"doc_count", true_count},
                          {"avg_price", true_avg},
                          {"count_within_bound", count_ok},
                          {"avg_matches", avg_ok}});
    in_buckets += b.doc_count;
    smallest = std::min(smallest, b.doc_count);
  }
  // No term left out may beat the last one returned by more than the bound.
  int64_t best_missing = 0;
  for (uint32_t id = 0; id < vocabulary; ++id) {
    if (!returned.count(id)) best_missing = std::max(best_missing, exact.counts[id]);
  }
  const bool missing_ok = terms.buckets().empty() || best_missing <= smallest + error_bound;
  const bool other_ok = in_buckets + terms.otherDocCount() == searched && searched == docs;
  const double rel_error = std::abs(static_cast<double>(card.value() - exact.distinct)) /
                           static_cast<double>(std::max<int64_t>(1, exact.distinct));
  // HLL++ at precision 14: standard error 1.04 / sqrt(2^14) = 0.81%; allow 4 sigma.
  const double rel_bound = 4 * 1.04 / std::sqrt(static_cast<double>(1 << kHllPrecision));
  const bool card_ok = rel_error <= rel_bound;
  // Every interval with documents, with its exact count and average.
  const auto& histogram = static_cast<const DateHistogram&>(*reduced.get(query.histogram_name));
  bool histogram_ok = histogram.buckets().size() == exact.per_minute.size();
  {
    auto e = exact.per_minute.begin();
    for (const auto& b : histogram.buckets()) {
      if (!histogram_ok || e == exact.per_minute.end()) break;
      const auto& avg = static_cast<const Avg&>(*b.aggregations.get(query.avg_name));
      const double true_avg = e->second.second / static_cast<double>(e->second.first);
      histogram_ok = b.key == e->first && b.doc_count == e->second.first &&
                     std::abs(avg.value() - true_avg) <= 1e-9 * std::max(1.0, std::abs(true_avg));
      ++e;
    }
  }
  ok = ok && missing_ok && other_ok && card_ok && histogram_ok;

  // Exact top terms by count, for comparison.
  std::vector<uint32_t> order(vocabulary);
  for (uint32_t i = 0; i < vocabulary; ++i) order[i] = i;
  size_t top = std::min<size_t>(order.size(), static_cast<size_t>(size));
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top), order.end(),
                    [&](uint32_t a, uint32_t b) {
                      return exact.counts[a] != exact.counts[b] ? exact.counts[a] > exact.counts[b]
                                                                : a < b;
                    });
  nlohmann::ordered_json exact_top = nlohmann::ordered_json::array();
  for (size_t i = 0; i < top && exact.counts[order[i]] > 0; ++i) {
    exact_top.push_back({{"key", termName(order[i])}, {"doc_count", exact.counts[order[i]]}});
  }

  nlohmann::ordered_json check;
  check["exact"] = {{"top_terms", exact_top},
                    {"distinct_terms", exact.distinct},
                    {"returned_buckets_exact", exact_json}};
  check["bounds"] = {
      {"doc_count_error_upper_bound", error_bound},
      {"every_bucket_count_within_bound",
       std::all_of(exact_json.begin(), exact_json.end(),
                   [](const auto& j) { return j["count_within_bound"].template get<bool>(); })},
      {"largest_missing_term_count", best_missing},
      {"smallest_returned_count", smallest == INT64_MAX ? 0 : smallest},
      {"missing_terms_within_bound", missing_ok},
      {"buckets_plus_sum_other_equals_docs", other_ok},
      {"cardinality_estimate", card.value()},
      {"cardinality_relative_error", rel_error},
      {"cardinality_error_allowed", rel_bound},
      {"cardinality_within_bound", card_ok},
      {"date_histogram_buckets", histogram.buckets().size()},
      {"date_histogram_interval_ms", query.interval},
      {"date_histogram_matches_exact", histogram_ok},
      {"all_hold", ok}};
  uint64_t sent = 0, received = 0;
  for (auto& c : connections) {
    sent += c->bytesSent();
    received += c->bytesReceived();
  }
  check["wire"] = {{"bytes_sent_to_shards", sent},
                   {"bytes_received_from_shards", received},
                   {"compressed", compress},
                   {"columnar_aggregations_per_shard", columnar_peers},
                   {"mutual_tls", tls},
                   {"shard_nodes_are", processes ? "processes" : "threads"},
                   {"transport_version", connections[0]->version().toString()}};
  check["phases_ms"] = {{"generate_documents", generate_ms},
                        {"start_nodes_connect_handshake", connect_ms},
                        {"query_shards_over_transport", query_ms},
                        {"reduce", reduce_ms},
                        {"exact_answer", exact_ms}};
  // One JSON document: the response and the check of it.
  nlohmann::ordered_json out;
  out["response"] = std::move(response);
  out["check"] = std::move(check);
  std::cout << out.dump(2) << "\n";
  connections.clear();
  for (ShardProcess& c : children) stopShard(c);
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace wirestream::examples

int main(int argc, char** argv) { return wirestream::examples::run(argc, argv); }
