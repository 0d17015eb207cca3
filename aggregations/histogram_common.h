// Internal to //aggregations: what `histogram` and `date_histogram` share
// (ES's InternalHistogram / InternalDateHistogram), as templates over their
// bucket columns (HistogramBuckets): the reduce, and the bucket list on the
// wire (its JSON: aggregations/json). The key type, how a key is read, written
// and printed, and the key-stepping function are what differ.
//
// A reduce is three steps: mergeByKey merges the inputs' buckets by key (a
// final reduce drops those under minDocCount), addEmptyBuckets fills the gaps
// of a final reduce with minDocCount 0 (stepping keys with the type's next),
// and orderFinal puts the key-ordered buckets in the aggregation's order.
//
// Every bucket created counts against ReduceContext::max_buckets before it is
// built (TooManyBucketsError beyond): kept merged buckets (counted as they are
// merged, one key at a time), filled-in empty
// buckets (counted by walking their keys first), and each filled bucket's
// copy of the empty bucket's sub-aggregations. Stateless; thread-safe.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "aggregations/bucket_order.h"
#include "aggregations/doc_value_format.h"
#include "aggregations/histogram_buckets.h"
#include "aggregations/internal_aggregation.h"
#include "aggregations/merge_order.h"
#include "aggregations/metric_columns.h"
#include "stream/stream_input.h"
#include "stream/stream_output.h"

namespace wirestream::aggregations::histogram_common {

// A filled-in bucket's copy of the empty bucket's sub-aggregations counts at
// least one bucket per this many bytes of its encoding, so that a heavy
// template (a dense cardinality sketch, large metadata) is bounded as well.
inline constexpr size_t kEmptyCopyBytesPerBucket = 256;

namespace detail {
// The indices of `buckets` in key order, or none when they already are (as
// ES sends them).
template <class Buckets, class Less>
std::vector<uint32_t> keyOrder(const Buckets& buckets, Less less) {
  size_t i = 1;
  while (i < buckets.size() && !less(buckets.keyAt(i), buckets.keyAt(i - 1))) ++i;
  if (i >= buckets.size()) return {};
  std::vector<uint32_t> order(buckets.size());
  for (size_t j = 0; j < order.size(); ++j) order[j] = static_cast<uint32_t>(j);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return less(buckets.keyAt(a), buckets.keyAt(b));
  });
  return order;
}
}  // namespace detail

