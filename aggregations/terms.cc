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

#include "aggregations/merge_order.h"

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

double StringKey::asDouble(std::string_view) { return std::numeric_limits<double>::quiet_NaN(); }

// ---- the bucket columns ----

template <class Key>
void TermsBuckets<Key>::reserve(size_t n) {
  counts_.reserve(n);
  if constexpr (kStringKeys) {
    key_starts_.reserve(n + 1);
  } else {
    keys_.reserve(n);
  }
}

template <class Key>
void TermsBuckets<Key>::clear() {
  counts_.clear();
  errors_.clear();
  aggs_.clear();
  key_wire_.clear();
  key_starts_.assign(kStringKeys ? 1 : 0, 0);
  keys_.clear();
}

template <class Key>
void TermsBuckets<Key>::pushKeyEnd() {
  if (key_wire_.size() > std::numeric_limits<uint32_t>::max()) {
    throw std::length_error("terms keys over 4 GiB in one aggregation");
  }
  key_starts_.push_back(static_cast<uint32_t>(key_wire_.size()));
}

namespace {
// A string key's wire form: VInt length, then the bytes.
void appendWireForm(std::string& arena, std::string_view k) {
  if (k.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    throw std::length_error("terms key of " + std::to_string(k.size()) + " bytes");
  }
  uint8_t prefix[kMaxVIntBytes];
  uint8_t* end = encodeVInt(prefix, static_cast<uint32_t>(k.size()));
  arena.append(reinterpret_cast<const char*>(prefix), static_cast<size_t>(end - prefix));
  arena.append(k);
}
}  // namespace

template <class Key>
void TermsBuckets<Key>::pushCounts(int64_t doc_count, int64_t error, InternalAggregations&& aggs) {
  size_t i = counts_.size();
  counts_.push_back(doc_count);
  if (error != 0 || !errors_.empty()) {
    errors_.resize(i);
    errors_.push_back(error);
  }
  if (!aggs.empty() || !aggs_.empty()) {
    aggs_.resize(i);
    aggs_.push_back(std::move(aggs));
  }
}

template <class Key>
void TermsBuckets<Key>::append(KeyView key, int64_t doc_count, int64_t error,
                               InternalAggregations aggs) {
  if constexpr (kStringKeys) {
    appendWireForm(key_wire_, key);
    pushKeyEnd();
  } else {
    keys_.push_back(key);
  }
  pushCounts(doc_count, error, std::move(aggs));
}

template <class Key>
void TermsBuckets<Key>::appendFrom(const TermsBuckets& src, size_t j, int64_t doc_count,
                                   int64_t error, InternalAggregations aggs) {
  if constexpr (kStringKeys) {
    std::string_view wire = src.wireKeyAt(j);
    appendWireKey(reinterpret_cast<const uint8_t*>(wire.data()), wire.size());
  } else {
    keys_.push_back(src.keys_[j]);
  }
  pushCounts(doc_count, error, std::move(aggs));
}

template <class Key>
void TermsBuckets<Key>::pop_back() {
  size_t n = counts_.size() - 1;
  counts_.pop_back();
  if (errors_.size() > n) errors_.pop_back();
  if (aggs_.size() > n) aggs_.pop_back();
  if constexpr (kStringKeys) {
    key_starts_.pop_back();
    key_wire_.resize(key_starts_.back());
  } else {
    keys_.pop_back();
  }
}

template <class Key>
void TermsBuckets<Key>::setError(size_t i, int64_t e) {
  if (errors_.size() != counts_.size()) {
    if (e == 0 && errors_.empty()) return;
    errors_.resize(counts_.size());
  }
  errors_[i] = e;
}

template <class Key>
void TermsBuckets<Key>::setKey(size_t i, std::string_view k) {
  if constexpr (kStringKeys) {
    std::string wire;
    appendWireForm(wire, k);
    size_t start = key_starts_[i];
    size_t old_size = key_starts_[i + 1] - start;
    if (key_wire_.size() - old_size + wire.size() > std::numeric_limits<uint32_t>::max()) {
      throw std::length_error("terms keys over 4 GiB in one aggregation");
    }
    key_wire_.replace(start, old_size, wire);
    for (size_t j = i + 1; j < key_starts_.size(); ++j) {
      key_starts_[j] = static_cast<uint32_t>(key_starts_[j] - old_size + wire.size());
    }
  }
}

