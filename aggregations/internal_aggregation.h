// InternalAggregation and InternalAggregations: the result of one aggregation
// on one shard (or of a reduce), and the ordered list of them that a search
// response or a bucket holds.
//
// Example (runs: internal_aggregation):
//   #include <cassert>
//   #include "aggregations/json/aggregation_json.h"
//   #include "aggregations/metrics.h"
//   #include "aggregations/registry.h"
//   #include "stream/bytes_stream_output.h"
//   InternalAggregations shard0, shard1;
//   shard0.add(std::make_unique<Max>("max_price", Metadata(), 42.5));
//   shard1.add(std::make_unique<Max>("max_price", Metadata(), 17.0));
//   BytesStreamOutput out;
//   shard0.writeTo(out);                                  // wire format §7
//   BytesReferenceStreamInput in(out.bytes());
//   assert(InternalAggregations::readFrom(in, defaultRegistry()) == shard0);
//   const InternalAggregations* shards[] = {&shard0, &shard1};  // a span, not a braced list
//   InternalAggregations total =
//       InternalAggregations::reduce(shards, ReduceContext::finalReduce());
//   std::string body = toResponseJson(total).dump();  // aggregations/json: ES's shape (§8)
//   assert(body == R"({"max_price":{"value":42.5}})");
//
// An InternalAggregation is a NamedWriteable: getWriteableName() is its type
// ("sterms"), getName() the name the user gave it. writeTo() writes the name,
// the metadata and then the type's body; InternalAggregations::writeTo adds the
// type name before each. Writing allocates nothing on the heap.
//
// Objects own their sub-aggregations (unique_ptr); copying an
// InternalAggregations deep-copies, except the metadata: immutable, it is
// shared among copies (a bucket's copy of a sub-aggregation copies a pointer,
// not the tree, which takes ~47 bytes of memory a wire byte). Not thread-safe
// for writes; concurrent const use is safe.
#pragma once

#include <cstdint>
#include <memory>
#include <ranges>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "aggregations/metadata.h"
#include "stream/errors.h"
#include "stream/stream_input.h"
#include "stream/stream_output.h"
#include "stream/structured/named_writeable_registry.h"
#include "stream/transport_version.h"
#include "stream/writeable.h"

namespace wirestream::aggregations {

// A final reduce would hold more than ReduceContext::max_buckets buckets:
// Elasticsearch's TooManyBucketsException (stream/errors.h), which crosses the
// transport as `too_many_buckets_exception` carrying maxBuckets(). A
// LimitExceededError, so a coordinator's one `catch (const StreamError&)` for bad
// shard results covers it too.
using ::wirestream::TooManyBucketsError;

// Partial reduces (on the way, e.g. per node) keep everything a later reduce
// needs; the final reduce applies size and minDocCount (wire format §8).
//
// The final reduce also keeps a bucket budget, as ES's MultiBucketConsumer:
// every bucket it creates, at every depth, counts against max_buckets —
// merged buckets, the empty buckets a histogram with minDocCount 0 fills in,
// and each copy of the sub-aggregations those empty buckets carry. The count
// is taken before the buckets are allocated, so a reduce's peak memory is
// O(input + max_buckets x bucket size) (docs/aggregations.md). Buckets that
// the reduce drops again (terms beyond `size`) are given back. A partial
// reduce creates no more buckets than its inputs hold and counts nothing.
//
// Use a fresh context for each reduce: the count accumulates in it (it is
// mutable so that reducers can take the context by const reference). Not
// thread-safe.
class ReduceContext {
 public:
  // ES 8's default of search.max_buckets.
  static constexpr int32_t kDefaultMaxBuckets = 65536;

  bool final_reduce = true;
  // At most this many live buckets in a final reduce; >= 0.
  int32_t max_buckets = kDefaultMaxBuckets;
  // The ES version whose reduce this one follows where they differ in more than the wire:
  // from V_8_16_0 ES sizes the map it groups a list's aggregations in by the first list, so
  // a reduced list (a bucket's sub-aggregations) comes out in that map's order
  // (docs/aggregations.md). Default: the current version.
  TransportVersion version = TransportVersion::current();