// Merges the buckets of `aggs` (all of type Agg) by key, in key order
// (`Less`). The inputs are taken in the order of ES's queue of the shards
// (merge_order.h), so each key's sub-aggregations are reduced in that order,
// and each key is reduced as soon as its last bucket is taken: a final
// reduce counts every bucket it keeps against max_buckets before building
// it, and holds nothing more than the buckets kept and one key's rows (no
// map of every input key, which hostile inputs of millions of buckets would
// fill before the budget is consulted). An input out of key order (not from
// ES) is taken through a sorted index. A final reduce drops the keys under
// `min_doc_count`; each bucket kept counts one. Rows of metric columns are
// reduced through scratch objects of their shape (one a row of a key, reused
// from key to key), not built one by one.
template <class Agg, class Less>
typename Agg::Buckets mergeByKey(std::span<const InternalAggregation* const> aggs,
                                 int64_t min_doc_count, const ReduceContext& context, Less less) {
  using Buckets = typename Agg::Buckets;
  using Key = typename Buckets::KeyType;
  DowncastView<Agg> inputs = downcast<Agg>(aggs);
  std::vector<size_t> sizes(inputs.size());
  std::vector<std::vector<uint32_t>> orders(inputs.size());
  size_t largest = 0;
  for (size_t k = 0; k < inputs.size(); ++k) {
    sizes[k] = inputs[k]->buckets().size();
    orders[k] = detail::keyOrder(inputs[k]->buckets(), less);
    largest = std::max(largest, sizes[k]);
  }
  // Input k's bucket at position p of its key order.
  auto bucketAt = [&](uint32_t k, uint32_t p) { return orders[k].empty() ? p : orders[k][p]; };
  auto key_less = [&](uint32_t ka, uint32_t pa, uint32_t kb, uint32_t pb) {
    return less(inputs[ka]->buckets().keyAt(bucketAt(ka, pa)),
                inputs[kb]->buckets().keyAt(bucketAt(kb, pb)));
  };
  // The scratch shape: the first input held in metric columns; inputs in
  // columns of another shape have their rows built.
  const MetricColumns* shape = nullptr;
  std::vector<char> scratchable(inputs.size(), 0);
  for (size_t k = 0; k < inputs.size(); ++k) {
    const MetricColumns& mc = inputs[k]->buckets().metrics();
    if (!mc.active()) continue;
    if (shape == nullptr) shape = &mc;
    scratchable[k] = shape == &mc || shape->sameShape(mc);
  }
  std::vector<InternalAggregations> scratch;
  std::vector<InternalAggregations> built;
  std::vector<const InternalAggregations*> lists;
  std::vector<const InternalAggregation*> group;
  Buckets buckets;
  // Identical key sets merge to the largest input; a final reduce keeps at
  // most max_buckets.
  buckets.reserve(context.final_reduce
                      ? std::min(largest, static_cast<size_t>(std::max(context.max_buckets, 0)))
                      : largest);
  // The key being merged: its doc count and its rows (input, bucket).
  std::optional<Key> key;
  int64_t doc_count = 0;
  std::vector<std::pair<uint32_t, uint32_t>> rows;
  auto reduceKey = [&] {
    if (context.final_reduce && doc_count < min_doc_count) return;
    context.consumeBucketsAndMaybeBreak(1);
    lists.clear();
    built.clear();
    built.reserve(rows.size());  // pointers into both stay valid
    if (shape != nullptr) {
      while (scratch.size() < rows.size()) scratch.push_back(shape->prototypes());
    }
    bool all_scratch = shape != nullptr;
    for (size_t p = 0; p < rows.size(); ++p) {
      auto [k, i] = rows[p];
      const Buckets& bs = inputs[k]->buckets();
      if (const InternalAggregations* stored = bs.storedAggregations(i)) {
        lists.push_back(stored);
        all_scratch = false;
      } else if (scratchable[k]) {
        bs.metrics().loadRow(i, scratch[p]);
        lists.push_back(&scratch[p]);
      } else {
        lists.push_back(&built.emplace_back(bs.metrics().row(i)));
        all_scratch = false;
      }
    }
    if (!all_scratch) {
      buckets.append(*key, doc_count, InternalAggregations::reduceBucket(lists, context));
      return;
    }
    // Lists of one shape: InternalAggregations::reduce's groups are the
    // columns, in order, so each column's metrics are reduced directly.
    // In ES's order of the groups (esReduceOrder), as InternalAggregations::reduce.
    const size_t columns = shape->columns().size();
    std::vector<std::string_view> names;
    names.reserve(columns);
    for (size_t j = 0; j < columns; ++j) names.push_back((*lists.front())[j].getName());
    std::vector<size_t> calls;
    calls.reserve(columns * lists.size());
    for (size_t l = 0; l < lists.size(); ++l) {
      for (size_t j = 0; j < columns; ++j) calls.push_back(j);
    }
    std::vector<InternalAggregations::Ptr> reduced;
    reduced.reserve(columns);
    for (size_t j : esReduceOrder(context, names, calls, columns)) {
      group.clear();
      for (const InternalAggregations* list : lists) group.push_back(&(*list)[j]);
      reduced.push_back(group.front()->reduce(group, context));
    }
    buckets.append(*key, doc_count, InternalAggregations(std::move(reduced)));
  };
  forEachInMergeOrder(sizes, key_less, [&](uint32_t k, uint32_t p) {
    const uint32_t i = bucketAt(k, p);
    const Buckets& bs = inputs[k]->buckets();
    if (!key || less(*key, bs.keyAt(i))) {
      if (key) reduceKey();
      key = bs.keyAt(i);
      doc_count = 0;
      rows.clear();
    }
    doc_count = checkedAdd(doc_count, bs.docCountAt(i), "doc count");
    rows.emplace_back(k, i);
  });
  if (key) reduceKey();
  return buckets;
}

