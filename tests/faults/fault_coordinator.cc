// fault_coordinator: the coordinating node of the network-fault suite
// (tools/faults.sh, docs/transport.md "Network faults"). It sends the cluster
// example's search (examples/cluster_search.h) to shard nodes that run
// elsewhere (//examples:cluster --serve-shard, each in its own network
// namespace), --requests times with up to --in-flight at once, through one
// TransportService with a per-call timeout (--deadline-ms); reconnects in the
// background to a shard whose connection closed (each connect bounded by
// --connect-timeout-ms); reduces what came back and compares it, byte for
// byte, with the same reduction computed here without a network (the
// fault-free answer: the same documents, generated from the same seed, and the
// same shard code, through the same serialization). It prints one JSON line:
//
//   {"requests":1000,"correct":998,"partial":2,"wrong":0,"hung":0,
//    "failure_kinds":{"receive_timeout_transport_exception":2},
//    "failed_shards":{"shard-1":2},"max_latency_ms":...,"fds_before":..., ...}
//
// - correct: every shard answered and the reduced answer equals the fault-free one;
// - partial: some shard failed with a typed error (failure_kinds, by the
//   error's type name; node_not_connected when the shard had no open
//   connection to send on), the failed shards are named (failed_shards), and
//   the answered shards' reduction equals the fault-free reduction of those shards;
// - wrong: a reduced answer differed from the fault-free one, or a failure was untyped;
// - hung: a request not complete within --deadline-ms + --slack-ms.
// fds (/proc/self/fd), threads (/proc/self/task) and pages (the coordinator's
// own PageRecycler, pages handed out) are counted once every shard is
// connected before the first request, and again after the last one, once
// every shard is connected again (waiting up to --settle-ms for the counts to
// come back). Exit status 0 when it ran (the suite judges the numbers), 2 on
// a usage error, 1 when it could not start.
#include <dirent.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "examples/cluster_search.h"
#include "stream/bytes_stream_output.h"
#include "stream/page_recycler.h"
#include "transport/transport_service.h"

namespace wirestream::faults {
namespace {

using examples::ShardQuery;
using examples::ShardResult;
using transport::Connection;
using transport::TransportService;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

double msBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

size_t countEntries(const char* dir) {
  size_t n = 0;
  if (DIR* d = ::opendir(dir)) {
    while (dirent* e = ::readdir(d)) n += e->d_name[0] != '.';
    ::closedir(d);
  }
  return n;
}

std::vector<uint8_t> bytesOf(const Writeable& w) {
  BytesStreamOutput out;
  w.writeTo(out);
  return out.bytes().toVector();
}

std::vector<uint8_t> bytesOf(const aggregations::InternalAggregations& aggs) {
  BytesStreamOutput out;
  aggs.writeTo(out);
  return out.bytes().toVector();
}

std::vector<uint8_t> reduceToBytes(const std::vector<const ShardResult*>& results) {
  std::vector<const aggregations::InternalAggregations*> lists;
  for (const ShardResult* r : results) lists.push_back(&r->aggs);
  return bytesOf(aggregations::InternalAggregations::reduce(
      lists, aggregations::ReduceContext::finalReduce()));
}

// The type name of a failed call's error: every error the transport fails a
// call with is a TransportError; anything else is untyped (a defect).
std::string kindOf(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const transport::TransportError& t) {
    return t.type();
  } catch (const std::exception& x) {
    return std::string("untyped: ") + x.what();
  } catch (...) {
    return "untyped";
  }
}

// One shard's connection, replaced in the background when it closes.
struct ShardLink {
  std::string host;
  uint16_t port = 0;
  std::mutex mu;
  std::shared_ptr<Connection> conn;
  std::shared_ptr<Connection> get() {
    std::lock_guard<std::mutex> lock(mu);
    return conn;
  }
  bool connected() {
    auto c = get();
    return c && c->isOpen();
  }
};

// One search: a call to every shard, each completing once.
struct Request {
  explicit Request(size_t shards) : results(shards), kinds(shards), remaining(shards) {}
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::optional<ShardResult>> results;
  std::vector<std::string> kinds;  // the error's type name for a failed shard
  size_t remaining;
  Clock::time_point done;
  void complete(size_t shard, std::optional<ShardResult> r, std::string kind) {
    std::lock_guard<std::mutex> lock(mu);
    results[shard] = std::move(r);
    kinds[shard] = std::move(kind);
    if (--remaining == 0) {
      done = Clock::now();
      cv.notify_all();
    }
  }
};

enum class Outcome { kCorrect, kPartial, kWrong, kHung };

int run(int argc, char** argv) {
  std::vector<std::string> addresses;
  int requests = 1000;
  int in_flight = 16;
  int64_t deadline_ms = 2000;
  int64_t slack_ms = 1000;
  int64_t connect_timeout_ms = 1000;
  int64_t settle_ms = 10000;
  double rate = 0;
  int64_t docs = 36000;
  uint32_t vocabulary = 2000;
  double exponent = 1.0;
  uint32_t seed = 42;
  int32_t size = 10;
  int64_t interval_ms = 0;
  std::string certs_dir;
  CLI::App app{"fault_coordinator: the network-fault suite's coordinating node"};
  app.add_option("--shard-addresses", addresses, "HOST:PORT of each shard node, in shard order")
      ->delimiter(',')
      ->required();
  app.add_option("--requests", requests, "Searches to send")->check(CLI::Range(1, 10000000));
  app.add_option("--in-flight", in_flight, "Searches at once")->check(CLI::Range(1, 1024));
  app.add_option("--deadline-ms", deadline_ms, "Each shard call's timeout")
      ->check(CLI::Range(int64_t{1}, int64_t{600000}));
  app.add_option("--slack-ms", slack_ms, "A search not complete at deadline + slack is hung")
      ->check(CLI::Range(int64_t{0}, int64_t{600000}));
  app.add_option("--connect-timeout-ms", connect_timeout_ms, "TransportOptions::connect_timeout")
      ->check(CLI::Range(int64_t{1}, int64_t{600000}));
  app.add_option("--settle-ms", settle_ms,
                 "After the last search: how long to wait for every shard to be connected "
                 "and the counts to come back");
  app.add_option("--rate", rate, "Searches started a second at most (0: no pacing)");
  app.add_option("--docs", docs, "As the shard nodes were started with");
  app.add_option("--terms", vocabulary, "As the shard nodes were started with");
  app.add_option("--zipf", exponent, "As the shard nodes were started with");
  app.add_option("--seed", seed, "As the shard nodes were started with");
  app.add_option("--size", size, "Terms to return")->check(CLI::Range(1, 10000));
  app.add_option("--interval-ms", interval_ms,
                 "date_histogram interval: smaller makes larger answers (0: the example's)");
  app.add_option("--certs", certs_dir, "Mutual TLS with //examples:cluster --make-certs files");
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "fault_coordinator: " << e.what() << " (see --help)\n";
    return 2;
  }
  const size_t shards = addresses.size();
  if (shards == 0 || shards > 16) {
    std::cerr << "fault_coordinator: 1 to 16 shard addresses (see --help)\n";
    return 2;
  }

