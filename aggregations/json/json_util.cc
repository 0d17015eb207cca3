// JSON helpers; nothing here touches the wire.
#include "aggregations/json/json_util.h"

#include <cmath>
#include <limits>

#include "stream/errors.h"

namespace wirestream::aggregations::json_util {

json fromDouble(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  return v;
}

const json& field(const json& j, std::string_view key) {
  if (!j.is_object())
    internal::throwCorrupt("expected a JSON object holding [" + std::string(key) + "]");
  auto it = j.find(key);
  if (it == j.end()) internal::throwCorrupt("missing field [" + std::string(key) + "]");
  return *it;
}

double toDouble(const json& v, std::string_view what) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
  }
  internal::throwCorrupt("field [" + std::string(what) + "] is not a double: " + v.dump());
}

double getDouble(const json& j, std::string_view key) { return toDouble(field(j, key), key); }

int64_t getLong(const json& j, std::string_view key) {
  const json& v = field(j, key);
  if (!v.is_number_integer()) {
    internal::throwCorrupt("field [" + std::string(key) + "] is not an integer: " + v.dump());
  }
  if (v.is_number_unsigned() &&
      v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    internal::throwCorrupt("field [" + std::string(key) + "] is out of range: " + v.dump());
  }
  return v.get<int64_t>();
}

int32_t getInt(const json& j, std::string_view key) {
  int64_t v = getLong(j, key);
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    internal::throwCorrupt("field [" + std::string(key) +
                           "] is out of int range: " + std::to_string(v));
  }
  return static_cast<int32_t>(v);
}

bool getBool(const json& j, std::string_view key) {
  const json& v = field(j, key);
  if (!v.is_boolean()) internal::throwCorrupt("field [" + std::string(key) + "] is not a boolean");
  return v.get<bool>();
}

std::string getString(const json& j, std::string_view key) {
  const json& v = field(j, key);
  if (!v.is_string()) internal::throwCorrupt("field [" + std::string(key) + "] is not a string");
  return v.get<std::string>();
}

}  // namespace wirestream::aggregations::json_util
