// The columnar encoding of aggregation results (aggregations/columnar.h)
// against the ES encoding, on a 1,000,000-bucket date_histogram with an avg
// sub-aggregation, as a shard would send a month of minute buckets:
//
//   BM_DateHistogramSerialize_{Es,Columnar}/N     InternalAggregations::writeTo /
//                                                 columnar::writeAggregations into a
//                                                 reused BytesStreamOutput (reset() each time)
//   BM_DateHistogramDeserialize_{Es,Columnar}/N   InternalAggregations::readFrom /
//                                                 columnar::readAggregations from those
//                                                 bytes; the result is destroyed with the
//                                                 timer paused (the same objects either way)
//   BM_DateHistogramRoundTrip_{Es,Columnar}/N     both, end to end (destruction paused too)
//   BM_DateHistogramRoundTripDestroy_{Es,Columnar}/N  the same with the destruction timed
//   BM_DateHistogramReduce_Es/N                   a final reduce of two copies (two shards with
//                                                 the same buckets); the result destroyed with
//                                                 the timer paused
//
// Buckets: minute keys from 2026-11-01 with 5% of the minutes missing (no
// document, so no bucket: minDocCount 1), doc counts 1..~200 (geometric-ish),
// avg "avg_price" over prices with two decimals (sum = count x ~100 + noise,
// rounded to cents). Counter `bytes`: the encoded size. Built once from a
// fixed seed outside the timed loops.
#include <benchmark/benchmark.h>

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "aggregations/columnar.h"
#include "aggregations/date_histogram.h"
#include "aggregations/metrics.h"
#include "aggregations/registry.h"
#include "stream/bytes_reference.h"
#include "stream/bytes_stream_output.h"

