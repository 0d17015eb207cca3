// DocValueFormat's wire JSON and its renderings as JSON values (model_json.h).
#include <string>

#include "aggregations/json/json_util.h"
#include "aggregations/json/model_json.h"
#include "stream/errors.h"

namespace wirestream::aggregations {

namespace ju = json_util;
using json = nlohmann::ordered_json;
using Kind = DocValueFormat::Kind;

json docValueFormatToJson(const DocValueFormat& f) {
  if (f.kind() != Kind::kDateTime && f.kind() != Kind::kDecimal) {
    return std::string(f.getWriteableName());
  }
  json j = json::object();
  j["name"] = std::string(f.getWriteableName());
  j["pattern"] = f.pattern();
  if (f.kind() == Kind::kDateTime) {
    j["zone"] = f.zoneId();
    j["resolution"] = f.resolution() == DocValueFormat::Resolution::kMilliseconds ? "milliseconds"
                                                                                  : "nanoseconds";
    j["format_sort_values"] = f.formatSortValues();
    if (f.joda()) j["joda"] = true;
    if (!f.locale().empty()) j["locale"] = f.locale();
  }
  return j;
}

DocValueFormat docValueFormatFromJson(const json& j) {
  if (j.is_string()) {
    const auto& name = j.get_ref<const std::string&>();
    // Deprecated: the name wirestream 0.2 wrote; ES's is "unsigned_long_shifted".
    if (name == "unsigned_long_shift") return DocValueFormat::unsignedLongShifted();
    return DocValueFormat::fromName(name);
  }
  std::string name = ju::getString(j, "name");
  if (name == "decimal") return DocValueFormat::decimal(ju::getString(j, "pattern"));
  if (name != "date_time") {
    internal::throwCorrupt("Unknown NamedWriteable [DocValueFormat][" + name + "]");
  }
  std::string res = ju::getString(j, "resolution");
  if (res != "milliseconds" && res != "nanoseconds") {
    internal::throwCorrupt("unknown date resolution [" + res + "]");
  }
  return DocValueFormat::dateTime(ju::getString(j, "pattern"), ju::getString(j, "zone"),
                                  res == "milliseconds" ? DocValueFormat::Resolution::kMilliseconds
                                                        : DocValueFormat::Resolution::kNanoseconds,
                                  ju::getBool(j, "format_sort_values"),
                                  j.contains("joda") && ju::getBool(j, "joda"))
      .withLocale(j.contains("locale") ? ju::getString(j, "locale") : std::string());
}

namespace {

// The formats whose format(long) and format(double) return a String.
bool rendersAsString(Kind k) {
  return k == Kind::kDateTime || k == Kind::kDecimal || k == Kind::kGeoHash || k == Kind::kGeoTile;
}

}  // namespace

json formatLongJson(const DocValueFormat& f, int64_t v) {
  if (f.kind() == Kind::kBoolean) return v != 0;
  if (rendersAsString(f.kind())) return f.formatLongAsString(v);
  if (f.kind() == Kind::kUnsignedLongShifted) return static_cast<uint64_t>(v) ^ (uint64_t{1} << 63);
  return v;
}

json formatDoubleJson(const DocValueFormat& f, double v) {
  if (f.kind() == Kind::kBoolean) return v != 0;
  if (rendersAsString(f.kind())) return f.formatDoubleAsString(v);
  return ju::fromDouble(v);
}

json formatBytesJson(const DocValueFormat& f, std::string_view v) {
  return f.formatBytesAsString(v);
}

}  // namespace wirestream::aggregations
