// The columnar encoding of aggregation results (wire format §10):
//
//   columnar aggregations := VInt count, count x aggregation
//   aggregation   := 00 string type, body          the ES encoding of §7 (the named writeable)
//                  | 01 string type, shell, columns
//   shell         := the §7 body of the aggregation with no bucket (so it ends in the
//                    bucket count 00), read by the ES reader of `type`
//   columns       := VInt n (buckets; the writer sends >= 1)
//                    keys           date_histogram: time block; lterms: integer block;
//                                   histogram, dterms: double column
//                    doc counts     integer block
//                    [lterms, dterms with showTermDocCountError] doc count errors: integer block
//                    VInt m, m x sub
//   sub           := string type, string name, metadata (generic value: map or null),
//                    [format (named writeable), for all but value_count], values
//   values        := max, min, sum: double column
//                  | avg: double column (sums), count column
//                  | value_count: count column
//                  | stats: count column, double columns min, max, sum
//   double column := 00 float block | 01 double array split (§10; used when a value is NaN)
//   count column  := 00 integer block | 01 (no bytes: the values are the doc counts)
//   block         := VInt length, one TSM block (tsm/tsm_stream.h) of exactly n values
//
// Bucket i is (keys[i], doc counts[i], [errors[i]]) with sub-aggregations built
// from row i of every sub's columns, in the order of the subs (a histogram
// keeps the columns: HistogramBuckets, MetricColumns).
#include "aggregations/columnar.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <optional>
#include <string>
#include <typeinfo>
#include <vector>

#include "aggregations/date_histogram.h"
#include "aggregations/histogram.h"
#include "aggregations/metadata.h"
#include "aggregations/metric_columns.h"
#include "aggregations/metrics.h"
#include "aggregations/terms.h"
#include "stream/errors.h"
#include "stream/structured/structured_stream.h"
#include "tsm/tsm_stream.h"

namespace wirestream::aggregations::columnar {
namespace {

constexpr uint8_t kEsEncoding = 0;
constexpr uint8_t kColumns = 1;
constexpr uint8_t kFloatBlock = 0;
constexpr uint8_t kSplitDoubles = 1;
constexpr uint8_t kIntegerBlock = 0;
constexpr uint8_t kSameAsDocCounts = 1;

using Metric = MetricColumns::Metric;
using Column = MetricColumns::Column;

// ---- buffers ----

// Column buffers reused across calls on a thread: a fresh 8 MB vector a
// column costs more in page faults than decoding it. Buffers above
// kKeepValues are freed after each call (trim()).
constexpr size_t kKeepValues = size_t{1} << 20;

template <class T>
std::vector<T>& pooled(size_t slot) {
  thread_local std::deque<std::vector<T>> pool;  // a deque: references stay valid as it grows
  while (pool.size() <= slot) pool.emplace_back();
  return pool[slot];
}

template <class T>
void trimPool() {
  for (size_t slot = 0;; ++slot) {
    std::vector<T>& v = pooled<T>(slot);
    if (v.capacity() == 0 && slot > 8) break;
    if (v.capacity() > kKeepValues) std::vector<T>().swap(v);
  }
}

void trim() {
  trimPool<double>();
  trimPool<int64_t>();
}

// Hands out pool slots for one aggregation's columns.
struct Slots {
  size_t doubles = 0;
  size_t longs = 0;
  std::vector<double>& nextDoubles(size_t n) {
    std::vector<double>& v = pooled<double>(doubles++);
    v.resize(n);
    return v;
  }
  std::vector<int64_t>& nextLongs(size_t n) {
    std::vector<int64_t>& v = pooled<int64_t>(longs++);
    v.resize(n);
    return v;
  }
};

// ---- the budget ----

// What one response may still create: Limits::max_objects over the whole list
// of aggregations, charged before what it counts is allocated.
class Budget {
 public:
  explicit Budget(int64_t max_objects) : max_(max_objects) {}

