// Helpers shared by the aggregation tests: random instances of every type
// (valid at a given version), and write / read helpers.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "aggregations/cardinality.h"
#include "aggregations/date_histogram.h"
#include "aggregations/histogram.h"
#include "aggregations/metrics.h"
#include "aggregations/registry.h"
#include "aggregations/terms.h"
#include "stream/bytes_stream_output.h"

namespace wirestream::aggregations::testing {

// Every type name of wire format §7.
inline const std::vector<std::string> kAllTypes = {
    "sterms", "lterms", "dterms", "histogram",   "date_histogram", "max",
    "min",    "sum",    "avg",    "value_count", "stats",          "cardinality"};

// "01 0a ff" -> {0x01, 0x0a, 0xff}: expected bytes written out by hand.
inline std::vector<uint8_t> hex(const std::string& s) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i < s.size();) {
    if (s[i] == ' ') {
      ++i;
      continue;
    }
    out.push_back(static_cast<uint8_t>(std::stoi(s.substr(i, 2), nullptr, 16)));
    i += 2;
  }
  return out;
}

inline std::vector<uint8_t> writeAggs(const InternalAggregations& aggs, TransportVersion v,
                                      size_t page_size = 16384) {
  PageRecycler recycler(page_size);
  BytesStreamOutput out(recycler);
  out.setTransportVersion(v);
  aggs.writeTo(out);
  return out.bytes().toVector();
}

inline InternalAggregations readAggs(const std::vector<uint8_t>& bytes, TransportVersion v,
                                     bool expect_consumed = true) {
  ByteArrayStreamInput in(bytes);
  in.setTransportVersion(v);
  InternalAggregations aggs = InternalAggregations::readFrom(in, defaultRegistry());
  if (expect_consumed) {
    EXPECT_EQ(in.available(), 0u);
  }
  return aggs;
}

inline InternalAggregations single(std::unique_ptr<InternalAggregation> a) {
  InternalAggregations aggs;
  aggs.add(std::move(a));
  return aggs;
}

class RandomAggs {
 public:
  RandomAggs(uint64_t seed, TransportVersion version) : rng_(seed), version_(version) {}

  std::mt19937_64& rng() { return rng_; }
  int64_t uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  bool coin(double p = 0.5) { return std::bernoulli_distribution(p)(rng_); }

