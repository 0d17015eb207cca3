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
#include "stream/stream_input.h"
#include "stream/stream_output.h"
#include "transport/features.h"
#include "transport/testing/certgen.h"
#include "transport/transport_service.h"

namespace wirestream::examples {
namespace {

using namespace std::chrono_literals;
using aggregations::Avg;
using aggregations::Cardinality;
using aggregations::DateHistogram;
using aggregations::HyperLogLogPlusPlus;
using aggregations::InternalAggregations;
using aggregations::Metadata;
using aggregations::StringTerms;
using transport::TransportOptions;
using transport::TransportService;

constexpr std::string_view kQueryAction = "indices:data/read/search[phase/query]";
constexpr int kHllPrecision = 14;
constexpr int64_t kFirstTimestamp = 1793491200000;  // 2026-11-01T00:00:00Z; one doc a second

// The date_histogram interval: a minute, or a multiple of it that keeps the
// buckets at 50,000 or fewer (under ES's default search.max_buckets).
int64_t histogramInterval(int64_t docs) {
  int64_t minutes = docs / 60 + 1;
  return 60000 * std::max<int64_t>(1, (minutes + 49999) / 50000);
}

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string termName(uint32_t id) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "term-%06u", id);
  return buf;  // zero-padded: id order is key order
}

// ---- the documents ----

struct Shard {
  std::vector<uint32_t> terms;
  std::vector<double> prices;
  std::vector<int64_t> timestamps;
};

std::vector<Shard> generate(int shards, int64_t docs, uint32_t vocabulary, double exponent,
                            uint32_t seed) {
  std::vector<double> cdf(vocabulary);
  double total = 0;
  for (uint32_t i = 0; i < vocabulary; ++i) {
    total += 1.0 / std::pow(static_cast<double>(i + 1), exponent);
    cdf[i] = total;
  }
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, total);
  std::normal_distribution<double> noise(0.0, 5.0);
  std::vector<Shard> out(static_cast<size_t>(shards));
  for (auto& s : out) {
    s.terms.reserve(static_cast<size_t>(docs / shards + 1));
    s.prices.reserve(static_cast<size_t>(docs / shards + 1));
  }
  for (int64_t d = 0; d < docs; ++d) {
    uint32_t term =
        static_cast<uint32_t>(std::lower_bound(cdf.begin(), cdf.end(), unit(rng)) - cdf.begin());
    term = std::min(term, vocabulary - 1);
    double price = 10.0 + (term % 97) + noise(rng);
    Shard& s = out[static_cast<size_t>(d % shards)];
    s.terms.push_back(term);
    s.prices.push_back(std::round(price * 100) / 100);
    s.timestamps.push_back(kFirstTimestamp + d * 1000);
  }
  return out;
}

// ---- the messages ----

// What the coordinator asks each shard for.
struct ShardQuery final : Writeable {
  std::string terms_name = "top_terms";
  std::string avg_name = "avg_price";
  std::string cardinality_name = "distinct_terms";
  int32_t size = 10;
  int32_t shard_size = 25;
  std::string histogram_name = "per_minute";
  int64_t interval = 60000;

  ShardQuery() = default;
  explicit ShardQuery(StreamInput& in)
      : terms_name(in.readString()),
        avg_name(in.readString()),
        cardinality_name(in.readString()),
        size(in.readVInt()),
        shard_size(in.readVInt()),
        histogram_name(in.readString()),
        interval(in.readVLong()) {}
  void writeTo(StreamOutput& out) const override {
    out.writeString(terms_name);
    out.writeString(avg_name);
    out.writeString(cardinality_name);
    out.writeVInt(size);
    out.writeVInt(shard_size);
    out.writeString(histogram_name);
    out.writeVLong(interval);
  }
};

// A shard's answer: VLong documents searched, then its InternalAggregations,
// in the ES encoding or, when the request asked for it, the columnar one.
struct ShardResult final : Writeable {
  int64_t docs = 0;
  InternalAggregations aggs;
  bool columnar = false;

  ShardResult() = default;
  ShardResult(StreamInput& in, bool columnar_aggs)
      : docs(in.readVLong()),
        aggs(columnar_aggs
                 ? aggregations::columnar::readAggregations(in, aggregations::defaultRegistry())
                 : InternalAggregations::readFrom(in, aggregations::defaultRegistry())),
        columnar(columnar_aggs) {}
  void writeTo(StreamOutput& out) const override {
    out.writeVLong(docs);
    if (columnar) {
      aggregations::columnar::writeAggregations(out, aggs);
    } else {
      aggs.writeTo(out);
    }
  }
};