  // Counts n x per_bucket objects more for the n buckets of aggregation
  // `name`: LimitExceededError, naming the total and the limit, past it.
  void charge(const std::string& name, int32_t n, int64_t per_bucket) {
    int64_t total = 0;
    if (__builtin_mul_overflow(int64_t{n}, per_bucket, &total) ||
        __builtin_add_overflow(used_, total, &total)) {
      total = std::numeric_limits<int64_t>::max();
    }
    if (total > max_) {
      internal::throwLimitExceeded("columnar aggregations would create " + std::to_string(total) +
                                   " objects (" + std::to_string(used_) + " before the " +
                                   std::to_string(n) + " buckets of [" + name +
                                   "]), above the limit of " + std::to_string(max_) +
                                   " for one response (Limits::max_objects)");
    }
    used_ = total;
  }

 private:
  int64_t max_;
  int64_t used_ = 0;
};

// ---- shape ----

// Bucket i's stored sub-aggregation list (a histogram's held as objects).
template <class Buckets>
const InternalAggregations& storedAt(const Buckets& buckets, size_t i) {
  if constexpr (requires { buckets.storedAggregations(i); }) {
    return *buckets.storedAggregations(i);
  } else {
    return buckets.aggregationsAt(i);
  }
}

// Gathers the buckets' sub-aggregation lists (objects) into `out`: false
// unless they are all of one metric shape. Empty lists give no columns.
// Buckets: terms' TermsBuckets or a histogram's columns held as objects.
template <class Buckets>
bool gatherMetrics(const Buckets& buckets, MetricColumns& out) {
  out.clear();
  if (buckets.empty()) return false;
  const InternalAggregations& first = storedAt(buckets, 0);
  if (first.empty()) {
    for (size_t i = 1; i < buckets.size(); ++i) {
      if (!storedAt(buckets, i).empty()) return false;
    }
    return true;
  }
  if (!out.start(first)) return false;
  out.reserve(buckets.size());
  for (size_t i = 0; i < buckets.size(); ++i) {
    if (!out.append(storedAt(buckets, i))) return false;
  }
  return true;
}

// The metric columns to write for `buckets`, or nullptr when they are not of
// one metric shape: a histogram's own columns, else gathered into `scratch`.
template <class Buckets>
const MetricColumns* metricsOf(const Buckets& buckets, MetricColumns& scratch) {
  if constexpr (requires { buckets.metrics(); }) {
    if (buckets.empty()) return nullptr;
    if (buckets.metrics().active()) return &buckets.metrics();
    if (!buckets.hasObjects()) {
      scratch.clear();
      return &scratch;
    }
  }
  return gatherMetrics(buckets, scratch) ? &scratch : nullptr;
}

// ---- columns ----

void checkNonNegative(std::span<const int64_t> v, std::string_view what) {
  for (int64_t x : v) {
    if (x < 0) [[unlikely]]
      internal::throwInvalidArgument("negative " + std::string(what) + " [" + std::to_string(x) +
                                     "]");
  }
}

void writeDoubleColumn(StreamOutput& out, std::span<const double> v) {
  if (std::any_of(v.begin(), v.end(), [](double d) { return std::isnan(d); })) {
    out.writeByte(kSplitDoubles);
    out.writeDoubleArraySplit(v);
  } else {
    out.writeByte(kFloatBlock);
    tsm::writeFloatBlock(out, v);
  }
}

// A count column that repeats the doc counts (an avg over a single-valued
// field counts one value a document) takes no block.
void writeCountColumn(StreamOutput& out, std::span<const int64_t> v,
                      std::span<const int64_t> doc_counts, std::string_view what) {
  checkNonNegative(v, what);
  if (std::equal(v.begin(), v.end(), doc_counts.begin(), doc_counts.end())) {
    out.writeByte(kSameAsDocCounts);
  } else {
    out.writeByte(kIntegerBlock);
    tsm::writeIntegerBlock(out, v);
  }
}

[[noreturn]] void throwColumnSize(std::string_view what, size_t got, size_t n) {
  internal::throwCorrupt("columnar " + std::string(what) + " hold " + std::to_string(got) +
                         " values, expected one a bucket (" + std::to_string(n) + ")");
}

// Reads a column of at most n values into `v` (decoding stops past n) and
// checks that it has exactly n.
template <class T, class Read>
void readColumn(StreamInput& in, size_t n, std::string_view what, std::vector<T>& v, Read read) {
  try {
    read(in, v, n);
  } catch (const LimitExceededError&) {
    internal::throwCorrupt("columnar " + std::string(what) +
                           " hold more than one value a bucket (" + std::to_string(n) + ")");
  }
  if (v.size() != n) throwColumnSize(what, v.size(), n);
}

void readIntegerColumn(StreamInput& in, size_t n, std::string_view what, std::vector<int64_t>& v) {
  readColumn<int64_t>(in, n, what, v,
                      [](StreamInput& s, auto& w, size_t m) { tsm::readIntegerBlock(s, w, m); });
}

void checkCounts(std::span<const int64_t> v, std::string_view what) {
  for (int64_t x : v) {
    if (x < 0) [[unlikely]]
      throwNegativeCount(what, x);
  }
}

void readCountColumn(StreamInput& in, size_t n, std::string_view what,
                     std::span<const int64_t> doc_counts, std::vector<int64_t>& v) {
  const uint8_t tag = in.readByte();
  if (tag == kSameAsDocCounts) {
    v.assign(doc_counts.begin(), doc_counts.end());
    return;
  }
  if (tag != kIntegerBlock) {
    internal::throwCorrupt("unknown count column encoding [" + std::to_string(tag) + "] of " +
                           std::string(what));
  }
  readIntegerColumn(in, n, what, v);
  checkCounts(v, what);
}

void readDoubleColumn(StreamInput& in, size_t n, std::string_view what, std::vector<double>& v) {
  readColumn<double>(in, n, what, v, [what](StreamInput& s, auto& w, size_t m) {
    uint8_t tag = s.readByte();
    if (tag == kFloatBlock) {
      tsm::readFloatBlock(s, w, m);
    } else if (tag == kSplitDoubles) {
      w = s.readDoubleArraySplit();
    } else {
      internal::throwCorrupt("unknown double column encoding [" + std::to_string(tag) + "] of " +
                             std::string(what));
    }
  });
}

// Keys by column kind.
struct TimeKeys {
  using T = int64_t;
  static void write(StreamOutput& out, std::span<const int64_t> v) { tsm::writeTimeBlock(out, v); }
  static void read(StreamInput& in, size_t n, std::vector<int64_t>& v) {
    readColumn<int64_t>(in, n, "keys", v,
                        [](StreamInput& s, auto& w, size_t m) { tsm::readTimeBlock(s, w, m); });
  }
};
struct IntegerKeys {
  using T = int64_t;
  static void write(StreamOutput& out, std::span<const int64_t> v) {
    tsm::writeIntegerBlock(out, v);
  }
  static void read(StreamInput& in, size_t n, std::vector<int64_t>& v) {
    readIntegerColumn(in, n, "keys", v);
  }
};
struct DoubleKeys {
  using T = double;
  static void write(StreamOutput& out, std::span<const double> v) { writeDoubleColumn(out, v); }
  static void read(StreamInput& in, size_t n, std::vector<double>& v) {
    readDoubleColumn(in, n, "keys", v);
  }
};

// ---- sub-aggregations ----

void writeSubColumns(StreamOutput& out, const MetricColumns& metrics,
                     std::span<const int64_t> doc_counts) {
  out.writeArraySize(metrics.columns().size());
  for (const Column& c : metrics.columns()) {
    MetricColumns::writeHeader(out, c);
    for (const MetricColumns::Field& f : c.kind().fields) {
      if (f.doubles) {
        writeDoubleColumn(out, c.*f.doubles);
      } else {
        writeCountColumn(out, c.*f.counts, doc_counts, f.what);
      }
    }
  }
}

// The object every row of a column copies: type, name, metadata, format.
InternalAggregations::Ptr prototypeOf(const MetricColumns::Kind& kind, std::string name,
                                      Metadata metadata, const DocValueFormat& format) {
  InternalAggregations::Ptr p = kind.make(std::move(name), std::move(metadata));
  if (kind.has_format && !format.isRaw()) static_cast<MetricAggregation&>(*p).setFormat(format);
  return p;
}

// The objects a bucket's copy of a sub-aggregation counts (Limits): one, and
// one more a 64 bytes of memory it takes beyond that: its copy of the name
// and the format (about a byte a wire byte; the metadata is shared, not
// copied) and, where each bucket holds the sub-aggregation as its own object
// (terms; a histogram holds values in columns), that object.
int64_t weightOf(const MetricColumns::Kind& kind, size_t copied, bool own_object) {
  size_t bytes = copied;
  if (own_object) bytes += sizeof(InternalAggregations::Ptr) + kind.object_size;
  return 1 + static_cast<int64_t>(bytes / 64);
}

// One sub-aggregation's header, read: its column without values yet, and the
// bytes of the name and format that each bucket's copy of it copies.
struct SubHeader {
  Column column;
  size_t copied;
};

SubHeader readSubHeader(StreamInput& in, const NamedWriteableRegistry& registry) {
  std::string type = in.readString();
  std::optional<Metric> metric = MetricColumns::metricOf(type);
  if (!metric) internal::throwCorrupt("unknown columnar sub-aggregation type [" + type + "]");
  std::string name = in.readString();
  Metadata metadata = readMetadata(in);
  const size_t before_format = in.available();
  const MetricColumns::Kind& kind = MetricColumns::kindOf(*metric);
  DocValueFormat format;
  if (kind.has_format) format = DocValueFormat::readFrom(in, registry);
  const size_t copied = name.size() + (before_format - in.available());
  return {{*metric, prototypeOf(kind, std::move(name), std::move(metadata), format)}, copied};
}

void readSubValues(StreamInput& in, size_t n, std::span<const int64_t> doc_counts, Column& c) {
  for (const MetricColumns::Field& f : c.kind().fields) {
    if (f.doubles) {
      readDoubleColumn(in, n, f.what, c.*f.doubles);
    } else {
      readCountColumn(in, n, f.what, doc_counts, c.*f.counts);
    }
  }
}

// A copy of `h` without its buckets: what the shell carries.
std::unique_ptr<DateHistogram> shellOf(const DateHistogram& h) {
  auto s = std::make_unique<DateHistogram>(h.getName(), h.getMetadata());
  s->setOrder(h.order());
  s->setMinDocCount(h.minDocCount());
  s->setEmptyBucketInfo(h.emptyBucketInfo());
  s->setOffset(h.offset());
  s->setFormat(h.format());
  s->setKeyed(h.keyed());
  return s;
}

std::unique_ptr<Histogram> shellOf(const Histogram& h) {
  auto s = std::make_unique<Histogram>(h.getName(), h.getMetadata());
  s->setOrder(h.order());
  s->setMinDocCount(h.minDocCount());
  s->setEmptyBucketInfo(h.emptyBucketInfo());
  s->setFormat(h.format());
  s->setKeyed(h.keyed());
  return s;
}

template <class Key>
std::unique_ptr<InternalTerms<Key>> shellOf(const InternalTerms<Key>& t) {
  auto s = std::make_unique<InternalTerms<Key>>(t.getName(), t.getMetadata());
  s->setReduceOrder(t.reduceOrder());
  s->setOrder(t.order());
  s->setRequiredSize(t.requiredSize());
  s->setShardSize(t.shardSize());
  s->setMinDocCount(t.minDocCount());
  s->setDocCountError(t.docCountError());
  s->setShowTermDocCountError(t.showTermDocCountError());
  s->setOtherDocCount(t.otherDocCount());
  s->setFormat(t.format());
  return s;
}

// ---- the bucket aggregations ----

template <class Bucket>
constexpr bool kHasErrors = requires(Bucket b) {
  b.doc_count_error;
};

// Histograms hold their buckets as columns (histogram_buckets.h), which are
// written from and read into directly; terms' keys and sub-aggregations go
// through buffers.
template <class Agg>
constexpr bool kHistogramColumns = requires(Agg& a) {
  a.buckets().metrics();
};

// Writes 01, the shell and the columns, or nothing and false when the
// buckets' sub-aggregations are not of one metric shape.
template <class Keys, class Agg>
bool writeColumns(StreamOutput& out, const Agg& agg) {
  using Bucket = typename Agg::Bucket;
  const auto& buckets = agg.buckets();
  const size_t n = buckets.size();
  thread_local MetricColumns gathered;
  const MetricColumns* metrics = metricsOf(buckets, gathered);
  if (metrics == nullptr) return false;
  Slots slots;
  std::span<const typename Keys::T> keys;
  if constexpr (kHistogramColumns<Agg>) {
    keys = buckets.keys();
  } else {
    std::vector<typename Keys::T>& v = [&]() -> auto& {
      if constexpr (std::is_same_v<typename Keys::T, double>) {
        return slots.nextDoubles(n);
      } else {
        return slots.nextLongs(n);
      }
    }
    ();
    for (size_t i = 0; i < n; ++i) v[i] = buckets.keyAt(i);
    keys = v;
  }
  std::span<const int64_t> counts = buckets.docCounts();
  checkNonNegative(counts, "doc count");
  out.writeByte(kColumns);
  out.writeNamedWriteable(*shellOf(agg));
  out.writeArraySize(n);
  Keys::write(out, keys);
  tsm::writeIntegerBlock(out, counts);
  if constexpr (kHasErrors<Bucket>) {
    if (agg.showTermDocCountError()) {
      std::vector<int64_t>& errors = slots.nextLongs(n);
      for (size_t i = 0; i < n; ++i) errors[i] = buckets.errorAt(i);
      tsm::writeIntegerBlock(out, errors);
    }
  }
  writeSubColumns(out, *metrics, counts);
  gathered.clear();
  return true;
}

template <class Keys, class Agg>
void readColumns(StreamInput& in, const NamedWriteableRegistry& registry, Budget& budget,
                 Agg& agg) {
  using Bucket = typename Agg::Bucket;
  if (!agg.buckets().empty()) {
    internal::throwCorrupt("columnar shell of [" + agg.getName() + "] holds " +
                           std::to_string(agg.buckets().size()) + " buckets");
  }
  const int32_t count = in.readArraySize(0);
  const auto n = static_cast<size_t>(count);
  budget.charge(agg.getName(), count, 1);
  // A histogram's keys and counts become its columns; terms' are buffers.
  Slots slots;
  std::vector<typename Keys::T> own_keys;
  std::vector<int64_t> own_counts;
  std::vector<typename Keys::T>* keys = &own_keys;
  std::vector<int64_t>* counts = &own_counts;
  if constexpr (!kHistogramColumns<Agg>) {
    if constexpr (std::is_same_v<typename Keys::T, double>) {
      keys = &slots.nextDoubles(0);
    } else {
      keys = &slots.nextLongs(0);
    }
    counts = &slots.nextLongs(0);
  }
  Keys::read(in, n, *keys);
  readIntegerColumn(in, n, "doc count", *counts);
  checkCounts(*counts, "doc count");
  std::vector<int64_t>* errors = nullptr;
  if constexpr (kHasErrors<Bucket>) {
    if (agg.showTermDocCountError()) {
      errors = &slots.nextLongs(0);
      readIntegerColumn(in, n, "doc count errors", *errors);
    }
  }
  const int32_t m = in.readArraySize(4);  // a sub is at least 4 bytes
  // One object a sub a bucket now; a long header's extra weight as it is read.
  budget.charge(agg.getName(), count, m);
  MetricColumns metrics;
  // Each bucket's list gets these names: refused as the ES encoding's reader refuses them.
  UniqueNameCheck names(m);
  for (int32_t j = 0; j < m; ++j) {
    SubHeader sub = readSubHeader(in, registry);
    names.add(sub.column.prototype->getName());
    budget.charge(agg.getName(), count,
                  weightOf(sub.column.kind(), sub.copied, !kHistogramColumns<Agg>) - 1);
    readSubValues(in, n, *counts, sub.column);
    metrics.addColumn(std::move(sub.column));
  }
  metrics.setRows(n);

  if constexpr (kHistogramColumns<Agg>) {
    agg.buckets().assign(std::move(own_keys), std::move(own_counts), std::move(metrics));
  } else {
    auto& buckets = agg.buckets();
    buckets.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      Bucket b;
      b.key = (*keys)[i];
      b.doc_count = (*counts)[i];
      if constexpr (kHasErrors<Bucket>) {
        if (errors != nullptr) b.doc_count_error = (*errors)[i];
      }
      if (m > 0) b.aggregations = metrics.row(i);
      buckets.push_back(std::move(b));
    }
  }
}

// Calls f.template operator()<Keys>(typed agg) for a columnar type; false otherwise.
template <class A, class F>
bool visit(A& agg, F&& f) {
  using Base = std::remove_const_t<A>;
  static_assert(std::is_same_v<Base, InternalAggregation>);
  std::string_view type = agg.getWriteableName();
  auto as = [&](auto* tag) -> auto& {
    using T = std::remove_pointer_t<decltype(tag)>;
    if constexpr (std::is_const_v<A>) {
      return static_cast<const T&>(agg);
    } else {
      return static_cast<T&>(agg);
    }
  };
  if (type == DateHistogram::kType)
    return f.template operator()<TimeKeys>(as(static_cast<DateHistogram*>(nullptr)));
  if (type == Histogram::kType)
    return f.template operator()<DoubleKeys>(as(static_cast<Histogram*>(nullptr)));
  if (type == LongTerms::kType)
    return f.template operator()<IntegerKeys>(as(static_cast<LongTerms*>(nullptr)));
  if (type == DoubleTerms::kType)
    return f.template operator()<DoubleKeys>(as(static_cast<DoubleTerms*>(nullptr)));
  return false;
}

bool tryWriteColumnar(StreamOutput& out, const InternalAggregation& agg) {
  return visit(agg, [&]<class Keys>(const auto& typed) { return writeColumns<Keys>(out, typed); });
}

}  // namespace