  static ReduceContext finalReduce(int32_t max_buckets = kDefaultMaxBuckets) {
    ReduceContext c;
    c.max_buckets = max_buckets;
    return c;
  }
  static ReduceContext partialReduce() {
    ReduceContext c;
    c.final_reduce = false;
    return c;
  }

  // Adds `n` buckets to the count (negative: gives them back) and throws
  // TooManyBucketsError when the count is then above max_buckets. Call it
  // before allocating what it counts. No-op in a partial reduce.
  void consumeBucketsAndMaybeBreak(int64_t n) const;
  // Live buckets counted so far.
  int64_t bucketCount() const { return bucket_count_; }

 private:
  mutable int64_t bucket_count_ = 0;
};

// The order in which ES's reduce at `context.version` returns the groups of a reduce of
// lists of aggregations: `names` in first-seen order, `calls` the group index of every
// aggregation of every list, in the order ES visits them, `first_size` the size of the first
// list. Returns the indexes of `names` in ES's order.
std::vector<size_t> esReduceOrder(const ReduceContext& context,
                                  const std::vector<std::string_view>& names,
                                  const std::vector<size_t>& calls, size_t first_size);

class InternalAggregation : public NamedWriteable {
 public:
  // The category in NamedWriteableRegistry messages.
  static constexpr std::string_view kWriteableCategory = "InternalAggregation";

  ~InternalAggregation() override = default;

  const std::string& getName() const { return name_; }
  void setName(std::string name) { name_ = std::move(name); }
  const Metadata& getMetadata() const { return metadata_ ? *metadata_ : noMetadata(); }
  void setMetadata(Metadata m) { metadata_ = share(std::move(m)); }

  // name, metadata, then the type's body (the type name is the caller's).
  void writeTo(StreamOutput& out) const final;
  // writeTo's first part, name and metadata: for a writer that writes the
  // body from elsewhere (a metric column's row).
  void writeNameAndMetadata(StreamOutput& out) const;

  // Reduces `aggs` (all of this type and name, aggs non-empty) into one
  // result. Parameters such as size are taken from aggs[0], as ES does. A
  // final reduce that would exceed context.max_buckets throws
  // TooManyBucketsError.
  virtual std::unique_ptr<InternalAggregation> reduce(
      std::span<const InternalAggregation* const> aggs, const ReduceContext& context) const = 0;

  virtual std::unique_ptr<InternalAggregation> clone() const = 0;

  // Whether a reduce of this result alone still reduces it (ES's
  // mustReduceOnSingleInternalAgg): true for bucket aggregations, which apply
  // size and min_doc_count; a metric alone is kept as it is, as ES keeps it
  // (a sparse cardinality sketch merged again would move its hashes).
  virtual bool mustReduceOnSingleInternalAgg() const { return true; }

  // Buckets in this result at every depth: its own and its sub-aggregations'
  // (0 for a metric). What a copy of it costs against ReduceContext's budget.
  virtual int64_t bucketCount() const { return 0; }
  // The bytes writeTo writes at the current transport version, counted
  // without being kept; throws what writeTo throws.
  size_t encodedSize() const;
  // The same at `version` (a value read at a newer version may hold what the
  // current one cannot write: a generic tag 30 needs 8.11).
  size_t encodedSize(TransportVersion version) const;

  // The value a bucket order names: "" for a single-value metric, else the
  // metric ("min", "avg"...). NaN when there is no such value.
  virtual double sortValue(std::string_view metric) const;

  friend bool operator==(const InternalAggregation& a, const InternalAggregation& b);

 protected:
  InternalAggregation(std::string name, Metadata metadata)
      : name_(std::move(name)), metadata_(share(std::move(metadata))) {}
  InternalAggregation(const InternalAggregation&) = default;
  InternalAggregation& operator=(const InternalAggregation&) = default;

  // Reads the common header (name, metadata) into the fields.
  explicit InternalAggregation(StreamInput& in);

  virtual void doWriteTo(StreamOutput& out) const = 0;
  // `other` has the same dynamic type; name and metadata are already equal.
  virtual bool doEquals(const InternalAggregation& other) const = 0;