  std::string name() {
    static const char* kAlphabet[] = {
        "a", "b", "z", "_", "0", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", " "};
    std::string s;
    int64_t n = uniform(0, 12);
    for (int64_t i = 0; i < n; ++i) s += kAlphabet[uniform(0, 8)];
    return s;
  }

  double anyDouble() {
    switch (uniform(0, 5)) {
      case 0:
        return 0.0;
      case 1:
        return -0.0;
      case 2:
        return std::numeric_limits<double>::infinity();
      case 3:
        return -std::numeric_limits<double>::infinity();
      default:
        return std::uniform_real_distribution<double>(-1e9, 1e9)(rng_);
    }
  }

  Metadata metadata() {
    if (coin()) return GenericValue();
    GenericValue::Entries e;
    int64_t n = uniform(0, 3);
    for (int64_t i = 0; i < n; ++i) {
      GenericValue key = name() + std::to_string(i);
      if (version_.onOrAfter(TransportVersion::V_8_7_0) && coin(0.2))
        key = GenericValue::ofInt(static_cast<int32_t>(i));
      GenericValue value;
      switch (uniform(0, 3)) {
        case 0:
          value = GenericValue(name());
          break;
        case 1:
          value = GenericValue::ofLong(uniform(-1000, 1000));
          break;
        case 2:
          value = GenericValue::ofDouble(anyDouble());
          break;
        default:
          value = GenericValue::ofList({GenericValue(true), GenericValue()});
          break;
      }
      e.emplace_back(std::move(key), std::move(value));
    }
    return coin() ? GenericValue::ofMap(std::move(e)) : GenericValue::ofOrderedMap(std::move(e));
  }

  BucketOrder simpleOrder() {
    switch (uniform(0, 4)) {
      case 0:
        return BucketOrder::count(coin());
      case 1:
        return BucketOrder::key(coin());
      default:
        if (coin(0.6)) return BucketOrder::count(false);
        return BucketOrder::aggregation(name(), coin());
    }
  }
  BucketOrder order() {
    if (coin(0.8)) return simpleOrder();
    std::vector<BucketOrder> os;
    int64_t n = uniform(1, 3);
    for (int64_t i = 0; i < n; ++i) os.push_back(simpleOrder());
    return BucketOrder::compound(std::move(os));
  }

  int32_t size() {
    return coin(0.1) ? std::numeric_limits<int32_t>::max() : static_cast<int32_t>(uniform(1, 5000));
  }

  // Bucket counts: up to 1000 at the top, a few below.
  int64_t bucketCount(int depth) {
    if (depth == 0) return coin(0.3) ? uniform(0, 1000) : uniform(0, 20);
    return uniform(0, 4);
  }

  // Sub-aggregations for a bucket at `depth` (the bucket's aggregation is at depth - 1).
  InternalAggregations subAggs(int depth, int64_t sibling_buckets) {
    InternalAggregations aggs;
    if (depth > 3 || sibling_buckets > 50) return aggs;
    int64_t n = uniform(0, 2);
    for (int64_t i = 0; i < n; ++i)
      addUnique(aggs, agg(kAllTypes[uniform(0, kAllTypes.size() - 1)], depth), i);
    return aggs;
  }

  InternalAggregations aggs(int depth = 0) {
    InternalAggregations out;
    int64_t n = uniform(0, 3);
    for (int64_t i = 0; i < n; ++i)
      addUnique(out, agg(kAllTypes[uniform(0, kAllTypes.size() - 1)], depth), i);
    return out;
  }

  // Names are unique within a list (readFrom refuses repeats): the i-th gets "#i".
  static void addUnique(InternalAggregations& list, std::unique_ptr<InternalAggregation> a,
                        int64_t i) {
    a->setName(a->getName() + "#" + std::to_string(i));
    list.add(std::move(a));
  }

  template <class Key>
  std::unique_ptr<InternalAggregation> terms(int depth) {
    auto t = std::make_unique<InternalTerms<Key>>(name(), metadata());
    t->setReduceOrder(order());
    t->setOrder(order());
    t->setRequiredSize(size());
    t->setShardSize(size());
    t->setMinDocCount(uniform(0, 3));
    bool old = version_.before(TransportVersion::V_7_15_0);
    // Before 7.15.0, 0 is how absent travels.
    int64_t error = uniform(-1, 100);
    if (old && error == 0) error = 1;
    t->setDocCountError(coin(0.3) ? std::nullopt : std::optional<int64_t>(error));
    t->setShowTermDocCountError(coin());
    t->setOtherDocCount(uniform(0, 1000000));
    t->setFormat(format());
    int64_t n = bucketCount(depth);
    for (int64_t i = 0; i < n; ++i) {
      TermsBucket<Key> b;
      if constexpr (std::is_same_v<Key, StringKey>) {
        b.key = coin(0.1) ? std::string("\xFF\x00\x80", 3) : name();
      } else if constexpr (std::is_same_v<Key, LongKey>) {
        b.key = uniform(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
      } else {
        b.key = anyDouble();
      }
      b.doc_count = uniform(0, 1000000);
      b.doc_count_error = t->showTermDocCountError() ? uniform(-1, 50) : 0;
      b.aggregations = subAggs(depth + 1, n);
      t->buckets().push_back(std::move(b));
    }
    return t;
  }

  std::unique_ptr<InternalAggregation> histogram(int depth) {
    auto h = std::make_unique<Histogram>(name(), metadata());
    h->setOrder(order());
    h->setMinDocCount(uniform(0, 2));
    if (h->minDocCount() == 0) {
      Histogram::EmptyBucketInfo e;
      e.interval = std::uniform_real_distribution<double>(0.5, 100)(rng_);
      e.offset = std::uniform_real_distribution<double>(-10, 10)(rng_);
      if (coin()) e.min_bound = anyDouble();
      if (coin()) e.max_bound = anyDouble();
      e.aggregations = subAggs(depth + 1, 0);
      h->setEmptyBucketInfo(std::move(e));
    }
    h->setKeyed(coin());
    h->setFormat(format());
    int64_t n = bucketCount(depth);
    for (int64_t i = 0; i < n; ++i) {
      h->buckets().push_back({anyDouble(), uniform(0, 1000000), subAggs(depth + 1, n)});
    }
    return h;
  }

  std::unique_ptr<InternalAggregation> dateHistogram(int depth) {
    auto h = std::make_unique<DateHistogram>(name(), metadata());
    h->setOrder(order());
    h->setMinDocCount(uniform(0, 2));
    if (h->minDocCount() == 0) {
      DateHistogram::EmptyBucketInfo e;
      static const char* kZones[] = {"Z", "+01:00", "Europe/Berlin"};
      std::string zone = kZones[uniform(0, 2)];
      e.rounding = coin() ? DateHistogram::Rounding::timeUnit(
                                static_cast<DateHistogram::Unit>(uniform(1, 8)), zone)
                          : DateHistogram::Rounding::timeInterval(uniform(1, 1LL << 40), zone);
      if (coin(0.2)) e.rounding.offset = uniform(-100000, 100000);
      e.aggregations = subAggs(depth + 1, 0);
      if (coin()) {
        DateHistogram::Bounds b;
        if (coin()) b.min = uniform(-(1LL << 45), 1LL << 45);
        if (coin()) b.max = uniform(-(1LL << 45), 1LL << 45);
        if (coin(0.2)) b.min_as_str = name();
        if (coin(0.2)) b.max_as_str = name();
        e.bounds = std::move(b);
      }
      h->setEmptyBucketInfo(std::move(e));
    }
    h->setOffset(coin() ? 0 : uniform(-100000, 100000));
    h->setKeyed(coin());
    h->setFormat(format());
    int64_t n = bucketCount(depth);
    for (int64_t i = 0; i < n; ++i) {
      h->buckets().push_back(
          {uniform(-(1LL << 45), 1LL << 45), uniform(0, 1000000), subAggs(depth + 1, n)});
    }
    return h;
  }

  // Any DocValueFormat, mostly raw; formatSortValues only where it travels.
  DocValueFormat format() {
    static const char* kPatterns[] = {"strict_date_optional_time||epoch_millis", "yyyy-MM-dd",
                                      "epoch_second", "no such pattern"};
    static const char* kZones[] = {"Z", "+01:00", "Europe/Berlin"};
    switch (uniform(0, 12)) {
      case 0:
        return DocValueFormat::dateTime(
            kPatterns[uniform(0, 3)], kZones[uniform(0, 2)],
            coin() ? DocValueFormat::Resolution::kMilliseconds
                   : DocValueFormat::Resolution::kNanoseconds,
            version_.onOrAfter(TransportVersion::fromRelease(7, 13, 0)) && coin());
      case 1:
        return DocValueFormat::decimal(coin() ? "#,##0.00" : name());
      case 2: {
        const auto& names = DocValueFormat::allNames();
        std::string_view n = names[static_cast<size_t>(uniform(0, names.size() - 1))];
        if (n == "date_time" || n == "decimal") return DocValueFormat::raw();
        return DocValueFormat::fromName(n);
      }
      default:
        return DocValueFormat::raw();
    }
  }

  template <class T>
  std::unique_ptr<T> formatted(std::unique_ptr<T> a) {
    a->setFormat(format());
    return a;
  }

  HyperLogLogPlusPlus sketch() {
    HyperLogLogPlusPlus s(static_cast<int>(uniform(4, 14)));
    int64_t n = coin() ? uniform(0, static_cast<int64_t>(s.sparseThreshold())) : uniform(0, 3000);
    for (int64_t i = 0; i < n; ++i) s.collect(HyperLogLogPlusPlus::hashLong(uniform(0, 1 << 20)));
    return s;
  }

  std::unique_ptr<InternalAggregation> agg(const std::string& type, int depth) {
    if (type == "sterms") return terms<StringKey>(depth);
    if (type == "lterms") return terms<LongKey>(depth);
    if (type == "dterms") return terms<DoubleKey>(depth);
    if (type == "histogram") return histogram(depth);
    if (type == "date_histogram") return dateHistogram(depth);
    if (type == "max") return formatted(std::make_unique<Max>(name(), metadata(), anyDouble()));
    if (type == "min") return formatted(std::make_unique<Min>(name(), metadata(), anyDouble()));
    if (type == "sum") return formatted(std::make_unique<Sum>(name(), metadata(), anyDouble()));
    if (type == "avg")
      return formatted(std::make_unique<Avg>(name(), metadata(), anyDouble(), uniform(0, 1 << 30)));
    if (type == "value_count")
      return std::make_unique<ValueCount>(name(), metadata(), uniform(0, 1 << 30));
    if (type == "stats") {
      return formatted(std::make_unique<Stats>(name(), metadata(), uniform(0, 1 << 30), anyDouble(),
                                               anyDouble(), anyDouble()));
    }
    if (type == "cardinality") {
      return formatted(std::make_unique<Cardinality>(
          name(), metadata(), coin(0.2) ? std::nullopt : std::optional(sketch())));
    }
    ADD_FAILURE() << "unknown type " << type;
    return nullptr;
  }

 private:
  std::mt19937_64 rng_;
  TransportVersion version_;
};

// The seed of randomized tests: WIRESTREAM_SEED overrides the fixed default.
inline uint64_t testSeed() {
  const char* env = std::getenv("WIRESTREAM_SEED");
  uint64_t seed = env ? std::stoull(env) : 20261130;
  std::cout << "seed: " << seed << " (set WIRESTREAM_SEED to repeat another)\n";
  return seed;
}

}  // namespace wirestream::aggregations::testing
