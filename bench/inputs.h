// The inputs the benchmark suites measure, in one place, so that every peer
// gets the same data: the suites here build them in process, and
// //bench:es_java_inputs writes them to files for the Elasticsearch-Java peer
// under JMH (bench/jmh), which reads exactly these values and this tree.
//
//   const auto& w = wirestream::bench::varintWorkloads();   // OneByte .. Geometric
//   auto tree = wirestream::bench::stringTermsTree(wirestream::bench::TreeShape::kEs, 1000);
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "aggregations/internal_aggregation.h"

namespace wirestream::bench {

// ---- varint workloads ----

// Values per case: 64 Ki, not a few thousand, because this AMD EPYC's branch
// predictor learns a 4096-value Mixed sequence replayed every iteration (that
// made branchy encoders look ~6x faster on Mixed than on unseen data); 64 Ki
// values (256 KiB in, <= 320 KiB out) still sit in L2.
inline constexpr size_t kVarintValues = size_t{1} << 16;
inline constexpr uint32_t kVarintSeed = 0x5eed2024;

struct Workload {
  std::string name;              // OneByte, Mixed, FiveByte, Geometric
  std::vector<uint32_t> values;  // written as int32 VInts (FiveByte: half negative)
  std::vector<uint8_t> encoded;  // the values as VInts, by ES's byte-at-a-time loop
};

// The four cases, drawn once from kVarintSeed: OneByte (values < 128), Mixed
// (width 1..5 uniformly, then a value uniform within that width), FiveByte
// (values >= 2^28 as uint32), Geometric (geometric, mean 100: mostly 1 and 2
// bytes, the shape of doc counts and sizes).
const std::vector<Workload>& varintWorkloads();

// ---- the StringTerms tree ----

// The data sets of the StringTerms suite:
//   kEs         the shape of ES's StringTermsSerializationBenchmark: keys
//               "test0".."test<N-1>", doc counts 0..N-1;
//   kRealistic  keys of 16..40 random lowercase bytes, Zipf doc counts
//               (10^6 / rank), outer counts their leaves' sums.
enum class TreeShape { kEs, kRealistic };

const char* shapeName(TreeShape shape);  // "Es", "Realistic"

// InternalAggregations holding one StringTerms "test" of n buckets, each
// holding a StringTerms "test" of n leaf buckets: key order both ways,
// requiredSize = shardSize = n, minDocCount 1, no doc count error, format raw,
// otherDocCount 100000 (ES's benchmark's fields). Deterministic.
aggregations::InternalAggregations stringTermsTree(TreeShape shape, int n);

}  // namespace wirestream::bench
