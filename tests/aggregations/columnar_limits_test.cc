// The columnar encoding's limits against the hostile inputs of issue 30, item
// 6, measured with the counting allocator (tests/support): each attack's
// figure from the issue is the bound it must now stay far below.
//
// - 16 aggregations of 2^23 buckets in ~1 KB: Limits::max_objects is one
//   budget for the response, not one an aggregation (was 134 M buckets,
//   2.2 GB).
// - sub-aggregation metadata of ~16.7 KB copied into every terms bucket: the
//   copies share it (was bad_alloc at 4 GiB).
// - a date_histogram of 2^23 buckets reduced: max_buckets is counted while the
//   keys are merged (was 1.05 GB before TooManyBucketsError).
//
// Each test prints its time and peak bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "aggregations/columnar.h"
#include "aggregations/date_histogram.h"
#include "aggregations/histogram.h"
#include "aggregations/metrics.h"
#include "aggregations/registry.h"
#include "aggregations/terms.h"
#include "stream/bytes_stream_output.h"
#include "stream/stream_input.h"
#include "stream/structured/structured_stream.h"
#include "tests/stream/test_util.h"
#include "tests/support/counting_allocator.h"

namespace wirestream::aggregations {
namespace {

using Bytes = std::vector<uint8_t>;
using wirestream::testing::AllocationScope;

const int64_t kDefaultMaxObjects = columnar::Limits{}.max_objects;  // 2^20
// The old per-aggregation default, the figures.
constexpr int64_t kOldMaxObjects = int64_t{1} << 23;

Bytes writeColumnar(const InternalAggregations& aggs) {
  BytesStreamOutput out;
  columnar::writeAggregations(out, aggs);
  return out.bytes().toVector();
}

InternalAggregations readColumnar(const Bytes& bytes, const columnar::Limits& limits = {}) {
  ByteArrayStreamInput in(bytes);
  InternalAggregations back = columnar::readAggregations(in, defaultRegistry(), limits);
  EXPECT_EQ(in.available(), 0u);
  return back;
}

InternalAggregations list(std::vector<InternalAggregations::Ptr> aggs) {
  return InternalAggregations(std::move(aggs));
}

// date_histogram `name` of n one-minute buckets of doc count 1 (RLE
// columns), each with a copy of `subs`.
std::unique_ptr<DateHistogram> dateHistogram(const std::string& name, int64_t n,
                                             const InternalAggregations& subs = {}) {
  auto h = std::make_unique<DateHistogram>(name, Metadata());
  h->buckets().reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) h->buckets().push_back({i * 60000, 1, subs});
  return h;
}

// lterms `name` of n buckets (keys 0, 1, ...; doc count 1), each with a copy of `subs`.
std::unique_ptr<LongTerms> longTerms(const std::string& name, int64_t n,
                                     const InternalAggregations& subs = {}) {
  auto t = std::make_unique<LongTerms>(name, Metadata());
  t->buckets().reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) t->buckets().push_back({i, 1, 0, subs});
  return t;
}

InternalAggregations oneMax(const std::string& name, Metadata metadata = {}) {
  std::vector<InternalAggregations::Ptr> s;
  s.push_back(std::make_unique<Max>(name, std::move(metadata), 1.0));
  return list(std::move(s));
}

struct Measured {
  size_t peak = 0;
  double seconds = 0;
};

// Runs f under an AllocationScope; prints and returns its peak and time.
template <class F>
Measured measure(const char* what, F f) {
  Measured m;
  auto start = std::chrono::steady_clock::now();
  {
    AllocationScope scope;
    f();
    m.peak = scope.peakBytes();
  }
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("[ figures  ] %s: %.3f s, peak %zu bytes (%.1f MB)\n", what, m.seconds, m.peak,
              double(m.peak) / 1e6);
  return m;
}

// The columnar list of `count` copies of the one aggregation in `one` (a
// columnar list of one), renamed "a00", "a01"... (`one`'s is "a00").
Bytes copies(const Bytes& one, int count) {
  const std::string name = "a00";
  auto at = std::search(one.begin(), one.end(), name.begin(), name.end());
  EXPECT_NE(at, one.end());
  const size_t name_at = static_cast<size_t>(at - one.begin());
  Bytes out = {static_cast<uint8_t>(count)};
  for (int i = 0; i < count; ++i) {
    size_t start = out.size();
    out.insert(out.end(), one.begin() + 1, one.end());  // without the list's count
    char digits[12];
    std::snprintf(digits, sizeof digits, "%02d", i);
    const size_t a = start + name_at - 1;
    out[a + 1] = static_cast<uint8_t>(digits[0]);
    out[a + 2] = static_cast<uint8_t>(digits[1]);
  }
  return out;
}