template <class Key>
bool TermsBuckets<Key>::equals(const TermsBuckets& o) const {
  if (size() != o.size()) return false;
  for (size_t i = 0; i < size(); ++i) {
    if (!Key::equal(keyAt(i), o.keyAt(i)) || docCountAt(i) != o.docCountAt(i) ||
        errorAt(i) != o.errorAt(i) || !(aggregationsAt(i) == o.aggregationsAt(i))) {
      return false;
    }
  }
  return true;
}

// ---- reading ----

template <class Key>
InternalTerms<Key>::InternalTerms(StreamInput& in, const NamedWriteableRegistry& registry)
    : AggregationBase<InternalTerms>(in) {
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
  // The columns are reserved for `n` (readArraySize checked that the bytes
  // left hold n buckets, and a bucket's columns take at most a few times its
  // smallest encoding); they grow as buckets actually arrive.
  buckets_.reserve(static_cast<size_t>(n));
  // The buckets through a cursor that keeps the read position in a
  // register, straight into the columns; a non-empty sub-aggregation list is
  // read from the stream itself.
  TermsBuckets<Key>& bs = buckets_;
  StreamInput::Cursor c(in);
  for (int32_t i = 0; i < n; ++i) {
    int64_t doc_count = c.readVLong();
    if (doc_count < 0) [[unlikely]]
      throwNegativeCount("doc count", doc_count);
    bs.counts_.push_back(doc_count);
    if (show_term_doc_count_error_) bs.setError(static_cast<size_t>(i), c.readLong());
    if (!c.readByteIf(0)) {
      bs.aggs_.resize(static_cast<size_t>(i) + 1);
      c.withStream(
          [&](StreamInput& s) { bs.aggs_[i] = InternalAggregations::readFrom(s, registry); });
    } else if (bs.hasAggregationsColumn()) {
      bs.aggs_.emplace_back();
    }
    if constexpr (TermsBuckets<Key>::kStringKeys) {
      // The key's wire form (VInt length + bytes) as it is, re-encoded only
      // when the length came in more bytes than it needs.
      auto len = static_cast<size_t>(c.readArraySize(1));
      uint8_t prefix[kMaxVIntBytes];
      uint8_t* prefix_end = encodeVInt(prefix, static_cast<uint32_t>(len));
      std::string& arena = bs.key_wire_;
      arena.append(reinterpret_cast<const char*>(prefix), static_cast<size_t>(prefix_end - prefix));
      if (const uint8_t* bytes = c.readInChunk(len)) {
        arena.append(reinterpret_cast<const char*>(bytes), len);
      } else {
        size_t at = arena.size();
        arena.resize(at + len);
        c.readBytes({reinterpret_cast<uint8_t*>(arena.data() + at), len});
      }
      bs.pushKeyEnd();
    } else {
      typename Key::Type k;
      Key::read(c, k);
      bs.keys_.push_back(k);
    }
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
  // The buckets column by column through a cursor that keeps the write
  // position in a register; a non-empty sub-aggregation list is written by
  // the stream. A bucket that surely fits in the buffer is written with no
  // bounds checks (Cursor::writeWithin).
  const TermsBuckets<Key>& bs = buckets_;
  const bool has_aggs = bs.hasAggregationsColumn();
  const bool show_error = show_term_doc_count_error_;
  StreamOutput::Cursor c(out);
  c.writeArraySize(bs.size());
  if constexpr (TermsBuckets<Key>::kStringKeys) {
    if (!has_aggs) {
      show_error ? writeStringLeaves<true>(c) : writeStringLeaves<false>(c);
      return;
    }
  }
  for (size_t i = 0; i < bs.size(); ++i) {
    if (has_aggs && !bs.aggs_[i].empty()) {
      c.writeVLong(bs.counts_[i]);
      if (show_error) c.writeLong(bs.errorAt(i));
      c.withStream([&](StreamOutput& s) { bs.aggs_[i].writeTo(s); });
      writeKey(c, i);
      continue;
    }
    writeLeafBucket(c, i);
  }
}

template <class Key>
void InternalTerms<Key>::writeLeafBucket(StreamOutput::Cursor& c, size_t i) const {
  // The count, the error, 00 for no sub-aggregations, the key.
  const TermsBuckets<Key>& bs = buckets_;
  const bool show_error = show_term_doc_count_error_;
  if constexpr (TermsBuckets<Key>::kStringKeys) {
    std::string_view key = bs.wireKeyAt(i);
    c.writeWithin(kMaxVLongBytes + 8 + 1 + key.size(), [&](auto& w) {
      w.writeVLong(bs.counts_[i]);
      if (show_error) w.writeLong(bs.errorAt(i));
      w.writeByte(0);
      w.writeBytes({reinterpret_cast<const uint8_t*>(key.data()), key.size()});
    });
  } else {
    c.writeWithin(kMaxVLongBytes + 8 + 1 + 8, [&](auto& w) {
      w.writeVLong(bs.counts_[i]);
      if (show_error) w.writeLong(bs.errorAt(i));
      w.writeByte(0);
      Key::write(w, bs.keys_[i]);
    });
  }
}

template <class Key>
template <bool kShowError>
void InternalTerms<Key>::writeStringLeaves(StreamOutput::Cursor& c) const {
  // Each bucket: the count (at most kMaxVLongBytes), the error, 00 for no
  // sub-aggregations, the key's wire bytes from the arena. A run's room is
  // the sum of its keys' sizes plus kPer a bucket, checked once; a run that
  // does not fit in the rest of the buffer is halved, and a single bucket
  // that does not fit goes through the cursor (the buffer's end).
  const TermsBuckets<Key>& bs = buckets_;
  constexpr size_t kPer = kMaxVLongBytes + (kShowError ? 8 : 0) + 1;
  constexpr size_t kMaxRun = 256;
  const uint32_t* starts = bs.key_starts_.data();
  const auto* arena = reinterpret_cast<const uint8_t*>(bs.key_wire_.data());
  // A key with kReservedSlop arena bytes from its start is copied with one
  // padded copy.
  const size_t arena_size = bs.key_wire_.size();
  const int64_t* counts = bs.counts_.data();
  const size_t n = bs.size();
  size_t i = 0;
  while (i < n) {
    const size_t avail = c.reservable();
    size_t k = std::min(n - i, kMaxRun);
    size_t bytes = starts[i + k] - starts[i] + k * kPer;
    while (bytes > avail && k > 0) {
      k >>= 1;
      bytes = starts[i + k] - starts[i] + k * kPer;
    }
    if (k == 0) {
      writeLeafBucket(c, i);
      ++i;
      continue;
    }
    const size_t stop = i + k;
    c.writeReserved(bytes, [&](StreamOutput::Reserved& w) {
      for (; i < stop; ++i) {
        const int64_t count = counts[i];
        if (static_cast<uint64_t>(count) < 0x80) [[likely]] {
          w.writeByte(static_cast<uint8_t>(count));
        } else {
          w.writeVLong(count);
        }
        if constexpr (kShowError) w.writeLong(bs.errorAt(i));
        w.writeByte(0);
        const size_t s = starts[i];
        const size_t len = starts[i + 1] - s;
        if (len <= StreamOutput::kReservedSlop && s + StreamOutput::kReservedSlop <= arena_size)
            [[likely]] {
          w.writeBytesPadded(arena + s, len);
        } else {
          w.writeBytes({arena + s, len});
        }
      }
    });
  }
}

template <class Key>
void InternalTerms<Key>::writeKey(StreamOutput::Cursor& c, size_t i) const {
  if constexpr (TermsBuckets<Key>::kStringKeys) {
    std::string_view key = buckets_.wireKeyAt(i);
    c.writeBytes({reinterpret_cast<const uint8_t*>(key.data()), key.size()});
  } else {
    Key::write(c, buckets_.keys_[i]);
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
    const std::vector<int64_t>& counts = buckets_.docCounts();
    return *std::min_element(counts.begin(), counts.end());
  }
  return -1;
}

namespace {

// One shard bucket in the reduce: its key, and where it lives.
template <class Key>
struct ReduceEntry {
  typename Key::View key;
  uint32_t shard;
  uint32_t index;
};

// A function object, not a function, so that std::stable_sort inlines it
// (through a function pointer it made a call a comparison: +8% instructions).
template <class Key>
struct KeyLess {
  bool operator()(const ReduceEntry<Key>& a, const ReduceEntry<Key>& b) const {
    return Key::compare(a.key, b.key) < 0;
  }
};

// The reduce's first phase: every bucket of every shard as an entry, shard by
// shard, and what the shards add up to.
template <class Key>
struct GatheredShards {
  std::vector<const InternalTerms<Key>*> shards;
  std::vector<ReduceEntry<Key>> entries;
  std::vector<int64_t> shard_errors;  // each shard's bound, -1 unknown
  int64_t sum_error = 0;              // -1 is sticky: unbounded
  int64_t other = 0;
  // Whether every shard sent its buckets in ascending (descending) key order.
  bool runs_sorted = true;
  bool runs_descending = true;
};

template <class Key>
GatheredShards<Key> gatherShards(std::span<const InternalAggregation* const> aggs) {
  GatheredShards<Key> g;
  for (const InternalTerms<Key>* t : downcast<InternalTerms<Key>>(aggs)) g.shards.push_back(t);
  size_t total = 0;
  for (const InternalTerms<Key>* t : g.shards) total += t->buckets().size();
  std::vector<ReduceEntry<Key>>& entries = g.entries;
  entries.reserve(total);
  g.shard_errors.resize(g.shards.size());
  for (size_t s = 0; s < g.shards.size(); ++s) {
    const InternalTerms<Key>* t = g.shards[s];
    g.other = checkedAdd(g.other, t->otherDocCount(), "sum_other_doc_count");
    int64_t shard_error = t->shardDocCountError();
    g.shard_errors[s] = shard_error;
    if (g.sum_error != -1)
      g.sum_error =
          shard_error == -1 ? -1 : checkedAdd(g.sum_error, shard_error, "doc count error");
    const TermsBuckets<Key>& bs = t->buckets();
    for (size_t i = 0; i < bs.size(); ++i) {
      entries.push_back({bs.keyAt(i), static_cast<uint32_t>(s), static_cast<uint32_t>(i)});
      if (i > 0 && KeyLess<Key>{}(entries.back(), entries[entries.size() - 2]))
        g.runs_sorted = false;
      if (i > 0 && KeyLess<Key>{}(entries[entries.size() - 2], entries.back()))
        g.runs_descending = false;
    }
  }
  return g;
}

// The second phase: the entries in key order (stable: shard order within a
// key), so that each key's buckets are one run. Shards send their buckets by
// key, so the runs are merged, not sorted, when they are: each key's buckets
// are taken in the order of ES's merge-sort queue (merge_order.h), ascending
// or as the shards sorted them, so that their sub-aggregations reduce in ES's
// order.
template <class Key>
void sortByKey(GatheredShards<Key>& g) {
  std::vector<ReduceEntry<Key>>& entries = g.entries;
  if (!g.runs_sorted && !g.runs_descending) {
    std::stable_sort(entries.begin(), entries.end(), KeyLess<Key>{});
    return;
  }
  const std::vector<const InternalTerms<Key>*>& shards = g.shards;
  std::vector<size_t> sizes;
  sizes.reserve(shards.size());
  for (const InternalTerms<Key>* t : shards) sizes.push_back(t->buckets().size());
  const bool ascending = g.runs_sorted;
  auto less = [&](uint32_t sa, uint32_t ia, uint32_t sb, uint32_t ib) {
    const int c = Key::compare(shards[sa]->buckets().keyAt(ia), shards[sb]->buckets().keyAt(ib));
    return ascending ? c < 0 : c > 0;
  };
  std::vector<ReduceEntry<Key>> queued;
  queued.reserve(entries.size());
  for (auto [sh, i] : luceneMergeOrder(sizes, less)) {
    queued.push_back({shards[sh]->buckets().keyAt(i), sh, i});
  }
  entries = std::move(queued);
  if (!ascending) std::stable_sort(entries.begin(), entries.end(), KeyLess<Key>{});
}

// The last phase of a final reduce: the kept buckets (`heap`, indices into
// `merged`, a heap if `heaped`) in the aggregation's order; `merged` itself
// when that is already it (key order asked for, nothing fell out).
template <class Key, class Less>
TermsBuckets<Key> takeKept(TermsBuckets<Key>&& merged, std::vector<uint32_t>& heap, bool heaped,
                           Less less) {
  if (heaped) {
    std::sort_heap(heap.begin(), heap.end(), less);
  } else if (!std::is_sorted(heap.begin(), heap.end(), less)) {
    std::sort(heap.begin(), heap.end(), less);  // a total order: as the heap would
  }
  bool in_place = heap.size() == merged.size();
  for (size_t k = 0; in_place && k < heap.size(); ++k) in_place = heap[k] == k;
  if (in_place) return std::move(merged);
  TermsBuckets<Key> result;
  result.reserve(heap.size());
  for (uint32_t k : heap) {
    result.appendFrom(merged, k, merged.docCountAt(k), merged.errorAt(k),
                      merged.hasAggregationsColumn() ? std::move(merged.mutableAggregations(k))
                                                     : InternalAggregations());
  }
  return result;
}

}  // namespace

template <class Key>
std::unique_ptr<InternalAggregation> InternalTerms<Key>::reduce(
    std::span<const InternalAggregation* const> aggs, const ReduceContext& context) const {
  const auto& first = *static_cast<const InternalTerms*>(aggs[0]);
  // Every bucket of every shard, in key order, then merged run by run.
  GatheredShards<Key> g = gatherShards<Key>(aggs);
  sortByKey(g);
  const std::vector<const InternalTerms*>& shards = g.shards;
  const std::vector<ReduceEntry<Key>>& entries = g.entries;
  const std::vector<int64_t>& shard_errors_of = g.shard_errors;
  const int64_t sum_error = g.sum_error;
  int64_t other = g.other;

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

  // The merged buckets go straight into columns. A final reduce keeps the
  // best `size` of them as it goes, in a heap of their indices with the
  // worst on top (ES's priority queue): a bucket that falls out has its
  // sub-aggregations freed at once and given back to the bucket budget, so
  // the budget counts live buckets and many terms under a small `size` never
  // add up. The order is total (ties broken by key), so this keeps what a
  // full sort would.
  // The heap is made only once more than `size` buckets are merged: until
  // then none can fall out (the same buckets are kept, the same budget
  // counted), and key-sorted merged buckets often need no sorting at all.
  TermsBuckets<Key> merged;
  // Room for the largest shard's count: identical key sets merge to that.
  size_t largest = 0;
  for (const InternalTerms* t : shards) largest = std::max(largest, t->buckets_.size());
  merged.reserve(largest);
  const TermsBuckets<Key>& view = merged;
  const BucketOrder& order = first.order_;
  auto less = [&](uint32_t a, uint32_t b) { return order.compare(view[a], view[b]) < 0; };
  const size_t keep = static_cast<size_t>(first.required_size_);
  const bool compares_subs = order.comparesSubAggregations();
  std::vector<uint32_t> heap;
  bool heaped = false;
  std::vector<const InternalAggregations*> subs;
  for (size_t i = 0; i < entries.size();) {
    size_t run_end = i + 1;
    while (run_end < entries.size() && Key::equal(entries[run_end].key, entries[i].key)) {
      ++run_end;
    }
    int64_t doc_count = 0;
    int64_t error = 0;         // the errors of the shards that returned the term
    int64_t shard_errors = 0;  // the bounds of those shards
    bool error_unknown = false;
    subs.clear();
    for (size_t k = i; k < run_end; ++k) {
      const ReduceEntry<Key>& e = entries[k];
      const InternalTerms& t = *shards[e.shard];
      doc_count = checkedAdd(doc_count, t.buckets_.docCountAt(e.index), "doc count");
      int64_t bucket_error = t.buckets_.errorAt(e.index);
      int64_t shard_error = shard_errors_of[e.shard];
      if (!t.show_term_doc_count_error_ || bucket_error == -1 || shard_error == -1) {
        error_unknown = true;
      } else {
        error = checkedAdd(error, bucket_error, "doc count error");
        shard_errors = checkedAdd(shard_errors, shard_error, "doc count error");
      }
      const InternalAggregations& sub = t.buckets_.aggregationsAt(e.index);
      if (!sub.empty()) subs.push_back(&sub);
    }
    const ReduceEntry<Key> first_entry = entries[i];
    i = run_end;
    if (context.final_reduce && doc_count < first.min_doc_count_) continue;
    // Once `size` buckets are kept, a new one replaces one of them (or falls
    // out itself). By count or key, ES's queue compares a candidate without
    // reducing it and counts only the buckets it keeps, so the count never
    // passes `size` on the way. By a sub-aggregation, ES reduces (and counts)
    // the candidate to compare it, so the count reaches `size + 1` before the
    // worst is given back (ES 7.17 and later, DelayedBucket).
    const bool full = context.final_reduce && heap.size() >= keep;
    const bool counts_candidate = !full || compares_subs;
    if (counts_candidate) context.consumeBucketsAndMaybeBreak(1);
    int64_t bucket_error = 0;
    if (out->show_term_doc_count_error_) {
      // The bound of a term: what the shards that returned it say, plus the
      // bound of every shard that did not.
      bucket_error = (sum_error == -1 || error_unknown)
                         ? -1
                         : checkedAdd(error, sum_error - shard_errors, "doc count error");
    }
    auto index = static_cast<uint32_t>(merged.size());
    // Leaf buckets (no sub-aggregations anywhere) skip the list reduce.
    merged.appendFrom(
        shards[first_entry.shard]->buckets_, first_entry.index, doc_count, bucket_error,
        subs.empty() ? InternalAggregations() : InternalAggregations::reduce(subs, context));
    if (!context.final_reduce) continue;
    heap.push_back(index);
    if (!heaped) {
      if (heap.size() <= keep) continue;
      std::make_heap(heap.begin(), heap.end(), less);
      heaped = true;
    } else {
      std::push_heap(heap.begin(), heap.end(), less);
    }
    if (heap.size() > keep) {
      std::pop_heap(heap.begin(), heap.end(), less);
      uint32_t worst = heap.back();
      other = checkedAdd(other, merged.docCountAt(worst), "sum_other_doc_count");
      context.consumeBucketsAndMaybeBreak(-(compares_subs ? 1 : 0) -
                                          merged.aggregationsAt(worst).bucketCount());
      if (merged.hasAggregationsColumn())
        merged.mutableAggregations(worst) = InternalAggregations();
      heap.pop_back();
    }
  }
  out->other_doc_count_ = other;
  if (!context.final_reduce) {
    out->buckets_ = std::move(merged);
    return out;
  }
  out->buckets_ = takeKept(std::move(merged), heap, heaped, less);
  return out;
}

template <class Key>
int64_t InternalTerms<Key>::bucketCount() const {
  int64_t n = static_cast<int64_t>(buckets_.size());
  if (buckets_.hasAggregationsColumn()) {
    for (const InternalAggregations& a : buckets_.aggs_) n += a.bucketCount();
  }
  return n;
}

template class TermsBuckets<StringKey>;
template class TermsBuckets<LongKey>;
template class TermsBuckets<DoubleKey>;
template class InternalTerms<StringKey>;
template class InternalTerms<LongKey>;
template class InternalTerms<DoubleKey>;

}  // namespace wirestream::aggregations
