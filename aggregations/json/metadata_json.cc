// Generic values to and from JSON (metadata and any value inside it); no byte
// grammar here.
#include "aggregations/json/metadata_json.h"

#include <string>

#include "aggregations/json/json_util.h"
#include "stream/errors.h"
#include "stream/stream_input.h"
#include "stream/structured/generic_value.h"

namespace wirestream::aggregations {

namespace ju = json_util;
using json = nlohmann::ordered_json;
using Kind = GenericValue::Kind;

namespace {

std::string bytesHex(std::span<const uint8_t> b) {
  return ju::toHex({reinterpret_cast<const char*>(b.data()), b.size()});
}

GenericValue::Bytes hexBytes(const json& j) {
  if (!j.is_string()) internal::throwCorrupt("expected a hex string: " + j.dump());
  std::string s = ju::fromHex(j.get<std::string>());
  return GenericValue::Bytes(s.begin(), s.end());
}

template <class T>
std::vector<T> numbers(const json& j, bool floating) {
  if (!j.is_array()) internal::throwCorrupt("expected an array: " + j.dump());
  std::vector<T> out;
  for (const json& e : j) {
    if (floating) {
      out.push_back(static_cast<T>(ju::toDouble(e, "array element")));
    } else {
      if (!e.is_number_integer()) internal::throwCorrupt("expected an integer: " + e.dump());
      int64_t v = e.get<int64_t>();
      if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) {
        internal::throwCorrupt("integer out of range: " + e.dump());
      }
      out.push_back(static_cast<T>(v));
    }
  }
  return out;
}

GenericValue fromTagged(const json& j, int depth);

GenericValue::List listFrom(const json& j, int depth) {
  if (!j.is_array()) internal::throwCorrupt("expected an array: " + j.dump());
  GenericValue::List out;
  for (const json& e : j) out.push_back(fromTagged(e, depth));
  return out;
}

GenericValue::Entries entriesFrom(const json& j, int depth) {
  if (!j.is_array()) internal::throwCorrupt("expected an array of [key, value]: " + j.dump());
  GenericValue::Entries out;
  for (const json& e : j) {
    if (!e.is_array() || e.size() != 2) internal::throwCorrupt("bad map entry: " + e.dump());
    out.emplace_back(fromTagged(e[0], depth), fromTagged(e[1], depth));
  }
  return out;
}

json floats(std::span<const float> v) {
  json a = json::array();
  for (float f : v) a.push_back(ju::fromDouble(f));
  return a;
}

json doubles(std::span<const double> v) {
  json a = json::array();
  for (double d : v) a.push_back(ju::fromDouble(d));
  return a;
}

// [epoch millis, "zone id"], and a third element, the nanoseconds below the millisecond,
// when they are not 0.
json dateTimeJson(const ZonedDateTime& t) {
  json a = json::array({t.instant.time_since_epoch().count(), t.zone_id});
  if (t.nano_of_milli != 0) a.push_back(t.nano_of_milli);
  return a;
}

ZonedDateTime dateTimeFrom(const json& p) {
  if (!p.is_array() || (p.size() != 2 && p.size() != 3) || !p[0].is_number_integer() ||
      !p[1].is_string() || !ZonedDateTime::isZoneId(p[1].get<std::string>()) ||
      (p.size() == 3 &&
       (!p[2].is_number_integer() || p[2].get<int64_t>() < 0 || p[2].get<int64_t>() > 999999))) {
    internal::throwCorrupt(
        "bad date time, expected [epoch millis, \"zone id\"(, nanos 0..999999)]: " + p.dump());
  }
  ZonedDateTime t{ZonedDateTime::Millis(std::chrono::milliseconds(p[0].get<int64_t>())),
                  p[1].get<std::string>()};
  if (p.size() == 3) t.nano_of_milli = static_cast<int32_t>(p[2].get<int64_t>());
  return t;
}

BigInteger bigIntegerFrom(const json& p) {
  if (!p.is_string()) internal::throwCorrupt("bad big integer, expected a decimal string");
  try {
    return BigInteger::fromDecimal(p.get<std::string>());
  } catch (const std::logic_error& e) {  // invalid_argument or length_error
    internal::throwCorrupt(std::string("bad big integer: ") + e.what());
  }
}

OffsetTime offsetTimeFrom(const json& p) {
  std::optional<std::chrono::seconds> offset;
  if (p.is_array() && p.size() == 2 && p[0].is_number_integer() && p[1].is_string()) {
    offset = OffsetTime::parseOffsetId(p[1].get<std::string>());
  }
  if (!offset || !OffsetTime{std::chrono::nanoseconds(p[0].get<int64_t>()), *offset}.valid()) {
    internal::throwCorrupt("bad offset time, expected [nano of day, \"offset id\"]: " + p.dump());
  }
  return {std::chrono::nanoseconds(p[0].get<int64_t>()), *offset};
}

// An ES response writes a Duration and a Period as their toString(): ISO-8601, "PT8H6M12.345S",
// "P1Y2M3D". Java's rules: hours, minutes and seconds of the total, nonzero parts only (but
// seconds when nothing else shows); a negative duration with a nano part counts from the next
// second up ("-0.5" for -1 s + 500000000 ns), nanos without trailing zeros.
std::string durationText(const JavaDuration& d) {
  if (d.seconds == 0 && d.nanos == 0) return "PT0S";
  bool borrow = d.seconds < 0 && d.nanos > 0;
  int64_t total = d.seconds + (borrow ? 1 : 0);
  int64_t hours = total / 3600;
  int64_t minutes = (total % 3600) / 60;
  int64_t secs = total % 60;
  std::string out = "PT";
  if (hours != 0) out += std::to_string(hours) + "H";
  if (minutes != 0) out += std::to_string(minutes) + "M";
  if (secs == 0 && d.nanos == 0 && out.size() > 2) return out;
  out += borrow && secs == 0 ? "-0" : std::to_string(secs);
  if (d.nanos > 0) {
    int64_t fraction = d.seconds < 0 ? 1000000000 - d.nanos : d.nanos;
    std::string digits = std::to_string(1000000000 + fraction).substr(1);
    while (digits.back() == '0') digits.pop_back();
    out += "." + digits;
  }
  return out + "S";
}

std::string periodText(const JavaPeriod& p) {
  if (p.years == 0 && p.months == 0 && p.days == 0) return "P0D";
  std::string out = "P";
  if (p.years != 0) out += std::to_string(p.years) + "Y";
  if (p.months != 0) out += std::to_string(p.months) + "M";
  if (p.days != 0) out += std::to_string(p.days) + "D";
  return out;
}

// An ES response writes a BigInteger as a JSON number of any length; one
// that no 64-bit integer holds is given as its decimal string instead.
json bigIntegerPlain(const BigInteger& b) {
  if (b.magnitude().size() <= 8) {
    uint64_t m = 0;
    for (uint8_t byte : b.magnitude()) m = m << 8 | byte;
    if (!b.negative()) return m;
    if (m <= uint64_t{1} << 63) return static_cast<int64_t>(0 - m);
  }
  return b.toDecimal();
}

}  // namespace

