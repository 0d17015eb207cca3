// Writes the benchmark inputs of bench/inputs.h to files, for the
// Elasticsearch-Java peer under JMH (bench/jmh), so that ES's code measures
// exactly the values and the tree ours does:
//
//   es_java_inputs DIR
//     DIR/vint-<Case>.bin       the varint workload's values, int32 little-endian
//     DIR/terms-<Shape>-N.bin   the StringTerms tree (N = 1000) as
//                               InternalAggregations::writeTo writes it at
//                               wirestream's wire version (the interop harness
//                               checks ES reads these bytes to the same tree)
//
// bench/es_java_report.py runs it; it prints one line per file.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "bench/inputs.h"
#include "stream/bytes_stream_output.h"

namespace {

using wirestream::bench::TreeShape;

constexpr int kBuckets = 1000;  // 10^6 leaves, as the StringTerms suite's /1000

bool writeFile(const std::string& path, std::span<const uint8_t> bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    std::fprintf(stderr, "es_java_inputs: cannot create %s: %s\n", path.c_str(),
                 std::strerror(errno));
    return false;
  }
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  if (std::fclose(f) != 0 || !ok) {
    std::fprintf(stderr, "es_java_inputs: cannot write %s\n", path.c_str());
    return false;
  }
  std::printf("%s %zu bytes\n", path.c_str(), bytes.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: es_java_inputs DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  for (const auto& w : wirestream::bench::varintWorkloads()) {
    std::vector<uint8_t> le;
    le.reserve(w.values.size() * 4);
    for (uint32_t v : w.values) {
      for (int shift = 0; shift < 32; shift += 8) le.push_back(static_cast<uint8_t>(v >> shift));
    }
    if (!writeFile(dir + "/vint-" + w.name + ".bin", le)) return 1;
  }
  for (TreeShape shape : {TreeShape::kEs, TreeShape::kRealistic}) {
    // At 8.7.0, not TransportVersion::current(): ES 8.7.1's JMH peer reads these bytes.
    wirestream::BytesStreamOutput out;
    out.setTransportVersion(wirestream::TransportVersion::V_8_7_0);
    wirestream::bench::stringTermsTree(shape, kBuckets).writeTo(out);
    const std::string path = dir + "/terms-" + wirestream::bench::shapeName(shape) + "-" +
                             std::to_string(kBuckets) + ".bin";
    if (!writeFile(path, out.bytes().toVector())) return 1;
  }
  return 0;
}
