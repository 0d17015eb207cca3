// Serialize / deserialize a StringTerms of N buckets each holding a
// StringTerms of N buckets (N = 1000: 1M leaf buckets) into one reused
// BytesStreamOutput. Inputs are built once, outside the timed loops.
//
//   bazel run -c opt //bench/aggregations:string_terms_bench
#include <benchmark/benchmark.h>

#include <string>

#include "aggregations/registry.h"
#include "aggregations/terms.h"
#include "stream/bytes_stream_output.h"

namespace wirestream::aggregations {
namespace {

InternalAggregations nestedTerms(int n) {
  auto top = std::make_unique<StringTerms>("outer", GenericValue());
  top->buckets().reserve(n);
  for (int i = 0; i < n; ++i) {
    auto sub = std::make_unique<StringTerms>("inner", GenericValue());
    sub->buckets().reserve(n);
    for (int j = 0; j < n; ++j) {
      StringTerms::Bucket b;
      b.key = "term-" + std::to_string(j);
      b.doc_count = 1 + (i * 31 + j) % 1000;
      sub->buckets().push_back(std::move(b));
    }
    StringTerms::Bucket b;
    b.key = "key-" + std::to_string(i);
    b.doc_count = n;
    b.aggregations.add(std::move(sub));
    top->buckets().push_back(std::move(b));
  }
  InternalAggregations aggs;
  aggs.add(std::move(top));
  return aggs;
}

void BM_StringTerms_Serialize(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  InternalAggregations aggs = nestedTerms(n);
  BytesStreamOutput out;
  size_t bytes = 0;
  for (auto _ : state) {
    out.reset();
    aggs.writeTo(out);
    bytes = out.size();
    benchmark::DoNotOptimize(bytes);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.SetItemsProcessed(state.iterations() * int64_t{n} * n);
  state.counters["wire_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_StringTerms_Serialize)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

void BM_StringTerms_Deserialize(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  BytesStreamOutput out;
  nestedTerms(n).writeTo(out);
  BytesReference bytes = out.bytes();
  for (auto _ : state) {
    BytesReferenceStreamInput in(bytes);
    InternalAggregations back = InternalAggregations::readFrom(in, defaultRegistry());
    benchmark::DoNotOptimize(back);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes.length()));
  state.SetItemsProcessed(state.iterations() * int64_t{n} * n);
}
BENCHMARK(BM_StringTerms_Deserialize)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

void BM_StringTerms_Reduce(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  InternalAggregations a = nestedTerms(n), b = nestedTerms(n);
  const InternalAggregations* shards[] = {&a, &b};
  for (auto _ : state) {
    InternalAggregations r = InternalAggregations::reduce(shards, ReduceContext::finalReduce());
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations() * 2 * int64_t{n} * n);
}
BENCHMARK(BM_StringTerms_Reduce)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace wirestream::aggregations

BENCHMARK_MAIN();
