// Terms aggregation results: StringTerms (`sterms`, keys are bytes),
// LongTerms (`lterms`) and DoubleTerms (`dterms`), one template over the key.
//
// Example (runs: terms):
//   #include "stream/bytes_stream_output.h"
//   StringTerms t("genres", Metadata());
//   t.setOrder(BucketOrder::count(false));
//   t.setRequiredSize(10);
//   t.setShardSize(25);
//   t.buckets().push_back({"rock", /*doc_count=*/12, /*doc_count_error=*/0, {}});
//   BytesStreamOutput out;
//   t.writeTo(out);
//
// Wire format §7 (Terms) and the reduce of §8: shard error bounds, merged
// doc counts, top-N by order with sum_other_doc_count, minDocCount, sub-
// aggregations reduced recursively; a final reduce counts its buckets against
// ReduceContext::max_buckets. writeTo allocates nothing: string keys
// are stored as their bytes and written with writeBytesRef.
//
// Value types with deep-copy semantics; not thread-safe.
#pragma once

#include <cassert>
#include <compare>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "aggregations/bucket_columns.h"
#include "aggregations/bucket_order.h"
#include "aggregations/doc_value_format.h"
#include "aggregations/internal_aggregation.h"
#include "aggregations/java_double.h"

namespace wirestream::aggregations {

template <class Key>
struct TermsBucket {
  typename Key::Type key{};
  int64_t doc_count = 0;
  // On the wire only when the aggregation's showTermDocCountError is set;
  // 0 otherwise. -1 means unbounded.
  int64_t doc_count_error = 0;
  InternalAggregations aggregations;

  // For BucketOrder::compare.
  int64_t docCount() const { return doc_count; }
  int compareKey(const TermsBucket& o) const {
    return Key::compare(typename Key::View(key), typename Key::View(o.key));
  }
  double sortValue(std::string_view path) const { return aggregations.sortValue(path); }

  friend bool operator==(const TermsBucket& a, const TermsBucket& b) {
    return Key::equal(a.key, b.key) && a.doc_count == b.doc_count &&
           a.doc_count_error == b.doc_count_error && a.aggregations == b.aggregations;
  }
};

// A string key inside a TermsBuckets::BucketRef: reads as a
// std::string_view, assigns in place (moving the keys after it when its
// length changes).
template <class Owner>
class TermsStringKeyRef {
 public:
  operator std::string_view() const { return owner_->keyAt(i_); }
  std::string_view view() const { return owner_->keyAt(i_); }
  TermsStringKeyRef& operator=(std::string_view k) {
    owner_->setKey(i_, k);
    return *this;
  }
  // Safe for any two proxies, the same key included: setKey copies the new
  // key before it changes the arena.
  TermsStringKeyRef& operator=(const TermsStringKeyRef& o) {
    if (&o == this) return *this;
    return *this = o.view();
  }
  friend bool operator==(const TermsStringKeyRef& a, std::string_view b) { return a.view() == b; }
  friend std::ostream& operator<<(std::ostream& os, const TermsStringKeyRef& k) {
    return os << k.view();
  }

 private:
  friend Owner;
  TermsStringKeyRef(Owner* owner, size_t i) : owner_(owner), i_(i) {}
  Owner* owner_;
  size_t i_;
};

template <class Key>
class InternalTerms;

// The columns of a terms aggregation's buckets (see the top of this file),
// with a vector-like API over them. operator[] and iteration yield proxies:
// a BucketRef (non-const) whose doc_count, doc_count_error and aggregations
// are references into the columns and whose key can be assigned, or a
// ConstBucketRef of values (a string key as a std::string_view into the
// arena). A proxy is valid until the next change to the container's size or
// to a string key. Taking a BucketRef materialises the error and
// sub-aggregation columns, so read through a const container where you can.
template <class Key>
class TermsBuckets : public BucketView<TermsBuckets<Key>> {
 public:
  using Bucket = TermsBucket<Key>;
  using KeyView = typename Key::View;
  static constexpr bool kStringKeys = std::is_same_v<Key, StringKey>;

  using StringKeyRef = TermsStringKeyRef<TermsBuckets>;
  using KeyRef = std::conditional_t<kStringKeys, StringKeyRef, typename Key::Type&>;

  struct BucketRef {
    KeyRef key;
    int64_t& doc_count;
    int64_t& doc_count_error;
    InternalAggregations& aggregations;
    operator Bucket() const {
      return {typename Key::Type(KeyView(key)), doc_count, doc_count_error, aggregations};
    }
  };

