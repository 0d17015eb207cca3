// A row in the ES encoding (wire format §7), as InternalAggregations::writeTo
// writes the objects: VInt m, then per column its header (string type,
// string name, metadata, [format]) and the metric's values, written by the
// metric class's own writeValues (metrics.h).
#include "aggregations/metric_columns.h"

#include <cstring>
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

// Sets the values of `x` (of kind c.metric) from row i.
void load(const MetricColumns::Column& c, size_t i, InternalAggregation& x) {
  switch (c.metric) {
    case Metric::kMax:
      static_cast<Max&>(x).setValue(c.a[i]);
      break;
    case Metric::kMin:
      static_cast<Min&>(x).setValue(c.a[i]);
      break;
    case Metric::kSum:
      static_cast<Sum&>(x).setValue(c.a[i]);
      break;
    case Metric::kAvg:
      static_cast<Avg&>(x).setSum(c.a[i]);
      static_cast<Avg&>(x).setCount(c.l[i]);
      break;
    case Metric::kValueCount:
      static_cast<ValueCount&>(x).setValue(c.l[i]);
      break;
    case Metric::kStats: {
      auto& s = static_cast<Stats&>(x);
      s.setCount(c.l[i]);
      s.setMin(c.a[i]);
      s.setMax(c.b[i]);
      s.setSum(c.c[i]);
      break;
    }
  }
}

// Appends the values of `x` (of kind c.metric).
void store(MetricColumns::Column& c, const InternalAggregation& x) {
  switch (c.metric) {
    case Metric::kMax:
      c.a.push_back(static_cast<const Max&>(x).value());
      break;
    case Metric::kMin:
      c.a.push_back(static_cast<const Min&>(x).value());
      break;
    case Metric::kSum:
      c.a.push_back(static_cast<const Sum&>(x).value());
      break;
    case Metric::kAvg:
      c.a.push_back(static_cast<const Avg&>(x).sum());
      c.l.push_back(static_cast<const Avg&>(x).count());
      break;
    case Metric::kValueCount:
      c.l.push_back(static_cast<const ValueCount&>(x).value());
      break;
    case Metric::kStats: {
      const auto& s = static_cast<const Stats&>(x);
      c.l.push_back(s.count());
      c.a.push_back(s.min());
      c.b.push_back(s.max());
      c.c.push_back(s.sum());
      break;
    }
  }
}

// Applies f to each value vector that c's metric uses; with more columns of
// the same metric, to the same vector of each together (f(c.a, more.a...)).
template <class F, class C, class... More>
void eachVector(F&& f, C& c, More&... more) {
  if (c.metric != Metric::kValueCount) f(c.a, more.a...);
  if (c.metric == Metric::kStats) {
    f(c.b, more.b...);
    f(c.c, more.c...);
  }
  if (c.metric == Metric::kAvg || c.metric == Metric::kValueCount || c.metric == Metric::kStats) {
    f(c.l, more.l...);
  }
}

}  // namespace

std::optional<Metric> MetricColumns::metricOf(std::string_view type) {
  if (type == Max::kType) return Metric::kMax;
  if (type == Min::kType) return Metric::kMin;
  if (type == Sum::kType) return Metric::kSum;
  if (type == Avg::kType) return Metric::kAvg;
  if (type == ValueCount::kType) return Metric::kValueCount;
  if (type == Stats::kType) return Metric::kStats;
  return std::nullopt;
}

bool MetricColumns::sameShape(const InternalAggregation& a, const InternalAggregation& b,
                              Metric metric) {
  if (&a == &b) return true;
  if (typeid(a) != typeid(b) || !sameName(a.getName(), b.getName())) return false;
  // Copies share their metadata (internal_aggregation.h): a tree is compared
  // only between two that are not one.
  if (&a.getMetadata() != &b.getMetadata() && !(a.getMetadata() == b.getMetadata())) return false;
  return metric == Metric::kValueCount ||
         sameFormat(static_cast<const MetricAggregation&>(a).format(),
                    static_cast<const MetricAggregation&>(b).format());
}

MetricColumns::MetricColumns(const MetricColumns& o) : rows_(o.rows_) {
  columns_.reserve(o.columns_.size());
  for (const Column& c : o.columns_) {
    columns_.push_back({c.metric, c.prototype->clone(), c.a, c.b, c.c, c.l});
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
    columns_.push_back({*m, a->clone(), {}, {}, {}, {}});
  }
  return true;
}

void MetricColumns::startLike(const MetricColumns& o) {
  clear();
  for (const Column& c : o.columns_)
    columns_.push_back({c.metric, c.prototype->clone(), {}, {}, {}, {}});
}

InternalAggregations MetricColumns::prototypes() const {
  std::vector<InternalAggregations::Ptr> list;
  list.reserve(columns_.size());
  for (const Column& c : columns_) list.push_back(c.prototype->clone());
  return InternalAggregations(std::move(list));
}

void MetricColumns::loadRow(size_t i, InternalAggregations& scratch) const {
  for (size_t j = 0; j < columns_.size(); ++j) load(columns_[j], i, scratch[j]);
}

bool MetricColumns::append(const InternalAggregations& row) {
  if (row.size() != columns_.size() || columns_.empty()) return false;
  for (size_t j = 0; j < columns_.size(); ++j) {
    if (!sameShape(*columns_[j].prototype, row[j], columns_[j].metric)) [[unlikely]]
      return false;
  }
  for (size_t j = 0; j < columns_.size(); ++j) store(columns_[j], row[j]);
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
  if (c.metric != Metric::kValueCount) {
    static_cast<const MetricAggregation&>(a).format().writeNamed(out);
  }
}

void MetricColumns::writeRow(StreamOutput& out, size_t i) const {
  out.writeArraySize(columns_.size());
  for (const Column& c : columns_) {
    writeHeader(out, c);
    switch (c.metric) {
      case Metric::kMax:
      case Metric::kMin:
      case Metric::kSum:
        Max::writeValues(out, c.a[i]);  // the three write the same body
        break;
      case Metric::kAvg:
        Avg::writeValues(out, c.a[i], c.l[i]);
        break;
      case Metric::kValueCount:
        ValueCount::writeValues(out, c.l[i]);
        break;
      case Metric::kStats:
        Stats::writeValues(out, c.l[i], c.a[i], c.b[i], c.c[i]);
        break;
    }
  }
}

double MetricColumns::sortValue(size_t i, std::string_view path) const {
  return row(i).sortValue(path);
}

bool MetricColumns::rowEquals(size_t i, const MetricColumns& o, size_t j) const {
  for (size_t k = 0; k < columns_.size(); ++k) {
    const Column& x = columns_[k];
    const Column& y = o.columns_[k];
    auto same = [](const auto& u, size_t p, const auto& v, size_t q) {
      if (u.empty() != v.empty()) return false;
      if (u.empty()) return true;
      if constexpr (std::is_same_v<std::decay_t<decltype(u)>, std::vector<double>>) {
        return sameDouble(u[p], v[q]);
      } else {
        return u[p] == v[q];
      }
    };
    if (!same(x.a, i, y.a, j) || !same(x.b, i, y.b, j) || !same(x.c, i, y.c, j) ||
        !same(x.l, i, y.l, j)) {
      return false;
    }
  }
  return true;
}

}  // namespace wirestream::aggregations