// Puts key-ordered buckets in `order` (a final reduce): reversed for key
// descending, a stable sort for any other order but key ascending.
template <class Buckets>
void orderFinal(Buckets& buckets, const BucketOrder& order) {
  if (order.kind() == BucketOrder::Kind::kKeyAsc) return;
  std::vector<uint32_t> index(buckets.size());
  for (size_t i = 0; i < index.size(); ++i) index[i] = static_cast<uint32_t>(i);
  if (order.kind() == BucketOrder::Kind::kKeyDesc) {
    std::reverse(index.begin(), index.end());
  } else {
    // Compared through light proxies: a sub-aggregation's value is looked up
    // only when the order names one.
    struct Ref {
      const Buckets* b;
      size_t i;
      int64_t docCount() const { return b->docCountAt(i); }
      int compareKey(const Ref& o) const {
        return Buckets::KeyTraits::compare(b->keyAt(i), o.b->keyAt(o.i));
      }
      double sortValue(std::string_view path) const { return b->sortValueAt(i, path); }
    };
    std::stable_sort(index.begin(), index.end(), [&](uint32_t x, uint32_t y) {
      return order.compare(Ref{&buckets, x}, Ref{&buckets, y}) < 0;
    });
  }
  buckets.permute(index);
}

// ES's histogram readers sort the buckets of a V_8_13_0 <= v < V_8_14_0 node by key
// (a stable sort, ascending): 8.13 could send them out of order.
template <class Buckets>
void resortFrom813(TransportVersion v, Buckets& buckets) {
  if (!v.onOrAfter(TransportVersion::V_8_13_0) || !v.before(TransportVersion::V_8_14_0)) return;
  std::vector<uint32_t> index(buckets.size());
  for (size_t i = 0; i < index.size(); ++i) index[i] = static_cast<uint32_t>(i);
  std::stable_sort(index.begin(), index.end(), [&](uint32_t x, uint32_t y) {
    return Buckets::KeyTraits::compare(buckets.keyAt(x), buckets.keyAt(y)) < 0;
  });
  buckets.permute(index);
}

// Where the empty buckets go, besides between the keys.
template <class Key>
struct FillRange {
  std::optional<Key> min;  // from here up to (not including) the first key
  std::optional<Key> max;  // after the last key up to here (inclusive), if above it
  // With no bucket at all: from first to second, inclusive.
  std::optional<std::pair<Key, Key>> when_empty;
};

namespace detail {
// The wire size of `aggs`, a measure of what a copy of them holds.
inline size_t copySize(const InternalAggregations& aggs) {
  try {
    return aggs.encodedSize();
  } catch (const std::invalid_argument&) {
    // Built in code and not writable (a minDocCount 0 histogram without its
    // empty bucket info): the bucket count alone measures it.
    return 0;
  }
}
}  // namespace detail

