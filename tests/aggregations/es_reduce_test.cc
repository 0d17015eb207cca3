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

// A compound order whose first order is by key is a key order (ES's
// InternalOrder.isKeyOrder), so the shards' doc count error is 0, not unknown
// (-1). dterms ordered by [_key desc, _key desc], 3 shards cut at shard_size 7.
// From ES 8.7.1, reduce case #56 of seed 20261202.
TEST(EsReduce, CompoundKeyOrderHasNoDocCountError) {
  const std::vector<std::string> shards = {
      "0106647465726d73026130ff04ff02030304010100037261770700e40e079604004078a60000000000ab0500"
      "4082ea00000000000400408623000000000006004089f600000000000100408b7900000000000300408ce700"
      "00000000040040902e0000000000",
      "0106647465726d73026130ff04ff02030304010100037261770700db1007f405004085c20000000000a10400"
      "4086230000000000c907004089f600000000000900408b790000000000e50700408ce70000000000a3030040"
      "902e0000000000d5040040924c8000000000",
      "0106647465726d73026130ff04ff02030304010100037261770700f605070a004074960000000000b6040040"
      "78a6000000000009004081860000000000ae0500408b7900000000000600408ce70000000000020040902e00"
      "00000000010040924c8000000000"};
  EXPECT_EQ(reduceShards(shards, kEs871),
            hex("0106647465726d73026130ffff020303ff02030304010100037261770700a74504d6040040924c80"
                "00000000a9030040902e0000000000ee0700408ce70000000000b80500408b790000000000"));
}

}  // namespace
}  // namespace wirestream::aggregations