  // The fault-free answers: each shard's result through the wire encoding,
  // and the reduction of every non-empty subset of the shards.
  ShardQuery query;
  query.size = size;
  query.shard_size = static_cast<int32_t>(size * 1.5 + 10);
  query.interval = interval_ms > 0 ? interval_ms : examples::histogramInterval(docs);
  std::vector<ShardResult> local;
  size_t answer_bytes = 0;
  {
    auto data = examples::generate(static_cast<int>(shards), docs, vocabulary, exponent, seed);
    for (size_t i = 0; i < shards; ++i) {
      auto bytes = bytesOf(examples::executeQuery(data[i], query, vocabulary));
      answer_bytes = std::max(answer_bytes, bytes.size());
      ByteArrayStreamInput in(bytes);
      local.emplace_back(in, false);
    }
  }
  std::vector<std::vector<uint8_t>> expected(size_t{1} << shards);
  for (size_t mask = 1; mask < expected.size(); ++mask) {
    std::vector<const ShardResult*> subset;
    for (size_t i = 0; i < shards; ++i) {
      if (mask & (size_t{1} << i)) subset.push_back(&local[i]);
    }
    expected[mask] = reduceToBytes(subset);
  }

  PageRecycler recycler;
  transport::TransportOptions options;
  options.node_name = "coordinator";
  options.connect_timeout = std::chrono::milliseconds(connect_timeout_ms);
  options.recycler = &recycler;
  options.logger = [](transport::LogLevel level, const std::string& line) {
    if (level == transport::LogLevel::kWarn) std::cerr << "coordinator WARN " << line << "\n";
  };
  if (!certs_dir.empty()) options.tls = examples::certsIn(certs_dir, "coordinator");
  auto service = std::make_unique<TransportService>(options);

