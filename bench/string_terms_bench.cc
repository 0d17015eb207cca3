// Whole-aggregation serialization, the shape of Elasticsearch's
// StringTermsSerializationBenchmark: an InternalAggregations holding one
// StringTerms "test" of N buckets ("test"+i, docCount i), each bucket holding
// a StringTerms of N buckets with no sub-aggregations; N = 1000 gives
// 1,000,000 leaf buckets. The fields are ES's: key order both ways,
// requiredSize = shardSize = N, minDocCount 1, no docCountError, format raw,
// otherDocCount 100000.
//
//   BM_StringTermsSerialize_Wirestream/N    writeTo a reused BytesStreamOutput
//                                           (reset() each time: pages go back
//                                           to the recycler and come again)
//   BM_StringTermsSerialize_Protobuf/N      SerializeToArray of the same tree
//                                           (string_terms.proto) into a
//                                           reused buffer
//   BM_StringTermsDeserialize_Wirestream/N  InternalAggregations::readFrom a
//                                           flat copy of our bytes
//   BM_StringTermsDeserialize_Protobuf/N    ParseFromArray into a fresh message
//   BM_Memcpy_StringTermsBytes/N            memcpy of as many bytes as our
//                                           serialized tree has: the bound
//   BM_Walk_StringTermsTree/N               reads what writeTo reads, writes
//                                           nothing: the other bound
//   BM_StringTermsReduce_Wirestream/N       final reduce of two shards' copies
//                                           of the tree (the coordinator's work)
//
// Deserializers build a fresh tree every iteration and destroy it inside the
// timed loop, as a node receiving a response does; both read from one flat
// buffer. Inputs are built once, outside every timed loop, and checked: our
// bytes read back equal to the tree, protobuf's parse back to N*N leaves.
//
// Memory counters, in //bench:alloc_bench only (MemoryProbe: every operator
// new of that binary; the timed binary keeps the plain allocator):
//   allocs_per_iter    allocations per timed iteration (warm);
//   peak_extra_bytes   the most live heap above the starting point during one
//                      untimed cold run: serializers into a fresh output (a
//                      fresh PageRecycler for ours), deserializers including
//                      the tree they build;
//   output_bytes       the serialized size.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "aggregations/internal_aggregation.h"
#include "aggregations/registry.h"
#include "aggregations/terms.h"
#include "bench/memory_probe.h"
#include "bench/string_terms.pb.h"
#include "stream/bytes_stream_output.h"
#include "stream/page_recycler.h"
#include "stream/stream_input.h"

