// The columnar encoding of aggregation results (wire format §10):
//
//   columnar aggregations := VInt count, count x aggregation
//   aggregation   := 00 string type, body          the ES encoding of §7 (the named writeable)
//                  | 01 string type, shell, columns
//   shell         := the §7 body of the aggregation with no bucket (so it ends in the
//                    bucket count 00), read by the ES reader of `type`
//   columns       := VInt n (buckets, >= 1)
//                    keys           date_histogram: time block; lterms: integer block;
//                                   histogram, dterms: double column
//                    doc counts     integer block
//                    [lterms, dterms with showTermDocCountError] doc count errors: integer block
//                    VInt m, m x sub
//   sub           := string type, string name, metadata (generic value: map or null),
//                    [format (named writeable), for all but value_count], values
//   values        := max, min, sum: double column
//                  | avg: double column (sums), integer block (counts)
//                  | value_count: integer block
//                  | stats: integer block (counts), double columns min, max, sum
//   double column := 00 float block | 01 double array split (§10; used when a value is NaN)
//   block         := VInt length, one TSM block (codecs/tsm_stream.h) of exactly n values
//
// Bucket i is (keys[i], doc counts[i], [errors[i]]) with sub-aggregations built
// from row i of every sub's columns, in the order of the subs.
#include "aggregations/columnar.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "aggregations/date_histogram.h"
#include "aggregations/histogram.h"
#include "aggregations/metadata.h"
#include "aggregations/metrics.h"
#include "aggregations/terms.h"
#include "codecs/tsm_stream.h"
#include "stream/errors.h"

