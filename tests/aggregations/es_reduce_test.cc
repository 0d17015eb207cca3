// Final reduces whose every byte came from Elasticsearch: the shard results and
// the reduced result of each test were written by ES's own classes
// (InternalAggregations.writeTo after InternalAggregations.topLevelReduce) in
// the interop harness's reduce check (interop/, ReduceCheck.java), at the
// transport version named. Each pins a difference that check found.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "agg_test_util.h"

namespace wirestream::aggregations {
namespace {

using testing::hex;
using testing::readAggs;
using testing::writeAggs;

// ES 8.7.1's transport version.
constexpr TransportVersion kEs871(8070199);

// Reads each shard's bytes, reduces them finally and writes the result.
std::vector<uint8_t> reduceShards(const std::vector<std::string>& shards, TransportVersion v,
                                  int32_t max_buckets = ReduceContext::kDefaultMaxBuckets) {
  std::vector<InternalAggregations> read;
  for (const std::string& s : shards) read.push_back(readAggs(hex(s), v));
  std::vector<const InternalAggregations*> lists;
  for (const auto& r : read) lists.push_back(&r);
  return writeAggs(InternalAggregations::reduce(lists, ReduceContext::finalReduce(max_buckets)), v);
}

// ES groups by name in a java.util.HashMap and lists the reduced aggregations
// in its iteration order: "a1" (hash 3056, bin 0) before "a0" (3055, bin 15),
// whatever order the shards sent. From ES 8.7.1, reduce case #18 of seed 7.
TEST(EsReduce, TopLevelOrderIsJavaHashMapOrder) {
  const std::vector<std::string> shards = {
      "020b76616c75655f636f756e74026130ffa40303617667026131ff037261774081ce00000000002f",
      "020b76616c75655f636f756e74026130ffcb0203617667026131ff0372617740583800000000003d",
      "020b76616c75655f636f756e74026130ff0003617667026131ff03726177c128cae2ce298f3e34",
      "020b76616c75655f636f756e74026130ffe10403617667026131ff03726177408ed6000000000041",
      "020b76616c75655f636f756e74026130ffc90403617667026131ff0372617740802a00000000002d"};
  EXPECT_EQ(reduceShards(shards, kEs871),
            hex("0203617667026131ff03726177c128b9ed8e298f3e8e020b76616c75655f636f756e74026130ff99"
                "0f"));
}

}  // namespace
}  // namespace wirestream::aggregations