bool isColumnar(const InternalAggregation& agg) {
  return visit(agg, [&]<class Keys>(const auto& typed) {
    MetricColumns gathered;
    return metricsOf(typed.buckets(), gathered) != nullptr;
  });
}

void writeAggregations(StreamOutput& out, const InternalAggregations& aggs) {
  out.writeArraySize(aggs.size());
  for (const auto& a : aggs.list()) {
    if (!tryWriteColumnar(out, *a)) {
      out.writeByte(kEsEncoding);
      out.writeNamedWriteable(*a);
    }
  }
  trim();
}

InternalAggregations readAggregations(StreamInput& in, const NamedWriteableRegistry& registry,
                                      const Limits& limits) {
  const int32_t n = in.readArraySize(3);  // a tag and a type name at least
  Budget budget(limits.max_objects);
  std::vector<InternalAggregations::Ptr> list;
  list.reserve(in.boundedReserve(static_cast<size_t>(n), sizeof(InternalAggregations::Ptr)));
  // Names are unique in a list, as the ES encoding's reader requires.
  UniqueNameCheck names(n);
  for (int32_t i = 0; i < n; ++i) {
    const uint8_t tag = in.readByte();
    if (tag != kEsEncoding && tag != kColumns) {
      internal::throwCorrupt("unknown columnar aggregation encoding [" + std::to_string(tag) + "]");
    }
    InternalAggregations::Ptr agg = readNamedWriteable<InternalAggregation>(in, registry);
    if (tag == kColumns) {
      InternalAggregation& a = *agg;
      bool known = visit(a, [&]<class Keys>(auto& typed) {
        readColumns<Keys>(in, registry, budget, typed);
        return true;
      });
      if (!known) {
        internal::throwCorrupt("aggregation [" + a.getName() + "] of type [" +
                               std::string(a.getWriteableName()) + "] has no columnar form");
      }
    }
    names.add(agg->getName());
    list.push_back(std::move(agg));
  }
  trim();
  return InternalAggregations(std::move(list));
}

}  // namespace wirestream::aggregations::columnar
