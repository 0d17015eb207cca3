// HistogramBuckets: the buckets of a histogram or date_histogram as columns
// (keys and doc counts in arrays; sub-aggregations in a column that exists
// only when some bucket has any, and, when every bucket's list is of one
// metric shape, as metric columns: metric_columns.h), with a vector-like API
// over them, as TermsBuckets (terms.h) for terms.
//
// Example (runs: histogram_buckets):
//   #include <cassert>
//   #include "aggregations/histogram.h"
//   #include "aggregations/metrics.h"
//   Histogram h("price_ranges", Metadata());
//   InternalAggregations subs;
//   subs.add(std::make_unique<Max>("max_price", Metadata(), 19.5));
//   h.buckets().push_back({/*key=*/10, /*doc_count=*/3, std::move(subs)});
//   int64_t total = 0;
//   for (auto&& b : std::as_const(h).buckets()) total += b.doc_count;  // 3
//   h.buckets()[0].doc_count = 4;  // a BucketRef: references into the columns
//   assert(std::as_const(h).buckets()[0].doc_count == 4);
//
// operator[] and iteration yield proxies: a BucketRef (non-const) whose
// fields are references into the columns (taking one turns metric columns
// back into objects, so read through a const container where you can), or a
// ConstBucketRef of values whose `aggregations` reads like a const
// InternalAggregations (built from the metric columns when they hold them).
// A proxy is valid until the next change to the container's size. Value type
// with deep-copy semantics; not thread-safe for writes, concurrent const use
// is safe.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "aggregations/bucket_columns.h"
#include "aggregations/internal_aggregation.h"
#include "aggregations/metric_columns.h"

namespace wirestream::aggregations {

// Key: LongKey or DoubleKey (bucket_columns.h); Bucket: the owner's bucket
// struct {key, doc_count, aggregations}.
template <class Key, class Bucket>
class HistogramBuckets : public BucketView<HistogramBuckets<Key, Bucket>> {
 public:
  using KeyTraits = Key;
  using KeyType = typename Key::Type;

  struct BucketRef {
    KeyType& key;
    int64_t& doc_count;
    InternalAggregations& aggregations;

    BucketRef(KeyType& k, int64_t& c, InternalAggregations& a)
        : key(k), doc_count(c), aggregations(a) {}
    BucketRef(const BucketRef&) = default;
    // Assigning to a proxy assigns to the bucket it stands for.
    BucketRef& operator=(const BucketRef& o) {
      if (&o.aggregations != &aggregations) {
        key = o.key;
        doc_count = o.doc_count;
        aggregations = o.aggregations;
      }
      return *this;
    }
    BucketRef& operator=(BucketRef&& o) noexcept {
      if (&o.aggregations != &aggregations) {
        key = o.key;
        doc_count = o.doc_count;
        aggregations = std::move(o.aggregations);
      }
      return *this;
    }
    BucketRef& operator=(Bucket b) {
      key = b.key;
      doc_count = b.doc_count;
      aggregations = std::move(b.aggregations);
      return *this;
    }
    operator Bucket() const { return {key, doc_count, aggregations}; }
  };

  struct ConstBucketRef : OrderedBucketRef<ConstBucketRef, Key> {
    KeyType key;
    int64_t doc_count;
    BucketAggregations aggregations;
    operator Bucket() const { return {key, doc_count, aggregations.ref()}; }
  };

  size_t size() const { return counts_.size(); }
  bool empty() const { return counts_.empty(); }
  void reserve(size_t n) {
    keys_.reserve(n);
    counts_.reserve(n);
    if (metrics_.active()) metrics_.reserve(n);
  }
  void clear() {
    keys_.clear();
    counts_.clear();
    aggs_.clear();
    metrics_.clear();
  }
  void push_back(const Bucket& b) { append(b.key, b.doc_count, b.aggregations); }
  void push_back(Bucket&& b) { append(b.key, b.doc_count, std::move(b.aggregations)); }
  // Appends a bucket with key 0, doc count 0 and no sub-aggregations.
  BucketRef emplace_back() {
    append(KeyType{}, 0, InternalAggregations{});
    return this->back();
  }
  void pop_back() {
    keys_.pop_back();
    counts_.pop_back();
    if (!aggs_.empty()) aggs_.pop_back();
    if (metrics_.active()) metrics_.pop_back();
  }

  BucketRef operator[](size_t i) {
    materialize();
    return {keys_[i], counts_[i], aggs_[i]};
  }
  ConstBucketRef operator[](size_t i) const {
    return {{}, keys_[i], counts_[i], aggregationsAt(i)};
  }

  // ---- the columns, for the wire, reduce and JSON paths ----
  KeyType keyAt(size_t i) const { return keys_[i]; }
  int64_t docCountAt(size_t i) const { return counts_[i]; }
  const std::vector<KeyType>& keys() const { return keys_; }
  const std::vector<int64_t>& docCounts() const { return counts_; }
  // The sub-aggregations of every bucket as metric columns, when they are
  // held so (active()); else hasObjects() tells whether any bucket has some.
  const MetricColumns& metrics() const { return metrics_; }
  bool hasObjects() const { return !aggs_.empty(); }
  // Bucket i's sub-aggregations (built when metric columns hold them).
  BucketAggregations aggregationsAt(size_t i) const {
    if (metrics_.active()) return BucketAggregations(metrics_.row(i));
    return BucketAggregations(aggs_.empty() ? InternalAggregations::emptyList() : aggs_[i]);
  }
  // The stored list of bucket i, or nullptr when metric columns hold it.
  const InternalAggregations* storedAggregations(size_t i) const {
    if (metrics_.active()) return nullptr;
    return aggs_.empty() ? &InternalAggregations::emptyList() : &aggs_[i];
  }

