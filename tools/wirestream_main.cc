// wirestream: a command-line tool for aggregation results on the wire.
//
//   wirestream decode [--version V] FILE              InternalAggregations -> wire JSON
//   wirestream encode [--version V] JSONFILE -o FILE  wire JSON -> InternalAggregations
//   wirestream reduce [--version V] [--max-buckets N] FILE...
//                                                    final reduce -> ES response JSON (§8)
//   wirestream --version                             the library's version
//
// V is a release ("8.7.0", "7.10.0", or after 8.7 one of the release table's:
// "8.19.7", "9.1.0") or a transport version id of either shape: 7.10.0 to 8.8.x
// (7100099 to 8080199) or ES's later numbering up to the table's newest (8500000 to
// 9458007); the default is the current version, the newest supported release, 9.5.3
// (TransportVersion::current()). Others are usage errors
// giving the range.
// FILE `-` is standard input, `-o -` standard output; under `bazel run`,
// relative paths are the caller's (BUILD_WORKING_DIRECTORY). The resource contract (docs/cli.md,
// "Resource limits and errors", and --help): decode streams its output (peak memory within 64 MiB +
// 16 x the input); encode parses with bounded nesting, linear time in the members of an object, and
// caps the text it echoes; reduce keeps ES's bucket budget (--max-buckets, default 65,536) and
// streams its response as decode does. Every error is one line on stderr naming the file and where
// in it (byte offset or JSON path), exit status 1, running out of memory included; usage errors
// are one line, exit status 2.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "aggregations/internal_aggregation.h"
#include "aggregations/json/aggregation_json.h"
#include "aggregations/registry.h"
#include "stream/bytes_stream_output.h"
#include "stream/errors.h"
#include "stream/stream_input.h"
#include "stream/wirestream_version.h"
#include "tools/wire_json.h"

namespace {

using wirestream::TransportVersion;
using wirestream::aggregations::InternalAggregations;
using wirestream::aggregations::ReduceContext;

constexpr const char* kLimitsHelp = R"(Resource limits and errors (docs/cli.md):
  decode  streams its JSON; peak memory stays within 64 MiB + 16 x FILE's size.
  encode  refuses JSON nested deeper than 1024 while parsing, duplicate keys,
          and anything the readers refuse; wide objects parse in linear time.
  reduce  counts every bucket it creates against --max-buckets (default 65536,
          Elasticsearch's search.max_buckets) before allocating it, and streams
          its response JSON: printing it adds a few MiB, whatever its length.
  Errors: one line on stderr, "wirestream: FILE: ...", naming the byte offset
  (binary input) or the JSON path (text input), with echoed text cut to 200
  characters; exit status 1 (also "wirestream: out of memory"; output already
  streamed stays, cut short). Usage errors: one line, exit status 2.)";

// A failure tied to one input or output file.
struct FileError {
  std::string file;
  std::string message;
};

// Control characters (a newline in a message or a file name) would break the
// one-line contract.
std::string oneLine(std::string s) {
  for (char& c : s) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  return s;
}

std::string errnoText() { return std::strerror(errno); }

// `-` is standard input or output, as in jq and protoc.
constexpr const char* kStdio = "-";

std::vector<uint8_t> readFile(const std::string& path) {
  int fd = path == kStdio ? ::dup(STDIN_FILENO) : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw FileError{path, "cannot open: " + errnoText()};
  struct stat st;
  if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    bool dir = S_ISDIR(st.st_mode);
    std::string why = dir ? "is a directory, not a file" : "cannot stat: " + errnoText();
    ::close(fd);
    throw FileError{path, why};
  }
  std::vector<uint8_t> bytes;
  if (S_ISREG(st.st_mode)) bytes.reserve(static_cast<size_t>(st.st_size));
  uint8_t buf[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      std::string why = "read error: " + errnoText();
      ::close(fd);
      throw FileError{path, why};
    }
    bytes.insert(bytes.end(), buf, buf + n);
  }
  ::close(fd);
  return bytes;
}

void writeFile(const std::string& path, const wirestream::BytesReference& bytes) {
  int fd = path == kStdio ? ::dup(STDOUT_FILENO)
                          : ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) throw FileError{path, "cannot open for writing: " + errnoText()};
  for (auto piece : bytes.pieces()) {
    const uint8_t* p = piece.data();
    size_t left = piece.size();
    while (left > 0) {
      ssize_t n = ::write(fd, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        std::string why = "write error: " + errnoText();
        ::close(fd);
        throw FileError{path, why};
      }
      p += n;
      left -= static_cast<size_t>(n);
    }
  }
  if (::close(fd) != 0) throw FileError{path, "write error: " + errnoText()};
}