 private:
  static const Metadata& noMetadata();
  // Null for null metadata (the common case), which then costs no allocation.
  static std::shared_ptr<const Metadata> share(Metadata m);

  std::string name_;
  std::shared_ptr<const Metadata> metadata_;  // null: no metadata
};

// The members every concrete aggregation type would write alike, supplied
// once: getWriteableName() is Derived::kType and clone() copies. A type
// derives from it with itself and its base (metrics.h: `class Avg final :
// public AggregationBase<Avg, MetricAggregation>`) and passes its name and
// metadata on: `AggregationBase(std::move(name), std::move(metadata))`.
//
// In a class template (InternalTerms<Key>) the base is dependent: name it
// with its arguments, AggregationBase<InternalTerms>(...), and reach the
// inherited members through this->.
template <class Derived, class Base = InternalAggregation>
class AggregationBase : public Base {
 public:
  std::string_view getWriteableName() const final { return Derived::kType; }
  std::unique_ptr<InternalAggregation> clone() const final {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }

 protected:
  using Base::Base;
};

// Views a reduce's input (all of dynamic type T, as reduce guarantees) as T.
// A hand-written view rather than std::views::transform: clang 14 (the fuzz
// build, tools/fuzz.sh) rejects libstdc++ 12's transform_view in range-for.
template <class T>
class DowncastView {
 public:
  class Iterator {
   public:
    explicit Iterator(const InternalAggregation* const* p) : p_(p) {}
    const T* operator*() const { return static_cast<const T*>(*p_); }
    Iterator& operator++() {
      ++p_;
      return *this;
    }
    bool operator==(const Iterator&) const = default;

   private:
    const InternalAggregation* const* p_;
  };

  explicit DowncastView(std::span<const InternalAggregation* const> aggs) : aggs_(aggs) {}
  Iterator begin() const { return Iterator(aggs_.data()); }
  Iterator end() const { return Iterator(aggs_.data() + aggs_.size()); }
  size_t size() const { return aggs_.size(); }
  const T* operator[](size_t i) const { return static_cast<const T*>(aggs_[i]); }

 private:
  std::span<const InternalAggregation* const> aggs_;
};

template <class T>
DowncastView<T> downcast(std::span<const InternalAggregation* const> aggs) {
  return DowncastView<T>(aggs);
}

// a + b for counts and error bounds summed by a reduce; hostile shard
// results can make the sum overflow a long: LimitExceededError naming `what`.
int64_t checkedAdd(int64_t a, int64_t b, std::string_view what);

// CorruptStreamError "negative <what> [v]".
[[noreturn]] void throwNegativeCount(std::string_view what, int64_t v);

// readVLong for counts: a negative value (a 10-byte VLong) is
// CorruptStreamError "negative <what> [v]". Inline: it runs once a bucket.
template <typename In>  // StreamInput or StreamInput::Cursor
int64_t readNonNegativeVLong(In& in, std::string_view what) {
  int64_t v = in.readVLong();
  if (v < 0) [[unlikely]]
    throwNegativeCount(what, v);
  return v;
}

// The names of one list as it is read, refused when one comes twice (a
// response keys its aggregations by name; a repeat would make reduce merge
// unrelated results): CorruptStreamError "duplicate aggregation name [x] in a
// list of n", as ES's reader. The names are kept as views, so they must
// outlive the check. Lists are mostly one or a few aggregations: those are
// searched, not hashed (a hash set's setup cost more than the rest of reading
// an empty bucket).
class UniqueNameCheck {
 public:
  explicit UniqueNameCheck(int32_t n) : n_(n) {}
  void add(std::string_view name) {
    bool repeated;
    if (n_ <= kFew && count_ < kFew) {
      repeated = false;
      for (size_t i = 0; i < count_; ++i) repeated |= few_[i] == name;
      few_[count_++] = name;
    } else {
      repeated = !many_.insert(name).second;
    }
    if (repeated) [[unlikely]]
      throwRepeated(name);
  }

