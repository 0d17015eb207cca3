// Terms on the wire (wire format §7), after name and metadata:
//   [>= 7.10.0] reduce_order : BucketOrder
//   order                    : BucketOrder
//   required_size            : VInt, INT32_MAX travels as 0 (writeSize)
//   min_doc_count            : VLong
//   [>= 7.15.0] has_error    : boolean, then ZLong doc_count_error when set
//   [<  7.15.0] doc_count_error : ZLong, 0 for absent (so 0 reads back absent)
// (the gate of ES's InternalMappedTerms, TransportVersion.V_7_15_0)
//   format                   : DocValueFormat (named writeable)
//   shard_size               : VInt (writeSize)
//   show_term_doc_count_error: boolean
//   other_doc_count          : VLong
//   buckets                  : VInt count, count x bucket
//   bucket := VLong doc_count, [long doc_count_error if show_term_doc_count_error],
//             InternalAggregations, key
//   key    := sterms: VInt length + bytes | lterms: long | dterms: double
// Negative doc counts, sizes and min_doc_count are CorruptStreamError.
#include "aggregations/terms.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace wirestream::aggregations {

void writeSize(StreamOutput& out, int32_t size) {
  out.writeVInt(size == std::numeric_limits<int32_t>::max() ? 0 : size);
}

int32_t readSize(StreamInput& in, std::string_view what) {
  int32_t v = in.readVInt();
  if (v < 0)
    internal::throwCorrupt("negative " + std::string(what) + " [" + std::to_string(v) + "]");
  return v == 0 ? std::numeric_limits<int32_t>::max() : v;
}

// ---- keys ----

double StringKey::asDouble(const Type&) { return std::numeric_limits<double>::quiet_NaN(); }

// ---- reading ----

template <class Key>
InternalTerms<Key>::InternalTerms(StreamInput& in, const NamedWriteableRegistry& registry)
    : InternalAggregation(in) {
  TransportVersion v = in.transportVersion();
  if (v.onOrAfter(TransportVersion::V_7_10_0)) {
    reduce_order_ = BucketOrder::readFrom(in);
    order_ = BucketOrder::readFrom(in);
  } else {
    order_ = BucketOrder::readFrom(in);
    reduce_order_ = order_;
  }
  required_size_ = readSize(in, "required size");
  min_doc_count_ = readNonNegativeVLong(in, "min doc count");
  if (v.onOrAfter(TransportVersion::V_7_15_0)) {
    doc_count_error_ = in.readBoolean() ? std::optional<int64_t>(in.readZLong()) : std::nullopt;
  } else {
    // Before 7.15.0 a 0 meant "not computed" (ES 7 falls back to the last
    // bucket's count for it), which is what absent means from 7.15.0 on.
    int64_t e = in.readZLong();
    doc_count_error_ = e == 0 ? std::nullopt : std::optional<int64_t>(e);
  }
  format_ = DocValueFormat::readFrom(in, registry);
  shard_size_ = readSize(in, "shard size");
  show_term_doc_count_error_ = in.readBoolean();
  other_doc_count_ = readNonNegativeVLong(in, "other doc count");
  // A bucket is at least a doc count, an aggregation count and its key.
  size_t min_bucket = 2 + Key::kMinWireBytes + (show_term_doc_count_error_ ? 8 : 0);
  int32_t n = in.readArraySize(min_bucket);
  // Reserve only what the bytes left justify (a bucket object is larger than
  // its smallest encoding); the vector grows as buckets actually arrive.
  buckets_.reserve(in.boundedReserve(static_cast<size_t>(n), sizeof(Bucket)));
  // The buckets through a cursor that keeps the read position in a register;
  // a non-empty sub-aggregation list is read from the stream itself.
  StreamInput::Cursor c(in);
  for (int32_t i = 0; i < n; ++i) {
    Bucket& b = buckets_.emplace_back();
    b.doc_count = c.readVLong();
    if (b.doc_count < 0) [[unlikely]]
      throwNegativeCount("doc count", b.doc_count);
    if (show_term_doc_count_error_) b.doc_count_error = c.readLong();
    if (!c.readByteIf(0)) {
      c.withStream(
          [&](StreamInput& s) { b.aggregations = InternalAggregations::readFrom(s, registry); });
    }
    Key::read(c, b.key);
  }
}