namespace wirestream::bench {
namespace {

namespace agg = wirestream::aggregations;

// wire-format §7 BucketOrder ids.
constexpr uint32_t kKeyAsc = 4;
constexpr int64_t kOtherDocCount = 100000;

std::unique_ptr<agg::StringTerms> newTerms(int buckets, bool nested) {
  auto terms = std::make_unique<agg::StringTerms>("test", agg::Metadata::null());
  terms->setReduceOrder(agg::BucketOrder::key(true));
  terms->setOrder(agg::BucketOrder::key(true));
  terms->setRequiredSize(buckets);
  terms->setMinDocCount(1);
  terms->setDocCountError(std::nullopt);
  terms->setShardSize(buckets);
  terms->setShowTermDocCountError(false);
  terms->setOtherDocCount(kOtherDocCount);
  terms->buckets().reserve(static_cast<size_t>(buckets));
  for (int i = 0; i < buckets; ++i) {
    agg::StringTerms::Bucket bucket;
    bucket.key = "test" + std::to_string(i);
    bucket.doc_count = i;
    if (nested) bucket.aggregations.add(newTerms(buckets, false));
    terms->buckets().push_back(std::move(bucket));
  }
  return terms;
}

void fillProto(pb::StringTerms& terms, int buckets, bool nested) {
  terms.set_name("test");
  terms.mutable_reduce_order()->set_id(kKeyAsc);
  terms.mutable_order()->set_id(kKeyAsc);
  terms.set_required_size(static_cast<uint32_t>(buckets));
  terms.set_min_doc_count(1);
  terms.set_format("raw");
  terms.set_shard_size(static_cast<uint32_t>(buckets));
  terms.set_show_term_doc_count_error(false);
  terms.set_other_doc_count(kOtherDocCount);
  terms.mutable_buckets()->Reserve(buckets);
  for (int i = 0; i < buckets; ++i) {
    pb::Bucket* bucket = terms.add_buckets();
    bucket->set_key("test" + std::to_string(i));
    bucket->set_doc_count(static_cast<uint64_t>(i));
    if (nested) {
      fillProto(*bucket->mutable_aggregations()->add_aggregations()->mutable_sterms(), buckets,
                false);
    }
  }
}

// The inputs of one N, built on first use and kept for the process.
struct Trees {
  agg::InternalAggregations ours;
  std::vector<uint8_t> our_bytes;
  pb::InternalAggregations proto;
  std::string proto_bytes;
  std::string error;  // set if a check failed
};

size_t leafCount(const pb::InternalAggregations& aggs) {
  size_t leaves = 0;
  for (const auto& a : aggs.aggregations()) {
    for (const auto& b : a.sterms().buckets()) {
      leaves += b.has_aggregations() ? leafCount(b.aggregations()) : 1;
    }
  }
  return leaves;
}

const Trees& trees(int n) {
  static auto* cache = new std::map<int, std::unique_ptr<Trees>>();
  auto& slot = (*cache)[n];
  if (slot) return *slot;
  slot = std::make_unique<Trees>();
  Trees& t = *slot;
  t.ours.add(newTerms(n, true));
  {
    BytesStreamOutput out;
    t.ours.writeTo(out);
    t.our_bytes = out.bytes().toVector();
  }
  fillProto(*t.proto.add_aggregations()->mutable_sterms(), n, true);
  t.proto_bytes = t.proto.SerializeAsString();

  ByteArrayStreamInput in(t.our_bytes);
  if (!(agg::InternalAggregations::readFrom(in, agg::defaultRegistry()) == t.ours) ||
      in.available() != 0) {
    t.error = "our bytes do not read back to the tree";
  }
  pb::InternalAggregations parsed;
  if (!parsed.ParseFromString(t.proto_bytes) || leafCount(parsed) != static_cast<size_t>(n) * n) {
    t.error = "protobuf bytes do not parse back to the tree";
  }
  std::fprintf(stderr, "string_terms_bench: %d x %d buckets: ours %zu bytes, protobuf %zu bytes\n",
               n, n, t.our_bytes.size(), t.proto_bytes.size());
  return t;
}

void setCounters(benchmark::State& state, const MemoryProbe& timed, uint64_t cold_peak,
                 size_t output_bytes, int n) {
  if (MemoryProbe::enabled()) {
    state.counters["allocs_per_iter"] = benchmark::Counter(static_cast<double>(timed.allocations()),
                                                           benchmark::Counter::kAvgIterations);
    state.counters["peak_extra_bytes"] = static_cast<double>(cold_peak);
  }
  state.counters["output_bytes"] = static_cast<double>(output_bytes);
  state.SetItemsProcessed(state.iterations() * int64_t{n} * n);  // leaf buckets
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(output_bytes));
}

// Skips the benchmark if the inputs failed their checks.
const Trees* checkedTrees(benchmark::State& state) {
  const Trees& t = trees(static_cast<int>(state.range(0)));
  if (t.error.empty()) return &t;
  state.SkipWithError(t.error.c_str());
  for (auto _ : state) {
  }
  return nullptr;
}

void BM_StringTermsSerialize_Wirestream(benchmark::State& state) {
  const Trees* t = checkedTrees(state);
  if (!t) return;
  uint64_t cold_peak;
  {
    PageRecycler fresh;
    MemoryProbe cold;
    BytesStreamOutput out(fresh);
    t->ours.writeTo(out);
    cold_peak = cold.peakBytes();
  }
  BytesStreamOutput out;
  t->ours.writeTo(out);  // warm: the recycler now holds every page needed
  out.reset();
  MemoryProbe timed;
  for (auto _ : state) {
    out.reset();
    t->ours.writeTo(out);
    benchmark::ClobberMemory();
  }
  if (out.size() != t->our_bytes.size()) state.SkipWithError("output size changed");
  setCounters(state, timed, cold_peak, out.size(), static_cast<int>(state.range(0)));
}

void BM_StringTermsSerialize_Protobuf(benchmark::State& state) {
  const Trees* t = checkedTrees(state);
  if (!t) return;
  uint64_t cold_peak;
  {
    MemoryProbe cold;
    std::vector<uint8_t> buffer(t->proto.ByteSizeLong());
    t->proto.SerializeToArray(buffer.data(), static_cast<int>(buffer.size()));
    cold_peak = cold.peakBytes();
  }
  std::vector<uint8_t> buffer(t->proto_bytes.size());
  MemoryProbe timed;
  for (auto _ : state) {
    // SerializeToArray computes the sizes of every sub-message first
    // (ByteSizeLong) and fails if they do not fit.
    if (!t->proto.SerializeToArray(buffer.data(), static_cast<int>(buffer.size()))) {
      state.SkipWithError("SerializeToArray failed");
      break;
    }
    benchmark::ClobberMemory();
  }
  setCounters(state, timed, cold_peak, buffer.size(), static_cast<int>(state.range(0)));
}

void BM_StringTermsDeserialize_Wirestream(benchmark::State& state) {
  const Trees* t = checkedTrees(state);
  if (!t) return;
  const auto& registry = agg::defaultRegistry();
  uint64_t cold_peak;
  {
    MemoryProbe cold;
    ByteArrayStreamInput in(t->our_bytes);
    agg::InternalAggregations back = agg::InternalAggregations::readFrom(in, registry);
    cold_peak = cold.peakBytes();
  }
  MemoryProbe timed;
  for (auto _ : state) {
    ByteArrayStreamInput in(t->our_bytes);
    agg::InternalAggregations back = agg::InternalAggregations::readFrom(in, registry);
    benchmark::DoNotOptimize(back);
  }
  setCounters(state, timed, cold_peak, t->our_bytes.size(), static_cast<int>(state.range(0)));
}

void BM_StringTermsDeserialize_Protobuf(benchmark::State& state) {
  const Trees* t = checkedTrees(state);
  if (!t) return;
  uint64_t cold_peak;
  {
    MemoryProbe cold;
    pb::InternalAggregations back;
    back.ParseFromArray(t->proto_bytes.data(), static_cast<int>(t->proto_bytes.size()));
    cold_peak = cold.peakBytes();
  }
  MemoryProbe timed;
  for (auto _ : state) {
    pb::InternalAggregations back;
    if (!back.ParseFromArray(t->proto_bytes.data(), static_cast<int>(t->proto_bytes.size()))) {
      state.SkipWithError("ParseFromArray failed");
      break;
    }
    benchmark::DoNotOptimize(back);
  }
  setCounters(state, timed, cold_peak, t->proto_bytes.size(), static_cast<int>(state.range(0)));
}

void BM_Memcpy_StringTermsBytes(benchmark::State& state) {
  const Trees* t = checkedTrees(state);
  if (!t) return;
  const std::vector<uint8_t>& src = t->our_bytes;
  std::vector<uint8_t> dst(src.size());
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), src.size());
    benchmark::ClobberMemory();
  }
  int64_t n = state.range(0);
  state.SetItemsProcessed(state.iterations() * n * n);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(src.size()));
}

