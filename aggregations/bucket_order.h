// BucketOrder: how the buckets of a multi-bucket aggregation are sorted
// (`_count`, `_key`, a sub-aggregation's value, or several of those in turn).
//
// Example (runs: bucket_order):
//   #include <algorithm>
//   #include <cassert>
//   #include "aggregations/terms.h"
//   #include "stream/bytes_stream_output.h"
//   BucketOrder o = BucketOrder::compound({BucketOrder::count(false), BucketOrder::key(true)});
//   BytesStreamOutput out;
//   o.writeTo(out);                         // FF 02 01 04: compound of 2, count desc, key asc
//   BytesReferenceStreamInput in(out.bytes());
//   assert(BucketOrder::readFrom(in) == o);
//   std::vector<LongTerms::Bucket> b = {{/*key=*/1, /*doc_count=*/3, 0, {}}, {2, 5, 0, {}},
//                                       {0, 3, 0, {}}};
//   std::sort(b.begin(), b.end(), [&](auto& x, auto& y) { return o.compare(x, y) < 0; });
//   assert(b[0].key == 2 && b[1].key == 0 && b[2].key == 1);  // most documents, then by key
//
// Wire ids (wire format §7): COUNT_DESC=1, COUNT_ASC=2, KEY_DESC=3, KEY_ASC=4,
// sub-aggregation=0 (+ boolean ascending, string path), compound=0xFF (+ VInt
// count, orders). As in ES a compound never contains a compound (ES flattens
// them), so a nested compound on the wire is CorruptStreamError; so is an
// unknown id. Its JSON is aggregations/json/model_json.h. A value type; thread-safe for concurrent
// reads.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "aggregations/java_double.h"
#include "stream/stream_input.h"
#include "stream/stream_output.h"

namespace wirestream::aggregations {

class BucketOrder {
 public:
  enum class Kind : int8_t {
    kAggregation = 0,
    kCountDesc = 1,
    kCountAsc = 2,
    kKeyDesc = 3,
    kKeyAsc = 4,
    kCompound = -1,
  };

  static BucketOrder count(bool ascending) {
    return BucketOrder(ascending ? Kind::kCountAsc : Kind::kCountDesc);
  }
  static BucketOrder key(bool ascending) {
    return BucketOrder(ascending ? Kind::kKeyAsc : Kind::kKeyDesc);
  }
  // By the value of a sub-aggregation: "agg" for a single-value metric,
  // "agg.metric" or "agg[metric]" for a multi-value one (stats).
  static BucketOrder aggregation(std::string path, bool ascending);
  // `orders` must be non-empty and hold no compound (std::invalid_argument).
  static BucketOrder compound(std::vector<BucketOrder> orders);

  Kind kind() const { return kind_; }
  bool ascending() const;
  const std::string& path() const { return path_; }
  const std::vector<BucketOrder>& orders() const { return orders_; }

  // ES's InternalOrder.isKeyOrder: by key, or a compound whose first order is.
  bool isKeyOrder() const;
  // ES's InternalOrder.isCountDesc: `_count desc`, alone or first in a compound.
  bool isCountDesc() const;
  // By a sub-aggregation's value, alone or anywhere in a compound: comparing
  // two buckets needs their sub-aggregations reduced.
  bool comparesSubAggregations() const;

  void writeTo(StreamOutput& out) const;
  static BucketOrder readFrom(StreamInput& in);

  // Negative, zero or positive as a sorts before, with or after b. Bucket
  // provides docCount(), compareKey(other) (key ascending) and
  // sortValue(path) (NaN when the path names nothing), compared as ES 8 does.
  // Ties are broken by key ascending, so the order is total as in ES.
  template <class Bucket>
  int compare(const Bucket& a, const Bucket& b) const {
    int c = compareNoTieBreak(a, b);
    return c != 0 ? c : a.compareKey(b);
  }

  bool operator==(const BucketOrder& other) const = default;

 private:
  explicit BucketOrder(Kind kind) : kind_(kind) {}
  static BucketOrder readOne(StreamInput& in, bool allow_compound);

  template <class Bucket>
  int compareNoTieBreak(const Bucket& a, const Bucket& b) const {
    switch (kind_) {
      case Kind::kCountDesc:
        return cmp(b.docCount(), a.docCount());
      case Kind::kCountAsc:
        return cmp(a.docCount(), b.docCount());
      case Kind::kKeyDesc:
        return b.compareKey(a);
      case Kind::kKeyAsc:
        return a.compareKey(b);
      case Kind::kAggregation: {
        // ES 8's reduce compares the values as Double.compare (its SortValue):
        // NaN above every value, so last ascending and first descending, and
        // -0.0 below 0.0. (ES 7.x put NaN last either way.)
        const int c = javaDoubleCompare(a.sortValue(path_), b.sortValue(path_));
        return ascending_ ? c : -c;
      }
      case Kind::kCompound:
        for (const BucketOrder& o : orders_) {
          int c = o.compareNoTieBreak(a, b);
          if (c != 0) return c;
        }
        return 0;
    }
    return 0;
  }

  template <class T>
  static int cmp(T x, T y) {
    return x < y ? -1 : (y < x ? 1 : 0);
  }

  Kind kind_;
  bool ascending_ = false;           // kAggregation only
  std::string path_;                 // kAggregation only
  std::vector<BucketOrder> orders_;  // kCompound only
};

}  // namespace wirestream::aggregations