  struct ConstBucketRef : OrderedBucketRef<ConstBucketRef, Key> {
    KeyView key;
    int64_t doc_count;
    int64_t doc_count_error;
    const InternalAggregations& aggregations;
    operator Bucket() const {
      return {typename Key::Type(key), doc_count, doc_count_error, aggregations};
    }
  };

  size_t size() const { return counts_.size(); }
  bool empty() const { return counts_.empty(); }
  void reserve(size_t n);
  void clear();
  void push_back(const Bucket& b) { append(b.key, b.doc_count, b.doc_count_error, b.aggregations); }
  void push_back(Bucket&& b) {
    append(b.key, b.doc_count, b.doc_count_error, std::move(b.aggregations));
  }
  // Appends a bucket with a default key, 0 counts and no sub-aggregations.
  BucketRef emplace_back() {
    append(KeyView{}, 0, 0, InternalAggregations{});
    return this->back();
  }
  void pop_back();

  BucketRef operator[](size_t i) {
    materialize();
    return {keyRef(i), counts_[i], errors_[i], aggs_[i]};
  }
  ConstBucketRef operator[](size_t i) const {
    return {{}, keyAt(i), counts_[i], errorAt(i), aggregationsAt(i)};
  }

  // ---- the columns, for the wire and reduce paths ----
  KeyView keyAt(size_t i) const {
    if constexpr (kStringKeys) {
      const char* p = key_wire_.data() + key_starts_[i];
      const char* end = key_wire_.data() + key_starts_[i + 1];
      while (static_cast<uint8_t>(*p) & 0x80) ++p;  // the VInt length
      ++p;
      return std::string_view(p, static_cast<size_t>(end - p));
    } else {
      return keys_[i];
    }
  }
  int64_t docCountAt(size_t i) const { return counts_[i]; }
  int64_t errorAt(size_t i) const { return errors_.empty() ? 0 : errors_[i]; }
  // Whether some bucket may have sub-aggregations (else every list is empty).
  bool hasAggregationsColumn() const { return !aggs_.empty(); }
  const InternalAggregations& aggregationsAt(size_t i) const {
    return aggs_.empty() ? InternalAggregations::emptyList() : aggs_[i];
  }
  const std::vector<int64_t>& docCounts() const { return counts_; }

  // Appends a bucket; `error` 0 and an empty `aggs` add no column.
  void append(KeyView key, int64_t doc_count, int64_t error, InternalAggregations aggs);
  // Appends bucket j of `src` with these counts and sub-aggregations (a
  // string key copied in its wire form).
  void appendFrom(const TermsBuckets& src, size_t j, int64_t doc_count, int64_t error,
                  InternalAggregations aggs);
  // Appends a string key's wire bytes (VInt length + bytes) as they are.
  void appendWireKey(const uint8_t* wire, size_t n) {
    key_wire_.append(reinterpret_cast<const char*>(wire), n);
    pushKeyEnd();
  }
  // The wire form of key i (VInt length + bytes) for string keys.
  std::string_view wireKeyAt(size_t i) const {
    return std::string_view(key_wire_).substr(key_starts_[i], key_starts_[i + 1] - key_starts_[i]);
  }
  void pushDocCount(int64_t c) { counts_.push_back(c); }
  void setError(size_t i, int64_t e);
  InternalAggregations& mutableAggregations(size_t i) {
    if (aggs_.size() != counts_.size()) aggs_.resize(counts_.size());
    return aggs_[i];
  }

  bool equals(const TermsBuckets& o) const;
  friend bool operator==(const TermsBuckets& a, const TermsBuckets& b) { return a.equals(b); }

 private:
  friend class InternalTerms<Key>;
  friend class TermsStringKeyRef<TermsBuckets>;
  KeyRef keyRef(size_t i) {
    if constexpr (kStringKeys) {
      return StringKeyRef(this, i);
    } else {
      return keys_[i];
    }
  }
  void setKey(size_t i, std::string_view k);
  void pushKeyEnd();
  // The rest of an append, once the key is in: the count, and the error and
  // sub-aggregations in their columns when they exist or are needed.
  void pushCounts(int64_t doc_count, int64_t error, InternalAggregations&& aggs);
  // Makes the error and sub-aggregation columns dense, for a BucketRef.
  void materialize() {
    if (errors_.size() != counts_.size()) errors_.resize(counts_.size());
    if (aggs_.size() != counts_.size()) aggs_.resize(counts_.size());
  }

