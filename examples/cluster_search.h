// The search the cluster example runs (examples/cluster.cc), shared with the
// network-fault suite's coordinator (tests/faults/fault_coordinator.cc): the
// generated documents, the query a coordinator sends each shard, the shard's
// answer (its InternalAggregations) and how a shard computes it; and what
// both programs read from their command lines: a HOST:PORT and the files of
// a --make-certs directory.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "aggregations/cardinality.h"
#include "aggregations/columnar.h"
#include "aggregations/date_histogram.h"
#include "aggregations/internal_aggregation.h"
#include "aggregations/metrics.h"
#include "aggregations/registry.h"
#include "aggregations/terms.h"
#include "stream/stream_input.h"
#include "stream/stream_output.h"
#include "transport/tls_options.h"

namespace wirestream::examples {

using aggregations::Avg;
using aggregations::Cardinality;
using aggregations::DateHistogram;
using aggregations::HyperLogLogPlusPlus;
using aggregations::InternalAggregations;
using aggregations::Metadata;
using aggregations::StringTerms;

constexpr std::string_view kQueryAction = "indices:data/read/search[phase/query]";
constexpr int kHllPrecision = 14;
constexpr int64_t kFirstTimestamp = 1793491200000;  // 2026-11-01T00:00:00Z; one doc a second

// The date_histogram interval: a minute, or a multiple of it that keeps the
// buckets at 50,000 or fewer (under ES's default search.max_buckets).
inline int64_t histogramInterval(int64_t docs) {
  int64_t minutes = docs / 60 + 1;
  return 60000 * std::max<int64_t>(1, (minutes + 49999) / 50000);
}

inline std::string termName(uint32_t id) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "term-%06u", id);
  return buf;  // zero-padded: id order is key order
}

// ---- the documents ----

struct Shard {
  std::vector<uint32_t> terms;
  std::vector<double> prices;
  std::vector<int64_t> timestamps;
};

inline std::vector<Shard> generate(int shards, int64_t docs, uint32_t vocabulary, double exponent,
                                   uint32_t seed) {
  std::vector<double> cdf(vocabulary);
  double total = 0;
  for (uint32_t i = 0; i < vocabulary; ++i) {
    total += 1.0 / std::pow(static_cast<double>(i + 1), exponent);
    cdf[i] = total;
  }
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, total);
  std::normal_distribution<double> noise(0.0, 5.0);
  std::vector<Shard> out(static_cast<size_t>(shards));
  for (auto& s : out) {
    s.terms.reserve(static_cast<size_t>(docs / shards + 1));
    s.prices.reserve(static_cast<size_t>(docs / shards + 1));
  }
  for (int64_t d = 0; d < docs; ++d) {
    uint32_t term =
        static_cast<uint32_t>(std::lower_bound(cdf.begin(), cdf.end(), unit(rng)) - cdf.begin());
    term = std::min(term, vocabulary - 1);
    double price = 10.0 + (term % 97) + noise(rng);
    Shard& s = out[static_cast<size_t>(d % shards)];
    s.terms.push_back(term);
    s.prices.push_back(std::round(price * 100) / 100);
    s.timestamps.push_back(kFirstTimestamp + d * 1000);
  }
  return out;
}

// ---- the messages ----

// What the coordinator asks each shard for.
struct ShardQuery final : Writeable {
  std::string terms_name = "top_terms";
  std::string avg_name = "avg_price";
  std::string cardinality_name = "distinct_terms";
  int32_t size = 10;
  int32_t shard_size = 25;
  std::string histogram_name = "per_minute";
  int64_t interval = 60000;

  ShardQuery() = default;
  explicit ShardQuery(StreamInput& in)
      : terms_name(in.readString()),
        avg_name(in.readString()),
        cardinality_name(in.readString()),
        size(in.readVInt()),
        shard_size(in.readVInt()),
        histogram_name(in.readString()),
        interval(in.readVLong()) {}
  void writeTo(StreamOutput& out) const override {
    out.writeString(terms_name);
    out.writeString(avg_name);
    out.writeString(cardinality_name);
    out.writeVInt(size);
    out.writeVInt(shard_size);
    out.writeString(histogram_name);
    out.writeVLong(interval);
  }
};

// A shard's answer: VLong documents searched, then its InternalAggregations,
// in the ES encoding or, when the request asked for it, the columnar one.
struct ShardResult final : Writeable {
  int64_t docs = 0;
  InternalAggregations aggs;
  bool columnar = false;

  ShardResult() = default;
  ShardResult(StreamInput& in, bool columnar_aggs)
      : docs(in.readVLong()),
        aggs(columnar_aggs
                 ? aggregations::columnar::readAggregations(in, aggregations::defaultRegistry())
                 : InternalAggregations::readFrom(in, aggregations::defaultRegistry())),
        columnar(columnar_aggs) {}
  void writeTo(StreamOutput& out) const override {
    out.writeVLong(docs);
    if (columnar) {
      aggregations::columnar::writeAggregations(out, aggs);
    } else {
      aggs.writeTo(out);
    }
  }
};

