// The "values" requests of runner.h: a sequence of typed writes, as ES wrote them.
//
//   request  {"ops": [{"t": TYPE, "v": VALUE}, ...], "es_hex": HEX}
//   answer   {"encode_hex": HEX | "encode_error": WHY,
//             "decode": [VALUE, ...] | "decode_error": WHY, "rewrite_hex": HEX}
//
// encode_hex is wirestream writing the ops; decode is wirestream reading es_hex back op by
// op (and refusing trailing bytes); rewrite_hex is what decode read, written again.
// VALUE, by TYPE:
//   byte short int long vint vlong zlong   a JSON integer
//   float double                           a number, or "NaN", "Infinity", "-Infinity"
//   bool                                   true / false
//   optbool optint optlong optvint optvlong optfloat optdouble optstring   null or as above
//   string                                 a string (valid Unicode: see ValueVectors.java)
//   bytearray                              hex
//   stringarray                            [string, ...]
//   vintarray vlongarray intarray longarray floatarray doublearray   [number, ...]
//   timevalue opttimevalue                 [duration, TimeUnit ordinal] (or null)
//   instant optinstant                     [epoch seconds, nanos] (or null)
//   generic                                the tagged JSON of docs/cli.md, "Generic values"
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <vector>

#include "aggregations/json/metadata_json.h"
#include "interop/runner/runner.h"
#include "stream/bytes_stream_output.h"
#include "stream/stream_input.h"
#include "stream/structured/instant.h"
#include "stream/structured/structured_stream.h"
#include "stream/structured/time_value.h"
#include "stream/transport_version.h"

namespace wirestream::interop {
namespace {

Json number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  return v;
}

double toDouble(const Json& j) {
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
    throw std::invalid_argument("not a number: " + s);
  }
  return j.get<double>();
}

std::vector<uint8_t> bytesOf(const Json& hex) {
  std::string b = fromHex(hex.get<std::string>());
  return {b.begin(), b.end()};
}

Json hexOf(const std::vector<uint8_t>& bytes) {
  return toHex({reinterpret_cast<const char*>(bytes.data()), bytes.size()});
}

template <typename T, typename F>
Json arrayJson(const std::vector<T>& values, F&& each) {
  Json a = Json::array();
  for (const T& v : values) a.push_back(each(v));
  return a;
}

// Writes one op's value.
void writeOp(StreamOutput& out, const std::string& t, const Json& v) {
  auto opt = [&](auto write_value) {
    out.writeBoolean(!v.is_null());
    if (!v.is_null()) write_value();
  };
  if (t == "byte") return out.writeByte(static_cast<uint8_t>(v.get<int>()));
  if (t == "short") return out.writeShort(v.get<int16_t>());
  if (t == "int") return out.writeInt(v.get<int32_t>());
  if (t == "long") return out.writeLong(v.get<int64_t>());
  if (t == "vint") return out.writeVInt(v.get<int32_t>());
  if (t == "vlong") return out.writeVLong(v.get<int64_t>());
  if (t == "zlong") return out.writeZLong(v.get<int64_t>());
  if (t == "float") return out.writeFloat(static_cast<float>(toDouble(v)));
  if (t == "double") return out.writeDouble(toDouble(v));
  if (t == "bool") return out.writeBoolean(v.get<bool>());
  if (t == "optbool") {
    return out.writeOptionalBoolean(v.is_null() ? std::nullopt : std::optional(v.get<bool>()));
  }
  if (t == "optint") return opt([&] { out.writeInt(v.get<int32_t>()); });
  if (t == "optlong") return opt([&] { out.writeLong(v.get<int64_t>()); });
  if (t == "optvint") return opt([&] { out.writeVInt(v.get<int32_t>()); });
  if (t == "optvlong") return opt([&] { out.writeVLong(v.get<int64_t>()); });
  if (t == "optfloat") return opt([&] { out.writeFloat(static_cast<float>(toDouble(v))); });
  if (t == "optdouble") return opt([&] { out.writeDouble(toDouble(v)); });
  if (t == "string") return out.writeString(v.get_ref<const std::string&>());
  if (t == "optstring") {
    return out.writeOptionalString(
        v.is_null() ? std::nullopt
                    : std::optional<std::string_view>(v.get_ref<const std::string&>()));
  }
  if (t == "bytearray") return out.writeByteArray(bytesOf(v));
  if (t == "stringarray") return out.writeStringArray(v.get<std::vector<std::string>>());
  if (t == "vintarray") return out.writeVIntArray(v.get<std::vector<int32_t>>());
  if (t == "vlongarray") return out.writeVLongArray(v.get<std::vector<int64_t>>());
  if (t == "intarray") return out.writeIntArray(v.get<std::vector<int32_t>>());
  if (t == "longarray") return out.writeLongArray(v.get<std::vector<int64_t>>());
  if (t == "floatarray" || t == "doublearray") {
    std::vector<double> d;
    for (const Json& e : v) d.push_back(toDouble(e));
    if (t == "doublearray") return out.writeDoubleArray(d);
    std::vector<float> f(d.begin(), d.end());
    return out.writeFloatArray(f);
  }
  auto timeValue = [&] {
    return TimeValue(v.at(0).get<int64_t>(), static_cast<TimeUnit>(v.at(1).get<int>()));
  };
  if (t == "timevalue") return writeTimeValue(out, timeValue());
  if (t == "opttimevalue") {
    return writeOptionalTimeValue(out, v.is_null() ? std::nullopt : std::optional(timeValue()));
  }
  auto instant = [&] { return Instant{v.at(0).get<int64_t>(), v.at(1).get<int32_t>()}; };
  if (t == "instant") return writeInstant(out, instant());
  if (t == "optinstant") {
    return writeOptionalInstant(out, v.is_null() ? std::nullopt : std::optional(instant()));
  }
  if (t == "generic") return writeGenericValue(out, aggregations::genericFromTaggedJson(v));
  throw std::invalid_argument("unknown op type [" + t + "]");
}