json genericToTaggedJson(const GenericValue& v) {
  auto tagged = [&](json payload) {
    json j = json::object();
    j[std::string(GenericValue::kindName(v.kind()))] = std::move(payload);
    return j;
  };
  switch (v.kind()) {
    case Kind::kNull:
      return nullptr;
    case Kind::kString:
      return v.asString();
    case Kind::kBoolean:
      return v.asBoolean();
    case Kind::kInt:
      return tagged(v.asInt());
    case Kind::kLong:
    case Kind::kDate:
      return tagged(v.asLong());
    case Kind::kFloat:
      return tagged(ju::fromDouble(v.asFloat()));
    case Kind::kDouble:
      return tagged(ju::fromDouble(v.asDouble()));
    case Kind::kByte:
      return tagged(v.asByte());
    case Kind::kShort:
      return tagged(v.asShort());
    case Kind::kText:
      return tagged(v.asString());
    case Kind::kByteArray:
    case Kind::kBytesReference:
    case Kind::kBytesRef:
      return tagged(bytesHex(v.asBytes()));
    case Kind::kList:
    case Kind::kObjectArray:
    case Kind::kOrderedSet:
    case Kind::kSet: {
      json a = json::array();
      for (const GenericValue& e : v.elements()) a.push_back(genericToTaggedJson(e));
      return tagged(std::move(a));
    }
    case Kind::kMap:
    case Kind::kOrderedMap: {
      json a = json::array();
      for (const auto& [k, e] : v.entries()) {
        a.push_back(json::array({genericToTaggedJson(k), genericToTaggedJson(e)}));
      }
      return tagged(std::move(a));
    }
    case Kind::kIntArray:
      return tagged(v.asIntArray());
    case Kind::kLongArray:
      return tagged(v.asLongArray());
    case Kind::kFloatArray:
      return tagged(floats(v.asFloatArray()));
    case Kind::kDoubleArray:
      return tagged(doubles(v.asDoubleArray()));
    case Kind::kGeoPoint: {
      GeoPoint g = v.asGeoPoint();
      return tagged(json::array({ju::fromDouble(g.lat), ju::fromDouble(g.lon)}));
    }
    case Kind::kJodaDateTime:
    case Kind::kZonedDateTime:
      return tagged(dateTimeJson(v.asZonedDateTime()));
    case Kind::kBigInteger:
      return tagged(v.asBigInteger().toDecimal());
    case Kind::kOffsetTime: {
      OffsetTime t = v.asOffsetTime();
      return tagged(json::array({t.time_of_day.count(), t.offsetId()}));
    }
    case Kind::kDuration:
      return tagged(json::array({v.asDuration().seconds, v.asDuration().nanos}));
    case Kind::kPeriod: {
      JavaPeriod p = v.asPeriod();
      return tagged(json::array({p.years, p.months, p.days}));
    }
    case Kind::kGeoBoundingBox: {
      GeoBoundingBox b = v.asGeoBoundingBox();
      return tagged(
          json::array({ju::fromDouble(b.top_left.lat), ju::fromDouble(b.top_left.lon),
                       ju::fromDouble(b.bottom_right.lat), ju::fromDouble(b.bottom_right.lon)}));
    }
  }
  return nullptr;
}

