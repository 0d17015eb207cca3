// Histogram: buckets of fixed width over a numeric field.
//
// Example (runs: histogram):
//   #include "stream/bytes_stream_output.h"
//   Histogram h("price_ranges", Metadata());
//   h.setMinDocCount(0);
//   h.setEmptyBucketInfo(Histogram::EmptyBucketInfo{/*interval=*/10, /*offset=*/0,
//                                                   /*min_bound=*/0.0, /*max_bound=*/100.0, {}});
//   h.buckets().push_back({/*key=*/10, /*doc_count=*/3, {}});
//   BytesStreamOutput out;
//   h.writeTo(out);
//
// Wire format §7 (Histogram). The reduce merges buckets by key; the final
// reduce drops buckets under minDocCount and, when minDocCount is 0, fills the
// gaps (and out to the bounds, ±∞ meaning none) with empty buckets, as ES does. Every bucket
// kept or filled in, and every bucket of the sub-aggregations copied into the
// filled ones, counts against ReduceContext::max_buckets before it is built
// (TooManyBucketsError beyond). Value type with deep-copy semantics; not
// thread-safe.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "aggregations/bucket_order.h"
#include "aggregations/doc_value_format.h"
#include "aggregations/histogram_buckets.h"
#include "aggregations/internal_aggregation.h"

namespace wirestream::aggregations {

class Histogram final : public AggregationBase<Histogram> {
 public:
  static constexpr std::string_view kType = "histogram";
  // A filled-in bucket's copy of the empty bucket's sub-aggregations counts
  // at least one bucket per this many bytes of its encoding, so that a heavy
  // template (a dense cardinality sketch, large metadata) is bounded as well.
  static constexpr size_t kEmptyCopyBytesPerBucket = 256;

  struct Bucket {
    double key = 0;
    int64_t doc_count = 0;
    InternalAggregations aggregations;

    int64_t docCount() const { return doc_count; }
    int compareKey(const Bucket& o) const;
    double sortValue(std::string_view path) const { return aggregations.sortValue(path); }
    friend bool operator==(const Bucket& a, const Bucket& b);
  };

  // What the final reduce needs to create the empty buckets (minDocCount 0).
  // The bounds are plain doubles as in ES's InternalHistogram.EmptyBucketInfo:
  // "no min bound" is +infinity and "no max bound" -infinity.
  struct EmptyBucketInfo {
    double interval = 1;
    double offset = 0;
    double min_bound = std::numeric_limits<double>::infinity();
    double max_bound = -std::numeric_limits<double>::infinity();
    InternalAggregations aggregations;  // the sub-aggregations of an empty bucket
    friend bool operator==(const EmptyBucketInfo& a, const EmptyBucketInfo& b);
  };

  Histogram(std::string name, Metadata metadata)
      : AggregationBase(std::move(name), std::move(metadata)) {}
  Histogram(StreamInput& in, const NamedWriteableRegistry& registry);
  // CorruptStreamError unless `interval` is positive and finite.
  static void checkInterval(double interval);

  const BucketOrder& order() const { return order_; }
  void setOrder(BucketOrder o) { order_ = std::move(o); }
  int64_t minDocCount() const { return min_doc_count_; }
  // Written only when minDocCount is 0: writeTo throws std::invalid_argument
  // when minDocCount is 0 and there is no EmptyBucketInfo.
  void setMinDocCount(int64_t v) { min_doc_count_ = v; }
  const std::optional<EmptyBucketInfo>& emptyBucketInfo() const { return empty_bucket_info_; }
  std::optional<EmptyBucketInfo>& emptyBucketInfo() { return empty_bucket_info_; }
  void setEmptyBucketInfo(std::optional<EmptyBucketInfo> e) { empty_bucket_info_ = std::move(e); }
  bool keyed() const { return keyed_; }
  void setKeyed(bool v) { keyed_ = v; }
  const DocValueFormat& format() const { return format_; }
  void setFormat(DocValueFormat f) { format_ = std::move(f); }
  // The buckets as columns (histogram_buckets.h): a vector-like view whose
  // elements are proxies (`auto&&`, or the Bucket they convert to).
  using Buckets = HistogramBuckets<DoubleKey, Bucket>;
  Buckets& buckets() { return buckets_; }
  const Buckets& buckets() const { return buckets_; }

  std::unique_ptr<InternalAggregation> reduce(std::span<const InternalAggregation* const> aggs,
                                              const ReduceContext& context) const override;
  int64_t bucketCount() const override;

 protected:
  void doWriteTo(StreamOutput& out) const override;
  bool doEquals(const InternalAggregation& other) const override;

 private:
  void addEmptyBuckets(Buckets& buckets, const ReduceContext& context) const;

  BucketOrder order_ = BucketOrder::key(true);
  int64_t min_doc_count_ = 1;
  std::optional<EmptyBucketInfo> empty_bucket_info_;
  DocValueFormat format_;
  bool keyed_ = false;
  Buckets buckets_;
};

}  // namespace wirestream::aggregations