// ---- the shard side ----

inline ShardResult executeQuery(const Shard& shard, const ShardQuery& q, uint32_t vocabulary) {
  std::vector<int64_t> counts(vocabulary, 0);
  std::vector<double> sums(vocabulary, 0.0);
  HyperLogLogPlusPlus sketch(kHllPrecision);
  std::vector<bool> seen(vocabulary, false);
  for (size_t i = 0; i < shard.terms.size(); ++i) {
    uint32_t t = shard.terms[i];
    ++counts[t];
    sums[t] += shard.prices[i];
    if (!seen[t]) {
      seen[t] = true;
      std::string key = termName(t);
      sketch.collect(HyperLogLogPlusPlus::hashBytes(
          {reinterpret_cast<const uint8_t*>(key.data()), key.size()}));
    }
  }
  std::vector<uint32_t> present;
  for (uint32_t t = 0; t < vocabulary; ++t) {
    if (counts[t] > 0) present.push_back(t);
  }
  // _count desc, then key asc: ES's shard-level order for a terms agg.
  auto by_count = [&](uint32_t a, uint32_t b) {
    return counts[a] != counts[b] ? counts[a] > counts[b] : a < b;
  };
  size_t top = std::min(present.size(), static_cast<size_t>(q.shard_size));
  std::partial_sort(present.begin(), present.begin() + static_cast<std::ptrdiff_t>(top),
                    present.end(), by_count);

  auto terms = std::make_unique<StringTerms>(q.terms_name, Metadata());
  terms->setRequiredSize(q.size);
  terms->setShardSize(q.shard_size);
  terms->setDocCountError(std::nullopt);  // a shard result: computed on reduce
  int64_t in_buckets = 0;
  for (size_t i = 0; i < top; ++i) {
    uint32_t t = present[i];
    StringTerms::Bucket b;
    b.key = termName(t);
    b.doc_count = counts[t];
    std::vector<InternalAggregations::Ptr> sub;
    sub.push_back(std::make_unique<Avg>(q.avg_name, Metadata(), sums[t], counts[t]));
    b.aggregations = InternalAggregations(std::move(sub));
    terms->buckets().push_back(std::move(b));
    in_buckets += counts[t];
  }
  terms->setOtherDocCount(static_cast<int64_t>(shard.terms.size()) - in_buckets);

  // The date_histogram: one bucket per interval that has documents.
  auto per_minute = std::make_unique<DateHistogram>(q.histogram_name, Metadata());
  per_minute->setFormat(
      aggregations::DocValueFormat::dateTime("strict_date_optional_time||epoch_millis", "Z"));
  if (!shard.timestamps.empty()) {
    const int64_t first =
        shard.timestamps.front() - (shard.timestamps.front() - kFirstTimestamp) % q.interval;
    std::vector<int64_t> minute_counts(
        static_cast<size_t>((shard.timestamps.back() - first) / q.interval + 1), 0);
    std::vector<double> minute_sums(minute_counts.size(), 0.0);
    for (size_t i = 0; i < shard.timestamps.size(); ++i) {
      auto m = static_cast<size_t>((shard.timestamps[i] - first) / q.interval);
      ++minute_counts[m];
      minute_sums[m] += shard.prices[i];
    }
    for (size_t m = 0; m < minute_counts.size(); ++m) {
      if (minute_counts[m] == 0) continue;
      std::vector<InternalAggregations::Ptr> sub;
      sub.push_back(
          std::make_unique<Avg>(q.avg_name, Metadata(), minute_sums[m], minute_counts[m]));
      per_minute->buckets().push_back({first + static_cast<int64_t>(m) * q.interval,
                                       minute_counts[m], InternalAggregations(std::move(sub))});
    }
  }

  ShardResult r;
  r.docs = static_cast<int64_t>(shard.terms.size());
  r.aggs.add(std::move(terms));
  r.aggs.add(std::move(per_minute));
  r.aggs.add(std::make_unique<Cardinality>(q.cardinality_name, Metadata(), std::move(sketch)));
  return r;
}

// "HOST:PORT" split at its last colon; nullopt without one.
inline std::optional<std::pair<std::string, uint16_t>> splitHostPort(const std::string& address) {
  const auto colon = address.rfind(':');
  if (colon == std::string::npos) return std::nullopt;
  return std::pair{address.substr(0, colon),
                   static_cast<uint16_t>(std::stoi(address.substr(colon + 1)))};
}

// The TLS options of node `name` (shard-I, coordinator) in a directory that
// //examples:cluster --make-certs wrote.
inline transport::TlsOptions certsIn(const std::string& dir, const std::string& name) {
  transport::TlsOptions o;
  o.certificate = dir + "/" + name + ".crt";
  o.key = dir + "/" + name + ".key";
  o.certificate_authorities = dir + "/cluster-ca.crt";
  return o;
}

}  // namespace wirestream::examples
