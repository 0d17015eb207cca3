// Histogram on the wire (wire format §7), after name and metadata:
//   order          : BucketOrder
//   min_doc_count  : VLong
//   [min_doc_count == 0] empty bucket info:
//       double interval, double offset,
//       double min bound (+inf: none), double max bound (-inf: none),
//       InternalAggregations of an empty bucket
//   format         : DocValueFormat (named writeable)
//   keyed          : boolean (buckets read from a V_8_13_0 <= v < V_8_14_0 node are
//                    sorted by key again, as ES does)
//   buckets        : VInt count, count x (double key, VLong doc_count,
//                    InternalAggregations)
// A negative doc count or min_doc_count, or an interval that is not a
// positive finite number, is CorruptStreamError.
#include "aggregations/histogram.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "aggregations/histogram_common.h"
#include "aggregations/java_double.h"

namespace wirestream::aggregations {

int Histogram::Bucket::compareKey(const Bucket& o) const { return javaDoubleCompare(key, o.key); }

bool operator==(const Histogram::Bucket& a, const Histogram::Bucket& b) {
  return sameDouble(a.key, b.key) && a.doc_count == b.doc_count && a.aggregations == b.aggregations;
}

bool operator==(const Histogram::EmptyBucketInfo& a, const Histogram::EmptyBucketInfo& b) {
  return sameDouble(a.interval, b.interval) && sameDouble(a.offset, b.offset) &&
         sameDouble(a.min_bound, b.min_bound) && sameDouble(a.max_bound, b.max_bound) &&
         a.aggregations == b.aggregations;
}

static_assert(Histogram::kEmptyCopyBytesPerBucket == histogram_common::kEmptyCopyBytesPerBucket);

void Histogram::checkInterval(double interval) {
  if (!(interval > 0) || !std::isfinite(interval)) {
    internal::throwCorrupt("histogram interval must be positive and finite but was [" +
                           std::to_string(interval) + "]");
  }
}

Histogram::Histogram(StreamInput& in, const NamedWriteableRegistry& registry)
    : AggregationBase(in) {
  order_ = BucketOrder::readFrom(in);
  min_doc_count_ = readNonNegativeVLong(in, "min doc count");
  if (min_doc_count_ == 0) {
    EmptyBucketInfo e;
    e.interval = in.readDouble();
    checkInterval(e.interval);
    e.offset = in.readDouble();
    e.min_bound = in.readDouble();
    e.max_bound = in.readDouble();
    e.aggregations = InternalAggregations::readFrom(in, registry);
    empty_bucket_info_ = std::move(e);
  }
  format_ = DocValueFormat::readFrom(in, registry);
  keyed_ = in.readBoolean();
  histogram_common::readBuckets(in, registry, buckets_);
  histogram_common::resortFrom813(in.transportVersion(), buckets_);
}

void Histogram::doWriteTo(StreamOutput& out) const {
  order_.writeTo(out);
  out.writeVLong(min_doc_count_);
  if (min_doc_count_ == 0) {
    if (!empty_bucket_info_) {
      throw std::invalid_argument("histogram [" + getName() +
                                  "] has min_doc_count 0 but no empty bucket info");
    }
    const EmptyBucketInfo& e = *empty_bucket_info_;
    out.writeDouble(e.interval);
    out.writeDouble(e.offset);
    out.writeDouble(e.min_bound);
    out.writeDouble(e.max_bound);
    e.aggregations.writeTo(out);
  }
  format_.writeNamed(out);
  out.writeBoolean(keyed_);
  histogram_common::writeBuckets(out, buckets_);
}

bool Histogram::doEquals(const InternalAggregation& other) const {
  const auto& o = static_cast<const Histogram&>(other);
  return order_ == o.order_ && min_doc_count_ == o.min_doc_count_ &&
         empty_bucket_info_ == o.empty_bucket_info_ && format_ == o.format_ && keyed_ == o.keyed_ &&
         buckets_ == o.buckets_;
}

std::unique_ptr<InternalAggregation> Histogram::reduce(
    std::span<const InternalAggregation* const> aggs, const ReduceContext& context) const {
  const auto& first = *static_cast<const Histogram*>(aggs[0]);
  auto less = [](double a, double b) { return javaDoubleCompare(a, b) < 0; };
  Buckets buckets =
      histogram_common::mergeByKey<Histogram>(aggs, first.min_doc_count_, context, less);
  if (context.final_reduce) {
    if (first.min_doc_count_ == 0 && first.empty_bucket_info_) {
      first.addEmptyBuckets(buckets, context);
    }
    histogram_common::orderFinal(buckets, first.order_);
  }
  auto out = std::make_unique<Histogram>(first.getName(), first.getMetadata());
  out->order_ = first.order_;
  out->min_doc_count_ = first.min_doc_count_;
  out->empty_bucket_info_ = first.empty_bucket_info_;
  out->format_ = first.format_;
  out->keyed_ = first.keyed_;
  out->buckets_ = std::move(buckets);
  return out;
}

// As ES's InternalHistogram.addEmptyBuckets: fill from the min bound to the
// first key, between keys, and from the last key to the max bound.
void Histogram::addEmptyBuckets(Buckets& buckets, const ReduceContext& context) const {
  const EmptyBucketInfo& e = *empty_bucket_info_;
  if (!(e.interval > 0) || !std::isfinite(e.interval)) return;
  auto round = [&](double k) {
    return std::floor((k - e.offset) / e.interval) * e.interval + e.offset;
  };
  auto next = [&](double k) { return round(k + e.interval + e.interval / 2); };
  histogram_common::FillRange<double> range;
  if (std::isfinite(e.min_bound)) range.min = round(e.min_bound);
  range.max = e.max_bound;
  range.when_empty = std::pair(round(e.min_bound), e.max_bound);
  histogram_common::addEmptyBuckets(buckets, e.aggregations, context, range, next);
}

int64_t Histogram::bucketCount() const { return buckets_.bucketCount(); }

}  // namespace wirestream::aggregations