// ---- writing ----

template <class Key>
void InternalTerms<Key>::doWriteTo(StreamOutput& out) const {
  TransportVersion v = out.transportVersion();
  if (v.onOrAfter(TransportVersion::V_7_10_0)) reduce_order_.writeTo(out);
  order_.writeTo(out);
  writeSize(out, required_size_);
  out.writeVLong(min_doc_count_);
  if (v.onOrAfter(TransportVersion::V_7_15_0)) {
    out.writeBoolean(doc_count_error_.has_value());
    if (doc_count_error_) out.writeZLong(*doc_count_error_);
  } else {
    out.writeZLong(doc_count_error_.value_or(0));
  }
  format_.writeNamed(out);
  writeSize(out, shard_size_);
  out.writeBoolean(show_term_doc_count_error_);
  out.writeVLong(other_doc_count_);
  // The buckets through a cursor that keeps the write position in a
  // register; a non-empty sub-aggregation list is written by the stream.
  StreamOutput::Cursor c(out);
  c.writeArraySize(buckets_.size());
  for (const Bucket& b : buckets_) {
    c.writeVLong(b.doc_count);
    if (show_term_doc_count_error_) c.writeLong(b.doc_count_error);
    // Most leaf buckets have no sub-aggregations: one inline byte.
    if (b.aggregations.empty()) {
      c.writeByte(0);
    } else {
      c.withStream([&b](StreamOutput& s) { b.aggregations.writeTo(s); });
    }
    Key::write(c, b.key);
  }
}

template <class Key>
bool InternalTerms<Key>::doEquals(const InternalAggregation& other) const {
  const auto& o = static_cast<const InternalTerms&>(other);
  return reduce_order_ == o.reduce_order_ && order_ == o.order_ &&
         required_size_ == o.required_size_ && min_doc_count_ == o.min_doc_count_ &&
         doc_count_error_ == o.doc_count_error_ && format_ == o.format_ &&
         shard_size_ == o.shard_size_ &&
         show_term_doc_count_error_ == o.show_term_doc_count_error_ &&
         other_doc_count_ == o.other_doc_count_ && buckets_ == o.buckets_;
}

// ---- reduce (wire format §8) ----

template <class Key>
int64_t InternalTerms<Key>::shardDocCountError() const {
  size_t n = buckets_.size();
  if (n == 0 || n < static_cast<size_t>(shard_size_) || order_.isKeyOrder()) return 0;
  if (order_.isCountDesc()) {
    // A negative bound from the wire can only mean unknown.
    if (doc_count_error_) return *doc_count_error_ < 0 ? -1 : *doc_count_error_;
    int64_t min = buckets_[0].doc_count;
    for (const Bucket& b : buckets_) min = std::min(min, b.doc_count);
    return min;
  }
  return -1;
}

