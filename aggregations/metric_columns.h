// MetricColumns: the metric sub-aggregations of many buckets held as columns
// of values instead of objects, when every bucket's list has one shape: the
// same metrics (max, min, sum, avg, value_count, stats) with the same types,
// names, metadata and formats in the same order. A million buckets each with
// an avg are then a prototype Avg and two arrays (sums, counts), not a
// million lists of objects.
//
// Example (runs: metric_columns):
//   #include <cassert>
//   #include "aggregations/metrics.h"
//   InternalAggregations bucket0, bucket1, other;
//   bucket0.add(std::make_unique<Avg>("avg_price", Metadata(), /*sum=*/85.0, /*count=*/2));
//   bucket1.add(std::make_unique<Avg>("avg_price", Metadata(), /*sum=*/10.0, /*count=*/1));
//   other.add(std::make_unique<Max>("avg_price", Metadata(), 1.0));
//   MetricColumns m;
//   bool columns = m.start(bucket0) && m.append(bucket0) && m.append(bucket1);
//   assert(columns);                // start: false unless a list of the six metrics
//   assert(!m.append(other));       // false, nothing appended: another shape
//   assert(m.rows() == 2 && m.row(1) == bucket1);  // the objects again
//
// Used by the histogram bucket columns (histogram_buckets.h) and by the
// columnar encoding (columnar.h), which sends and reads these columns as
// they are. Value type with deep-copy semantics; not thread-safe for writes,
// concurrent const use is safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "aggregations/internal_aggregation.h"
#include "aggregations/metadata.h"

namespace wirestream::aggregations {

class MetricColumns {
 public:
  enum class Metric : uint8_t { kMax, kMin, kSum, kAvg, kValueCount, kStats };
  // The metric of a type name ("avg"), or none.
  static std::optional<Metric> metricOf(std::string_view type);

  struct Kind;

  // One sub-aggregation over the rows: its values of row i are element i of
  // the vectors its Kind's fields name (kindOf(metric).fields, which also
  // name them), the others empty:
  // max, min, sum: a[i]; avg: a[i] (sum), l[i] (count); value_count: l[i];
  // stats: l[i] (count), a[i] (min), b[i] (max), c[i] (sum).
  // (The vectors keep their public names; Kind is where their meaning lives.)
  struct Column {
    Metric metric;
    // Type, name, metadata and format of every row (its values unused).
    InternalAggregations::Ptr prototype;
    // (Initialized, so that {metric, prototype} compiles clean under -Wextra.)
    std::vector<double> a{}, b{}, c{};
    std::vector<int64_t> l{};

    const Kind& kind() const { return kindOf(metric); }
  };

  // One value of a metric: the vector of a Column that holds it (a double or
  // a count; the other pointer is null) and its name in error messages.
  struct Field {
    std::vector<double> Column::*doubles;
    std::vector<int64_t> Column::*counts;
    std::string_view what;
  };

  // A metric kind as the columns see it: the one place each is described.
  struct Kind {
    Metric metric;
    std::string_view type;  // the writeable name ("avg")
    bool has_format;        // all but value_count write a DocValueFormat
    size_t object_size;     // sizeof the class
    // Its values in the order both encodings write them (the class's
    // writeValues, and the columnar encoding's columns).
    std::span<const Field> fields;
    // A new object of the kind with zero values and the raw format.
    InternalAggregations::Ptr (*make)(std::string name, Metadata metadata);
    // Sets the values of `x`, an object of the kind, to row i.
    void (*load)(const Column& c, size_t i, InternalAggregation& x);
    // Appends the values of `x`, an object of the kind.
    void (*store)(Column& c, const InternalAggregation& x);
    // Row i's values, written by the class's own writeValues (metrics.h).
    void (*write_values)(StreamOutput& out, const Column& c, size_t i);
  };
  static const Kind& kindOf(Metric metric);

  MetricColumns() = default;
  MetricColumns(const MetricColumns& o);
  MetricColumns& operator=(const MetricColumns& o);
  MetricColumns(MetricColumns&&) noexcept = default;
  MetricColumns& operator=(MetricColumns&&) noexcept = default;

  // Whether there are columns (a started shape); rows() may still be 0.
  bool active() const { return !columns_.empty(); }
  size_t rows() const { return rows_; }
  const std::vector<Column>& columns() const { return columns_; }

  // Drops everything and takes the shape of `first` (no row yet): false,
  // leaving no columns, unless `first` is a non-empty list of the six metrics.
  bool start(const InternalAggregations& first);
  // Drops everything and takes the shape of `o` (no row yet).
  void startLike(const MetricColumns& o);
  // Appends `row`: false, appending nothing, unless it has the shape.
  bool append(const InternalAggregations& row);
  // Appends row i of `src`: false, appending nothing, unless src has the
  // same shape.
  bool appendFrom(const MetricColumns& src, size_t i);
  // Adds a column, for a reader that fills the values itself (each column's
  // vectors must then hold setRows(n) values).
  void addColumn(Column c) { columns_.push_back(std::move(c)); }
  void setRows(size_t n) { rows_ = n; }

  void reserve(size_t n);
  void pop_back();
  // Keeps rows order[0], order[1], ... in that order.
  void permute(std::span<const uint32_t> order);
  void clear();

  // Row i as objects (what was appended, equal to it).
  InternalAggregations row(size_t i) const;
  // A list of the shape (values unspecified), for loadRow.
  InternalAggregations prototypes() const;
  // Sets the values of `scratch` (from prototypes() of this shape) to row i.
  void loadRow(size_t i, InternalAggregations& scratch) const;
  // Row i in the ES encoding: exactly row(i).writeTo(out). Allocates nothing.
  void writeRow(StreamOutput& out, size_t i) const;
  // A column's string type, string name, metadata and (but for value_count)
  // format: what the ES encoding writes before a metric's values, and the
  // columnar encoding before a column's.
  static void writeHeader(StreamOutput& out, const Column& c);

  // The value BucketOrder names ("avg_price", "stats.max") of row i, as
  // InternalAggregations::sortValue on row(i).
  double sortValue(size_t i, std::string_view path) const;

  bool sameShape(const MetricColumns& o) const;
  // Row i of this and row j of `o`, of the same shape, are equal.
  bool rowEquals(size_t i, const MetricColumns& o, size_t j) const;

  // Whether `b`, a metric of kind `metric`, has the type, name, metadata and
  // format of `a`.
  static bool sameShape(const InternalAggregation& a, const InternalAggregation& b, Metric metric);

 private:
  std::vector<Column> columns_;
  size_t rows_ = 0;
};

}  // namespace wirestream::aggregations
