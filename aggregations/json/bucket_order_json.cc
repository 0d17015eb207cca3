// BucketOrder's wire JSON (model_json.h): one {"<path>":"asc|desc"} per order.
#include <string>

#include "aggregations/json/model_json.h"
#include "stream/errors.h"

namespace wirestream::aggregations {

namespace {

using json = nlohmann::ordered_json;

BucketOrder fromJsonOne(const json& j) {
  if (!j.is_object() || j.size() != 1 || !j.begin().value().is_string()) {
    internal::throwCorrupt("bad order, expected {\"<path>\":\"asc|desc\"}: " + j.dump());
  }
  const std::string& path = j.begin().key();
  const std::string& dir = j.begin().value().get_ref<const std::string&>();
  if (dir != "asc" && dir != "desc") internal::throwCorrupt("bad order direction [" + dir + "]");
  bool asc = dir == "asc";
  if (path == "_count") return BucketOrder::count(asc);
  if (path == "_key") return BucketOrder::key(asc);
  return BucketOrder::aggregation(path, asc);
}

}  // namespace

json bucketOrderToJson(const BucketOrder& order) {
  const char* dir = order.ascending() ? "asc" : "desc";
  switch (order.kind()) {
    case BucketOrder::Kind::kCountDesc:
    case BucketOrder::Kind::kCountAsc:
      return {{"_count", dir}};
    case BucketOrder::Kind::kKeyDesc:
    case BucketOrder::Kind::kKeyAsc:
      return {{"_key", dir}};
    case BucketOrder::Kind::kAggregation:
      return {{order.path(), dir}};
    case BucketOrder::Kind::kCompound: {
      json a = json::array();
      for (const BucketOrder& o : order.orders()) a.push_back(bucketOrderToJson(o));
      return a;
    }
  }
  return nullptr;
}

BucketOrder bucketOrderFromJson(const json& j) {
  if (!j.is_array()) return fromJsonOne(j);
  if (j.empty()) internal::throwCorrupt("compound order with no orders");
  std::vector<BucketOrder> orders;
  orders.reserve(j.size());
  for (const auto& e : j) orders.push_back(fromJsonOne(e));
  return BucketOrder::compound(std::move(orders));
}

}  // namespace wirestream::aggregations