namespace wirestream::bench {
namespace {

using aggregations::Avg;
using aggregations::DateHistogram;
using aggregations::InternalAggregations;
using aggregations::Metadata;

const InternalAggregations& dateHistogram(int64_t n) {
  static std::map<int64_t, InternalAggregations> cache;
  auto it = cache.find(n);
  if (it != cache.end()) return it->second;
  std::mt19937_64 rng(0xc01u);
  std::uniform_real_distribution<double> unit(0, 1);
  auto h = std::make_unique<DateHistogram>("per_minute", Metadata());
  h->setFormat(
      aggregations::DocValueFormat::dateTime("strict_date_optional_time||epoch_millis", "Z"));
  h->buckets().reserve(static_cast<size_t>(n));
  int64_t key = 1793491200000;  // 2026-11-01T00:00:00Z
  for (int64_t i = 0; i < n; ++i) {
    while (unit(rng) < 0.05) key += 60000;
    const int64_t count = 1 + static_cast<int64_t>(-std::log(1 - unit(rng)) * 40);
    double sum = 0;
    for (int64_t c = 0; c < std::min<int64_t>(count, 4); ++c) sum += 100 + unit(rng) * 20;
    sum = std::round(sum * static_cast<double>(count) / std::min<int64_t>(count, 4) * 100) / 100;
    std::vector<InternalAggregations::Ptr> sub;
    sub.push_back(std::make_unique<Avg>("avg_price", Metadata(), sum, count));
    h->buckets().push_back({key, count, InternalAggregations(std::move(sub))});
    key += 60000;
  }
  InternalAggregations aggs;
  aggs.add(std::move(h));
  return cache.emplace(n, std::move(aggs)).first->second;
}

void writeEs(StreamOutput& out, const InternalAggregations& a) { a.writeTo(out); }
void writeColumnar(StreamOutput& out, const InternalAggregations& a) {
  aggregations::columnar::writeAggregations(out, a);
}
InternalAggregations readEs(StreamInput& in) {
  return InternalAggregations::readFrom(in, aggregations::defaultRegistry());
}
InternalAggregations readColumnar(StreamInput& in) {
  return aggregations::columnar::readAggregations(in, aggregations::defaultRegistry());
}

using Write = void (*)(StreamOutput&, const InternalAggregations&);
using Read = InternalAggregations (*)(StreamInput&);

void serialize(benchmark::State& state, Write write) {
  const InternalAggregations& aggs = dateHistogram(state.range(0));
  BytesStreamOutput out;
  for (auto _ : state) {
    out.reset();
    write(out, aggs);
    benchmark::DoNotOptimize(out.size());
  }
  state.counters["bytes"] = static_cast<double>(out.size());
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void deserialize(benchmark::State& state, Write write, Read read) {
  const InternalAggregations& aggs = dateHistogram(state.range(0));
  BytesStreamOutput out;
  write(out, aggs);
  BytesReference bytes = out.bytes();
  for (auto _ : state) {
    BytesReferenceStreamInput in(bytes);
    InternalAggregations back = read(in);
    benchmark::DoNotOptimize(back.size());
    state.PauseTiming();
    back = InternalAggregations();
    state.ResumeTiming();
  }
  state.counters["bytes"] = static_cast<double>(out.size());
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void roundTrip(benchmark::State& state, Write write, Read read, bool time_destruction) {
  const InternalAggregations& aggs = dateHistogram(state.range(0));
  BytesStreamOutput out;
  for (auto _ : state) {
    out.reset();
    write(out, aggs);
    BytesReference bytes = out.bytes();
    BytesReferenceStreamInput in(bytes);
    InternalAggregations back = read(in);
    benchmark::DoNotOptimize(back.size());
    if (!time_destruction) state.PauseTiming();
    back = InternalAggregations();
    if (!time_destruction) state.ResumeTiming();
  }
  state.counters["bytes"] = static_cast<double>(out.size());
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_DateHistogramSerialize_Es(benchmark::State& s) { serialize(s, writeEs); }
void BM_DateHistogramSerialize_Columnar(benchmark::State& s) { serialize(s, writeColumnar); }
void BM_DateHistogramDeserialize_Es(benchmark::State& s) { deserialize(s, writeEs, readEs); }
void BM_DateHistogramDeserialize_Columnar(benchmark::State& s) {
  deserialize(s, writeColumnar, readColumnar);
}
void BM_DateHistogramRoundTrip_Es(benchmark::State& s) { roundTrip(s, writeEs, readEs, false); }
void BM_DateHistogramRoundTrip_Columnar(benchmark::State& s) {
  roundTrip(s, writeColumnar, readColumnar, false);
}
void BM_DateHistogramRoundTripDestroy_Es(benchmark::State& s) {
  roundTrip(s, writeEs, readEs, true);
}
void BM_DateHistogramRoundTripDestroy_Columnar(benchmark::State& s) {
  roundTrip(s, writeColumnar, readColumnar, true);
}

void BM_DateHistogramReduce_Es(benchmark::State& state) {
  const InternalAggregations& aggs = dateHistogram(state.range(0));
  const InternalAggregations* shards[] = {&aggs, &aggs};
  for (auto _ : state) {
    InternalAggregations total = InternalAggregations::reduce(
        shards, aggregations::ReduceContext::finalReduce(std::numeric_limits<int32_t>::max()));
    benchmark::DoNotOptimize(total.size());
    state.PauseTiming();
    total = InternalAggregations();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

#define COLUMNAR_BENCH(f) BENCHMARK(f)->Arg(1000)->Arg(1000000)->Unit(benchmark::kMillisecond)
COLUMNAR_BENCH(BM_DateHistogramSerialize_Es);
COLUMNAR_BENCH(BM_DateHistogramSerialize_Columnar);
COLUMNAR_BENCH(BM_DateHistogramDeserialize_Es);
COLUMNAR_BENCH(BM_DateHistogramDeserialize_Columnar);
COLUMNAR_BENCH(BM_DateHistogramRoundTrip_Es);
COLUMNAR_BENCH(BM_DateHistogramRoundTrip_Columnar);
COLUMNAR_BENCH(BM_DateHistogramRoundTripDestroy_Es);
COLUMNAR_BENCH(BM_DateHistogramRoundTripDestroy_Columnar);
COLUMNAR_BENCH(BM_DateHistogramReduce_Es);

}  // namespace
}  // namespace wirestream::bench