// Adds the empty buckets to key-ordered `buckets` (ES's addEmptyBuckets /
// iterateEmptyBuckets): from range.min to the first key, between keys, and
// from next(last key) to range.max, each step next(k). A walk stops where
// next makes no progress (a huge key, an overflow). The empty buckets hold
// `empty_template` reduced once: the last takes it, every other a copy.
template <class Buckets, class Next>
void addEmptyBuckets(Buckets& buckets, const InternalAggregations& empty_template,
                     const ReduceContext& context,
                     const FillRange<typename Buckets::KeyType>& range, Next next) {
  using Key = typename Buckets::KeyType;
  auto walk = [&](auto&& emit_empty, auto&& emit_existing) {
    auto fill = [&](Key from, Key until, bool inclusive) {
      for (Key k = from; inclusive ? k <= until : k < until;) {
        emit_empty(k);
        Key n = next(k);
        if (!(n > k)) break;
        k = n;
      }
    };
    if (buckets.empty()) {
      if (range.when_empty) fill(range.when_empty->first, range.when_empty->second, true);
      return;
    }
    if (range.min) fill(*range.min, buckets.keyAt(0), false);
    for (size_t i = 0; i < buckets.size(); ++i) {
      if (i > 0) fill(next(buckets.keyAt(i - 1)), buckets.keyAt(i), false);
      emit_existing(i);
    }
    const Key last = buckets.keyAt(buckets.size() - 1);
    if (range.max && *range.max > last) fill(next(last), *range.max, true);
  };

  // Count first, against the reduce's bucket budget, so that a request for
  // too many buckets fails before any is built (and the walk stops there).
  int64_t empty_count = 0;
  walk(
      [&](Key) {
        context.consumeBucketsAndMaybeBreak(1);
        ++empty_count;
      },
      [](size_t) {});
  if (empty_count == 0) return;

  // The template reduced once (which counts its buckets once). ES shares one
  // object among the empty buckets; here each copy is real memory (a row of
  // values when the buckets hold metric columns, objects otherwise), so each
  // counts before the copies are made.
  InternalAggregations reduced_empty = InternalAggregations::reduceSingle(empty_template, context);
  int64_t per_copy =
      std::max(reduced_empty.bucketCount(),
               static_cast<int64_t>(detail::copySize(reduced_empty) / kEmptyCopyBytesPerBucket));
  int64_t copies_cost;
  if (__builtin_mul_overflow(empty_count - 1, per_copy, &copies_cost)) {
    copies_cost = std::numeric_limits<int64_t>::max();
  }
  context.consumeBucketsAndMaybeBreak(copies_cost);

  Buckets out;
  out.reserve(buckets.size() + static_cast<size_t>(empty_count));
  int64_t emitted = 0;
  walk(
      [&](Key key) {
        if (++emitted == empty_count) {
          out.append(key, 0, std::move(reduced_empty));
        } else {
          out.append(key, 0, std::as_const(reduced_empty));
        }
      },
      [&](size_t i) { out.appendFrom(buckets, i); });
  buckets = std::move(out);
}

// The bucket list on the wire: VInt count, count x (key, VLong doc_count,
// InternalAggregations); a negative doc count is CorruptStreamError.
template <class Buckets>
void readBuckets(StreamInput& in, const NamedWriteableRegistry& registry, Buckets& buckets) {
  using KeyTraits = typename Buckets::KeyTraits;
  int32_t n = in.readArraySize(8 + 1 + 1);
  // Reserve only what the bytes left justify (a bucket's columns take more
  // than its smallest encoding); they grow as buckets actually arrive.
  buckets.reserve(in.boundedReserve(static_cast<size_t>(n), sizeof(typename Buckets::KeyType) + 8));
  for (int32_t i = 0; i < n; ++i) {
    typename Buckets::KeyType key;
    KeyTraits::read(in, key);
    int64_t doc_count = readNonNegativeVLong(in, "doc count");
    buckets.append(key, doc_count, InternalAggregations::readFrom(in, registry));
  }
}

template <class Buckets>
void writeBuckets(StreamOutput& out, const Buckets& buckets) {
  using KeyTraits = typename Buckets::KeyTraits;
  out.writeArraySize(buckets.size());
  const MetricColumns& metrics = buckets.metrics();
  if (metrics.active()) {
    for (size_t i = 0; i < buckets.size(); ++i) {
      KeyTraits::write(out, buckets.keyAt(i));
      out.writeVLong(buckets.docCountAt(i));
      metrics.writeRow(out, i);
    }
    return;
  }
  for (size_t i = 0; i < buckets.size(); ++i) {
    KeyTraits::write(out, buckets.keyAt(i));
    out.writeVLong(buckets.docCountAt(i));
    buckets.storedAggregations(i)->writeTo(out);
  }
}

}  // namespace wirestream::aggregations::histogram_common
