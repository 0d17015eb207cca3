// Summary: the short side-by-side table serialization_bench prints after
// Google Benchmark's own output — each operation and case with our time, the
// peers' times, the ratios against protobuf and against the memcpy bound, and
// which of the published targets the run met.
//
//   Summary summary;
//   summary.add(run);           // from a reporter, for every run reported
//   summary.print(stdout);
//
// Names are parsed as BM_<Op>_<Impl>_<Case> or BM_<Op>_<Impl>/<arg>;
// BM_Memcpy_<X>Bytes/<arg> is the bound of every <X>... operation with the
// same arg, and BM_Walk_<X>Tree/<arg> (reading the in-memory tree) is shown
// beside it. A name that does not parse is left out of the table. The time of
// a benchmark is its CPU time per iteration: the "median" aggregate when the
// run has repetitions, else the median of the iteration runs seen. Ratios are
// "times faster than protobuf" (> 1 is better) and "times the memcpy bound"
// (1 is the floor). Not thread-safe.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace wirestream::bench {

class Summary {
 public:
  void add(const benchmark::BenchmarkReporter::Run& run);
  // `cpu_ns`: CPU time of one iteration; `aggregate`: "" for an iteration
  // run, else the aggregate's name ("mean", "median", ...).
  void add(const std::string& name, double cpu_ns, const std::string& aggregate,
           const std::map<std::string, double>& counters);

  // CPU ns per iteration of `name`, if it ran.
  std::optional<double> timeOf(const std::string& name) const;
  // A counter of `name` (from the same run as its time), if present.
  std::optional<double> counterOf(const std::string& name, const std::string& counter) const;

  struct Target {
    std::string description;
    bool met;
    std::string measured;  // e.g. "1.62x"
  };
  // The published targets whose benchmarks ran.
  std::vector<Target> targets() const;

  void print(std::FILE* out) const;

 private:
  struct Entry {
    std::vector<double> iteration_ns;
    std::optional<double> median_ns;  // the "median" aggregate, when reported
    std::map<std::string, double> counters;
  };
  std::map<std::string, Entry> entries_;
  std::vector<std::string> order_;  // names in the order they first ran
};

}  // namespace wirestream::bench