  // The value BucketOrder names of bucket i (InternalAggregations::sortValue).
  double sortValueAt(size_t i, std::string_view path) const {
    if (metrics_.active()) return metrics_.sortValue(i, path);
    return aggs_.empty() ? InternalAggregations::emptyList().sortValue(path)
                         : aggs_[i].sortValue(path);
  }

  // Appends a bucket; sub-aggregations of the columns' metric shape go into
  // them (`aggs` copied only when they cannot).
  void append(KeyType key, int64_t doc_count, const InternalAggregations& aggs) {
    pushKeyCount(key, doc_count);
    pushAggregations(aggs);
  }
  void append(KeyType key, int64_t doc_count, InternalAggregations&& aggs) {
    pushKeyCount(key, doc_count);
    pushAggregations(std::move(aggs));
  }
  // Appends bucket j of `src`, taking its sub-aggregations (a row of metric
  // columns copied as values).
  void appendFrom(HistogramBuckets& src, size_t j) {
    pushKeyCount(src.keys_[j], src.counts_[j]);
    if (src.metrics_.active() && aggs_.empty()) {
      if (size() == 1 && !metrics_.active()) metrics_.startLike(src.metrics_);
      if (metrics_.appendFrom(src.metrics_, j)) return;
    }
    if (src.metrics_.active()) {
      pushAggregations(src.metrics_.row(j));
    } else if (!src.aggs_.empty()) {
      pushAggregations(std::move(src.aggs_[j]));
    } else {
      pushAggregations(InternalAggregations{});
    }
  }
  // Replaces everything with these columns (a reader's): metric columns of
  // keys.size() rows, or none.
  void assign(std::vector<KeyType> keys, std::vector<int64_t> counts, MetricColumns metrics) {
    clear();
    keys_ = std::move(keys);
    counts_ = std::move(counts);
    metrics_ = std::move(metrics);
  }
  // Keeps buckets order[0], order[1], ... in that order.
  void permute(std::span<const uint32_t> order) {
    auto pick = [&](auto& v) {
      std::remove_reference_t<decltype(v)> out;
      out.reserve(order.size());
      for (uint32_t k : order) out.push_back(std::move(v[k]));
      v = std::move(out);
    };
    pick(keys_);
    pick(counts_);
    if (!aggs_.empty()) pick(aggs_);
    if (metrics_.active()) metrics_.permute(order);
  }

  // Buckets and their sub-aggregations' buckets (metrics have none).
  int64_t bucketCount() const {
    auto n = static_cast<int64_t>(size());
    for (const InternalAggregations& a : aggs_) n += a.bucketCount();
    return n;
  }

  friend bool operator==(const HistogramBuckets& a, const HistogramBuckets& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!Key::equal(a.keys_[i], b.keys_[i]) || a.counts_[i] != b.counts_[i]) return false;
    }
    if (a.metrics_.active() && b.metrics_.active() && a.metrics_.sameShape(b.metrics_)) {
      for (size_t i = 0; i < a.size(); ++i) {
        if (!a.metrics_.rowEquals(i, b.metrics_, i)) return false;
      }
      return true;
    }
    for (size_t i = 0; i < a.size(); ++i) {
      if (!(a.aggregationsAt(i) == b.aggregationsAt(i))) return false;
    }
    return true;
  }

 private:
  void pushKeyCount(KeyType key, int64_t doc_count) {
    keys_.push_back(key);
    counts_.push_back(doc_count);
  }
  // The sub-aggregations of the bucket just added (index size() - 1).
  template <class Aggs>
  void pushAggregations(Aggs&& aggs) {
    const size_t i = size() - 1;
    if (!aggs_.empty()) {
      aggs_.push_back(std::forward<Aggs>(aggs));
      return;
    }
    if (metrics_.active()) {
      if (metrics_.append(aggs)) return;
      toObjects();
      aggs_.push_back(std::forward<Aggs>(aggs));
      return;
    }
    if (aggs.empty()) return;
    if (i == 0 && metrics_.start(aggs) && metrics_.append(aggs)) return;
    aggs_.resize(i);
    aggs_.push_back(std::forward<Aggs>(aggs));
  }
  // The metric columns' rows as objects in aggs_.
  void toObjects() {
    std::vector<InternalAggregations> objects;
    objects.reserve(keys_.size());
    for (size_t r = 0; r < metrics_.rows(); ++r) objects.push_back(metrics_.row(r));
    metrics_.clear();
    aggs_ = std::move(objects);
  }
  // Every bucket's sub-aggregations as objects, for a BucketRef.
  void materialize() {
    if (metrics_.active()) toObjects();
    if (aggs_.size() != counts_.size()) aggs_.resize(counts_.size());
  }

  std::vector<KeyType> keys_;
  std::vector<int64_t> counts_;
  std::vector<InternalAggregations> aggs_;  // empty: none, or metrics_ holds them
  MetricColumns metrics_;                   // active(): holds every bucket's list
};

}  // namespace wirestream::aggregations