  std::vector<std::unique_ptr<ShardLink>> links;
  for (const std::string& a : addresses) {
    const auto host_port = examples::splitHostPort(a);
    if (!host_port) {
      std::cerr << "fault_coordinator: want HOST:PORT, got " << a << "\n";
      return 2;
    }
    auto link = std::make_unique<ShardLink>();
    link->host = host_port->first;
    link->port = host_port->second;
    links.push_back(std::move(link));
  }
  // Connect every shard before counting (the nodes may still be starting).
  for (auto& link : links) {
    const auto until = Clock::now() + 20s;
    while (!link->conn) {
      try {
        link->conn = service->connect(link->host, link->port);
      } catch (const std::exception& e) {
        if (Clock::now() > until) {
          std::cerr << "fault_coordinator: cannot connect to " << link->host << ":" << link->port
                    << ": " << e.what() << "\n";
          return 1;
        }
        std::this_thread::sleep_for(100ms);
      }
    }
  }
  const size_t fds_before = countEntries("/proc/self/fd");
  const size_t threads_before = countEntries("/proc/self/task");
  const size_t pages_before = recycler.outstandingPages();

  // Reconnecting in the background: one thread a shard.
  std::atomic<bool> stopping{false};
  std::mutex stats_mu;
  std::map<std::string, uint64_t> connect_failures;
  uint64_t reconnects = 0, connect_overruns = 0;
  double max_connect_ms = 0;
  std::vector<std::thread> reconnectors;
  for (auto& l : links) {
    ShardLink* link = l.get();
    reconnectors.emplace_back([&, link] {
      while (!stopping) {
        auto c = link->get();
        if (c && c->isOpen()) {
          std::this_thread::sleep_for(10ms);
          continue;
        }
        if (c) {
          c->close();
          std::lock_guard<std::mutex> lock(link->mu);
          link->conn.reset();
        }
        const auto t0 = Clock::now();
        std::string failure;
        try {
          auto fresh = service->connect(link->host, link->port);
          std::lock_guard<std::mutex> lock(link->mu);
          link->conn = std::move(fresh);
        } catch (...) {
          failure = kindOf(std::current_exception());
        }
        const double took = msBetween(t0, Clock::now());
        {
          std::lock_guard<std::mutex> lock(stats_mu);
          max_connect_ms = std::max(max_connect_ms, took);
          if (took > static_cast<double>(connect_timeout_ms + slack_ms)) ++connect_overruns;
          if (failure.empty()) {
            ++reconnects;
          } else {
            ++connect_failures[failure];
          }
        }
        if (!failure.empty()) std::this_thread::sleep_for(100ms);
      }
    });
  }

  // The searches.
  std::vector<Outcome> outcomes(static_cast<size_t>(requests), Outcome::kHung);
  std::vector<double> latencies;
  std::map<std::string, uint64_t> failure_kinds;
  std::map<std::string, uint64_t> failed_shards;
  std::vector<double> failure_times;  // ms from the start, of each partial or wrong search
  std::atomic<int> next{0};
  const auto start = Clock::now();
  const auto deadline = std::chrono::milliseconds(deadline_ms);
  const auto give_up = std::chrono::milliseconds(deadline_ms + slack_ms);
  std::vector<std::thread> workers;
  for (int w = 0; w < in_flight; ++w) {
    workers.emplace_back([&] {
      while (true) {
        const int i = next++;
        if (i >= requests) return;
        if (rate > 0)
          std::this_thread::sleep_until(
              start + std::chrono::microseconds(static_cast<int64_t>(i * 1e6 / rate)));
        auto req = std::make_shared<Request>(shards);
        const auto t0 = Clock::now();
        for (size_t s = 0; s < shards; ++s) {
          auto conn = links[s]->get();
          if (!conn || !conn->isOpen()) {
            req->complete(s, std::nullopt, "node_not_connected");
            continue;
          }
          try {
            service->sendRequest(
                conn, examples::kQueryAction, query,
                [](StreamInput& in) { return ShardResult(in, false); },
                [req, s](ShardResult&& r) { req->complete(s, std::move(r), ""); },
                [req, s](std::exception_ptr e) { req->complete(s, std::nullopt, kindOf(e)); },
                deadline);
          } catch (...) {
            req->complete(s, std::nullopt, kindOf(std::current_exception()));
          }
        }
        std::unique_lock<std::mutex> lock(req->mu);
        if (!req->cv.wait_until(lock, t0 + give_up, [&] { return req->remaining == 0; })) {
          std::lock_guard<std::mutex> g(stats_mu);
          failure_times.push_back(msBetween(start, Clock::now()));
          continue;  // hung (outcomes[i] stays kHung)
        }
        size_t mask = 0;
        std::vector<const ShardResult*> answered;
        bool untyped = false;
        for (size_t s = 0; s < shards; ++s) {
          if (req->results[s]) {
            mask |= size_t{1} << s;
            answered.push_back(&*req->results[s]);
          } else {
            untyped = untyped || req->kinds[s].rfind("untyped", 0) == 0;
          }
        }
        const double latency = msBetween(t0, req->done);
        Outcome outcome;
        if (mask == 0) {
          outcome = untyped ? Outcome::kWrong : Outcome::kPartial;
        } else {
          const bool same = reduceToBytes(answered) == expected[mask];
          if (!same || untyped) {
            outcome = Outcome::kWrong;
          } else {
            outcome = mask + 1 == expected.size() ? Outcome::kCorrect : Outcome::kPartial;
          }
        }
        std::lock_guard<std::mutex> g(stats_mu);
        outcomes[static_cast<size_t>(i)] = outcome;
        latencies.push_back(latency);
        if (outcome != Outcome::kCorrect) failure_times.push_back(msBetween(start, req->done));
        for (size_t s = 0; s < shards; ++s) {
          if (req->results[s]) continue;
          ++failure_kinds[req->kinds[s]];
          ++failed_shards["shard-" + std::to_string(s)];
        }
      }
    });
  }
  for (auto& w : workers) w.join();
  const double run_ms = msBetween(start, Clock::now());

