// Writes the seed corpora of the fuzz targets: small valid encodings of every
// kind each reader accepts, one file each, named <what>.bin.
//
//   bazel run //fuzz:make_seeds            # rewrites fuzz/corpus/<target>/
//   bazel run //fuzz:make_seeds -- DIR     # writes DIR/<target>/
//
// Every seed is checked to decode cleanly before it is written, so the corpus
// starts from inputs that reach deep into the readers. The output is
// deterministic; commit it.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "fuzz/core_program.h"
#include "stream/bytes_stream_output.h"

namespace wirestream::fuzz {
namespace {

using Bytes = std::vector<uint8_t>;
using Writer = std::function<void(StreamOutput&)>;

uint8_t opIndex(const char* name) {
  for (int i = 0; i < kCoreOpCount; ++i) {
    if (std::strcmp(coreOpName(static_cast<uint8_t>(i)), name) == 0) {
      return static_cast<uint8_t>(i);
    }
  }
  std::fprintf(stderr, "make_seeds: no op %s\n", name);
  std::exit(1);
}

Bytes encode(const Writer& w) {
  BytesStreamOutput out;
  w(out);
  return out.bytes().toVector();
}

struct Seed {
  std::string name;
  Bytes bytes;
};

// One program per (reader, value), and one that runs all of them in a row.
std::vector<Seed> coreSeeds() {
  const std::string kStrings[] = {"", "hello", "h\xC3\xA9", "\xE2\x82\xAC",
                                  "\xF0\x9F\x98\x80", std::string(1, '\0'),
                                  std::string(200, 'x')};
  struct Case {
    const char* op;
    std::vector<Writer> values;
  };
  const std::vector<Case> cases = {
      {"readByte", {[](StreamOutput& o) { o.writeByte(0); }, [](StreamOutput& o) { o.writeByte(0xFF); }}},
      {"readShort", {[](StreamOutput& o) { o.writeShort(-2); }}},
      {"readInt", {[](StreamOutput& o) { o.writeInt(1); }, [](StreamOutput& o) { o.writeInt(INT32_MIN); }}},
      {"readLong", {[](StreamOutput& o) { o.writeLong(-1); }}},
      {"readVInt", {[](StreamOutput& o) { o.writeVInt(0); }, [](StreamOutput& o) { o.writeVInt(300); },
                    [](StreamOutput& o) { o.writeVInt(-1); }, [](StreamOutput& o) { o.writeVInt(INT32_MAX); }}},
      {"readVLong", {[](StreamOutput& o) { o.writeVLong(128); }, [](StreamOutput& o) { o.writeVLong(INT64_MAX); },
                     [](StreamOutput& o) { o.writeVLongNoCheck(-1); }}},
      {"readZLong", {[](StreamOutput& o) { o.writeZLong(-2); }, [](StreamOutput& o) { o.writeZLong(INT64_MIN); }}},
      {"readFloat", {[](StreamOutput& o) { o.writeFloat(1.5f); }}},
      {"readDouble", {[](StreamOutput& o) { o.writeDouble(-0.25); },
                      [](StreamOutput& o) { o.writeDouble(std::numeric_limits<double>::quiet_NaN()); }}},
      {"readBoolean", {[](StreamOutput& o) { o.writeBoolean(true); }}},
      {"readOptionalBoolean", {[](StreamOutput& o) { o.writeOptionalBoolean(std::nullopt); },
                               [](StreamOutput& o) { o.writeOptionalBoolean(false); }}},
      {"readOptionalVInt", {[](StreamOutput& o) { o.writeOptionalVInt(5); }, [](StreamOutput& o) { o.writeOptionalVInt(std::nullopt); }}},
      {"readOptionalVLong", {[](StreamOutput& o) { o.writeOptionalVLong(1LL << 40); }}},
      {"readOptionalInt", {[](StreamOutput& o) { o.writeOptionalInt(-7); }}},
      {"readOptionalLong", {[](StreamOutput& o) { o.writeOptionalLong(7); }}},
      {"readOptionalFloat", {[](StreamOutput& o) { o.writeOptionalFloat(2.0f); }}},
      {"readOptionalDouble", {[](StreamOutput& o) { o.writeOptionalDouble(3.0); }}},
      {"readString", {}},
      {"readOptionalString", {[](StreamOutput& o) { o.writeOptionalString("opt"); },
                              [](StreamOutput& o) { o.writeOptionalString(std::nullopt); }}},
      {"readByteArray", {[](StreamOutput& o) { o.writeByteArray(Bytes{1, 2, 0x80, 0xFF}); }}},
      {"readStringArray", {[&](StreamOutput& o) { o.writeStringArray(std::span<const std::string>(kStrings)); }}},
      {"readVIntArray", {[](StreamOutput& o) { o.writeVIntArray(std::vector<int32_t>{0, 300, -1}); }}},
      {"readVLongArray", {[](StreamOutput& o) { o.writeVLongArray(std::vector<int64_t>{1, 1LL << 50}); }}},
      {"readIntArray", {[](StreamOutput& o) { o.writeIntArray(std::vector<int32_t>{1, 2, 3}); }}},
      {"readLongArray", {[](StreamOutput& o) { o.writeLongArray(std::vector<int64_t>{-1, 2}); }}},
      {"readFloatArray", {[](StreamOutput& o) { o.writeFloatArray(std::vector<float>{0.5f}); }}},
      {"readDoubleArray", {[](StreamOutput& o) { o.writeDoubleArray(std::vector<double>{1e300, -0.0}); }}},
  };
  std::vector<Seed> seeds;
  Bytes all;
  auto add = [&](const char* op, size_t i, const Writer& w) {
    Bytes b{opIndex(op)};
    Bytes v = encode(w);
    b.insert(b.end(), v.begin(), v.end());
    all.insert(all.end(), b.begin(), b.end());
    seeds.push_back({std::string(op) + "-" + std::to_string(i), std::move(b)});
  };
  for (const Case& c : cases) {
    for (size_t i = 0; i < c.values.size(); ++i) add(c.op, i, c.values[i]);
  }
  for (size_t i = 0; i < std::size(kStrings); ++i) {
    add("readString", i, [&](StreamOutput& o) { o.writeString(kStrings[i]); });
  }
  seeds.push_back({"all-ops", all});
  for (const Seed& s : seeds) {
    ByteArrayStreamInput in(s.bytes);
    ProgramResult r = runCoreProgram(in, s.bytes);
    if (!r.error.empty()) {
      std::fprintf(stderr, "make_seeds: seed %s fails: %s\n", s.name.c_str(),
                   r.error.c_str());
      std::exit(1);
    }
  }
  return seeds;
}

// The paged target takes a layout byte first: each program under two layouts.
std::vector<Seed> pagedSeeds() {
  std::vector<Seed> out;
  for (const Seed& s : coreSeeds()) {
    for (uint8_t layout : {uint8_t{0x00}, uint8_t{0x93}}) {
      Bytes b{layout};
      b.insert(b.end(), s.bytes.begin(), s.bytes.end());
      char suffix[8];
      std::snprintf(suffix, sizeof suffix, "-%02x", layout);
      out.push_back({s.name + suffix, std::move(b)});
    }
  }
  return out;
}

void writeCorpus(const std::filesystem::path& dir, const std::vector<Seed>& seeds) {
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const Seed& s : seeds) {
    std::ofstream f(dir / (s.name + ".bin"), std::ios::binary);
    f.write(reinterpret_cast<const char*>(s.bytes.data()),
            static_cast<std::streamsize>(s.bytes.size()));
  }
  std::printf("%s: %zu seeds\n", dir.c_str(), seeds.size());
}

}  // namespace
}  // namespace wirestream::fuzz

int main(int argc, char** argv) {
  using namespace wirestream::fuzz;
  std::filesystem::path root;
  if (argc > 1) {
    root = argv[1];
  } else if (const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY")) {
    root = std::filesystem::path(ws) / "fuzz" / "corpus";
  } else {
    std::fprintf(stderr, "usage: make_seeds DIR (or bazel run //fuzz:make_seeds)\n");
    return 2;
  }
  writeCorpus(root / "stream_input", coreSeeds());
  writeCorpus(root / "paged_input", pagedSeeds());
  return 0;
}