  std::vector<int64_t> counts_;
  std::vector<int64_t> errors_;             // empty: every error is 0
  std::vector<InternalAggregations> aggs_;  // empty: no sub-aggregations
  // Keys: string keys in their wire form back to back, key i in
  // [key_starts_[i], key_starts_[i + 1]); numeric keys in keys_.
  std::string key_wire_;
  std::vector<uint32_t> key_starts_ = std::vector<uint32_t>(kStringKeys ? 1 : 0, 0);
  std::vector<typename Key::Type> keys_;
};

template <class Key>
class InternalTerms final : public AggregationBase<InternalTerms<Key>> {
 public:
  using Bucket = TermsBucket<Key>;
  static constexpr std::string_view kType = Key::kType;

  InternalTerms(std::string name, Metadata metadata)
      : AggregationBase<InternalTerms>(std::move(name), std::move(metadata)) {}
  InternalTerms(StreamInput& in, const NamedWriteableRegistry& registry);

  // The order shards sorted by for the reduce (key asc from 7.10 on).
  const BucketOrder& reduceOrder() const { return reduce_order_; }
  void setReduceOrder(BucketOrder o) { reduce_order_ = std::move(o); }
  const BucketOrder& order() const { return order_; }
  void setOrder(BucketOrder o) { order_ = std::move(o); }
  // The `size` asked for; INT32_MAX means all (written as 0, wire format §7).
  int32_t requiredSize() const { return required_size_; }
  void setRequiredSize(int32_t v) { required_size_ = v; }
  int32_t shardSize() const { return shard_size_; }
  void setShardSize(int32_t v) { shard_size_ = v; }
  int64_t minDocCount() const { return min_doc_count_; }
  void setMinDocCount(int64_t v) { min_doc_count_ = v; }
  // The aggregation-level error bound; absent = not computed yet (a shard's
  // result). Before 7.15.0 absent travels as 0, so a present 0 reads back absent.
  std::optional<int64_t> docCountError() const { return doc_count_error_; }
  void setDocCountError(std::optional<int64_t> v) { doc_count_error_ = v; }
  bool showTermDocCountError() const { return show_term_doc_count_error_; }
  void setShowTermDocCountError(bool v) { show_term_doc_count_error_ = v; }
  int64_t otherDocCount() const { return other_doc_count_; }
  void setOtherDocCount(int64_t v) { other_doc_count_ = v; }
  const DocValueFormat& format() const { return format_; }
  void setFormat(DocValueFormat f) { format_ = std::move(f); }
  TermsBuckets<Key>& buckets() { return buckets_; }
  const TermsBuckets<Key>& buckets() const { return buckets_; }

  // This shard's contribution to the error bound (wire format §8).
  int64_t shardDocCountError() const;

  std::unique_ptr<InternalAggregation> reduce(std::span<const InternalAggregation* const> aggs,
                                              const ReduceContext& context) const override;
  int64_t bucketCount() const override;

 protected:
  void doWriteTo(StreamOutput& out) const override;
  bool doEquals(const InternalAggregation& other) const override;

 private:
  void writeKey(StreamOutput::Cursor& c, size_t i) const;
  // Bucket i, which has no sub-aggregations, through the cursor.
  void writeLeafBucket(StreamOutput::Cursor& c, size_t i) const;
  // Every bucket, when none has sub-aggregations and keys are strings: in
  // runs whose total size is checked once.
  template <bool kShowError>
  void writeStringLeaves(StreamOutput::Cursor& c) const;

  BucketOrder reduce_order_ = BucketOrder::key(true);
  BucketOrder order_ = BucketOrder::count(false);
  int32_t required_size_ = 10;
  int64_t min_doc_count_ = 1;
  std::optional<int64_t> doc_count_error_ = 0;
  DocValueFormat format_;
  int32_t shard_size_ = 10;
  bool show_term_doc_count_error_ = false;
  int64_t other_doc_count_ = 0;
  TermsBuckets<Key> buckets_;
};

using StringTerms = InternalTerms<StringKey>;
using LongTerms = InternalTerms<LongKey>;
using DoubleTerms = InternalTerms<DoubleKey>;

extern template class TermsBuckets<StringKey>;
extern template class TermsBuckets<LongKey>;
extern template class TermsBuckets<DoubleKey>;
extern template class InternalTerms<StringKey>;
extern template class InternalTerms<LongKey>;
extern template class InternalTerms<DoubleKey>;

// writeSize / readSize of wire format §7: INT32_MAX travels as 0. A negative
// size on the wire is CorruptStreamError.
void writeSize(StreamOutput& out, int32_t size);
int32_t readSize(StreamInput& in, std::string_view what);

}  // namespace wirestream::aggregations
