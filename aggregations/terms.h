// Terms aggregation results: StringTerms (`sterms`, keys are bytes),
// LongTerms (`lterms`) and DoubleTerms (`dterms`), one template over the key.
//
//   StringTerms t("genres", Metadata::none());
//   t.setOrder(BucketOrder::count(false));
//   t.setRequiredSize(10);
//   t.setShardSize(25);
//   t.buckets().push_back({"rock", /*doc_count=*/12, /*doc_count_error=*/0, {}});
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
#include <string>
#include <vector>

#include "aggregations/bucket_order.h"
#include "aggregations/doc_value_format.h"
#include "aggregations/internal_aggregation.h"
#include "aggregations/java_double.h"

namespace wirestream::aggregations {

// How each key type goes on the wire, compares and renders.
struct StringKey {
  using Type = std::string;  // the key's bytes (usually UTF-8, need not be)
  static constexpr std::string_view kType = "sterms";
  static constexpr size_t kMinWireBytes = 1;
  // writeBytesRef, spelled with the inline writers: this runs once a bucket.
  template <typename Out>  // StreamOutput or StreamOutput::Cursor
  static void write(Out& out, const Type& k) {
    assert(k.size() <= static_cast<size_t>(std::numeric_limits<int32_t>::max()));
    out.writeVInt(static_cast<int32_t>(k.size()));
    out.writeBytes({reinterpret_cast<const uint8_t*>(k.data()), k.size()});
  }
  // readBytesRef into `k`: a size checked against the bytes left, then the
  // bytes. Inline, with its errors thrown out of line: this too runs once a
  // bucket; reading in place spares moving a short key's inline bytes.
  template <typename In>  // StreamInput or StreamInput::Cursor
  static void read(In& in, Type& k) {
    auto n = static_cast<size_t>(in.readArraySize(1));
    if (const uint8_t* bytes = in.readInChunk(n)) {
      k.assign(reinterpret_cast<const char*>(bytes), n);
    } else {
      k.resize(n);
      in.readBytes({reinterpret_cast<uint8_t*>(k.data()), n});
    }
  }
  // Unsigned byte order, as ES's BytesRef.compareTo.
  static int compare(const Type& a, const Type& b) {
    int c = a.compare(b);
    return (c > 0) - (c < 0);
  }
  static bool equal(const Type& a, const Type& b) { return a == b; }
  static double asDouble(const Type&);
};

struct LongKey {
  using Type = int64_t;
  static constexpr std::string_view kType = "lterms";
  static constexpr size_t kMinWireBytes = 8;
  template <typename Out>
  static void write(Out& out, Type k) {
    out.writeLong(k);
  }
  template <typename In>
  static void read(In& in, Type& k) {
    k = in.readLong();
  }
  static int compare(Type a, Type b) { return a < b ? -1 : (a == b ? 0 : 1); }
  static bool equal(Type a, Type b) { return a == b; }
  static double asDouble(Type k) { return static_cast<double>(k); }
};

struct DoubleKey {
  using Type = double;
  static constexpr std::string_view kType = "dterms";
  static constexpr size_t kMinWireBytes = 8;
  template <typename Out>
  static void write(Out& out, Type k) {
    out.writeDouble(k);
  }
  template <typename In>
  static void read(In& in, Type& k) {
    k = in.readDouble();
  }
  static int compare(Type a, Type b) { return javaDoubleCompare(a, b); }
  static bool equal(Type a, Type b) { return compare(a, b) == 0; }
  static double asDouble(Type k) { return k; }
};

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
  int compareKey(const TermsBucket& o) const { return Key::compare(key, o.key); }
  double sortValue(std::string_view path) const { return aggregations.sortValue(path); }

  friend bool operator==(const TermsBucket& a, const TermsBucket& b) {
    return Key::equal(a.key, b.key) && a.doc_count == b.doc_count &&
           a.doc_count_error == b.doc_count_error && a.aggregations == b.aggregations;
  }
};

template <class Key>
class InternalTerms final : public InternalAggregation {
 public:
  using Bucket = TermsBucket<Key>;
  static constexpr std::string_view kType = Key::kType;

  InternalTerms(std::string name, Metadata metadata)
      : InternalAggregation(std::move(name), std::move(metadata)) {}
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
  std::vector<Bucket>& buckets() { return buckets_; }
  const std::vector<Bucket>& buckets() const { return buckets_; }

  // This shard's contribution to the error bound (wire format §8).
  int64_t shardDocCountError() const;

  std::string_view getWriteableName() const override { return kType; }
  std::unique_ptr<InternalAggregation> reduce(std::span<const InternalAggregation* const> aggs,
                                              const ReduceContext& context) const override;
  std::unique_ptr<InternalAggregation> clone() const override {
    return std::make_unique<InternalTerms>(*this);
  }
  int64_t bucketCount() const override;

 protected:
  void doWriteTo(StreamOutput& out) const override;
  bool doEquals(const InternalAggregation& other) const override;

 private:
  BucketOrder reduce_order_ = BucketOrder::key(true);
  BucketOrder order_ = BucketOrder::count(false);
  int32_t required_size_ = 10;
  int64_t min_doc_count_ = 1;
  std::optional<int64_t> doc_count_error_ = 0;
  DocValueFormat format_;
  int32_t shard_size_ = 10;
  bool show_term_doc_count_error_ = false;
  int64_t other_doc_count_ = 0;
  std::vector<Bucket> buckets_;
};

using StringTerms = InternalTerms<StringKey>;
using LongTerms = InternalTerms<LongKey>;
using DoubleTerms = InternalTerms<DoubleKey>;

extern template class InternalTerms<StringKey>;
extern template class InternalTerms<LongKey>;
extern template class InternalTerms<DoubleKey>;

// writeSize / readSize of wire format §7: INT32_MAX travels as 0. A negative
// size on the wire is CorruptStreamError.
void writeSize(StreamOutput& out, int32_t size);
int32_t readSize(StreamInput& in, std::string_view what);

}  // namespace wirestream::aggregations