// Not a peer: touches every field writeTo reads (each bucket's key, doc
// count and sub-aggregation count) and writes nothing. Serializing cannot be
// faster than walking the tree; 10^6 buckets of 72 bytes do not fit in L3,
// while the memcpy bound's 10.8 MB does.
void BM_Walk_StringTermsTree(benchmark::State& state) {
  const Trees* t = checkedTrees(state);
  if (!t) return;
  for (auto _ : state) {
    uint64_t sum = 0;
    for (const auto& top : t->ours.list()) {
      for (const auto& bucket : static_cast<const agg::StringTerms&>(*top).buckets()) {
        for (const auto& inner : bucket.aggregations.list()) {
          for (const auto& leaf : static_cast<const agg::StringTerms&>(*inner).buckets()) {
            // The key's first byte and size touch its cache lines (short keys
            // live inside the bucket); copying them is writeTo's work.
            sum += static_cast<uint64_t>(leaf.doc_count) + leaf.aggregations.size() +
                   leaf.key.size() + static_cast<uint8_t>(leaf.key.front());
          }
        }
      }
    }
    benchmark::DoNotOptimize(sum);
  }
  int64_t n = state.range(0);
  state.SetItemsProcessed(state.iterations() * n * n);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(t->our_bytes.size()));
}

// Iterations take milliseconds: report them in ms. (MinTime or UseRealTime
// here would append "/min_time:..." or "/real_time" to the pinned names.)
void BM_StringTermsReduce_Wirestream(benchmark::State& state) {
  const Trees* t = checkedTrees(state);
  if (!t) return;
  const agg::InternalAggregations* shards[] = {&t->ours, &t->ours};
  for (auto _ : state) {
    agg::InternalAggregations reduced =
        agg::InternalAggregations::reduce(shards, agg::ReduceContext::finalReduce());
    benchmark::DoNotOptimize(reduced);
  }
  const int64_t n = state.range(0);
  state.SetItemsProcessed(state.iterations() * 2 * n * n);
}

#define STRING_TERMS_BENCHMARK(fn) BENCHMARK(fn)->Arg(1000)->Unit(benchmark::kMillisecond)

STRING_TERMS_BENCHMARK(BM_StringTermsSerialize_Wirestream);
STRING_TERMS_BENCHMARK(BM_StringTermsSerialize_Protobuf);
STRING_TERMS_BENCHMARK(BM_StringTermsDeserialize_Wirestream);
STRING_TERMS_BENCHMARK(BM_StringTermsDeserialize_Protobuf);
STRING_TERMS_BENCHMARK(BM_Memcpy_StringTermsBytes);
STRING_TERMS_BENCHMARK(BM_Walk_StringTermsTree);
STRING_TERMS_BENCHMARK(BM_StringTermsReduce_Wirestream);

}  // namespace
}  // namespace wirestream::bench