TEST(ColumnarLimits, SixteenAggregationsOf2To23BucketsShareOneBudget) {
  ASSERT_EQ(kDefaultMaxObjects, int64_t{1} << 20);
  Bytes body;
  {
    std::vector<InternalAggregations::Ptr> one;
    one.push_back(dateHistogram("a00", kOldMaxObjects));
    body = copies(writeColumnar(list(std::move(one))), 16);
  }
  EXPECT_LT(body.size(), 1200u);  // the body: 967 bytes
  std::printf("[ figures  ] body of 16 x 2^23 buckets: %zu bytes\n", body.size());
  // Was 134 M buckets, 2.2 GB; now refused before the first one's keys.
  Measured m = measure("16 x 2^23 buckets, refused", [&] {
    wirestream::testing::expectErrorNaming<LimitExceededError>(
        [&] { readColumnar(body); },
        "columnar aggregations would create 8388608 objects (0 before the 8388608 buckets of "
        "[a00]), above the limit of 1048576 for one response (Limits::max_objects)");
  });
  EXPECT_LE(m.peak, size_t{64} << 10);
  EXPECT_LT(m.seconds, 1.0);

  // 16 x 2^16 buckets fill the budget exactly and decode (16 bytes a
  // bucket); a 17th is refused before its keys.
  std::vector<InternalAggregations::Ptr> one;
  one.push_back(dateHistogram("a00", int64_t{1} << 16));
  Bytes full = writeColumnar(list(std::move(one)));
  InternalAggregations back;
  m = measure("16 x 2^16 buckets, decoded", [&] { back = readColumnar(copies(full, 16)); });
  EXPECT_EQ(back.bucketCount(), kDefaultMaxObjects);
  EXPECT_LE(m.peak, size_t{20} << 20);
  back = {};
  m = measure("17 x 2^16 buckets, refused", [&] {
    wirestream::testing::expectErrorNaming<LimitExceededError>(
        [&] { readColumnar(copies(full, 17)); },
        "would create 1114112 objects (1048576 before the 65536 buckets of [a16]), above the "
        "limit of 1048576");
  });
  EXPECT_LE(m.peak, size_t{20} << 20);

  // A smaller budget: 16 x 1,024 fit 16,384 exactly, not 16,383.
  one.clear();
  one.push_back(dateHistogram("a00", 1024));
  Bytes small = copies(writeColumnar(list(std::move(one))), 16);
  columnar::Limits limits;
  limits.max_objects = 16 * 1024;
  EXPECT_EQ(readColumnar(small, limits).size(), 16u);
  limits.max_objects = 16 * 1024 - 1;
  wirestream::testing::expectErrorNaming<LimitExceededError>(
      [&] { readColumnar(small, limits); },
      "would create 16384 objects (15360 before the 1024 buckets of [a15]), above the limit of "
      "16383");
}

// 2,090 entries "k0000": null, ~16.7 KB on the wire.
Metadata bigMetadata() {
  GenericValue::Entries entries;
  for (int i = 0; i < 2090; ++i) {
    char key[16];
    std::snprintf(key, sizeof key, "k%04d", i);
    entries.emplace_back(GenericValue(key), GenericValue());
  }
  return GenericValue::ofMap(std::move(entries));
}

TEST(ColumnarLimits, MetadataIsSharedByTheBucketsNotCopied) {
  // lterms whose buckets each hold a max with ~16.7 KB of metadata. The old
  // weight (1 + header bytes / 64 a bucket, and the bucket) let 2^23 / 263 =
  // 31,895 buckets through, each copying the metadata's tree (~47 bytes of
  // memory a wire byte): 25 GB, bad_alloc at 4 GiB. Now the copies share it,
  // and the buckets count 1 + 3 objects each.
  const Metadata metadata = bigMetadata();
  BytesStreamOutput meta_out;
  writeGenericValue(meta_out, metadata);
  const size_t meta_bytes = meta_out.size();
  EXPECT_GT(meta_bytes, 16000u);
  EXPECT_LT(meta_bytes, 17500u);
  const int64_t header = 4 + 2 + static_cast<int64_t>(meta_bytes) + 4;  // "max" "m" meta raw
  const int64_t n = kOldMaxObjects / (2 + header / 64);
  Bytes body;
  {
    std::vector<InternalAggregations::Ptr> one;
    one.push_back(longTerms("t", n, oneMax("m", metadata)));
    body = writeColumnar(list(std::move(one)));
  }
  std::printf("[ figures  ] body of lterms x %lld, %zu bytes of metadata: %zu bytes\n",
              static_cast<long long>(n), meta_bytes, body.size());
  InternalAggregations back;
  Measured m = measure("lterms with 16.7 KB metadata, decoded", [&] { back = readColumnar(body); });
  // The metadata once (~0.8 MB) and n buckets of a Max each (~200 bytes).
  EXPECT_LE(m.peak, size_t{24} << 20);
  const auto& buckets = static_cast<const LongTerms&>(back[0]).buckets();
  ASSERT_EQ(buckets.size(), static_cast<size_t>(n));
  EXPECT_EQ(&buckets.aggregationsAt(0)[0].getMetadata(),
            &buckets.aggregationsAt(n - 1)[0].getMetadata());
  EXPECT_TRUE(buckets.aggregationsAt(n - 1)[0].getMetadata() == metadata);
}