InternalAggregations decodeFile(const std::string& path, TransportVersion version) {
  std::vector<uint8_t> bytes = readFile(path);
  wirestream::ByteArrayStreamInput in(bytes);
  in.setTransportVersion(version);
  InternalAggregations aggs;
  try {
    aggs = InternalAggregations::readFrom(in, wirestream::aggregations::defaultRegistry());
  } catch (const std::bad_alloc&) {
    throw;  // main's "out of memory"
  } catch (const std::exception& e) {
    throw FileError{path, "at byte " + std::to_string(in.position()) + ": " + e.what()};
  }
  if (in.available() != 0) {
    throw FileError{path, "at byte " + std::to_string(in.position()) + ": " +
                              std::to_string(in.available()) +
                              " trailing bytes after the aggregations"};
  }
  return aggs;
}

// The transport versions the readers and writers know: 7.10.0 up to every 8.8.x patch
// release (ids of the first shape; 8.8.0's gate is in the exceptions only), then ES's own
// numbering from 8500000 (8.9) up to the newest release of the table (its gates after 8.7
// are docs/wire-format.md's, "Versions after 8.7").
const TransportVersion kOldest = TransportVersion::V_7_10_0;
constexpr int32_t kLastReleaseShaped = 8080199;  // 8.8.1
constexpr int32_t kFirstNumbered = 8500000;

int32_t newestId() {
  int32_t newest = 0;
  for (const wirestream::TransportVersionRelease& r : TransportVersion::releases()) {
    newest = std::max(newest, r.id);
  }
  return newest;
}

bool supported(TransportVersion v) {
  if (v.before(kOldest)) return false;
  return v.id() <= kLastReleaseShaped || (v.id() >= kFirstNumbered && v.id() <= newestId());
}

std::string supportedRange() {
  auto rows = TransportVersion::releases();
  std::string first_after;
  for (const wirestream::TransportVersionRelease& r : rows) {
    if (r.id >= kFirstNumbered) {
      first_after = std::string(r.release);
      break;
    }
  }
  return kOldest.toString() + " to 8.8.x (ids " + std::to_string(kOldest.id()) + " to " +
         std::to_string(kLastReleaseShaped) + "), the release table's " + first_after + " to " +
         std::string(rows.back().release) + " and ids " + std::to_string(kFirstNumbered) + " to " +
         std::to_string(newestId());
}

// Checked while the command line is parsed, so a bad --version is a usage error (exit 2).
std::string checkVersion(const std::string& text) {
  std::optional<TransportVersion> parsed;
  try {
    parsed = TransportVersion::parse(text);
  } catch (const std::exception& e) {
    return std::string(e.what()) + "; supported: " + supportedRange();
  }
  TransportVersion v = *parsed;
  if (!supported(v)) {
    return "unsupported version [" + text + "]; supported: " + supportedRange();
  }
  return "";
}

TransportVersion parseVersion(const std::string& text) { return TransportVersion::parse(text); }

// The one line for an allocation that failed, written without allocating (the
// usual message is built from strings); the output written so far stays.
int outOfMemory() {
  static constexpr char kLine[] = "wirestream: out of memory\n";
  std::cout.flush();
  std::cerr.clear();
  std::cerr.write(kLine, sizeof kLine - 1);
  std::cerr.flush();
  return 1;
}

void flushStdout() {
  std::cout.flush();
  if (!std::cout) throw FileError{"stdout", "write error: " + errnoText()};
}

int runDecode(const std::string& version, const std::string& file) {
  InternalAggregations aggs = decodeFile(file, parseVersion(version));
  wirestream::cli::writeWireJson(std::cout, aggs);
  std::cout << "\n";
  flushStdout();
  return 0;
}

int runEncode(const std::string& version, const std::string& file, const std::string& output) {
  TransportVersion v = parseVersion(version);
  std::vector<uint8_t> text = readFile(file);
  InternalAggregations aggs;
  try {
    aggs = wirestream::cli::aggregationsFromWireJsonText(
        std::string_view(reinterpret_cast<const char*>(text.data()), text.size()));
  } catch (const std::bad_alloc&) {
    throw;  // main's "out of memory"
  } catch (const std::exception& e) {
    throw FileError{file, e.what()};
  }
  text = {};
  wirestream::BytesStreamOutput out;
  out.setTransportVersion(v);
  try {
    aggs.writeTo(out);
  } catch (const std::bad_alloc&) {
    throw;  // main's "out of memory"
  } catch (const std::exception& e) {
    throw FileError{file, std::string("cannot encode: ") + e.what()};
  }
  writeFile(output, out.bytes());
  return 0;
}

