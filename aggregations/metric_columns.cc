// A row in the ES encoding (wire format §7), as InternalAggregations::writeTo
// writes the objects: VInt m, then per column its header (string type,
// string name, metadata, [format]) and the metric's values, written by the
// metric class's own writeValues (metrics.h).
#include "aggregations/metric_columns.h"

#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <typeinfo>

#include "aggregations/java_double.h"
#include "aggregations/metrics.h"

namespace wirestream::aggregations {

namespace {

using Metric = MetricColumns::Metric;

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

using Column = MetricColumns::Column;
using Field = MetricColumns::Field;
using Kind = MetricColumns::Kind;

constexpr Field kMaxFields[] = {{&Column::a, nullptr, "max values"}};
constexpr Field kMinFields[] = {{&Column::a, nullptr, "min values"}};
constexpr Field kSumFields[] = {{&Column::a, nullptr, "sum values"}};
constexpr Field kAvgFields[] = {{&Column::a, nullptr, "avg sums"},
                                {nullptr, &Column::l, "avg count"}};
constexpr Field kValueCountFields[] = {{nullptr, &Column::l, "value_count"}};
constexpr Field kStatsFields[] = {{nullptr, &Column::l, "stats count"},
                                  {&Column::a, nullptr, "stats min"},
                                  {&Column::b, nullptr, "stats max"},
                                  {&Column::c, nullptr, "stats sum"}};

// A metric of one value (max, min, sum: a double in `value`; value_count: a
// count in `count`), held in the vector `kValues` of a column.
template <class M, auto kValues>
constexpr Kind singleValue(Metric metric, bool has_format, std::span<const Field> fields) {
  return {
      metric,
      M::kType,
      has_format,
      sizeof(M),
      fields,
      [](std::string name, Metadata metadata) -> InternalAggregations::Ptr {
        return std::make_unique<M>(std::move(name), std::move(metadata), 0);
      },
      [](const Column& c, size_t i, InternalAggregation& x) {
        static_cast<M&>(x).setValue((c.*kValues)[i]);
      },
      [](Column& c, const InternalAggregation& x) {
        (c.*kValues).push_back(static_cast<const M&>(x).value());
      },
      [](StreamOutput& out, const Column& c, size_t i) { M::writeValues(out, (c.*kValues)[i]); }};
}

// Indexed by Metric.
constexpr Kind kKinds[] = {
    singleValue<Max, &Column::a>(Metric::kMax, true, kMaxFields),
    singleValue<Min, &Column::a>(Metric::kMin, true, kMinFields),
    singleValue<Sum, &Column::a>(Metric::kSum, true, kSumFields),
    {Metric::kAvg, Avg::kType, true, sizeof(Avg), kAvgFields,
     [](std::string name, Metadata metadata) -> InternalAggregations::Ptr {
       return std::make_unique<Avg>(std::move(name), std::move(metadata), 0, 0);
     },
     [](const Column& c, size_t i, InternalAggregation& x) {
       auto& a = static_cast<Avg&>(x);
       a.setSum(c.a[i]);
       a.setCount(c.l[i]);
     },
     [](Column& c, const InternalAggregation& x) {
       const auto& a = static_cast<const Avg&>(x);
       c.a.push_back(a.sum());
       c.l.push_back(a.count());
     },
     [](StreamOutput& out, const Column& c, size_t i) { Avg::writeValues(out, c.a[i], c.l[i]); }},
    singleValue<ValueCount, &Column::l>(Metric::kValueCount, false, kValueCountFields),
    {Metric::kStats, Stats::kType, true, sizeof(Stats), kStatsFields,
     [](std::string name, Metadata metadata) -> InternalAggregations::Ptr {
       return std::make_unique<Stats>(std::move(name), std::move(metadata), 0, 0, 0, 0);
     },
     [](const Column& c, size_t i, InternalAggregation& x) {
       auto& s = static_cast<Stats&>(x);
       s.setCount(c.l[i]);
       s.setMin(c.a[i]);
       s.setMax(c.b[i]);
       s.setSum(c.c[i]);
     },
     [](Column& c, const InternalAggregation& x) {
       const auto& s = static_cast<const Stats&>(x);
       c.l.push_back(s.count());
       c.a.push_back(s.min());
       c.b.push_back(s.max());
       c.c.push_back(s.sum());
     },
     [](StreamOutput& out, const Column& c, size_t i) {
       Stats::writeValues(out, c.l[i], c.a[i], c.b[i], c.c[i]);
     }},
};

// Applies f to each value vector that c's metric uses; with more columns of
// the same metric, to the same vector of each together (f(c.v, more.v...)).
template <class F, class C, class... More>
void eachVector(F&& f, C& c, More&... more) {
  for (const Field& field : c.kind().fields) {
    if (field.doubles) {
      f(c.*field.doubles, more.*field.doubles...);
    } else {
      f(c.*field.counts, more.*field.counts...);
    }
  }
}

// A column of `c`'s metric and prototype, with its values or without.
Column copyOf(const Column& c, bool with_values) {
  Column copy{c.metric, c.prototype->clone()};
  if (with_values) {
    eachVector([](auto& to, const auto& from) { to = from; }, copy, c);
  }
  return copy;
}

}  // namespace

std::optional<Metric> MetricColumns::metricOf(std::string_view type) {
  for (const Kind& k : kKinds) {
    if (type == k.type) return k.metric;
  }
  return std::nullopt;
}

const Kind& MetricColumns::kindOf(Metric metric) { return kKinds[static_cast<size_t>(metric)]; }

bool MetricColumns::sameShape(const InternalAggregation& a, const InternalAggregation& b,
                              Metric metric) {
  if (&a == &b) return true;
  if (typeid(a) != typeid(b) || !sameName(a.getName(), b.getName())) return false;
  // Copies share their metadata (internal_aggregation.h): a tree is compared
  // only between two that are not one.
  if (&a.getMetadata() != &b.getMetadata() && !(a.getMetadata() == b.getMetadata())) return false;
  return !kindOf(metric).has_format ||
         sameFormat(static_cast<const MetricAggregation&>(a).format(),
                    static_cast<const MetricAggregation&>(b).format());
}

MetricColumns::MetricColumns(const MetricColumns& o) : rows_(o.rows_) {
  columns_.reserve(o.columns_.size());
  for (const Column& c : o.columns_) {
    columns_.push_back(copyOf(c, true));
  }
}

MetricColumns& MetricColumns::operator=(const MetricColumns& o) {
  if (this != &o) *this = MetricColumns(o);
  return *this;
}

bool MetricColumns::start(const InternalAggregations& first) {
  clear();
  if (first.empty()) return false;
  for (const auto& a : first.list()) {
    std::optional<Metric> m = metricOf(a->getWriteableName());
    if (!m) {
      columns_.clear();
      return false;
    }
    columns_.push_back({*m, a->clone()});
  }
  return true;
}

void MetricColumns::startLike(const MetricColumns& o) {
  clear();
  for (const Column& c : o.columns_) columns_.push_back(copyOf(c, false));
}

InternalAggregations MetricColumns::prototypes() const {
  std::vector<InternalAggregations::Ptr> list;
  list.reserve(columns_.size());
  for (const Column& c : columns_) list.push_back(c.prototype->clone());
  return InternalAggregations(std::move(list));
}

void MetricColumns::loadRow(size_t i, InternalAggregations& scratch) const {
  for (size_t j = 0; j < columns_.size(); ++j) columns_[j].kind().load(columns_[j], i, scratch[j]);
}

bool MetricColumns::append(const InternalAggregations& row) {
  if (row.size() != columns_.size() || columns_.empty()) return false;
  for (size_t j = 0; j < columns_.size(); ++j) {
    if (!sameShape(*columns_[j].prototype, row[j], columns_[j].metric)) [[unlikely]]
      return false;
  }
  for (size_t j = 0; j < columns_.size(); ++j) columns_[j].kind().store(columns_[j], row[j]);
  ++rows_;
  return true;
}

bool MetricColumns::sameShape(const MetricColumns& o) const {
  if (columns_.size() != o.columns_.size()) return false;
  for (size_t j = 0; j < columns_.size(); ++j) {
    if (columns_[j].metric != o.columns_[j].metric ||
        !sameShape(*columns_[j].prototype, *o.columns_[j].prototype, columns_[j].metric)) {
      return false;
    }
  }
  return true;
}

bool MetricColumns::appendFrom(const MetricColumns& src, size_t i) {
  if (columns_.empty() || !sameShape(src)) return false;
  for (size_t j = 0; j < columns_.size(); ++j) {
    eachVector([&](auto& to, const auto& from) { to.push_back(from[i]); }, columns_[j],
               src.columns_[j]);
  }
  ++rows_;
  return true;
}

void MetricColumns::reserve(size_t n) {
  for (Column& c : columns_) {
    eachVector([&](auto& v) { v.reserve(n); }, c);
  }
}

void MetricColumns::pop_back() {
  for (Column& c : columns_) {
    eachVector([&](auto& v) { v.pop_back(); }, c);
  }
  --rows_;
}

void MetricColumns::permute(std::span<const uint32_t> order) {
  for (Column& c : columns_) {
    eachVector(
        [&](auto& v) {
          std::remove_reference_t<decltype(v)> out;
          out.reserve(order.size());
          for (uint32_t k : order) out.push_back(v[k]);
          v = std::move(out);
        },
        c);
  }
  rows_ = order.size();
}

void MetricColumns::clear() {
  columns_.clear();
  rows_ = 0;
}

InternalAggregations MetricColumns::row(size_t i) const {
  InternalAggregations list = prototypes();
  loadRow(i, list);
  return list;
}

void MetricColumns::writeHeader(StreamOutput& out, const Column& c) {
  const InternalAggregation& a = *c.prototype;
  out.writeString(a.getWriteableName());
  a.writeNameAndMetadata(out);
  if (c.kind().has_format) static_cast<const MetricAggregation&>(a).format().writeNamed(out);
}

void MetricColumns::writeRow(StreamOutput& out, size_t i) const {
  out.writeArraySize(columns_.size());
  for (const Column& c : columns_) {
    writeHeader(out, c);
    c.kind().write_values(out, c, i);
  }
}

double MetricColumns::sortValue(size_t i, std::string_view path) const {
  return row(i).sortValue(path);
}

bool MetricColumns::rowEquals(size_t i, const MetricColumns& o, size_t j) const {
  bool equal = true;
  for (size_t k = 0; k < columns_.size() && equal; ++k) {
    eachVector(
        [&](const auto& u, const auto& v) {
          if constexpr (std::is_same_v<std::decay_t<decltype(u)>, std::vector<double>>) {
            equal = equal && sameDouble(u[i], v[j]);
          } else {
            equal = equal && u[i] == v[j];
          }
        },
        columns_[k], o.columns_[k]);
  }
  return equal;
}

}  // namespace wirestream::aggregations