 private:
  static constexpr size_t kFew = 8;
  [[noreturn]] void throwRepeated(std::string_view name) const;
  int32_t n_;
  size_t count_ = 0;
  std::string_view few_[kFew];
  std::unordered_set<std::string_view> many_;
};

class InternalAggregations {
 public:
  using Ptr = std::unique_ptr<InternalAggregation>;

  InternalAggregations() = default;
  explicit InternalAggregations(std::vector<Ptr> aggs);
  InternalAggregations(const InternalAggregations& other);
  InternalAggregations& operator=(const InternalAggregations& other);
  InternalAggregations(InternalAggregations&&) noexcept = default;
  InternalAggregations& operator=(InternalAggregations&&) noexcept = default;

  // An empty list that lives for the program (what a bucket without
  // sub-aggregations hands out by reference).
  static const InternalAggregations& emptyList();

  size_t size() const { return aggs_.size(); }
  bool empty() const { return aggs_.empty(); }
  const InternalAggregation& operator[](size_t i) const { return *aggs_[i]; }
  InternalAggregation& operator[](size_t i) { return *aggs_[i]; }
  const std::vector<Ptr>& list() const { return aggs_; }
  void add(Ptr agg) { aggs_.push_back(std::move(agg)); }
  // The aggregation named `name`, or nullptr.
  const InternalAggregation* get(std::string_view name) const;

  // VInt count, then for each: string type name, the aggregation. Inline
  // for the empty list every leaf bucket carries (a call per leaf bucket was
  // a fifth of serializing a 10^6-bucket terms tree).
  void writeTo(StreamOutput& out) const {
    out.writeArraySize(aggs_.size());
    if (!aggs_.empty()) writeEach(out);
  }
  // Each aggregation through registry's readers (category InternalAggregation):
  // unknown type names are CorruptStreamError "Unknown NamedWriteable
  // [InternalAggregation][name]"; nesting deeper than in.maxNestingDepth() is
  // LimitExceededError. The empty list every leaf bucket carries (one 00
  // byte) is read inline.
  static InternalAggregations readFrom(StreamInput& in, const NamedWriteableRegistry& registry) {
    if (in.readByteIf(0)) return InternalAggregations();
    return readList(in, registry);
  }

  // Groups the aggregations of every list by name and reduces each group; the
  // result lists them in the order ES's reduce does (the iteration order of a
  // java.util.HashMap keyed by the names), so it writes ES's bytes. Aggregations of one name that
  // cannot be reduced together (different types, at any depth) are CorruptStreamError: they come
  // off the wire. A final reduce that would create more than context.max_buckets buckets is
  // TooManyBucketsError, thrown before they are allocated.
  static InternalAggregations reduce(std::span<const InternalAggregations* const> lists,
                                     const ReduceContext& context);
  // ES's reduce of a single list (InternalAggregations.reduce of a list of one, as the
  // empty buckets' template is reduced): from context.version V_8_16_0 the order is kept,
  // before it is reduce()'s.
  static InternalAggregations reduceSingle(const InternalAggregations& list,
                                           const ReduceContext& context);
  // As reduce(), but as ES's BucketReducer (a histogram's bucket, from V_8_16_0): one list
  // too goes through the map, so its order may change. From V_8_16_0 (ES's
  // AggregatorsReducer) a metric only one list holds is reduced too, not kept as it is.
  static InternalAggregations reduceBucket(std::span<const InternalAggregations* const> lists,
                                           const ReduceContext& context);

  // "agg", "agg.metric" or "agg[metric]": the value a bucket order names.
  double sortValue(std::string_view path) const;

  // The sum of bucketCount() over the list.
  int64_t bucketCount() const;
  // The bytes writeTo writes at the current transport version, counted
  // without being kept; throws what writeTo throws.
  size_t encodedSize() const;

  friend bool operator==(const InternalAggregations& a, const InternalAggregations& b);

 private:
  // The type name and body of each aggregation (the count is written).
  void writeEach(StreamOutput& out) const;
  // readFrom from the count on.
  static InternalAggregations readList(StreamInput& in, const NamedWriteableRegistry& registry);

  std::vector<Ptr> aggs_;
};

}  // namespace wirestream::aggregations