int runReduce(const std::string& version, int32_t max_buckets,
              const std::vector<std::string>& files) {
  TransportVersion v = parseVersion(version);
  std::vector<InternalAggregations> shards;
  shards.reserve(files.size());
  for (const std::string& f : files) shards.push_back(decodeFile(f, v));
  std::vector<const InternalAggregations*> ptrs;
  ptrs.reserve(shards.size());
  for (const auto& s : shards) ptrs.push_back(&s);
  InternalAggregations reduced;
  try {
    ReduceContext context = ReduceContext::finalReduce(max_buckets);
    context.version = v;  // reduce as ES at --version does, not as current()
    reduced = InternalAggregations::reduce(ptrs, context);
  } catch (const std::bad_alloc&) {
    throw;  // main's "out of memory"
  } catch (const std::exception& e) {
    std::string all;
    for (const auto& f : files) all += (all.empty() ? "" : ",") + f;
    throw FileError{all, std::string("cannot reduce: ") + e.what()};
  }
  shards.clear();
  wirestream::cli::writeResponseJson(std::cout, reduced);
  std::cout << "\n";
  flushStdout();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  // `bazel run //tools:wirestream -- decode x.bin` runs in the runfiles tree: relative
  // paths are meant from where the user typed the command.
  if (const char* dir = std::getenv("BUILD_WORKING_DIRECTORY"); dir != nullptr && *dir != 0) {
    if (::chdir(dir) != 0) {
      std::cerr << "wirestream: " << oneLine(dir) << ": cannot enter: " << errnoText() << "\n";
      return 1;
    }
  }
  CLI::App app{"wirestream: decode, encode and reduce Elasticsearch-style aggregation results"};
  app.footer(kLimitsHelp);
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("wirestream ") + WIRESTREAM_VERSION +
                                        "; Elasticsearch transport versions " + supportedRange());
  std::string current = TransportVersion::current().toString();
  auto version_check = CLI::Validator(checkVersion, "VERSION", "supported transport version");

  std::string decode_version = current, decode_file;
  CLI::App* decode = app.add_subcommand(
      "decode", "Print the InternalAggregations in FILE as JSON with every wire field");
  decode->add_option("--version", decode_version, "Transport version of FILE (e.g. 7.10.0)")
      ->check(version_check)
      ->capture_default_str();
  decode->add_option("FILE", decode_file, "Binary InternalAggregations, - for stdin")->required();

  std::string encode_version = current, encode_file, encode_output;
  CLI::App* encode = app.add_subcommand(
      "encode", "Write the wire JSON in JSONFILE (as printed by decode) as binary");
  encode->add_option("--version", encode_version, "Transport version to write")
      ->check(version_check)
      ->capture_default_str();
  encode->add_option("JSONFILE", encode_file, "Wire JSON, as decode prints it; - for stdin")
      ->required();
  encode->add_option("-o,--output", encode_output, "Binary file to write, - for stdout")
      ->required();

  std::string reduce_version = current;
  int32_t max_buckets = ReduceContext::kDefaultMaxBuckets;
  std::vector<std::string> reduce_files;
  CLI::App* reduce = app.add_subcommand(
      "reduce", "Reduce one shard result per FILE (final reduce) and print the response JSON");
  reduce->add_option("--version", reduce_version, "Transport version of the files")
      ->check(version_check)
      ->capture_default_str();
  reduce
      ->add_option("--max-buckets", max_buckets,
                   "Most buckets the reduce may create (search.max_buckets)")
      ->check(CLI::Range(0, std::numeric_limits<int32_t>::max()))
      ->capture_default_str();
  reduce->add_option("FILE", reduce_files, "Binary InternalAggregations, one per shard")
      ->required();
  for (CLI::App* sub : {decode, encode, reduce}) sub->footer(kLimitsHelp);

  // A first word that is no option and no command is a mistyped command, which CLI11
  // would report as a missing one.
  if (argc > 1 && argv[1][0] != '-') {
    std::string word = argv[1];
    if (word != "decode" && word != "encode" && word != "reduce") {
      std::cerr << "wirestream: unknown command '" << oneLine(wirestream::cli::capEcho(word, 80))
                << "' (commands: decode, encode, reduce; see wirestream --help)\n";
      return 2;
    }
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help
    return app.exit(e);
  } catch (const std::bad_alloc&) {
    return outOfMemory();
  } catch (const CLI::ParseError& e) {
    std::cerr << "wirestream: " << oneLine(e.what()) << " (see wirestream --help)\n";
    return 2;
  }

  try {
    if (*decode) return runDecode(decode_version, decode_file);
    if (*encode) return runEncode(encode_version, encode_file, encode_output);
    if (*reduce) return runReduce(reduce_version, max_buckets, reduce_files);
  } catch (const std::bad_alloc&) {
    return outOfMemory();
  } catch (const FileError& e) {
    // Bytes that do not read at the default version (the newest release) are most often
    // an older node's: say which version was used and how to give theirs.
    std::string hint;
    const bool read_error = e.message.rfind("at byte ", 0) == 0;
    if (read_error && ((*decode && decode->count("--version") == 0) ||
                       (*reduce && reduce->count("--version") == 0))) {
      hint = " (read at the default version, the newest release " + current +
             "; bytes from an older node need its --version, e.g. --version 8.7.0)";
    }
    try {
      std::cout.flush();
      std::cerr << "wirestream: " << oneLine(e.file) << ": "
                << oneLine(wirestream::cli::capEcho(e.message, 400)) << hint << "\n";
    } catch (const std::bad_alloc&) {
      return outOfMemory();
    }
    return 1;
  } catch (const std::exception& e) {
    try {
      std::cerr << "wirestream: " << oneLine(wirestream::cli::capEcho(e.what(), 400)) << "\n";
    } catch (const std::bad_alloc&) {
      return outOfMemory();
    }
    return 1;
  }
  return 1;
}
