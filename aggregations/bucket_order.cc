// BucketOrder on the wire (wire format §7):
//   order     := byte id, then by id:
//                  1 COUNT_DESC | 2 COUNT_ASC | 3 KEY_DESC | 4 KEY_ASC  (nothing)
//                  0 sub-aggregation: boolean ascending, string path
//                  FF compound: VInt count (>= 1), count x order (none compound)
#include "aggregations/bucket_order.h"

#include <stdexcept>

namespace wirestream::aggregations {

BucketOrder BucketOrder::aggregation(std::string path, bool ascending) {
  BucketOrder o(Kind::kAggregation);
  o.path_ = std::move(path);
  o.ascending_ = ascending;
  return o;
}

BucketOrder BucketOrder::compound(std::vector<BucketOrder> orders) {
  if (orders.empty()) throw std::invalid_argument("compound order needs at least one order");
  for (const BucketOrder& o : orders) {
    if (o.kind_ == Kind::kCompound) {
      throw std::invalid_argument("a compound order cannot contain a compound order");
    }
  }
  BucketOrder o(Kind::kCompound);
  o.orders_ = std::move(orders);
  return o;
}

bool BucketOrder::ascending() const {
  switch (kind_) {
    case Kind::kCountAsc:
    case Kind::kKeyAsc:
      return true;
    case Kind::kAggregation:
      return ascending_;
    case Kind::kCompound:
      return orders_.front().ascending();
    default:
      return false;
  }
}

bool BucketOrder::isKeyOrder() const {
  if (kind_ == Kind::kKeyAsc || kind_ == Kind::kKeyDesc) return true;
  return kind_ == Kind::kCompound && !orders_.empty() && orders_[0].isKeyOrder();
}

bool BucketOrder::isCountDesc() const {
  if (kind_ == Kind::kCountDesc) return true;
  return kind_ == Kind::kCompound && orders_[0].kind_ == Kind::kCountDesc;
}

bool BucketOrder::comparesSubAggregations() const {
  if (kind_ == Kind::kAggregation) return true;
  for (const BucketOrder& o : orders_) {
    if (o.kind_ == Kind::kAggregation) return true;
  }
  return false;
}

void BucketOrder::writeTo(StreamOutput& out) const {
  out.writeByte(static_cast<uint8_t>(kind_));
  if (kind_ == Kind::kAggregation) {
    out.writeBoolean(ascending_);
    out.writeString(path_);
  } else if (kind_ == Kind::kCompound) {
    out.writeArraySize(orders_.size());
    for (const BucketOrder& o : orders_) o.writeTo(out);
  }
}

BucketOrder BucketOrder::readFrom(StreamInput& in) { return readOne(in, true); }

BucketOrder BucketOrder::readOne(StreamInput& in, bool allow_compound) {
  auto id = static_cast<int8_t>(in.readByte());
  switch (id) {
    case 1:
      return count(false);
    case 2:
      return count(true);
    case 3:
      return key(false);
    case 4:
      return key(true);
    case 0: {
      bool asc = in.readBoolean();
      return aggregation(in.readString(), asc);
    }
    case -1: {
      if (!allow_compound) internal::throwCorrupt("compound BucketOrder nested in a compound");
      int32_t n = in.readArraySize(1);
      if (n == 0) internal::throwCorrupt("compound BucketOrder with no orders");
      BucketOrder o(Kind::kCompound);
      o.orders_.reserve(in.boundedReserve(static_cast<size_t>(n), sizeof(BucketOrder)));
      for (int32_t i = 0; i < n; ++i) o.orders_.push_back(readOne(in, false));
      return o;
    }
    default:
      internal::throwCorrupt("Unknown BucketOrder id [" + std::to_string(id) + "]");
  }
}

}  // namespace wirestream::aggregations
