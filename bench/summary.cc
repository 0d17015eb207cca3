#include "bench/summary.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace wirestream::bench {
namespace {

struct ParsedName {
  std::string op;    // "WriteVInt"
  std::string impl;  // "Wirestream"
  std::string kase;  // "Mixed" or "1000"
};

std::optional<ParsedName> parse(const std::string& name) {
  if (name.rfind("BM_", 0) != 0) return std::nullopt;
  std::string rest = name.substr(3);
  std::string arg;
  if (size_t slash = rest.find('/'); slash != std::string::npos) {
    arg = rest.substr(slash + 1);
    rest.resize(slash);
  }
  size_t first = rest.find('_');
  if (first == std::string::npos) return std::nullopt;
  ParsedName p;
  p.op = rest.substr(0, first);
  size_t second = rest.find('_', first + 1);
  p.impl =
      rest.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
  std::string suffix = second == std::string::npos ? "" : rest.substr(second + 1);
  p.kase = suffix.empty() ? arg : arg.empty() ? suffix : suffix + "/" + arg;
  if (p.op.empty() || p.impl.empty()) return std::nullopt;
  return p;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string formatTime(double ns) {
  char buf[32];
  if (ns < 1e3) {
    std::snprintf(buf, sizeof buf, "%.1f ns", ns);
  } else if (ns < 1e6) {
    std::snprintf(buf, sizeof buf, "%.2f us", ns / 1e3);
  } else if (ns < 1e9) {
    std::snprintf(buf, sizeof buf, "%.2f ms", ns / 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f s", ns / 1e9);
  }
  return buf;
}

std::string formatRatio(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", r);
  return buf;
}

// The peers every table row is compared with, in column order; any other
// implementation follows as an extra column.
constexpr const char* kOurs = "Wirestream";
constexpr const char* kPeer = "Protobuf";

}  // namespace

void Summary::add(const benchmark::BenchmarkReporter::Run& run) {
  if (run.error_occurred) return;
  double ns = run.GetAdjustedCPUTime() / benchmark::GetTimeUnitMultiplier(run.time_unit) * 1e9;
  std::map<std::string, double> counters;
  for (const auto& [key, counter] : run.counters) counters[key] = counter.value;
  add(run.run_name.str(), ns,
      run.run_type == benchmark::BenchmarkReporter::Run::RT_Aggregate ? run.aggregate_name : "",
      counters);
}

void Summary::add(const std::string& name, double cpu_ns, const std::string& aggregate,
                  const std::map<std::string, double>& counters) {
  auto [it, inserted] = entries_.try_emplace(name);
  if (inserted) order_.push_back(name);
  Entry& e = it->second;
  if (aggregate.empty()) {
    e.iteration_ns.push_back(cpu_ns);
    for (const auto& [key, value] : counters) e.counters[key] = value;
  } else if (aggregate == "median") {
    e.median_ns = cpu_ns;
    for (const auto& [key, value] : counters) e.counters[key] = value;
  }
}

std::optional<double> Summary::timeOf(const std::string& name) const {
  auto it = entries_.find(name);
  if (it == entries_.end()) return std::nullopt;
  if (it->second.median_ns) return it->second.median_ns;
  if (it->second.iteration_ns.empty()) return std::nullopt;
  return median(it->second.iteration_ns);
}

std::optional<double> Summary::counterOf(const std::string& name,
                                         const std::string& counter) const {
  auto it = entries_.find(name);
  if (it == entries_.end()) return std::nullopt;
  auto c = it->second.counters.find(counter);
  if (c == it->second.counters.end()) return std::nullopt;
  return c->second;
}

std::vector<Summary::Target> Summary::targets() const {
  std::vector<Target> out;
  auto speedup = [&](const std::string& ours, const std::string& peer) -> std::optional<double> {
    auto a = timeOf(ours), b = timeOf(peer);
    if (!a || !b || *a <= 0) return std::nullopt;
    return *b / *a;
  };
  auto vsProtobuf = [&](const std::string& op, const std::string& kase, double min) {
    auto r = speedup("BM_" + op + "_Wirestream" + kase, "BM_" + op + "_Protobuf" + kase);
    if (!r) return;
    char desc[128];
    std::snprintf(desc, sizeof desc, "%s%s >= %.1fx protobuf", op.c_str(), kase.c_str(), min);
    out.push_back({desc, *r >= min, formatRatio(*r)});
  };
  vsProtobuf("WriteVInt", "_OneByte", 1.0);
  vsProtobuf("WriteVInt", "_Mixed", 1.5);
  vsProtobuf("WriteVInt", "_FiveByte", 1.0);
  vsProtobuf("ReadVInt", "_Mixed", 1.2);
  vsProtobuf("StringTermsSerialize", "/1000", 3.0);
  vsProtobuf("StringTermsDeserialize", "/1000", 1.5);

  const std::string serialize = "BM_StringTermsSerialize_Wirestream/1000";
  if (auto r = speedup("BM_Memcpy_StringTermsBytes/1000", serialize)) {
    // speedup(memcpy, ours) = t_ours / t_memcpy: how many memcpys we cost.
    out.push_back({"StringTermsSerialize/1000 within 10x of memcpy", *r <= 10.0,
                   formatRatio(*r) + " memcpy"});
  }
  if (auto allocs = counterOf(serialize, "allocs_per_iter")) {
    char m[64];
    std::snprintf(m, sizeof m, "%.3g allocations/iteration", *allocs);
    out.push_back({"warm BytesStreamOutput serialize: zero allocations", *allocs == 0, m});
  }
  auto peak = counterOf(serialize, "peak_extra_bytes");
  auto size = counterOf(serialize, "output_bytes");
  if (peak && size) {
    double limit = *size + 2 * 16384;
    char m[96];
    std::snprintf(m, sizeof m, "%.0f bytes (limit %.0f = output + 2 pages)", *peak, limit);
    out.push_back({"warm serialize: peak extra memory <= output + 2 pages", *peak <= limit, m});
  }
  return out;
}

void Summary::print(std::FILE* out) const {
  // Rows keyed by (op, case) in the order they ran; columns by implementation.
  std::vector<std::pair<std::string, std::string>> rows;
  std::map<std::pair<std::string, std::string>, std::map<std::string, std::string>> cells;
  std::vector<std::string> extra_impls;
  std::map<std::string, std::string> memcpy_bounds;  // "<X>\n<arg>" -> name
  std::map<std::string, std::string> walk_bounds;    // the same, for BM_Walk_<X>Tree
  for (const std::string& name : order_) {
    auto p = parse(name);
    if (!p || !timeOf(name)) continue;
    if (p->op == "Memcpy") {
      std::string subject = p->impl;
      if (subject.size() > 5 && subject.ends_with("Bytes")) subject.resize(subject.size() - 5);
      memcpy_bounds[subject + "\n" + p->kase] = name;
      continue;
    }
    if (p->op == "Walk") {
      std::string subject = p->impl;
      if (subject.size() > 4 && subject.ends_with("Tree")) subject.resize(subject.size() - 4);
      walk_bounds[subject + "\n" + p->kase] = name;
      continue;
    }
    auto key = std::make_pair(p->op, p->kase);
    if (!cells.count(key)) rows.push_back(key);
    cells[key][p->impl] = name;
  }
  // The table is about peers: rows with a protobuf time, or with our time and
  // a memcpy bound. Suites that compare only their own variants (simd) have
  // their ratios in Google Benchmark's output above.
  auto hasBound = [&](const std::pair<std::string, std::string>& key) {
    for (const auto& [subject_and_case, name] : memcpy_bounds) {
      size_t nl = subject_and_case.find('\n');
      if (key.first.starts_with(subject_and_case.substr(0, nl)) &&
          key.second == subject_and_case.substr(nl + 1)) {
        return true;
      }
    }
    return false;
  };
  std::erase_if(rows, [&](const auto& key) {
    const auto& row = cells[key];
    return !row.count(kPeer) && !(row.count(kOurs) && hasBound(key));
  });
  for (const auto& key : rows) {
    for (const auto& [impl, name] : cells[key]) {
      if (impl != kOurs && impl != kPeer &&
          std::find(extra_impls.begin(), extra_impls.end(), impl) == extra_impls.end()) {
        extra_impls.push_back(impl);
      }
    }
  }
  if (rows.empty()) return;

  std::fprintf(out,
               "\nSide by side (CPU time per iteration%s; \"x\" = times faster than "
               "protobuf, > 1 is better)\n",
               std::any_of(entries_.begin(), entries_.end(),
                           [](const auto& e) { return e.second.median_ns.has_value(); })
                   ? ", median of repetitions"
                   : "");
  std::fprintf(out, "%-24s %-9s %11s %11s %8s", "operation", "case", kOurs, kPeer, "ratio");
  for (const auto& impl : extra_impls) std::fprintf(out, " | %-20s", impl.c_str());
  std::fprintf(out, "\n");
  for (const auto& key : rows) {
    const auto& row = cells[key];
    auto timeAt = [&](const std::string& impl) -> std::optional<double> {
      auto it = row.find(impl);
      return it == row.end() ? std::nullopt : timeOf(it->second);
    };
    auto ours = timeAt(kOurs), peer = timeAt(kPeer);
    std::fprintf(out, "%-24s %-9s %11s %11s %8s", key.first.c_str(), key.second.c_str(),
                 ours ? formatTime(*ours).c_str() : "-", peer ? formatTime(*peer).c_str() : "-",
                 ours && peer ? formatRatio(*peer / *ours).c_str() : "-");
    for (const auto& impl : extra_impls) {
      auto t = timeAt(impl);
      std::string cell = t ? formatTime(*t) : "-";
      if (t && peer) cell += " (" + formatRatio(*peer / *t) + ")";
      std::fprintf(out, " | %-20s", cell.c_str());
    }
    std::fprintf(out, "\n");
  }

  bool printed_bound_header = false;
  for (const auto& key : rows) {
    for (const auto& [subject_and_case, bound_name] : memcpy_bounds) {
      size_t nl = subject_and_case.find('\n');
      if (!key.first.starts_with(subject_and_case.substr(0, nl)) ||
          key.second != subject_and_case.substr(nl + 1)) {
        continue;
      }
      auto bound = timeOf(bound_name);
      if (!printed_bound_header) {
        std::fprintf(out, "\nAgainst the memcpy bound (%s; 1.00x is the floor)\n",
                     bound_name.c_str());
        printed_bound_header = true;
      }
      std::optional<double> walk;
      if (auto w = walk_bounds.find(subject_and_case); w != walk_bounds.end()) {
        walk = timeOf(w->second);
      }
      for (const auto& [impl, name] : cells[key]) {
        auto t = timeOf(name);
        std::string walked = walk ? ", " + formatRatio(*t / *walk) + " a walk of the tree (" +
                                        formatTime(*walk) + ")"
                                  : "";
        std::fprintf(out, "%-24s %-9s %-12s %11s = %s memcpy (%s)%s\n", key.first.c_str(),
                     key.second.c_str(), impl.c_str(), formatTime(*t).c_str(),
                     formatRatio(*t / *bound).c_str(), formatTime(*bound).c_str(), walked.c_str());
      }
    }
  }

  auto targets = this->targets();
  if (!targets.empty()) {
    std::fprintf(out, "\nTargets\n");
    for (const auto& t : targets) {
      std::fprintf(out, "  [%s] %-58s %s\n", t.met ? "met " : "MISS", t.description.c_str(),
                   t.measured.c_str());
    }
  }

  bool printed_memory_header = false;
  for (const auto& key : rows) {
    for (const auto& [impl, name] : cells[key]) {
      auto allocs = counterOf(name, "allocs_per_iter");
      auto peak = counterOf(name, "peak_extra_bytes");
      if (!allocs || !peak) continue;
      if (!printed_memory_header) {
        std::fprintf(out, "\nHeap per iteration (operator new in this binary)\n");
        printed_memory_header = true;
      }
      std::fprintf(out, "%-24s %-9s %-12s %14.1f allocations %14.0f peak extra bytes\n",
                   key.first.c_str(), key.second.c_str(), impl.c_str(), *allocs, *peak);
    }
  }
  std::fflush(out);
}

}  // namespace wirestream::bench