template <class Key>
std::unique_ptr<InternalAggregation> InternalTerms<Key>::reduce(
    std::span<const InternalAggregation* const> aggs, const ReduceContext& context) const {
  const auto& first = *static_cast<const InternalTerms*>(aggs[0]);

  // Every bucket of every shard, sorted by key (stable: shard order within a
  // key), then merged run by run. Shards send their buckets in key order, so
  // the sort is a cheap merge of sorted runs.
  struct Entry {
    const Bucket* bucket;
    int64_t shard_error;
    bool show_error;
  };
  std::vector<Entry> entries;
  size_t total = 0;
  for (const InternalTerms* t : downcast<InternalTerms>(aggs)) total += t->buckets_.size();
  entries.reserve(total);

  int64_t sum_error = 0;  // -1 is sticky: unbounded
  int64_t other = 0;
  for (const InternalTerms* t : downcast<InternalTerms>(aggs)) {
    other = checkedAdd(other, t->other_doc_count_, "sum_other_doc_count");
    int64_t shard_error = t->shardDocCountError();
    if (sum_error != -1)
      sum_error = shard_error == -1 ? -1 : checkedAdd(sum_error, shard_error, "doc count error");
    for (const Bucket& b : t->buckets_)
      entries.push_back({&b, shard_error, t->show_term_doc_count_error_});
  }
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return Key::compare(a.bucket->key, b.bucket->key) < 0;
  });

  auto out = std::make_unique<InternalTerms>(first.getName(), first.getMetadata());
  out->order_ = first.order_;
  out->reduce_order_ = context.final_reduce ? first.order_ : BucketOrder::key(true);
  out->required_size_ = first.required_size_;
  out->shard_size_ = first.shard_size_;
  out->min_doc_count_ = first.min_doc_count_;
  out->format_ = first.format_;
  out->show_term_doc_count_error_ = first.show_term_doc_count_error_;
  if (sum_error == -1) {
    out->doc_count_error_ = -1;
  } else {
    out->doc_count_error_ = aggs.size() == 1 ? 0 : sum_error;
  }

  // A final reduce keeps the best `size` buckets as it goes, in a heap with
  // the worst on top (ES's priority queue): a bucket that falls out is freed
  // at once and given back to the bucket budget, so the budget counts live
  // buckets and many terms under a small `size` never add up. The order is
  // total (ties broken by key), so this keeps what a full sort would.
  const BucketOrder& order = first.order_;
  auto less = [&](const Bucket& a, const Bucket& b) { return order.compare(a, b) < 0; };
  const size_t keep = static_cast<size_t>(first.required_size_);
  std::vector<Bucket> buckets;
  std::vector<const InternalAggregations*> subs;
  for (size_t i = 0; i < entries.size();) {
    size_t run_end = i + 1;
    while (run_end < entries.size() &&
           Key::compare(entries[run_end].bucket->key, entries[i].bucket->key) == 0) {
      ++run_end;
    }
    int64_t doc_count = 0;
    int64_t error = 0;         // the errors of the shards that returned the term
    int64_t shard_errors = 0;  // the bounds of those shards
    bool error_unknown = false;
    subs.clear();
    for (size_t k = i; k < run_end; ++k) {
      const Entry& e = entries[k];
      doc_count = checkedAdd(doc_count, e.bucket->doc_count, "doc count");
      if (!e.show_error || e.bucket->doc_count_error == -1 || e.shard_error == -1) {
        error_unknown = true;
      } else {
        error = checkedAdd(error, e.bucket->doc_count_error, "doc count error");
        shard_errors = checkedAdd(shard_errors, e.shard_error, "doc count error");
      }
      subs.push_back(&e.bucket->aggregations);
    }
    const typename Key::Type& key = entries[i].bucket->key;
    i = run_end;
    if (context.final_reduce && doc_count < first.min_doc_count_) continue;
    context.consumeBucketsAndMaybeBreak(1);
    Bucket& b = buckets.emplace_back();
    b.key = key;
    b.doc_count = doc_count;
    if (out->show_term_doc_count_error_) {
      // The bound of a term: what the shards that returned it say, plus the
      // bound of every shard that did not.
      b.doc_count_error = (sum_error == -1 || error_unknown)
                              ? -1
                              : checkedAdd(error, sum_error - shard_errors, "doc count error");
    }
    b.aggregations = InternalAggregations::reduce(subs, context);
    if (!context.final_reduce) continue;
    std::push_heap(buckets.begin(), buckets.end(), less);
    if (buckets.size() > keep) {
      std::pop_heap(buckets.begin(), buckets.end(), less);
      const Bucket& worst = buckets.back();
      other = checkedAdd(other, worst.doc_count, "sum_other_doc_count");
      context.consumeBucketsAndMaybeBreak(-(1 + worst.aggregations.bucketCount()));
      buckets.pop_back();
    }
  }
  if (context.final_reduce) std::sort_heap(buckets.begin(), buckets.end(), less);
  out->other_doc_count_ = other;
  out->buckets_ = std::move(buckets);
  return out;
}

template <class Key>
int64_t InternalTerms<Key>::bucketCount() const {
  int64_t n = static_cast<int64_t>(buckets_.size());
  for (const Bucket& b : buckets_) n += b.aggregations.bucketCount();
  return n;
}

template class InternalTerms<StringKey>;
template class InternalTerms<LongKey>;
template class InternalTerms<DoubleKey>;

}  // namespace wirestream::aggregations
