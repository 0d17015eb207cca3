// main() of the benchmark binaries: runs Google Benchmark as usual (every
// --benchmark_* flag works: filter, repetitions, format, out, out_format;
// --benchmark_min_time defaults to 0.2 s here), then prints Summary's
// side-by-side table of what ran. The summary goes to
// stdout after a console display, to stderr when the display is JSON or CSV
// so that stdout stays machine-readable. While it runs, stderr shows progress
// (benchmarks done of how many, elapsed, the group starting), and the summary
// ends with how to read it.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bench/summary.h"

namespace wirestream::bench {
namespace {

// Shows runs through the reporter the flags asked for and records them; with
// `total` known, says on stderr when a new group of benchmarks starts.
class RecordingReporter final : public benchmark::BenchmarkReporter {
 public:
  RecordingReporter(std::unique_ptr<benchmark::BenchmarkReporter> display, Summary* summary,
                    size_t total)
      : display_(std::move(display)), summary_(summary), total_(total) {}

  bool ReportContext(const Context& context) override {
    display_->SetOutputStream(&GetOutputStream());
    display_->SetErrorStream(&GetErrorStream());
    return display_->ReportContext(context);
  }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) summary_->add(run);
    display_->ReportRuns(runs);
    if (runs.empty()) return;
    ++done_;
    // The group: BM_<Operation> of BM_<Operation>_<Implementation>[_<Case>].
    const std::string& name = runs.front().run_name.function_name;
    size_t op_end = name.find('_', name.find('_') + 1);
    std::string group = name.substr(0, op_end);
    if (group != group_ && total_ > 0) {
      group_ = group;
      auto s = std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - start_).count();
      std::fprintf(stderr, "[%zu/%zu benchmarks done, %lldm%02llds] %s\n", done_, total_,
                   static_cast<long long>(s / 60), static_cast<long long>(s % 60), group.c_str());
      std::fflush(stderr);
    }
  }
  void Finalize() override { display_->Finalize(); }

 private:
  using Clock = std::chrono::steady_clock;
  std::unique_ptr<benchmark::BenchmarkReporter> display_;
  Summary* summary_;
  size_t total_;
  size_t done_ = 0;
  std::string group_;
  Clock::time_point start_ = Clock::now();
};

// How many benchmarks the flags select: this binary again with
// --benchmark_list_tests (Google Benchmark has no API for the count). 0 if
// that fails; progress is then not shown.
std::string shellQuoted(std::string_view s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

size_t countBenchmarks(int argc, char** argv) {
  char self[4096];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);  // not the shell's
  if (n <= 0) return 0;
  std::string command = shellQuoted(std::string_view(self, static_cast<size_t>(n)));
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (!a.starts_with("--benchmark_filter")) continue;
    command += " " + shellQuoted(a);
    if (a == "--benchmark_filter" && i + 1 < argc) command += " " + shellQuoted(argv[i + 1]);
  }
  command += " --benchmark_list_tests=true 2>/dev/null";  // which this never runs again
  std::FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr) return 0;
  size_t lines = 0;
  for (int c; (c = std::fgetc(p)) != EOF;) lines += c == '\n';
  return ::pclose(p) == 0 ? lines : 0;
}

// The last lines of the console output: what the table, the targets and Google
// Benchmark's DEBUG warning mean.
constexpr const char* kHowToRead = R"(
How to read this: the table above compares wirestream ("ours") with the best peer of
each operation at its best settings (protobuf, and the columns after it); a ratio above
1.00x means wirestream is faster. "Targets" are the project's goals (Summary::targets
in bench/summary.cc): [met ] was reached in this run, [MISS] was not -- on a loaded or
shared machine a few percent of noise can flip one; python3 bench/run.py repeats interleaved runs and reports
medians with min-max (bench/RESULTS.md). The rows above the table are Google Benchmark's
own, one per benchmark. If a "***WARNING*** Library was built as DEBUG" line appeared at
the start, it is about Debian's build of libbenchmark (made without NDEBUG): the timed
loop (for (auto _ : state)) is inline code compiled here with -c opt, so only the
library's bookkeeping between batches runs unoptimized, the same for every row.
)";

// The value of --name=value or --name value in argv, read before
// benchmark::Initialize consumes the flags.
std::string flagValue(int argc, char** argv, const char* name, const char* fallback) {
  std::string prefix = std::string("--") + name;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) != 0) continue;
    const char* rest = argv[i] + prefix.size();
    if (*rest == '=') return rest + 1;
    if (*rest == '\0' && i + 1 < argc) return argv[i + 1];
  }
  return fallback;
}

constexpr const char* kDefaultMinTime = "0.2";

}  // namespace
}  // namespace wirestream::bench

int main(int argc, char** argv) {
  using namespace wirestream::bench;
  std::string format = flagValue(argc, argv, "benchmark_format", "console");
  std::string color = flagValue(argc, argv, "benchmark_color", "auto");
  // Before benchmark::Initialize, which removes the flags it knows from argv.
  bool listing = flagValue(argc, argv, "benchmark_list_tests", "false") == "true";
  size_t total = listing ? 0 : countBenchmarks(argc, argv);
  // Each benchmark runs for 0.2 s unless told otherwise: with Google
  // Benchmark's 0.5 s the whole binary (80-odd benchmarks) took over three
  // minutes on the shared 2-core machine.
  std::vector<char*> args(argv, argv + argc);
  std::string min_time = "--benchmark_min_time=" + std::string(kDefaultMinTime);
  if (flagValue(argc, argv, "benchmark_min_time", "").empty()) {
    args.insert(args.begin() + 1, min_time.data());
  }
  args.push_back(nullptr);
  argc = static_cast<int>(args.size()) - 1;
  argv = args.data();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  std::unique_ptr<benchmark::BenchmarkReporter> display;
  if (format == "json") {
    display = std::make_unique<benchmark::JSONReporter>();
  } else if (format == "csv") {
    // Deprecated upstream, still what --benchmark_format=csv asks for.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    display = std::make_unique<benchmark::CSVReporter>();
#pragma GCC diagnostic pop
  } else {
    bool use_color = color == "true" || color == "yes" || color == "1" ||
                     (color == "auto" && isatty(STDOUT_FILENO));
    display = std::make_unique<benchmark::ConsoleReporter>(
        use_color ? benchmark::ConsoleReporter::OO_ColorTabular
                  : benchmark::ConsoleReporter::OO_Tabular);
  }
  if (total > 0) std::fprintf(stderr, "Running %zu benchmarks\n", total);
  Summary summary;
  RecordingReporter reporter(std::move(display), &summary, total);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  std::fflush(stdout);
  std::FILE* out = format == "console" ? stdout : stderr;
  summary.print(out);
  if (!listing) std::fputs(kHowToRead, out);
  return 0;
}
