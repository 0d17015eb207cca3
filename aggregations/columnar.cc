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
//   block         := VInt length, one TSM block (codecs/tsm_stream.h) of exactly n values
//
// Bucket i is (keys[i], doc counts[i], [errors[i]]) with sub-aggregations built
// from row i of every sub's columns, in the order of the subs.
#include "aggregations/columnar.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <optional>
#include <string>
#include <typeinfo>
#include <unordered_set>
#include <vector>

#include "aggregations/date_histogram.h"
#include "aggregations/histogram.h"
#include "aggregations/metadata.h"
#include "aggregations/metrics.h"
#include "aggregations/terms.h"
#include "codecs/tsm_stream.h"
#include "stream/errors.h"
#include "stream/structured/structured_stream.h"

namespace wirestream::aggregations::columnar {
namespace {

constexpr uint8_t kEsEncoding = 0;
constexpr uint8_t kColumns = 1;
constexpr uint8_t kFloatBlock = 0;
constexpr uint8_t kSplitDoubles = 1;
constexpr uint8_t kIntegerBlock = 0;
constexpr uint8_t kSameAsDocCounts = 1;

enum class Metric { kMax, kMin, kSum, kAvg, kValueCount, kStats };

std::optional<Metric> metricOf(std::string_view type) {
  if (type == Max::kType) return Metric::kMax;
  if (type == Min::kType) return Metric::kMin;
  if (type == Sum::kType) return Metric::kSum;
  if (type == Avg::kType) return Metric::kAvg;
  if (type == ValueCount::kType) return Metric::kValueCount;
  if (type == Stats::kType) return Metric::kStats;
  return std::nullopt;
}

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

// ---- shape ----

bool sameFormat(const DocValueFormat& a, const DocValueFormat& b) {
  return a.kind() == b.kind() && (a.isRaw() || a == b);
}

// Names are short: compared inline, 8 bytes at a time, rather than through a
// memcmp call once a bucket.
bool sameName(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  const char* p = a.data();
  const char* q = b.data();
  size_t n = a.size();
  for (; n >= 8; n -= 8, p += 8, q += 8) {
    uint64_t x, y;
    std::memcpy(&x, p, 8);
    std::memcpy(&y, q, 8);
    if (x != y) return false;
  }
  for (; n > 0; --n) {
    if (*p++ != *q++) return false;
  }
  return true;
}

// `b` is of the same dynamic type as `a` (a metric of kind `metric`), with
// the same name, metadata and format.
bool sameShape(const InternalAggregation& a, const InternalAggregation& b, Metric metric) {
  if (&a == &b) return true;
  if (typeid(a) != typeid(b) || !sameName(a.getName(), b.getName())) return false;
  if (!(a.getMetadata().isNull() && b.getMetadata().isNull()) &&
      !(a.getMetadata() == b.getMetadata())) {
    return false;
  }
  return metric == Metric::kValueCount ||
         sameFormat(static_cast<const MetricAggregation&>(a).format(),
                    static_cast<const MetricAggregation&>(b).format());
}

// One sub-aggregation's values over the buckets, gathered for writing.
struct SubValues {
  Metric metric;
  const InternalAggregation* first;
  std::vector<double>* a = nullptr;   // max/min/sum value, avg sum, stats min
  std::vector<double>* b = nullptr;   // stats max
  std::vector<double>* c = nullptr;   // stats sum
  std::vector<int64_t>* l = nullptr;  // avg, value_count, stats counts
};

// Checks that every bucket carries sub-aggregations of one shape, all
// metrics, and gathers their values in the same pass (one visit of each
// object); false when they do not.
// Buckets: a histogram's std::vector<Bucket> or terms' TermsBuckets columns.
template <class Buckets>
bool gatherSubs(const Buckets& buckets, Slots& slots, std::vector<SubValues>& subs) {
  if (buckets.empty()) return false;
  const size_t n = buckets.size();
  const InternalAggregations& first = buckets[0].aggregations;
  subs.clear();
  for (const auto& a : first.list()) {
    std::optional<Metric> metric = metricOf(a->getWriteableName());
    if (!metric) return false;
    SubValues v{*metric, a.get()};
    switch (*metric) {
      case Metric::kStats:
        v.b = &slots.nextDoubles(n);
        v.c = &slots.nextDoubles(n);
        [[fallthrough]];
      case Metric::kAvg:
        v.l = &slots.nextLongs(n);
        v.a = &slots.nextDoubles(n);
        break;
      case Metric::kValueCount:
        v.l = &slots.nextLongs(n);
        break;
      default:
        v.a = &slots.nextDoubles(n);
        break;
    }
    subs.push_back(v);
  }
  for (size_t i = 0; i < n; ++i) {
    const InternalAggregations& list = buckets[i].aggregations;
    if (list.size() != subs.size()) return false;
    for (size_t j = 0; j < subs.size(); ++j) {
      const InternalAggregation& x = list[j];
      SubValues& v = subs[j];
      if (!sameShape(*v.first, x, v.metric)) [[unlikely]]
        return false;
      switch (v.metric) {
        case Metric::kMax:
          (*v.a)[i] = static_cast<const Max&>(x).value();
          break;
        case Metric::kMin:
          (*v.a)[i] = static_cast<const Min&>(x).value();
          break;
        case Metric::kSum:
          (*v.a)[i] = static_cast<const Sum&>(x).value();
          break;
        case Metric::kAvg:
          (*v.a)[i] = static_cast<const Avg&>(x).sum();
          (*v.l)[i] = static_cast<const Avg&>(x).count();
          break;
        case Metric::kValueCount:
          (*v.l)[i] = static_cast<const ValueCount&>(x).value();
          break;
        case Metric::kStats: {
          const auto& s = static_cast<const Stats&>(x);
          (*v.l)[i] = s.count();
          (*v.a)[i] = s.min();
          (*v.b)[i] = s.max();
          (*v.c)[i] = s.sum();
          break;
        }
      }
    }
  }
  return true;
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
std::span<const T> readColumn(StreamInput& in, size_t n, std::string_view what, std::vector<T>& v,
                              Read read) {
  try {
    read(in, v, n);
  } catch (const LimitExceededError&) {
    internal::throwCorrupt("columnar " + std::string(what) +
                           " hold more than one value a bucket (" + std::to_string(n) + ")");
  }
  if (v.size() != n) throwColumnSize(what, v.size(), n);
  return v;
}

std::span<const int64_t> readIntegerColumn(StreamInput& in, size_t n, std::string_view what,
                                           Slots& slots) {
  return readColumn<int64_t>(
      in, n, what, slots.nextLongs(0),
      [](StreamInput& s, auto& v, size_t m) { tsm::readIntegerBlock(s, v, m); });
}

std::span<const int64_t> checkCounts(std::span<const int64_t> v, std::string_view what) {
  for (int64_t x : v) {
    if (x < 0) [[unlikely]]
      throwNegativeCount(what, x);
  }
  return v;
}

std::span<const int64_t> readCountColumn(StreamInput& in, size_t n, std::string_view what,
                                         std::span<const int64_t> doc_counts, Slots& slots) {
  const uint8_t tag = in.readByte();
  if (tag == kSameAsDocCounts) return doc_counts;
  if (tag != kIntegerBlock) {
    internal::throwCorrupt("unknown count column encoding [" + std::to_string(tag) + "] of " +
                           std::string(what));
  }
  return checkCounts(readIntegerColumn(in, n, what, slots), what);
}

std::span<const double> readDoubleColumn(StreamInput& in, size_t n, std::string_view what,
                                         Slots& slots) {
  return readColumn<double>(
      in, n, what, slots.nextDoubles(0), [what](StreamInput& s, auto& v, size_t m) {
        uint8_t tag = s.readByte();
        if (tag == kFloatBlock) {
          tsm::readFloatBlock(s, v, m);
        } else if (tag == kSplitDoubles) {
          v = s.readDoubleArraySplit();
        } else {
          internal::throwCorrupt("unknown double column encoding [" + std::to_string(tag) +
                                 "] of " + std::string(what));
        }
      });
}

// Keys by column kind.
struct TimeKeys {
  using T = int64_t;
  static void write(StreamOutput& out, std::span<const int64_t> v) { tsm::writeTimeBlock(out, v); }
  static std::span<const int64_t> read(StreamInput& in, size_t n, Slots& slots) {
    return readColumn<int64_t>(
        in, n, "keys", slots.nextLongs(0),
        [](StreamInput& s, auto& v, size_t m) { tsm::readTimeBlock(s, v, m); });
  }
};
struct IntegerKeys {
  using T = int64_t;
  static void write(StreamOutput& out, std::span<const int64_t> v) {
    tsm::writeIntegerBlock(out, v);
  }
  static std::span<const int64_t> read(StreamInput& in, size_t n, Slots& slots) {
    return readIntegerColumn(in, n, "keys", slots);
  }
};
struct DoubleKeys {
  using T = double;
  static void write(StreamOutput& out, std::span<const double> v) { writeDoubleColumn(out, v); }
  static std::span<const double> read(StreamInput& in, size_t n, Slots& slots) {
    return readDoubleColumn(in, n, "keys", slots);
  }
};

// ---- sub-aggregations ----

void writeSubColumns(StreamOutput& out, const std::vector<SubValues>& subs,
                     std::span<const int64_t> doc_counts) {
  out.writeArraySize(subs.size());
  for (const SubValues& v : subs) {
    const InternalAggregation& a = *v.first;
    out.writeString(a.getWriteableName());
    out.writeString(a.getName());
    writeGenericValue(out, a.getMetadata());
    if (v.metric != Metric::kValueCount) {
      static_cast<const MetricAggregation&>(a).format().writeNamed(out);
    }
    switch (v.metric) {
      case Metric::kMax:
      case Metric::kMin:
      case Metric::kSum:
        writeDoubleColumn(out, *v.a);
        break;
      case Metric::kAvg:
        writeDoubleColumn(out, *v.a);
        writeCountColumn(out, *v.l, doc_counts, "avg count");
        break;
      case Metric::kValueCount:
        writeCountColumn(out, *v.l, doc_counts, "value_count");
        break;
      case Metric::kStats:
        writeCountColumn(out, *v.l, doc_counts, "stats count");
        writeDoubleColumn(out, *v.a);
        writeDoubleColumn(out, *v.b);
        writeDoubleColumn(out, *v.c);
        break;
    }
  }
}

// One sub-aggregation's header and columns, read.
struct SubColumn {
  Metric metric;
  std::string name;
  Metadata metadata;
  DocValueFormat format;
  std::span<const double> a, b, c;  // max/min/sum/avg sum; stats min, max, sum
  std::span<const int64_t> l;       // avg, value_count, stats counts
  int64_t weight;                   // objects a bucket's copy counts (Limits)

  InternalAggregations::Ptr build(size_t i) const {
    InternalAggregations::Ptr p;
    switch (metric) {
      case Metric::kMax:
        p = std::make_unique<Max>(name, metadata, a[i]);
        break;
      case Metric::kMin:
        p = std::make_unique<Min>(name, metadata, a[i]);
        break;
      case Metric::kSum:
        p = std::make_unique<Sum>(name, metadata, a[i]);
        break;
      case Metric::kAvg:
        p = std::make_unique<Avg>(name, metadata, a[i], l[i]);
        break;
      case Metric::kValueCount:
        return std::make_unique<ValueCount>(name, metadata, l[i]);
      case Metric::kStats:
        p = std::make_unique<Stats>(name, metadata, l[i], a[i], b[i], c[i]);
        break;
    }
    if (!format.isRaw()) static_cast<MetricAggregation&>(*p).setFormat(format);
    return p;
  }
};

SubColumn readSubColumn(StreamInput& in, const NamedWriteableRegistry& registry, size_t n,
                        std::span<const int64_t> doc_counts, Slots& slots) {
  const size_t before = in.available();
  std::string type = in.readString();
  std::optional<Metric> metric = metricOf(type);
  if (!metric) internal::throwCorrupt("unknown columnar sub-aggregation type [" + type + "]");
  SubColumn s{*metric, in.readString(), readMetadata(in), {}, {}, {}, {}, {}, 0};
  if (s.metric != Metric::kValueCount) s.format = DocValueFormat::readFrom(in, registry);
  // Every bucket gets its own copy of the name, metadata and format: a long
  // header weighs as one object more a 64 bytes.
  s.weight = 1 + static_cast<int64_t>((before - in.available()) / 64);
  switch (s.metric) {
    case Metric::kMax:
    case Metric::kMin:
    case Metric::kSum:
      s.a = readDoubleColumn(in, n, type + " values", slots);
      break;
    case Metric::kAvg:
      s.a = readDoubleColumn(in, n, "avg sums", slots);
      s.l = readCountColumn(in, n, "avg count", doc_counts, slots);
      break;
    case Metric::kValueCount:
      s.l = readCountColumn(in, n, "value_count", doc_counts, slots);
      break;
    case Metric::kStats:
      s.l = readCountColumn(in, n, "stats count", doc_counts, slots);
      s.a = readDoubleColumn(in, n, "stats min", slots);
      s.b = readDoubleColumn(in, n, "stats max", slots);
      s.c = readDoubleColumn(in, n, "stats sum", slots);
      break;
  }
  return s;
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

// Writes 01, the shell and the columns, or nothing and false when the
// buckets' sub-aggregations are not of one metric shape.
template <class Keys, class Agg>
bool writeColumns(StreamOutput& out, const Agg& agg) {
  using Bucket = typename Agg::Bucket;
  const auto& buckets = agg.buckets();
  const size_t n = buckets.size();
  Slots slots;
  thread_local std::vector<SubValues> subs;
  if (!gatherSubs(buckets, slots, subs)) return false;
  std::vector<typename Keys::T>& keys = [&]() -> auto& {
    if constexpr (std::is_same_v<typename Keys::T, double>) {
      return slots.nextDoubles(n);
    } else {
      return slots.nextLongs(n);
    }
  }
  ();
  std::vector<int64_t>& counts = slots.nextLongs(n);
  for (size_t i = 0; i < n; ++i) {
    keys[i] = buckets[i].key;
    counts[i] = buckets[i].doc_count;
  }
  checkNonNegative(counts, "doc count");
  out.writeByte(kColumns);
  out.writeNamedWriteable(*shellOf(agg));
  out.writeArraySize(n);
  Keys::write(out, keys);
  tsm::writeIntegerBlock(out, counts);
  if constexpr (kHasErrors<Bucket>) {
    if (agg.showTermDocCountError()) {
      std::vector<int64_t>& errors = slots.nextLongs(n);
      for (size_t i = 0; i < n; ++i) errors[i] = buckets[i].doc_count_error;
      tsm::writeIntegerBlock(out, errors);
    }
  }
  writeSubColumns(out, subs, counts);
  return true;
}

template <class Keys, class Agg>
void readColumns(StreamInput& in, const NamedWriteableRegistry& registry, const Limits& limits,
                 Agg& agg) {
  using Bucket = typename Agg::Bucket;
  if (!agg.buckets().empty()) {
    internal::throwCorrupt("columnar shell of [" + agg.getName() + "] holds " +
                           std::to_string(agg.buckets().size()) + " buckets");
  }
  const int32_t count = in.readArraySize(0);
  const auto n = static_cast<size_t>(count);
  auto checkObjects = [&](int64_t objects) {
    if (objects > limits.max_objects) {
      internal::throwLimitExceeded("columnar [" + agg.getName() + "] of " + std::to_string(count) +
                                   " buckets would create " + std::to_string(objects) +
                                   " objects, above the limit of " +
                                   std::to_string(limits.max_objects));
    }
  };
  checkObjects(count);
  Slots slots;
  std::span<const typename Keys::T> keys = Keys::read(in, n, slots);
  std::span<const int64_t> counts =
      checkCounts(readIntegerColumn(in, n, "doc count", slots), "doc count");
  std::span<const int64_t> errors;
  if constexpr (kHasErrors<Bucket>) {
    if (agg.showTermDocCountError()) errors = readIntegerColumn(in, n, "doc count errors", slots);
  }
  const int32_t m = in.readArraySize(4);  // a sub is at least 4 bytes
  checkObjects(int64_t{count} * (1 + int64_t{m}));
  std::vector<SubColumn> subs;
  subs.reserve(static_cast<size_t>(m));
  for (int32_t j = 0; j < m; ++j) {
    subs.push_back(readSubColumn(in, registry, n, counts, slots));
    // Each bucket's list gets these names: refused as the ES encoding's reader refuses them.
    for (int32_t k = 0; k < j; ++k) {
      if (subs[static_cast<size_t>(k)].name == subs.back().name) {
        internal::throwCorrupt("duplicate aggregation name [" + subs.back().name +
                               "] in a list of " + std::to_string(m));
      }
    }
  }
  int64_t per_bucket = 1;
  for (const SubColumn& sub : subs) per_bucket += sub.weight;
  checkObjects(int64_t{count} * per_bucket);

  auto& buckets = agg.buckets();  // a vector, or terms' columns: both take push_back
  buckets.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    Bucket b;
    b.key = keys[i];
    b.doc_count = counts[i];
    if constexpr (kHasErrors<Bucket>) {
      if (!errors.empty()) b.doc_count_error = errors[i];
    }
    if (!subs.empty()) {
      std::vector<InternalAggregations::Ptr> list;
      list.reserve(subs.size());
      for (const SubColumn& s : subs) list.push_back(s.build(i));
      b.aggregations = InternalAggregations(std::move(list));
    }
    buckets.push_back(std::move(b));
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
    Slots slots;
    std::vector<SubValues> subs;
    bool columns = gatherSubs(typed.buckets(), slots, subs);
    trim();
    return columns;
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
  std::vector<InternalAggregations::Ptr> list;
  list.reserve(in.boundedReserve(static_cast<size_t>(n), sizeof(InternalAggregations::Ptr)));
  for (int32_t i = 0; i < n; ++i) {
    const uint8_t tag = in.readByte();
    if (tag != kEsEncoding && tag != kColumns) {
      internal::throwCorrupt("unknown columnar aggregation encoding [" + std::to_string(tag) + "]");
    }
    InternalAggregations::Ptr agg = readNamedWriteable<InternalAggregation>(in, registry);
    if (tag == kColumns) {
      InternalAggregation& a = *agg;
      bool known = visit(a, [&]<class Keys>(auto& typed) {
        readColumns<Keys>(in, registry, limits, typed);
        return true;
      });
      if (!known) {
        internal::throwCorrupt("aggregation [" + a.getName() + "] of type [" +
                               std::string(a.getWriteableName()) + "] has no columnar form");
      }
    }
    list.push_back(std::move(agg));
  }
  trim();
  // Names are unique in a list, as the ES encoding's reader requires.
  std::unordered_set<std::string_view> names;
  names.reserve(list.size());
  for (const InternalAggregations::Ptr& a : list) {
    if (!names.insert(a->getName()).second) {
      internal::throwCorrupt("duplicate aggregation name [" + a->getName() + "] in a list of " +
                             std::to_string(n));
    }
  }
  return InternalAggregations(std::move(list));
}

}  // namespace wirestream::aggregations::columnar
