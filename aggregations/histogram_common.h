// Internal to //aggregations: what `histogram` and `date_histogram` share
// (ES's InternalHistogram / InternalDateHistogram), as templates over the
// bucket type: the reduce, and the bucket list on the wire (its JSON: aggregations/json). The
// key type, how a key is read, written and printed, and the key-stepping
// function are what differ.
//
//   std::vector<Bucket> buckets =
//       histogram_common::mergeByKey<Histogram>(aggs, first.minDocCount(), context, less);
//   if (context.final_reduce && fill) {
//     histogram_common::addEmptyBuckets(buckets, template_aggs, context, range, next);
//   }
//   histogram_common::orderFinal(buckets, order);
//
// Every bucket created counts against ReduceContext::max_buckets before it is
// built (TooManyBucketsError beyond): kept merged buckets, filled-in empty
// buckets (counted by walking their keys first), and each filled bucket's
// copy of the empty bucket's sub-aggregations. Stateless; thread-safe.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "aggregations/bucket_order.h"
#include "aggregations/doc_value_format.h"
#include "aggregations/internal_aggregation.h"
#include "stream/stream_input.h"
#include "stream/stream_output.h"

namespace wirestream::aggregations::histogram_common {

// A filled-in bucket's copy of the empty bucket's sub-aggregations counts at
// least one bucket per this many bytes of its encoding, so that a heavy
// template (a dense cardinality sketch, large metadata) is bounded as well.
inline constexpr size_t kEmptyCopyBytesPerBucket = 256;

// Merges the buckets of `aggs` (all of type Agg) by key, in key order
// (`Less`), reducing each key's sub-aggregations. A final reduce drops the
// keys under `min_doc_count`; each bucket kept counts one.
template <class Agg, class Less>
std::vector<typename Agg::Bucket> mergeByKey(std::span<const InternalAggregation* const> aggs,
                                             int64_t min_doc_count, const ReduceContext& context,
                                             Less less) {
  using Bucket = typename Agg::Bucket;
  using Key = decltype(Bucket::key);
  struct Merged {
    int64_t doc_count = 0;
    std::vector<const InternalAggregations*> subs;
  };
  std::map<Key, Merged, Less> merged(less);
  for (const Agg* h : downcast<Agg>(aggs)) {
    for (const Bucket& b : h->buckets()) {
      Merged& m = merged[b.key];
      m.doc_count = checkedAdd(m.doc_count, b.doc_count, "doc count");
      m.subs.push_back(&b.aggregations);
    }
  }
  std::vector<Bucket> buckets;
  buckets.reserve(merged.size());
  for (auto& [key, m] : merged) {
    if (context.final_reduce && m.doc_count < min_doc_count) continue;
    context.consumeBucketsAndMaybeBreak(1);
    buckets.push_back({key, m.doc_count, InternalAggregations::reduce(m.subs, context)});
  }
  return buckets;
}

// Puts key-ordered buckets in `order` (a final reduce): reversed for key
// descending, a stable sort for any other order but key ascending.
template <class Bucket>
void orderFinal(std::vector<Bucket>& buckets, const BucketOrder& order) {
  if (order.kind() == BucketOrder::Kind::kKeyDesc) {
    std::reverse(buckets.begin(), buckets.end());
  } else if (order.kind() != BucketOrder::Kind::kKeyAsc) {
    std::stable_sort(buckets.begin(), buckets.end(),
                     [&](const Bucket& a, const Bucket& b) { return order.compare(a, b) < 0; });
  }
}

// Where the empty buckets go, besides between the keys.
template <class Key>
struct FillRange {
  std::optional<Key> min;  // from here up to (not including) the first key
  std::optional<Key> max;  // after the last key up to here (inclusive), if above it
  // With no bucket at all: from first to second, inclusive.
  std::optional<std::pair<Key, Key>> when_empty;
};

// The number of buckets in `buckets` and their sub-aggregations.
template <class Bucket>
int64_t bucketCount(const std::vector<Bucket>& buckets) {
  int64_t n = static_cast<int64_t>(buckets.size());
  for (const Bucket& b : buckets) n += b.aggregations.bucketCount();
  return n;
}

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
template <class Bucket, class Next>
void addEmptyBuckets(std::vector<Bucket>& buckets, const InternalAggregations& empty_template,
                     const ReduceContext& context, const FillRange<decltype(Bucket::key)>& range,
                     Next next) {
  using Key = decltype(Bucket::key);
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
    if (range.min) fill(*range.min, buckets.front().key, false);
    for (size_t i = 0; i < buckets.size(); ++i) {
      if (i > 0) fill(next(buckets[i - 1].key), buckets[i].key, false);
      emit_existing(i);
    }
    if (range.max && *range.max > buckets.back().key) {
      fill(next(buckets.back().key), *range.max, true);
    }
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
  // object among the empty buckets; here each copy is real memory, so each
  // counts before the copies are made.
  const InternalAggregations* empty_subs[] = {&empty_template};
  InternalAggregations reduced_empty = InternalAggregations::reduce(empty_subs, context);
  int64_t per_copy =
      std::max(reduced_empty.bucketCount(),
               static_cast<int64_t>(detail::copySize(reduced_empty) / kEmptyCopyBytesPerBucket));
  int64_t copies_cost;
  if (__builtin_mul_overflow(empty_count - 1, per_copy, &copies_cost)) {
    copies_cost = std::numeric_limits<int64_t>::max();
  }
  context.consumeBucketsAndMaybeBreak(copies_cost);

  std::vector<Bucket> out;
  out.reserve(buckets.size() + static_cast<size_t>(empty_count));
  int64_t emitted = 0;
  walk(
      [&](Key key) {
        if (++emitted == empty_count) {
          out.push_back({key, 0, std::move(reduced_empty)});
        } else {
          out.push_back({key, 0, reduced_empty});
        }
      },
      [&](size_t i) { out.push_back(std::move(buckets[i])); });
  buckets = std::move(out);
}

// The bucket list on the wire: VInt count, count x (key, VLong doc_count,
// InternalAggregations); a negative doc count is CorruptStreamError.
template <class Bucket, class ReadKey>
void readBuckets(StreamInput& in, const NamedWriteableRegistry& registry,
                 std::vector<Bucket>& buckets, ReadKey read_key) {
  int32_t n = in.readArraySize(8 + 1 + 1);
  // Reserve only what the bytes left justify (a bucket object is larger than
  // its smallest encoding); the vector grows as buckets actually arrive.
  buckets.reserve(in.boundedReserve(static_cast<size_t>(n), sizeof(Bucket)));
  for (int32_t i = 0; i < n; ++i) {
    Bucket& b = buckets.emplace_back();
    b.key = read_key(in);
    b.doc_count = readNonNegativeVLong(in, "doc count");
    b.aggregations = InternalAggregations::readFrom(in, registry);
  }
}

template <class Bucket, class WriteKey>
void writeBuckets(StreamOutput& out, const std::vector<Bucket>& buckets, WriteKey write_key) {
  out.writeArraySize(buckets.size());
  for (const Bucket& b : buckets) {
    write_key(out, b.key);
    out.writeVLong(b.doc_count);
    b.aggregations.writeTo(out);
  }
}

}  // namespace wirestream::aggregations::histogram_common
