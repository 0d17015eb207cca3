// What the bucket columns of terms (terms.h) and histograms
// (histogram_buckets.h) share: how each key type goes on the wire, compares
// and renders, the iterator of their vector-like views, and the sub-
// aggregations a const bucket proxy hands out.
//
// Example (runs: bucket_columns):
//   #include "aggregations/terms.h"
//   StringTerms terms("genres", Metadata());
//   terms.buckets().push_back({"rock", /*doc_count=*/12, /*doc_count_error=*/0, {}});
//   int64_t docs = 0;
//   for (auto&& b : std::as_const(terms).buckets()) {  // proxies, not Bucket objects
//     std::string_view key = b.key;                   // "rock"
//     docs += b.doc_count;                            // 12
//   }
//
// Header-only; stateless apart from what each type holds. Thread-safety as the
// containers: concurrent const use is safe.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "aggregations/internal_aggregation.h"
#include "aggregations/java_double.h"

namespace wirestream::aggregations {

// How each key type goes on the wire, compares and renders.
struct StringKey {
  using Type = std::string;  // the key's bytes (usually UTF-8, need not be)
  using View = std::string_view;
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
  static int compare(std::string_view a, std::string_view b) {
    int c = a.compare(b);
    return (c > 0) - (c < 0);
  }
  static bool equal(std::string_view a, std::string_view b) { return a == b; }
  static double asDouble(std::string_view);
};

// A numeric key: a long (lterms, date_histogram) or a double (dterms,
// histogram, compared as Java's Double.compare).
template <class T>
struct NumericKey {
  using Type = T;
  using View = T;
  static constexpr size_t kMinWireBytes = 8;
  template <typename Out>
  static void write(Out& out, Type k) {
    if constexpr (std::is_same_v<T, double>) {
      out.writeDouble(k);
    } else {
      out.writeLong(k);
    }
  }
  template <typename In>
  static void read(In& in, Type& k) {
    if constexpr (std::is_same_v<T, double>) {
      k = in.readDouble();
    } else {
      k = in.readLong();
    }
  }
  static int compare(Type a, Type b) {
    if constexpr (std::is_same_v<T, double>) {
      return javaDoubleCompare(a, b);
    } else {
      return a < b ? -1 : (a == b ? 0 : 1);
    }
  }
  static bool equal(Type a, Type b) { return compare(a, b) == 0; }
  static double asDouble(Type k) { return static_cast<double>(k); }
};

struct LongKey : NumericKey<int64_t> {
  static constexpr std::string_view kType = "lterms";
};

struct DoubleKey : NumericKey<double> {
  static constexpr std::string_view kType = "dterms";
};

// The iterator of a bucket container's view: yields Owner::operator[]'s
// proxies (Owner::BucketRef, or Owner::ConstBucketRef through a const owner).
template <class Owner, bool kConst>
class BucketIterator {
 public:
  using OwnerType = std::conditional_t<kConst, const Owner, Owner>;
  using value_type =
      std::conditional_t<kConst, typename Owner::ConstBucketRef, typename Owner::BucketRef>;
  using difference_type = std::ptrdiff_t;
  BucketIterator() = default;
  BucketIterator(OwnerType* owner, size_t i) : owner_(owner), i_(i) {}
  value_type operator*() const { return (*owner_)[i_]; }
  BucketIterator& operator++() {
    ++i_;
    return *this;
  }
  BucketIterator operator++(int) {
    BucketIterator it = *this;
    ++i_;
    return it;
  }
  friend bool operator==(const BucketIterator& a, const BucketIterator& b) { return a.i_ == b.i_; }

 private:
  OwnerType* owner_ = nullptr;
  size_t i_ = 0;
};

// The vector-like surface of a bucket container (CRTP): back, begin and end
// from the Derived's size() and operator[] (proxies).
template <class Derived>
class BucketView {
 public:
  auto back() { return self()[self().size() - 1]; }
  auto back() const { return self()[self().size() - 1]; }
  BucketIterator<Derived, false> begin() { return {&self(), 0}; }
  BucketIterator<Derived, false> end() { return {&self(), self().size()}; }
  BucketIterator<Derived, true> begin() const { return {&self(), 0}; }
  BucketIterator<Derived, true> end() const { return {&self(), self().size()}; }

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
  const Derived& self() const { return static_cast<const Derived&>(*this); }
};

// What BucketOrder::compare asks of a const bucket proxy (CRTP: Ref has key,
// doc_count and aggregations; Key the key traits).
template <class Ref, class Key>
struct OrderedBucketRef {
  int64_t docCount() const { return self().doc_count; }
  int compareKey(const Ref& o) const { return Key::compare(self().key, o.key); }
  double sortValue(std::string_view path) const { return self().aggregations.sortValue(path); }

 private:
  const Ref& self() const { return static_cast<const Ref&>(*this); }
};

// A bucket's sub-aggregations as a const proxy hands them out: the stored
// list, or one built from metric columns (metric_columns.h) and owned here.
// Reads like a const InternalAggregations (and converts to one).
class BucketAggregations {
 public:
  explicit BucketAggregations(const InternalAggregations& stored) : list_(&stored) {}
  explicit BucketAggregations(InternalAggregations&& built)
      : owned_(std::make_shared<const InternalAggregations>(std::move(built))),
        list_(owned_.get()) {}

  operator const InternalAggregations&() const { return *list_; }
  const InternalAggregations& ref() const { return *list_; }

  size_t size() const { return list_->size(); }
  bool empty() const { return list_->empty(); }
  const InternalAggregation& operator[](size_t i) const { return (*list_)[i]; }
  const std::vector<InternalAggregations::Ptr>& list() const { return list_->list(); }
  const InternalAggregation* get(std::string_view name) const { return list_->get(name); }
  void writeTo(StreamOutput& out) const { list_->writeTo(out); }
  double sortValue(std::string_view path) const { return list_->sortValue(path); }
  int64_t bucketCount() const { return list_->bucketCount(); }
  size_t encodedSize() const { return list_->encodedSize(); }
  friend bool operator==(const BucketAggregations& a, const BucketAggregations& b) {
    return *a.list_ == *b.list_;
  }
  friend bool operator==(const BucketAggregations& a, const InternalAggregations& b) {
    return *a.list_ == b;
  }

 private:
  std::shared_ptr<const InternalAggregations> owned_;
  const InternalAggregations* list_;
};

}  // namespace wirestream::aggregations