// Reads one op's value, in the JSON form writeOp takes.
Json readOp(StreamInput& in, const std::string& t) {
  auto opt = [&](auto read_value) -> Json { return in.readBoolean() ? read_value() : Json(); };
  if (t == "byte") return static_cast<int8_t>(in.readByte());
  if (t == "short") return in.readShort();
  if (t == "int") return in.readInt();
  if (t == "long") return in.readLong();
  if (t == "vint") return in.readVInt();
  if (t == "vlong") return in.readVLong();
  if (t == "zlong") return in.readZLong();
  if (t == "float") return number(in.readFloat());
  if (t == "double") return number(in.readDouble());
  if (t == "bool") return in.readBoolean();
  if (t == "optbool") {
    auto b = in.readOptionalBoolean();
    return b ? Json(*b) : Json();
  }
  if (t == "optint") return opt([&] { return Json(in.readInt()); });
  if (t == "optlong") return opt([&] { return Json(in.readLong()); });
  if (t == "optvint") return opt([&] { return Json(in.readVInt()); });
  if (t == "optvlong") return opt([&] { return Json(in.readVLong()); });
  if (t == "optfloat") return opt([&] { return number(in.readFloat()); });
  if (t == "optdouble") return opt([&] { return number(in.readDouble()); });
  if (t == "string") return in.readString();
  if (t == "optstring") {
    auto s = in.readOptionalString();
    return s ? Json(*s) : Json();
  }
  if (t == "bytearray") return hexOf(in.readByteArray());
  if (t == "stringarray") return in.readStringArray();
  if (t == "vintarray") return in.readVIntArray();
  if (t == "vlongarray") return in.readVLongArray();
  if (t == "intarray") return in.readIntArray();
  if (t == "longarray") return in.readLongArray();
  if (t == "floatarray") return arrayJson(in.readFloatArray(), [](float f) { return number(f); });
  if (t == "doublearray") return arrayJson(in.readDoubleArray(), number);
  auto timeValue = [](const TimeValue& tv) {
    return Json::array({tv.duration(), static_cast<int>(tv.timeUnit())});
  };
  if (t == "timevalue") return timeValue(readTimeValue(in));
  if (t == "opttimevalue") {
    auto tv = readOptionalTimeValue(in);
    return tv ? timeValue(*tv) : Json();
  }
  auto instant = [](const Instant& i) { return Json::array({i.epoch_seconds, i.nanos}); };
  if (t == "instant") return instant(readInstant(in));
  if (t == "optinstant") {
    auto i = readOptionalInstant(in);
    return i ? instant(*i) : Json();
  }
  if (t == "generic") return aggregations::genericToTaggedJson(readGenericValue(in));
  throw std::invalid_argument("unknown op type [" + t + "]");
}

std::string why(const std::exception& e) { return std::string(typeid(e).name()) + ": " + e.what(); }

std::string encodeOps(const Json& ops, TransportVersion version, const Json* values) {
  BytesStreamOutput out;
  out.setTransportVersion(version);
  for (size_t i = 0; i < ops.size(); ++i) {
    writeOp(out, ops[i].at("t").get<std::string>(), values ? (*values)[i] : ops[i].at("v"));
  }
  return hexOf(out.bytes().toVector());
}

}  // namespace

Json runValues(const Json& request) {
  const TransportVersion version(request.at("version").get<int32_t>());
  const Json& ops = request.at("ops");
  Json answer = Json::object();
  try {
    answer["encode_hex"] = encodeOps(ops, version, nullptr);
  } catch (const std::exception& e) {
    answer["encode_error"] = why(e);
  }
  std::string es = fromHex(request.at("es_hex").get<std::string>());
  try {
    ByteArrayStreamInput in({reinterpret_cast<const uint8_t*>(es.data()), es.size()});
    in.setTransportVersion(version);
    Json decoded = Json::array();
    for (const Json& op : ops) decoded.push_back(readOp(in, op.at("t").get<std::string>()));
    if (in.position() != es.size()) {
      throw std::runtime_error("read " + std::to_string(in.position()) + " of " +
                               std::to_string(es.size()) + " bytes");
    }
    answer["decode"] = decoded;
    answer["rewrite_hex"] = encodeOps(ops, version, &decoded);
  } catch (const std::exception& e) {
    answer["decode_error"] = why(e);
  }
  return answer;
}

}  // namespace wirestream::interop