namespace wirestream::aggregations::columnar {
namespace {

constexpr uint8_t kEsEncoding = 0;
constexpr uint8_t kColumns = 1;
constexpr uint8_t kFloatBlock = 0;
constexpr uint8_t kSplitDoubles = 1;

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

// ---- shape ----

bool sameShape(const InternalAggregation& a, const InternalAggregation& b) {
  if (&a == &b) return true;
  std::string_view type = a.getWriteableName();
  if (type != b.getWriteableName() || a.getName() != b.getName() ||
      !(a.getMetadata() == b.getMetadata())) {
    return false;
  }
  return type == ValueCount::kType || static_cast<const MetricAggregation&>(a).format() ==
                                          static_cast<const MetricAggregation&>(b).format();
}

template <class Bucket>
bool uniformMetricSubs(const std::vector<Bucket>& buckets) {
  if (buckets.empty()) return false;
  const InternalAggregations& first = buckets[0].aggregations;
  for (const auto& a : first.list()) {
    if (!metricOf(a->getWriteableName())) return false;
  }
  for (const Bucket& b : buckets) {
    const InternalAggregations& l = b.aggregations;
    if (l.size() != first.size()) return false;
    for (size_t j = 0; j < l.size(); ++j) {
      if (!sameShape(l[j], first[j])) return false;
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

[[noreturn]] void throwColumnSize(std::string_view what, size_t got, size_t n) {
  internal::throwCorrupt("columnar " + std::string(what) + " hold " + std::to_string(got) +
                         " values, expected one a bucket (" + std::to_string(n) + ")");
}

// Reads a column of at most n values (decoding stops past n) and checks that
// it has exactly n.
template <class T, class Read>
std::vector<T> readColumn(StreamInput& in, size_t n, std::string_view what, Read read) {
  std::vector<T> v;
  try {
    v = read(in, n);
  } catch (const LimitExceededError&) {
    internal::throwCorrupt("columnar " + std::string(what) + " hold more than one value a bucket (" +
                           std::to_string(n) + ")");
  }
  if (v.size() != n) throwColumnSize(what, v.size(), n);
  return v;
}

std::vector<int64_t> readIntegerColumn(StreamInput& in, size_t n, std::string_view what) {
  return readColumn<int64_t>(in, n, what,
                             [](StreamInput& s, size_t m) { return tsm::readIntegerBlock(s, m); });
}

std::vector<int64_t> readCountColumn(StreamInput& in, size_t n, std::string_view what) {
  std::vector<int64_t> v = readIntegerColumn(in, n, what);
  for (int64_t x : v) {
    if (x < 0) [[unlikely]]
      throwNegativeCount(what, x);
  }
  return v;
}

std::vector<double> readDoubleColumn(StreamInput& in, size_t n, std::string_view what) {
  return readColumn<double>(in, n, what, [what](StreamInput& s, size_t m) {
    uint8_t tag = s.readByte();
    if (tag == kFloatBlock) return tsm::readFloatBlock(s, m);
    if (tag == kSplitDoubles) return s.readDoubleArraySplit();
    internal::throwCorrupt("unknown double column encoding [" + std::to_string(tag) + "] of " +
                           std::string(what));
  });
}

// Keys by column kind.
struct TimeKeys {
  static void write(StreamOutput& out, std::span<const int64_t> v) { tsm::writeTimeBlock(out, v); }
  static std::vector<int64_t> read(StreamInput& in, size_t n) {
    return readColumn<int64_t>(in, n, "keys",
                               [](StreamInput& s, size_t m) { return tsm::readTimeBlock(s, m); });
  }
};
struct IntegerKeys {
  static void write(StreamOutput& out, std::span<const int64_t> v) {
    tsm::writeIntegerBlock(out, v);
  }
  static std::vector<int64_t> read(StreamInput& in, size_t n) {
    return readIntegerColumn(in, n, "keys");
  }
};
struct DoubleKeys {
  static void write(StreamOutput& out, std::span<const double> v) { writeDoubleColumn(out, v); }
  static std::vector<double> read(StreamInput& in, size_t n) {
    return readDoubleColumn(in, n, "keys");
  }
};

// ---- sub-aggregations ----

template <class Bucket>
void writeSubColumns(StreamOutput& out, const std::vector<Bucket>& buckets) {
  const size_t n = buckets.size();
  const InternalAggregations& first = buckets[0].aggregations;
  out.writeArraySize(first.size());
  std::vector<double> d(n);
  std::vector<int64_t> l(n);
  for (size_t j = 0; j < first.size(); ++j) {
    const InternalAggregation& a = first[j];
    const Metric metric = *metricOf(a.getWriteableName());
    out.writeString(a.getWriteableName());
    out.writeString(a.getName());
    out.writeGenericValue(a.getMetadata());
    if (metric != Metric::kValueCount) {
      static_cast<const MetricAggregation&>(a).format().writeNamed(out);
    }
    auto doubles = [&](auto get) {
      for (size_t i = 0; i < n; ++i) d[i] = get(buckets[i].aggregations[j]);
      writeDoubleColumn(out, d);
    };
    auto counts = [&](auto get, std::string_view what) {
      for (size_t i = 0; i < n; ++i) l[i] = get(buckets[i].aggregations[j]);
      checkNonNegative(l, what);
      tsm::writeIntegerBlock(out, l);
    };
    switch (metric) {
      case Metric::kMax:
        doubles([](const InternalAggregation& x) { return static_cast<const Max&>(x).value(); });
        break;
      case Metric::kMin:
        doubles([](const InternalAggregation& x) { return static_cast<const Min&>(x).value(); });
        break;
      case Metric::kSum:
        doubles([](const InternalAggregation& x) { return static_cast<const Sum&>(x).value(); });
        break;
      case Metric::kAvg:
        doubles([](const InternalAggregation& x) { return static_cast<const Avg&>(x).sum(); });
        counts([](const InternalAggregation& x) { return static_cast<const Avg&>(x).count(); },
               "avg count");
        break;
      case Metric::kValueCount:
        counts(
            [](const InternalAggregation& x) { return static_cast<const ValueCount&>(x).value(); },
            "value_count");
        break;
      case Metric::kStats:
        counts([](const InternalAggregation& x) { return static_cast<const Stats&>(x).count(); },
               "stats count");
        doubles([](const InternalAggregation& x) { return static_cast<const Stats&>(x).min(); });
        doubles([](const InternalAggregation& x) { return static_cast<const Stats&>(x).max(); });
        doubles([](const InternalAggregation& x) { return static_cast<const Stats&>(x).sum(); });
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
  std::vector<double> a, b, c;  // max/min/sum/avg sum; stats min, max, sum
  std::vector<int64_t> l;       // avg, value_count, stats counts

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
    static_cast<MetricAggregation&>(*p).setFormat(format);
    return p;
  }
};

SubColumn readSubColumn(StreamInput& in, const NamedWriteableRegistry& registry, size_t n) {
  std::string type = in.readString();
  std::optional<Metric> metric = metricOf(type);
  if (!metric) internal::throwCorrupt("unknown columnar sub-aggregation type [" + type + "]");
  SubColumn s{*metric, in.readString(), readMetadata(in), {}, {}, {}, {}, {}};
  if (s.metric != Metric::kValueCount) s.format = DocValueFormat::readFrom(in, registry);
  switch (s.metric) {
    case Metric::kMax:
    case Metric::kMin:
    case Metric::kSum:
      s.a = readDoubleColumn(in, n, type + " values");
      break;
    case Metric::kAvg:
      s.a = readDoubleColumn(in, n, "avg sums");
      s.l = readCountColumn(in, n, "avg count");
      break;
    case Metric::kValueCount:
      s.l = readCountColumn(in, n, "value_count");
      break;
    case Metric::kStats:
      s.l = readCountColumn(in, n, "stats count");
      s.a = readDoubleColumn(in, n, "stats min");
      s.b = readDoubleColumn(in, n, "stats max");
      s.c = readDoubleColumn(in, n, "stats sum");
      break;
  }
  return s;
}

// ---- the bucket aggregations ----

template <class Bucket>
constexpr bool kHasErrors = requires(Bucket b) { b.doc_count_error; };

template <class Keys, class Agg>
void writeColumns(StreamOutput& out, const Agg& agg) {
  using Bucket = typename Agg::Bucket;
  const std::vector<Bucket>& buckets = agg.buckets();
  const size_t n = buckets.size();
  out.writeArraySize(n);
  std::vector<decltype(Bucket::key)> keys(n);
  std::vector<int64_t> counts(n);
  for (size_t i = 0; i < n; ++i) {
    keys[i] = buckets[i].key;
    counts[i] = buckets[i].doc_count;
  }
  checkNonNegative(counts, "doc count");
  Keys::write(out, keys);
  tsm::writeIntegerBlock(out, counts);
  if constexpr (kHasErrors<Bucket>) {
    if (agg.showTermDocCountError()) {
      for (size_t i = 0; i < n; ++i) counts[i] = buckets[i].doc_count_error;
      tsm::writeIntegerBlock(out, counts);
    }
  }
  writeSubColumns(out, buckets);
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
  std::vector<decltype(Bucket::key)> keys = Keys::read(in, n);
  std::vector<int64_t> counts = readCountColumn(in, n, "doc count");
  std::vector<int64_t> errors;
  if constexpr (kHasErrors<Bucket>) {
    if (agg.showTermDocCountError()) errors = readIntegerColumn(in, n, "doc count errors");
  }
  const int32_t m = in.readArraySize(4);  // a sub is at least 4 bytes
  checkObjects(int64_t{count} * (1 + int64_t{m}));
  std::vector<SubColumn> subs;
  subs.reserve(static_cast<size_t>(m));
  for (int32_t j = 0; j < m; ++j) subs.push_back(readSubColumn(in, registry, n));

  std::vector<Bucket> buckets(n);
  for (size_t i = 0; i < n; ++i) {
    Bucket& b = buckets[i];
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
  }
  agg.buckets() = std::move(buckets);
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
  if (type == DateHistogram::kType) return f.template operator()<TimeKeys>(as((DateHistogram*)0));
  if (type == Histogram::kType) return f.template operator()<DoubleKeys>(as((Histogram*)0));
  if (type == LongTerms::kType) return f.template operator()<IntegerKeys>(as((LongTerms*)0));
  if (type == DoubleTerms::kType) return f.template operator()<DoubleKeys>(as((DoubleTerms*)0));
  return false;
}

bool tryWriteColumnar(StreamOutput& out, const InternalAggregation& agg) {
  return visit(agg, [&]<class Keys>(const auto& typed) {
    if (!uniformMetricSubs(typed.buckets())) return false;
    out.writeByte(kColumns);
    out.writeNamedWriteable(*shellOf(typed));
    writeColumns<Keys>(out, typed);
    return true;
  });
}

}  // namespace

bool isColumnar(const InternalAggregation& agg) {
  return visit(agg, [&]<class Keys>(const auto& typed) {
    return uniformMetricSubs(typed.buckets());
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
    InternalAggregations::Ptr agg = in.readNamedWriteable<InternalAggregation>(registry);
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
  return InternalAggregations(std::move(list));
}

}  // namespace wirestream::aggregations::columnar
