// wirestream: a command-line tool for aggregation results on the wire.
//
//   wirestream decode [--version V] FILE            InternalAggregations -> wire JSON
//   wirestream encode [--version V] JSONFILE -o FILE  wire JSON -> InternalAggregations
//   wirestream reduce [--version V] FILE...          final reduce -> ES response JSON (§8)
//
// V is a release ("8.7.0", "7.10.0") or a transport version id; the default is
// the current version. Bad input (a truncated or corrupt file, unknown types,
// trailing bytes, malformed JSON) prints one line naming the file and the
// problem to stderr and exits 1; usage errors exit with CLI11's codes.
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "aggregations/internal_aggregation.h"
#include "aggregations/registry.h"
#include "stream/bytes_stream_output.h"
#include "stream/stream_input.h"

namespace {

using wirestream::TransportVersion;
using wirestream::aggregations::InternalAggregations;
using json = nlohmann::ordered_json;

// A failure tied to one input or output file.
struct FileError {
  std::string file;
  std::string message;
};

std::string oneLine(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

std::vector<uint8_t> readFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw FileError{path, "cannot open file"};
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (f.bad()) throw FileError{path, "read error"};
  return bytes;
}

InternalAggregations decodeFile(const std::string& path, TransportVersion version) {
  std::vector<uint8_t> bytes = readFile(path);
  try {
    wirestream::ByteArrayStreamInput in(bytes);
    in.setTransportVersion(version);
    InternalAggregations aggs =
        InternalAggregations::readFrom(in, wirestream::aggregations::defaultRegistry());
    if (in.available() != 0) {
      throw FileError{path, std::to_string(in.available()) +
                                " trailing bytes after the aggregations (offset " +
                                std::to_string(in.position()) + ")"};
    }
    return aggs;
  } catch (const FileError&) {
    throw;
  } catch (const std::exception& e) {
    throw FileError{path, e.what()};
  }
}

std::string dump(const json& j) { return j.dump(2, ' ', false, json::error_handler_t::replace); }

TransportVersion parseVersion(const std::string& text) {
  try {
    return TransportVersion::parse(text);
  } catch (const std::exception& e) {
    throw FileError{"--version", e.what()};
  }
}

int runDecode(const std::string& version, const std::string& file) {
  InternalAggregations aggs = decodeFile(file, parseVersion(version));
  std::cout << dump(aggs.toWireJson()) << "\n";
  return 0;
}

int runEncode(const std::string& version, const std::string& file, const std::string& output) {
  TransportVersion v = parseVersion(version);
  std::vector<uint8_t> text = readFile(file);
  InternalAggregations aggs;
  try {
    aggs = InternalAggregations::fromWireJson(json::parse(text.begin(), text.end()));
  } catch (const std::exception& e) {
    throw FileError{file, e.what()};
  }
  wirestream::BytesStreamOutput out;
  out.setTransportVersion(v);
  try {
    aggs.writeTo(out);
  } catch (const std::exception& e) {
    throw FileError{file, std::string("cannot encode: ") + e.what()};
  }
  std::ofstream f(output, std::ios::binary | std::ios::trunc);
  if (!f) throw FileError{output, "cannot open file for writing"};
  wirestream::BytesReference bytes = out.bytes();
  for (auto piece : bytes.pieces()) {
    f.write(reinterpret_cast<const char*>(piece.data()),
            static_cast<std::streamsize>(piece.size()));
  }
  f.close();
  if (!f) throw FileError{output, "write error"};
  return 0;
}

int runReduce(const std::string& version, const std::vector<std::string>& files) {
  TransportVersion v = parseVersion(version);
  std::vector<InternalAggregations> shards;
  shards.reserve(files.size());
  for (const std::string& f : files) shards.push_back(decodeFile(f, v));
  std::vector<const InternalAggregations*> ptrs;
  for (const auto& s : shards) ptrs.push_back(&s);
  InternalAggregations reduced;
  try {
    reduced =
        InternalAggregations::reduce(ptrs, wirestream::aggregations::ReduceContext::finalReduce());
  } catch (const std::exception& e) {
    std::string all;
    for (const auto& f : files) all += (all.empty() ? "" : ",") + f;
    throw FileError{all, std::string("cannot reduce: ") + e.what()};
  }
  std::cout << dump(reduced.toResponseJson()) << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"wirestream: decode, encode and reduce Elasticsearch-style aggregation results"};
  app.require_subcommand(1);
  std::string current = TransportVersion::current().toString();

  std::string decode_version = current, decode_file;
  CLI::App* decode = app.add_subcommand(
      "decode", "Print the InternalAggregations in FILE as JSON with every wire field");
  decode->add_option("--version", decode_version, "Transport version of FILE (e.g. 7.10.0)")
      ->capture_default_str();
  decode->add_option("FILE", decode_file, "Binary InternalAggregations")->required();

  std::string encode_version = current, encode_file, encode_output;
  CLI::App* encode = app.add_subcommand(
      "encode", "Write the wire JSON in JSONFILE (as printed by decode) as binary");
  encode->add_option("--version", encode_version, "Transport version to write")
      ->capture_default_str();
  encode->add_option("JSONFILE", encode_file, "Wire JSON, as decode prints it")->required();
  encode->add_option("-o,--output", encode_output, "Binary file to write")->required();

  std::string reduce_version = current;
  std::vector<std::string> reduce_files;
  CLI::App* reduce = app.add_subcommand(
      "reduce", "Reduce one shard result per FILE (final reduce) and print the response JSON");
  reduce->add_option("--version", reduce_version, "Transport version of the files")
      ->capture_default_str();
  reduce->add_option("FILE", reduce_files, "Binary InternalAggregations, one per shard")
      ->required();

  CLI11_PARSE(app, argc, argv);

  try {
    if (*decode) return runDecode(decode_version, decode_file);
    if (*encode) return runEncode(encode_version, encode_file, encode_output);
    if (*reduce) return runReduce(reduce_version, reduce_files);
  } catch (const FileError& e) {
    std::cerr << "wirestream: " << e.file << ": " << oneLine(e.message) << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "wirestream: " << oneLine(e.what()) << "\n";
    return 1;
  }
  return 1;
}