// What a terms bucket's own copy of a T whose name and format take `copied`
// bytes counts (columnar.h, Limits).
template <class T>
int64_t termsSubWeight(size_t copied) {
  return 1 + static_cast<int64_t>((sizeof(T) + sizeof(InternalAggregations::Ptr) + copied) / 64);
}

TEST(ColumnarLimits, LongNamesAndOwnObjectsWeighOneObjectMoreA64Bytes) {
  // A 640-byte name and the 4-byte raw format, in each of 10 buckets: in a
  // histogram's columns 1 + 644 / 64 = 11 objects a bucket, 10 + 10 x 11 in all.
  const std::string name(640, 'm');
  std::vector<InternalAggregations::Ptr> one;
  one.push_back(dateHistogram("h", 10, oneMax(name)));
  Bytes body = writeColumnar(list(std::move(one)));
  columnar::Limits limits;
  limits.max_objects = 120;
  EXPECT_EQ(readColumnar(body, limits).size(), 1u);
  limits.max_objects = 119;
  wirestream::testing::expectErrorNaming<LimitExceededError>(
      [&] { readColumnar(body, limits); },
      "would create 120 objects (20 before the 10 buckets of [h]), above the limit of 119");
  // Terms buckets hold a Max object each: its bytes count too.
  const int64_t weight = termsSubWeight<Max>(644);
  EXPECT_GE(weight, 13);
  std::vector<InternalAggregations::Ptr> terms;
  terms.push_back(longTerms("t", 10, oneMax(name)));
  body = writeColumnar(list(std::move(terms)));
  limits.max_objects = 10 + 10 * weight;
  EXPECT_EQ(readColumnar(body, limits).size(), 1u);
  limits.max_objects = 10 + 10 * weight - 1;
  wirestream::testing::expectErrorNaming<LimitExceededError>(
      [&] { readColumnar(body, limits); }, "would create " + std::to_string(10 + 10 * weight) +
                                               " objects (20 before the 10 buckets of [t])");
}

// A response at the default limit decodes: 2^20 objects over the four
// columnar types; one fewer allowed refuses it.
TEST(ColumnarLimits, AResponseAtTheLimitDecodes) {
  const int64_t terms_buckets = int64_t{1} << 15;
  const int64_t lt_objects = terms_buckets * (1 + termsSubWeight<Max>(1 + 4));
  const int64_t dt_objects = terms_buckets * (1 + termsSubWeight<ValueCount>(1));
  const int64_t dh_objects = int64_t{1} << 19;  // 2^18 buckets with an avg each
  const int64_t h_buckets = kDefaultMaxObjects - lt_objects - dt_objects - dh_objects;
  ASSERT_GT(h_buckets, 0);
  Bytes body;
  {
    std::vector<InternalAggregations::Ptr> aggs;
    std::vector<InternalAggregations::Ptr> s;
    s.push_back(std::make_unique<Avg>("a", Metadata(), 2.0, 1));
    aggs.push_back(dateHistogram("dh", int64_t{1} << 18, list(std::move(s))));
    aggs.push_back(longTerms("lt", terms_buckets, oneMax("m")));
    s.clear();
    s.push_back(std::make_unique<ValueCount>("c", Metadata(), 1));
    InternalAggregations count = list(std::move(s));
    auto t = std::make_unique<DoubleTerms>("dt", Metadata());
    t->buckets().reserve(static_cast<size_t>(terms_buckets));
    for (int64_t i = 0; i < terms_buckets; ++i) t->buckets().push_back({double(i), 1, 0, count});
    aggs.push_back(std::move(t));
    auto h = std::make_unique<Histogram>("h", Metadata());
    h->buckets().reserve(static_cast<size_t>(h_buckets));
    for (int64_t i = 0; i < h_buckets; ++i) h->buckets().push_back({double(i), 1, {}});
    aggs.push_back(std::move(h));
    InternalAggregations all = list(std::move(aggs));
    for (const auto& a : all.list()) ASSERT_TRUE(columnar::isColumnar(*a)) << a->getName();
    body = writeColumnar(all);
  }
  std::printf("[ figures  ] body at the limit: %zu bytes, %lld histogram buckets\n", body.size(),
              static_cast<long long>(h_buckets));
  InternalAggregations back;
  Measured m = measure("2^20 objects, decoded", [&] { back = readColumnar(body); });
  ASSERT_EQ(back.size(), 4u);
  EXPECT_EQ(back.bucketCount(), (int64_t{1} << 18) + 2 * terms_buckets + h_buckets);
  // Histogram columns hold 16 to 32 bytes a bucket, terms ~200 with their metric.
  EXPECT_LE(m.peak, size_t{40} << 20);

  columnar::Limits limits;
  limits.max_objects = kDefaultMaxObjects - 1;
  wirestream::testing::expectErrorNaming<LimitExceededError>(
      [&] { readColumnar(body, limits); },
      "would create " + std::to_string(kDefaultMaxObjects) + " objects (" +
          std::to_string(kDefaultMaxObjects - h_buckets) + " before the " +
          std::to_string(h_buckets) + " buckets of [h]), above the limit of " +
          std::to_string(kDefaultMaxObjects - 1));
}

