// Final reduces whose every byte came from Elasticsearch: the shard results and
// the reduced result of each test were written by ES's own classes
// (InternalAggregations.writeTo after InternalAggregations.topLevelReduce) in
// the interop harness's reduce check (interop/, ReduceCheck.java), at the
// transport version named. Each pins a difference that check found.
#include <gtest/gtest.h>

#include <algorithm>
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

// A terms order by a metric, descending, puts NaN (an avg of no values) first
// in ES 8's reduce: it compares as Double.compare, NaN above every value. lterms
// by [s0 desc], size 3, 5 shards; ES kept the terms 258, 284 and 123 (all three
// NaN) and 16254 other docs. The shards' order has no `_key asc` after it, as
// no real shard's has (ES's builders add it), so ES left the three in the order
// its priority queue happened to give: only the kept terms are compared. From
// ES 8.7.1, reduce case #1 of seed 7 (before the harness added the tie-break).
TEST(EsReduce, MetricOrderDescendingPutsNaNFirst) {
  const std::vector<std::string> shards = {
      "01066c7465726d730261300a0100056f776e657200026d3004000002733003020100037261770301d40e03"
      "d80700000000000000000103617667027330ff037261774085980000000000110000000000000203ae0300"
      "000000000000000103617667027330ff0372617740874f00000000000d00000000000002dd8d0700000000"
      "000000000103617667027330ff037261774092268000000000026a819b99557d0eaa",
      "01066c7465726d730261300a0100056f776e657200026d30040000027330030201000372617703018c0b03"
      "0900000000000000000103617667027330ff03726177000000000000000000000000000000007bca060000"
      "0000000000000103617667027330ff03726177000000000000000000000000000000011c0e000000000000"
      "00000103617667027330ff037261770000000000000000000000000000000337",
      "01066c7465726d730261300a0100056f776e657200026d3004000002733003020100037261770301ea1c03"
      "0300000000000000000103617667027330ff03726177000000000000000000000000000000010207000000"
      "00000000000103617667027330ff03726177000000000000000000000000000000011cae04000000000000"
      "00000103617667027330ff0372617700000000000000000024ec7de4ad25aded",
      "01066c7465726d730261300a0100056f776e657200026d3004000002733003020100037261770301c71603"
      "0800000000000000000103617667027330ff03726177000000000000000000000000000000010207000000"
      "00000000000103617667027330ff0372617740f92d5622cc5f7e350000000000000203f804000000000000"
      "00000103617667027330ff037261774090b68000000000070000000000000233",
      "01066c7465726d730261300a0100056f776e657200026d3004000002733003020100037261770301850e03"
      "0900000000000000000103617667027330ff037261774074160000000000080000000000000124b0060000"
      "0000000000000103617667027330ff0372617740936500000000002a24ec7de4ad25adede1010000000000"
      "0000000103617667027330ff037261774091880000000000316a819b99557d0eaa"};
  std::vector<InternalAggregations> read;
  for (const std::string& h : shards) read.push_back(readAggs(hex(h), kEs871));
  std::vector<const InternalAggregations*> lists;
  for (const auto& r : read) lists.push_back(&r);
  InternalAggregations reduced = InternalAggregations::reduce(lists, ReduceContext::finalReduce());
  const auto& terms = static_cast<const LongTerms&>(*reduced.get("a0"));
  std::vector<int64_t> keys;
  for (size_t b = 0; b < terms.buckets().size(); ++b) keys.push_back(terms.buckets().keyAt(b));
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (std::vector<int64_t>{123, 258, 284}));
  EXPECT_EQ(terms.otherDocCount(), 16254);
}

}  // namespace
}  // namespace wirestream::aggregations