  // After: every shard connected again, and the counts back (or the time is up).
  const auto settle_until = Clock::now() + std::chrono::milliseconds(settle_ms);
  auto all_connected = [&] {
    return std::all_of(links.begin(), links.end(), [](auto& l) { return l->connected(); });
  };
  size_t fds_after = 0, threads_after = 0, pages_after = 0;
  bool connected_after = false;
  while (true) {
    connected_after = all_connected();
    // The reconnect threads are still running: count without them.
    fds_after = countEntries("/proc/self/fd");
    threads_after = countEntries("/proc/self/task") - reconnectors.size();
    pages_after = recycler.outstandingPages();
    const bool back = connected_after && fds_after == fds_before &&
                      threads_after == threads_before && pages_after == pages_before;
    if (back || Clock::now() > settle_until) break;
    std::this_thread::sleep_for(50ms);
  }
  stopping = true;
  for (auto& t : reconnectors) t.join();

  // Requests whose call is still pending hold nothing we count after this.
  uint64_t correct = 0, partial = 0, wrong = 0, hung = 0;
  for (Outcome o : outcomes) {
    correct += o == Outcome::kCorrect;
    partial += o == Outcome::kPartial;
    wrong += o == Outcome::kWrong;
    hung += o == Outcome::kHung;
  }
  // Searches from the last one back that were all correct: the recovery.
  uint64_t tail_correct = 0;
  for (auto it = outcomes.rbegin(); it != outcomes.rend() && *it == Outcome::kCorrect; ++it) {
    ++tail_correct;
  }
  std::sort(latencies.begin(), latencies.end());
  auto pct = [&](double p) {
    if (latencies.empty()) return 0.0;
    return latencies[std::min(latencies.size() - 1,
                              static_cast<size_t>(p * static_cast<double>(latencies.size())))];
  };
  uint64_t received = 0;
  for (auto& l : links) {
    if (auto c = l->get()) received += c->bytesReceived();
  }
  nlohmann::ordered_json out;
  out["requests"] = requests;
  out["correct"] = correct;
  out["partial"] = partial;
  out["wrong"] = wrong;
  out["hung"] = hung;
  out["failure_kinds"] = failure_kinds;
  out["failed_shards"] = failed_shards;
  out["first_failure_ms"] =
      failure_times.empty() ? 0.0 : *std::min_element(failure_times.begin(), failure_times.end());
  out["last_failure_ms"] =
      failure_times.empty() ? 0.0 : *std::max_element(failure_times.begin(), failure_times.end());
  out["tail_correct"] = tail_correct;
  out["max_latency_ms"] = latencies.empty() ? 0.0 : latencies.back();
  out["p50_latency_ms"] = pct(0.5);
  out["p99_latency_ms"] = pct(0.99);
  out["deadline_ms"] = deadline_ms;
  out["slack_ms"] = slack_ms;
  out["connect_timeout_ms"] = connect_timeout_ms;
  out["reconnects"] = reconnects;
  out["connect_failures"] = connect_failures;
  out["max_connect_ms"] = max_connect_ms;
  out["connect_overruns"] = connect_overruns;
  out["connected_after"] = connected_after;
  out["fds_before"] = fds_before;
  out["fds_after"] = fds_after;
  out["threads_before"] = threads_before;
  out["threads_after"] = threads_after;
  out["pages_before"] = pages_before;
  out["pages_after"] = pages_after;
  out["run_ms"] = run_ms;
  out["answer_bytes_per_shard"] = answer_bytes;
  out["tls"] = !certs_dir.empty();
  std::cout << out.dump() << std::endl;
  for (auto& l : links) l->conn.reset();
  service.reset();
  return 0;
}

}  // namespace
}  // namespace wirestream::faults

int main(int argc, char** argv) { return wirestream::faults::run(argc, argv); }