// The body of a date_histogram "h" of 2^23 one-minute buckets of doc count 1.
Bytes hugeDateHistogram(int64_t min_doc_count, int64_t n = kOldMaxObjects) {
  std::vector<InternalAggregations::Ptr> one;
  one.push_back(dateHistogram("h", n));
  static_cast<DateHistogram&>(*one[0]).setMinDocCount(min_doc_count);
  return writeColumnar(list(std::move(one)));
}

TEST(ColumnarLimits, AReduceCountsMaxBucketsWhileItMerges) {
  Bytes body = hugeDateHistogram(1);
  std::printf("[ figures  ] body of a date_histogram of 2^23 buckets: %zu bytes\n", body.size());
  EXPECT_LT(body.size(), 100u);  // the issue's: 71 bytes
  // Decoded under the old limit, as a caller that raises it would.
  columnar::Limits roomy;
  roomy.max_objects = kOldMaxObjects;
  InternalAggregations shard = readColumnar(body, roomy);
  const InternalAggregations* shards[] = {&shard, &shard};
  // Was 1.05 GB (a map of every key) before TooManyBucketsError.
  Measured m = measure("2 x 2^23 buckets reduced, refused", [&] {
    wirestream::testing::expectErrorNaming<TooManyBucketsError>(
        [&] { InternalAggregations::reduce(shards, ReduceContext::finalReduce()); },
        "Must be less than or equal to: [65536] but was [65537]");
  });
  // The 65,536 buckets kept (16 bytes each) and the error.
  EXPECT_LE(m.peak, size_t{4} << 20);
  EXPECT_LT(m.seconds, 5.0);
}

TEST(ColumnarLimits, KeysUnderMinDocCountAreNeitherCountedNorHeld) {
  // Every key merges to doc count 2, under min_doc_count 3: none is kept, so
  // none counts (as in ES), and the merge holds one key at a time.
  InternalAggregations shard = readColumnar(hugeDateHistogram(3, kDefaultMaxObjects));
  const InternalAggregations* shards[] = {&shard, &shard};
  InternalAggregations reduced;
  Measured m = measure("2 x 2^20 buckets under min_doc_count, reduced", [&] {
    reduced = InternalAggregations::reduce(shards, ReduceContext::finalReduce());
  });
  EXPECT_EQ(static_cast<const DateHistogram&>(reduced[0]).buckets().size(), 0u);
  EXPECT_LE(m.peak, size_t{4} << 20);
}

TEST(ColumnarLimits, AReduceMergesInputsOutOfKeyOrder) {
  // Not what ES sends, but merged by key all the same, through a sorted index.
  auto shard = [](std::vector<int64_t> keys) {
    auto h = std::make_unique<DateHistogram>("h", Metadata());
    for (int64_t k : keys) h->buckets().push_back({k, k, {}});
    std::vector<InternalAggregations::Ptr> one;
    one.push_back(std::move(h));
    return list(std::move(one));
  };
  InternalAggregations a = shard({3, 1, 2, 1}), b = shard({2, 3});
  const InternalAggregations* shards[] = {&a, &b};
  InternalAggregations reduced = InternalAggregations::reduce(shards, ReduceContext::finalReduce());
  const auto& buckets = static_cast<const DateHistogram&>(reduced[0]).buckets();
  ASSERT_EQ(buckets.size(), 3u);
  EXPECT_EQ(buckets.keyAt(0), 1);
  EXPECT_EQ(buckets.docCountAt(0), 2);
  EXPECT_EQ(buckets.keyAt(1), 2);
  EXPECT_EQ(buckets.docCountAt(1), 4);
  EXPECT_EQ(buckets.keyAt(2), 3);
  EXPECT_EQ(buckets.docCountAt(2), 6);
}

}  // namespace
}  // namespace wirestream::aggregations