GenericValue genericFromTaggedJson(const json& j) { return fromTagged(j, 0); }

namespace {

// As readGenericValue, nesting is bounded so hand-written input cannot
// exhaust the stack.
GenericValue fromTagged(const json& j, int depth) {
  if (depth >= StreamInput::kDefaultMaxNestingDepth) {
    internal::throwLimitExceeded("generic value nested deeper than " +
                                 std::to_string(StreamInput::kDefaultMaxNestingDepth));
  }
  ++depth;
  if (j.is_null()) return GenericValue();
  if (j.is_string()) return GenericValue(j.get<std::string>());
  if (j.is_boolean()) return GenericValue(j.get<bool>());
  if (!j.is_object() || j.size() != 1) {
    internal::throwCorrupt("a generic value is null, a string, a boolean or {\"<kind>\": value}: " +
                           j.dump());
  }
  const std::string& kind = j.begin().key();
  const json& p = j.begin().value();
  auto integer = [&](int64_t lo, int64_t hi) {
    if (!p.is_number_integer() || p.get<int64_t>() < lo || p.get<int64_t>() > hi) {
      internal::throwCorrupt("bad " + kind + " value: " + p.dump());
    }
    return p.get<int64_t>();
  };
  if (kind == "int")
    return GenericValue::ofInt(static_cast<int32_t>(integer(INT32_MIN, INT32_MAX)));
  if (kind == "long") return GenericValue::ofLong(integer(INT64_MIN, INT64_MAX));
  if (kind == "date") return GenericValue::ofDate(integer(INT64_MIN, INT64_MAX));
  if (kind == "byte") return GenericValue::ofByte(static_cast<int8_t>(integer(-128, 127)));
  if (kind == "short") return GenericValue::ofShort(static_cast<int16_t>(integer(-32768, 32767)));
  if (kind == "float") return GenericValue::ofFloat(static_cast<float>(ju::toDouble(p, kind)));
  if (kind == "double") return GenericValue::ofDouble(ju::toDouble(p, kind));
  if (kind == "text") {
    if (!p.is_string()) internal::throwCorrupt("bad text value: " + p.dump());
    return GenericValue::ofText(p.get<std::string>());
  }
  if (kind == "byte array") return GenericValue::ofByteArray(hexBytes(p));
  if (kind == "bytes reference") return GenericValue::ofBytesReference(hexBytes(p));
  if (kind == "bytes ref") return GenericValue::ofBytesRef(hexBytes(p));
  if (kind == "list") return GenericValue::ofList(listFrom(p, depth));
  if (kind == "object array") return GenericValue::ofObjectArray(listFrom(p, depth));
  if (kind == "ordered set") return GenericValue::ofOrderedSet(listFrom(p, depth));
  if (kind == "set") return GenericValue::ofSet(listFrom(p, depth));
  if (kind == "map") return GenericValue::ofMap(entriesFrom(p, depth));
  if (kind == "ordered map") return GenericValue::ofOrderedMap(entriesFrom(p, depth));
  if (kind == "int array") return GenericValue::ofIntArray(numbers<int32_t>(p, false));
  if (kind == "long array") return GenericValue::ofLongArray(numbers<int64_t>(p, false));
  if (kind == "float array") return GenericValue::ofFloatArray(numbers<float>(p, true));
  if (kind == "double array") return GenericValue::ofDoubleArray(numbers<double>(p, true));
  if (kind == "geo point") {
    if (!p.is_array() || p.size() != 2) internal::throwCorrupt("bad geo point: " + p.dump());
    return GenericValue::ofGeoPoint(ju::toDouble(p[0], "lat"), ju::toDouble(p[1], "lon"));
  }
  if (kind == "zoned date time") return GenericValue::ofZonedDateTime(dateTimeFrom(p));
  if (kind == "joda date time") return GenericValue::ofJodaDateTime(dateTimeFrom(p));
  if (kind == "big integer") return GenericValue::ofBigInteger(bigIntegerFrom(p));
  if (kind == "offset time") return GenericValue::ofOffsetTime(offsetTimeFrom(p));
  if (kind == "duration") {
    if (!p.is_array() || p.size() != 2 || !p[0].is_number_integer() || !p[1].is_number_integer() ||
        p[1].get<int64_t>() < 0 || p[1].get<int64_t>() > 999999999) {
      internal::throwCorrupt("bad duration, expected [seconds, nanos 0..999999999]: " + p.dump());
    }
    return GenericValue::ofDuration(
        {p[0].get<int64_t>(), static_cast<int32_t>(p[1].get<int64_t>())});
  }
  if (kind == "period") {
    auto in = [](const json& e) {
      return e.is_number_integer() && e.get<int64_t>() >= INT32_MIN &&
             e.get<int64_t>() <= INT32_MAX;
    };
    if (!p.is_array() || p.size() != 3 || !in(p[0]) || !in(p[1]) || !in(p[2])) {
      internal::throwCorrupt("bad period, expected [years, months, days] ints: " + p.dump());
    }
    return GenericValue::ofPeriod({static_cast<int32_t>(p[0].get<int64_t>()),
                                   static_cast<int32_t>(p[1].get<int64_t>()),
                                   static_cast<int32_t>(p[2].get<int64_t>())});
  }
  if (kind == "geo bounding box") {
    if (!p.is_array() || p.size() != 4) {
      internal::throwCorrupt("bad geo bounding box, expected [top, left, bottom, right]: " +
                             p.dump());
    }
    return GenericValue::ofGeoBoundingBox(
        {{ju::toDouble(p[0], "top"), ju::toDouble(p[1], "left")},
         {ju::toDouble(p[2], "bottom"), ju::toDouble(p[3], "right")}});
  }
  internal::throwCorrupt("unknown generic value kind [" + kind + "]");
}

}  // namespace

