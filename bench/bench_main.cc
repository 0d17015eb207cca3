// main() of the benchmark binaries: runs Google Benchmark as usual (every
// --benchmark_* flag works: filter, repetitions, format, out, out_format;
// --benchmark_min_time defaults to 0.2 s here), then prints Summary's
// side-by-side table of what ran. The summary goes to
// stdout after a console display, to stderr when the display is JSON or CSV
// so that stdout stays machine-readable.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench/summary.h"

namespace wirestream::bench {
namespace {

// Shows runs through the reporter the flags asked for and records them.
class RecordingReporter final : public benchmark::BenchmarkReporter {
 public:
  RecordingReporter(std::unique_ptr<benchmark::BenchmarkReporter> display, Summary* summary)
      : display_(std::move(display)), summary_(summary) {}

  bool ReportContext(const Context& context) override {
    display_->SetOutputStream(&GetOutputStream());
    display_->SetErrorStream(&GetErrorStream());
    return display_->ReportContext(context);
  }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) summary_->add(run);
    display_->ReportRuns(runs);
  }
  void Finalize() override { display_->Finalize(); }

 private:
  std::unique_ptr<benchmark::BenchmarkReporter> display_;
  Summary* summary_;
};

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
  Summary summary;
  RecordingReporter reporter(std::move(display), &summary);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  std::fflush(stdout);
  summary.print(format == "console" ? stdout : stderr);
  return 0;
}