// ---- the shard side ----

ShardResult executeQuery(const Shard& shard, const ShardQuery& q, uint32_t vocabulary) {
  std::vector<int64_t> counts(vocabulary, 0);
  std::vector<double> sums(vocabulary, 0.0);
  HyperLogLogPlusPlus sketch(kHllPrecision);
  std::vector<bool> seen(vocabulary, false);
  for (size_t i = 0; i < shard.terms.size(); ++i) {
    uint32_t t = shard.terms[i];
    ++counts[t];
    sums[t] += shard.prices[i];
    if (!seen[t]) {
      seen[t] = true;
      std::string key = termName(t);
      sketch.collect(HyperLogLogPlusPlus::hashBytes(
          {reinterpret_cast<const uint8_t*>(key.data()), key.size()}));
    }
  }
  std::vector<uint32_t> present;
  for (uint32_t t = 0; t < vocabulary; ++t) {
    if (counts[t] > 0) present.push_back(t);
  }
  // _count desc, then key asc: ES's shard-level order for a terms agg.
  auto by_count = [&](uint32_t a, uint32_t b) {
    return counts[a] != counts[b] ? counts[a] > counts[b] : a < b;
  };
  size_t top = std::min(present.size(), static_cast<size_t>(q.shard_size));
  std::partial_sort(present.begin(), present.begin() + static_cast<std::ptrdiff_t>(top),
                    present.end(), by_count);

  auto terms = std::make_unique<StringTerms>(q.terms_name, Metadata());
  terms->setRequiredSize(q.size);
  terms->setShardSize(q.shard_size);
  terms->setDocCountError(std::nullopt);  // a shard result: computed on reduce
  int64_t in_buckets = 0;
  for (size_t i = 0; i < top; ++i) {
    uint32_t t = present[i];
    StringTerms::Bucket b;
    b.key = termName(t);
    b.doc_count = counts[t];
    std::vector<InternalAggregations::Ptr> sub;
    sub.push_back(std::make_unique<Avg>(q.avg_name, Metadata(), sums[t], counts[t]));
    b.aggregations = InternalAggregations(std::move(sub));
    terms->buckets().push_back(std::move(b));
    in_buckets += counts[t];
  }
  terms->setOtherDocCount(static_cast<int64_t>(shard.terms.size()) - in_buckets);

  // The date_histogram: one bucket per interval that has documents.
  auto per_minute = std::make_unique<DateHistogram>(q.histogram_name, Metadata());
  per_minute->setFormat(
      aggregations::DocValueFormat::dateTime("strict_date_optional_time||epoch_millis", "Z"));
  if (!shard.timestamps.empty()) {
    const int64_t first =
        shard.timestamps.front() - (shard.timestamps.front() - kFirstTimestamp) % q.interval;
    std::vector<int64_t> minute_counts(
        static_cast<size_t>((shard.timestamps.back() - first) / q.interval + 1), 0);
    std::vector<double> minute_sums(minute_counts.size(), 0.0);
    for (size_t i = 0; i < shard.timestamps.size(); ++i) {
      auto m = static_cast<size_t>((shard.timestamps[i] - first) / q.interval);
      ++minute_counts[m];
      minute_sums[m] += shard.prices[i];
    }
    for (size_t m = 0; m < minute_counts.size(); ++m) {
      if (minute_counts[m] == 0) continue;
      std::vector<InternalAggregations::Ptr> sub;
      sub.push_back(
          std::make_unique<Avg>(q.avg_name, Metadata(), minute_sums[m], minute_counts[m]));
      per_minute->buckets().push_back({first + static_cast<int64_t>(m) * q.interval,
                                       minute_counts[m], InternalAggregations(std::move(sub))});
    }
  }

  ShardResult r;
  r.docs = static_cast<int64_t>(shard.terms.size());
  r.aggs.add(std::move(terms));
  r.aggs.add(std::move(per_minute));
  r.aggs.add(std::make_unique<Cardinality>(q.cardinality_name, Metadata(), std::move(sketch)));
  return r;
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
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help
    return app.exit(e);
  } catch (const CLI::ParseError& e) {  // usage errors: one line, exit status 2
    std::cerr << "cluster: " << e.what() << " (see --help)\n";
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
  for (int i = 0; i < shards; ++i) shard_tls.push_back(tlsFor("shard-" + std::to_string(i)));
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