json genericToPlainJson(const GenericValue& v) {
  switch (v.kind()) {
    case Kind::kNull:
      return nullptr;
    case Kind::kString:
    case Kind::kText:
      return v.asString();
    case Kind::kBoolean:
      return v.asBoolean();
    case Kind::kInt:
      return v.asInt();
    case Kind::kLong:
    case Kind::kDate:
      return v.asLong();
    case Kind::kFloat:
      return ju::fromDouble(v.asFloat());
    case Kind::kDouble:
      return ju::fromDouble(v.asDouble());
    case Kind::kByte:
      return v.asByte();
    case Kind::kShort:
      return v.asShort();
    case Kind::kByteArray:
    case Kind::kBytesReference:
    case Kind::kBytesRef:
      return bytesHex(v.asBytes());
    case Kind::kList:
    case Kind::kObjectArray:
    case Kind::kOrderedSet:
    case Kind::kSet: {
      json a = json::array();
      for (const GenericValue& e : v.elements()) a.push_back(genericToPlainJson(e));
      return a;
    }
    case Kind::kMap:
    case Kind::kOrderedMap: {
      json o = json::object();
      for (const auto& [k, e] : v.entries()) {
        o[k.kind() == Kind::kString ? k.asString() : k.toString()] = genericToPlainJson(e);
      }
      return o;
    }
    case Kind::kIntArray:
      return v.asIntArray();
    case Kind::kLongArray:
      return v.asLongArray();
    case Kind::kFloatArray:
      return floats(v.asFloatArray());
    case Kind::kDoubleArray:
      return doubles(v.asDoubleArray());
    case Kind::kGeoPoint: {
      GeoPoint g = v.asGeoPoint();
      return {{"lat", g.lat}, {"lon", g.lon}};
    }
    case Kind::kJodaDateTime:
    case Kind::kZonedDateTime:
      return v.asZonedDateTime().instant.time_since_epoch().count();  // as a date
    case Kind::kBigInteger:
      return bigIntegerPlain(v.asBigInteger());
    case Kind::kOffsetTime:
      return v.asOffsetTime().valid() ? json(v.asOffsetTime().toString()) : json(nullptr);
    case Kind::kDuration:
      return durationText(v.asDuration());
    case Kind::kPeriod:
      return periodText(v.asPeriod());
    case Kind::kGeoBoundingBox: {
      GeoBoundingBox b = v.asGeoBoundingBox();
      return {{"top_left", {{"lat", b.top_left.lat}, {"lon", b.top_left.lon}}},
              {"bottom_right", {{"lat", b.bottom_right.lat}, {"lon", b.bottom_right.lon}}}};
    }
  }
  return nullptr;
}

}  // namespace wirestream::aggregations
