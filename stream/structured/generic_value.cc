#include "stream/structured/generic_value.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <ostream>
#include <stdexcept>

#include "codec/value_rules.h"
#include "stream/bytes_reference.h"

namespace wirestream {

namespace {

using Kind = GenericValue::Kind;

// Java's Float.equals / Double.equals: compare the bits with NaN canonical.
using codec::canonicalDoubleBits;
using codec::canonicalFloatBits;

template <typename T, typename Eq>
bool rangeEqual(const std::vector<T>& a, const std::vector<T>& b, Eq eq) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), eq);
}

size_t mix(size_t h, size_t v) {
  // boost::hash_combine's constant, widened.
  return h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
}

// Multiset equality for the unordered kinds: elements are grouped by hash,
// and each group of `a` is matched against the same group of `b`, so the
// cost is O(n log n) unless hashes collide.
template <typename T, typename Hash, typename Eq>
bool unorderedEqual(const std::vector<T>& a, const std::vector<T>& b, Hash hash, Eq eq) {
  if (a.size() != b.size()) return false;
  if (std::equal(a.begin(), a.end(), b.begin(), eq)) return true;  // same order: common
  std::vector<std::pair<size_t, size_t>> ha, hb;                   // (hash, index)
  ha.reserve(a.size());
  hb.reserve(b.size());
  for (size_t i = 0; i < a.size(); ++i) ha.emplace_back(hash(a[i]), i);
  for (size_t i = 0; i < b.size(); ++i) hb.emplace_back(hash(b[i]), i);
  std::sort(ha.begin(), ha.end());
  std::sort(hb.begin(), hb.end());
  std::vector<bool> used(b.size(), false);
  size_t gb = 0;  // start of the current hash group in hb
  for (size_t i = 0; i < ha.size(); ++i) {
    size_t h = ha[i].first;
    while (gb < hb.size() && hb[gb].first < h) ++gb;
    bool matched = false;
    for (size_t j = gb; j < hb.size() && hb[j].first == h; ++j) {
      if (!used[j] && eq(a[ha[i].second], b[hb[j].second])) {
        used[j] = true;
        matched = true;
        break;
      }
    }
    if (!matched) return false;
  }
  return true;
}

// The index of the first of values[0..n) equal to an earlier one: sorts
// (hash, index) pairs and compares neighbours with equal hashes.
template <typename Get>
std::optional<size_t> firstRepeat(size_t n, Get get) {
  if (n < 2) return std::nullopt;
  // Metadata maps are small: compare pairs, with no allocation or hashing.
  constexpr size_t kPairwiseUpTo = 16;
  if (n <= kPairwiseUpTo) {
    for (size_t i = 1; i < n; ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (get(i) == get(j)) return i;
      }
    }
    return std::nullopt;
  }
  std::vector<std::pair<size_t, size_t>> by_hash;  // (hash, index)
  by_hash.reserve(n);
  for (size_t i = 0; i < n; ++i) by_hash.emplace_back(get(i).hash(), i);
  std::sort(by_hash.begin(), by_hash.end());
  std::optional<size_t> first;
  for (size_t g = 0; g < n;) {
    size_t end = g + 1;
    while (end < n && by_hash[end].first == by_hash[g].first) ++end;
    // Within a group of equal hashes (indexes ascending), a later element
    // equal to an earlier one is a repeat.
    for (size_t i = g + 1; i < end; ++i) {
      for (size_t j = g; j < i; ++j) {
        if (get(by_hash[i].second) == get(by_hash[j].second)) {
          if (!first || by_hash[i].second < *first) first = by_hash[i].second;
          break;
        }
      }
    }
    g = end;
  }
  return first;
}

bool entryEqual(const GenericValue::Entry& a, const GenericValue::Entry& b) {
  return a.first == b.first && a.second == b.second;
}

size_t entryHash(const GenericValue::Entry& e) { return mix(e.first.hash(), e.second.hash()); }

void appendQuoted(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  out += '"';
}

template <typename T>
void appendNumber(std::string& out, T v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void appendHex(std::string& out, std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i > 0) out += ' ';
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 15];
  }
}

template <typename T, typename F>
void appendJoined(std::string& out, const std::vector<T>& values, F each) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    each(values[i]);
  }
}

void appendTo(std::string& out, const GenericValue& v);

void appendElements(std::string& out, const char* open, const GenericValue::List& list,
                    const char* close) {
  out += open;
  appendJoined(out, list, [&](const GenericValue& e) { appendTo(out, e); });
  out += close;
}

void appendTo(std::string& out, const GenericValue& v) {
  switch (v.kind()) {
    case Kind::kNull:
      out += "null";
      return;
    case Kind::kString:
      appendQuoted(out, v.asString());
      return;
    case Kind::kInt:
      appendNumber(out, v.asInt());
      return;
    case Kind::kLong:
      appendNumber(out, v.asLong());
      out += 'L';
      return;
    case Kind::kFloat:
      appendNumber(out, v.asFloat());
      out += 'f';
      return;
    case Kind::kDouble:
      appendNumber(out, v.asDouble());
      return;
    case Kind::kBoolean:
      out += v.asBoolean() ? "true" : "false";
      return;
    case Kind::kByteArray:
      out += "bytes[";
      appendHex(out, v.asBytes());
      out += ']';
      return;
    case Kind::kList:
      appendElements(out, "[", v.elements(), "]");
      return;
    case Kind::kObjectArray:
      appendElements(out, "array[", v.elements(), "]");
      return;
    case Kind::kOrderedMap:
    case Kind::kMap:
      out += v.kind() == Kind::kMap ? "{" : "ordered{";
      appendJoined(out, v.entries(), [&](const GenericValue::Entry& e) {
        appendTo(out, e.first);
        out += ": ";
        appendTo(out, e.second);
      });
      out += '}';
      return;
    case Kind::kByte:
      out += "(byte)";
      appendNumber(out, static_cast<int>(v.asByte()));
      return;
    case Kind::kDate:
      out += "date(";
      appendNumber(out, v.asLong());
      out += ')';
      return;
    case Kind::kBytesReference:
      out += "bytes_reference[";
      appendHex(out, v.asBytes());
      out += ']';
      return;
    case Kind::kText:
      out += "text(";
      appendQuoted(out, v.asString());
      out += ')';
      return;
    case Kind::kShort:
      out += "(short)";
      appendNumber(out, static_cast<int>(v.asShort()));
      return;
    case Kind::kIntArray:
      out += "int[";
      appendJoined(out, v.asIntArray(), [&](int32_t e) { appendNumber(out, e); });
      out += ']';
      return;
    case Kind::kLongArray:
      out += "long[";
      appendJoined(out, v.asLongArray(), [&](int64_t e) { appendNumber(out, e); });
      out += ']';
      return;
    case Kind::kFloatArray:
      out += "float[";
      appendJoined(out, v.asFloatArray(), [&](float e) { appendNumber(out, e); });
      out += ']';
      return;
    case Kind::kDoubleArray:
      out += "double[";
      appendJoined(out, v.asDoubleArray(), [&](double e) { appendNumber(out, e); });
      out += ']';
      return;
    case Kind::kBytesRef:
      out += "bytes_ref[";
      appendHex(out, v.asBytes());
      out += ']';
      return;
    case Kind::kGeoPoint: {
      GeoPoint p = v.asGeoPoint();
      out += "geo(";
      appendNumber(out, p.lat);
      out += ", ";
      appendNumber(out, p.lon);
      out += ')';
      return;
    }
    case Kind::kOrderedSet:
      appendElements(out, "ordered_set{", v.elements(), "}");
      return;
    case Kind::kSet:
      appendElements(out, "set{", v.elements(), "}");
      return;
    case Kind::kJodaDateTime:
    case Kind::kZonedDateTime: {
      const ZonedDateTime& t = v.asZonedDateTime();
      out += v.kind() == Kind::kJodaDateTime ? "joda_date_time(" : "zoned_date_time(";
      appendNumber(out, t.instant.time_since_epoch().count());
      out += "ms, ";
      if (t.nano_of_milli != 0) {
        appendNumber(out, t.nano_of_milli);
        out += "ns, ";
      }
      appendQuoted(out, t.zone_id);
      out += ')';
      return;
    }
    case Kind::kBigInteger:
      out += "big_integer(";
      out += v.asBigInteger().toDecimal();
      out += ')';
      return;
    case Kind::kOffsetTime: {
      OffsetTime t = v.asOffsetTime();
      out += "offset_time(";
      if (t.valid()) {
        out += t.toString();
      } else {  // not writable, but printable
        appendNumber(out, t.time_of_day.count());
        out += "ns, ";
        appendNumber(out, t.offset.count());
        out += 's';
      }
      out += ')';
      return;
    }
    case Kind::kDuration: {
      JavaDuration d = v.asDuration();
      out += "duration(";
      appendNumber(out, d.seconds);
      out += "s, ";
      appendNumber(out, d.nanos);
      out += "ns)";
      return;
    }
    case Kind::kPeriod: {
      JavaPeriod p = v.asPeriod();
      out += "period(";
      appendNumber(out, p.years);
      out += "y, ";
      appendNumber(out, p.months);
      out += "m, ";
      appendNumber(out, p.days);
      out += "d)";
      return;
    }
    case Kind::kGeoBoundingBox: {
      GeoBoundingBox b = v.asGeoBoundingBox();
      out += "geo_bounding_box(";
      appendNumber(out, b.top_left.lat);
      out += ", ";
      appendNumber(out, b.top_left.lon);
      out += ", ";
      appendNumber(out, b.bottom_right.lat);
      out += ", ";
      appendNumber(out, b.bottom_right.lon);
      out += ')';
      return;
    }
  }
}

}  // namespace

bool operator==(const GeoPoint& a, const GeoPoint& b) {
  return canonicalDoubleBits(a.lat) == canonicalDoubleBits(b.lat) &&
         canonicalDoubleBits(a.lon) == canonicalDoubleBits(b.lon);
}

GenericValue GenericValue::ofBytesReference(const BytesReference& ref) {
  return ofBytesReference(ref.toVector());
}

int8_t GenericValue::wireTag(Kind kind) {
  static constexpr int8_t kTags[] = {-1, 0,  1,  2,  3,  4,  5,  6,  7,  8,  9,
                                     10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
                                     21, 22, 23, 24, 25, 26, 27, 28, 29, 30};
  static_assert(std::size(kTags) == kKindCount);
  return kTags[static_cast<size_t>(kind)];
}

std::string_view GenericValue::kindName(Kind kind) {
  static constexpr std::string_view kNames[] = {"null",
                                                "string",
                                                "int",
                                                "long",
                                                "float",
                                                "double",
                                                "boolean",
                                                "byte array",
                                                "list",
                                                "object array",
                                                "ordered map",
                                                "map",
                                                "byte",
                                                "date",
                                                "joda date time",
                                                "bytes reference",
                                                "text",
                                                "short",
                                                "int array",
                                                "long array",
                                                "float array",
                                                "double array",
                                                "bytes ref",
                                                "geo point",
                                                "zoned date time",
                                                "ordered set",
                                                "set",
                                                "big integer",
                                                "offset time",
                                                "duration",
                                                "period",
                                                "geo bounding box"};
  static_assert(std::size(kNames) == kKindCount);
  return kNames[static_cast<size_t>(kind)];
}

void GenericValue::throwWrongKind(std::string_view wanted) const {
  throw std::invalid_argument("GenericValue is a " + std::string(kindName(kind_)) + ", not a " +
                              std::string(wanted));
}

template <typename T>
const T& GenericValue::get(std::string_view wanted) const {
  const T* p = std::get_if<T>(&storage_);
  if (p == nullptr) throwWrongKind(wanted);
  return *p;
}

const std::string& GenericValue::asString() const { return get<std::string>("string"); }
int32_t GenericValue::asInt() const { return get<int32_t>("int"); }
int64_t GenericValue::asLong() const { return get<int64_t>("long"); }
float GenericValue::asFloat() const { return get<float>("float"); }
double GenericValue::asDouble() const { return get<double>("double"); }
bool GenericValue::asBoolean() const { return get<bool>("boolean"); }
int8_t GenericValue::asByte() const { return get<int8_t>("byte"); }
int16_t GenericValue::asShort() const { return get<int16_t>("short"); }
std::span<const uint8_t> GenericValue::asBytes() const { return get<Bytes>("byte array"); }
const GenericValue::List& GenericValue::elements() const { return get<List>("list"); }
GenericValue::List& GenericValue::elements() {
  return const_cast<List&>(std::as_const(*this).elements());
}
const GenericValue::Entries& GenericValue::entries() const { return get<Entries>("map"); }
GenericValue::Entries& GenericValue::entries() {
  return const_cast<Entries&>(std::as_const(*this).entries());
}
const std::vector<int32_t>& GenericValue::asIntArray() const {
  return get<std::vector<int32_t>>("int array");
}
const std::vector<int64_t>& GenericValue::asLongArray() const {
  return get<std::vector<int64_t>>("long array");
}
const std::vector<float>& GenericValue::asFloatArray() const {
  return get<std::vector<float>>("float array");
}
const std::vector<double>& GenericValue::asDoubleArray() const {
  return get<std::vector<double>>("double array");
}
GeoPoint GenericValue::asGeoPoint() const { return get<GeoPoint>("geo point"); }
const ZonedDateTime& GenericValue::asZonedDateTime() const {
  return *get<std::shared_ptr<const ZonedDateTime>>("zoned date time");
}
const BigInteger& GenericValue::asBigInteger() const { return get<BigInteger>("big integer"); }
OffsetTime GenericValue::asOffsetTime() const { return get<OffsetTime>("offset time"); }
JavaDuration GenericValue::asDuration() const { return get<JavaDuration>("duration"); }
JavaPeriod GenericValue::asPeriod() const { return get<JavaPeriod>("period"); }
GeoBoundingBox GenericValue::asGeoBoundingBox() const {
  return get<GeoBoundingBox>("geo bounding box");
}

const GenericValue* GenericValue::find(std::string_view key) const {
  for (const Entry& e : entries()) {
    if (e.first.kind_ == Kind::kString && e.first.asString() == key) return &e.second;
  }
  return nullptr;
}

std::optional<size_t> GenericValue::findDuplicate() const {
  if (isMap()) {
    const Entries& e = entries();
    return firstRepeat(e.size(), [&](size_t i) -> const GenericValue& { return e[i].first; });
  }
  if (kind_ == Kind::kSet || kind_ == Kind::kOrderedSet) {
    const List& l = elements();
    return firstRepeat(l.size(), [&](size_t i) -> const GenericValue& { return l[i]; });
  }
  throwWrongKind("map or set");
}

bool operator==(const GenericValue& a, const GenericValue& b) {
  if (a.kind_ != b.kind_) return false;
  switch (a.kind_) {
    case Kind::kFloat:
      return canonicalFloatBits(a.asFloat()) == canonicalFloatBits(b.asFloat());
    case Kind::kDouble:
      return canonicalDoubleBits(a.asDouble()) == canonicalDoubleBits(b.asDouble());
    case Kind::kFloatArray:
      return rangeEqual(a.asFloatArray(), b.asFloatArray(), [](float x, float y) {
        return canonicalFloatBits(x) == canonicalFloatBits(y);
      });
    case Kind::kDoubleArray:
      return rangeEqual(a.asDoubleArray(), b.asDoubleArray(), [](double x, double y) {
        return canonicalDoubleBits(x) == canonicalDoubleBits(y);
      });
    case Kind::kMap:
      return unorderedEqual(a.entries(), b.entries(), entryHash, entryEqual);
    case Kind::kSet:
      return unorderedEqual(
          a.elements(), b.elements(), [](const GenericValue& v) { return v.hash(); },
          std::equal_to<GenericValue>());
    case Kind::kJodaDateTime:
    case Kind::kZonedDateTime:
      return a.asZonedDateTime() == b.asZonedDateTime();  // the values, not the pointers
    default:
      // Every other kind compares its storage exactly (element by element for
      // lists, ordered maps and ordered sets, through this operator).
      return a.storage_ == b.storage_;
  }
}

size_t GenericValue::hash() const {
  size_t h = static_cast<size_t>(kind_) * 0x100000001b3ull;
  switch (kind_) {
    case Kind::kNull:
      return h;
    case Kind::kString:
    case Kind::kText:
      return mix(h, std::hash<std::string>()(asString()));
    case Kind::kInt:
      return mix(h, std::hash<int32_t>()(asInt()));
    case Kind::kLong:
    case Kind::kDate:
      return mix(h, std::hash<int64_t>()(asLong()));
    case Kind::kFloat:
      return mix(h, canonicalFloatBits(asFloat()));
    case Kind::kDouble:
      return mix(h, canonicalDoubleBits(asDouble()));
    case Kind::kBoolean:
      return mix(h, asBoolean());
    case Kind::kByte:
      return mix(h, static_cast<size_t>(asByte()));
    case Kind::kShort:
      return mix(h, static_cast<size_t>(asShort()));
    case Kind::kByteArray:
    case Kind::kBytesReference:
    case Kind::kBytesRef: {
      auto b = asBytes();
      return mix(
          h, std::hash<std::string_view>()({reinterpret_cast<const char*>(b.data()), b.size()}));
    }
    case Kind::kList:
    case Kind::kObjectArray:
    case Kind::kOrderedSet:
      for (const auto& e : elements()) h = mix(h, e.hash());
      return h;
    case Kind::kSet: {
      size_t sum = 0;  // order-insensitive, as == is
      for (const auto& e : elements()) sum += e.hash();
      return mix(h, sum);
    }
    case Kind::kOrderedMap:
      for (const auto& e : entries()) h = mix(h, entryHash(e));
      return h;
    case Kind::kMap: {
      size_t sum = 0;
      for (const auto& e : entries()) sum += entryHash(e);
      return mix(h, sum);
    }
    case Kind::kIntArray:
      for (int32_t e : asIntArray()) h = mix(h, static_cast<size_t>(e));
      return h;
    case Kind::kLongArray:
      for (int64_t e : asLongArray()) h = mix(h, static_cast<size_t>(e));
      return h;
    case Kind::kFloatArray:
      for (float e : asFloatArray()) h = mix(h, canonicalFloatBits(e));
      return h;
    case Kind::kDoubleArray:
      for (double e : asDoubleArray()) h = mix(h, canonicalDoubleBits(e));
      return h;
    case Kind::kGeoPoint: {
      GeoPoint p = asGeoPoint();
      return mix(mix(h, canonicalDoubleBits(p.lat)), canonicalDoubleBits(p.lon));
    }
    case Kind::kJodaDateTime:
    case Kind::kZonedDateTime: {
      const ZonedDateTime& t = asZonedDateTime();
      return mix(mix(mix(h, std::hash<int64_t>()(t.instant.time_since_epoch().count())),
                     std::hash<std::string>()(t.zone_id)),
                 std::hash<int32_t>()(t.nano_of_milli));
    }
    case Kind::kBigInteger: {
      const BigInteger& b = asBigInteger();
      const auto& m = b.magnitude();
      return mix(mix(h, b.negative()), std::hash<std::string_view>()(
                                           {reinterpret_cast<const char*>(m.data()), m.size()}));
    }
    case Kind::kOffsetTime: {
      OffsetTime t = asOffsetTime();
      return mix(mix(h, std::hash<int64_t>()(t.time_of_day.count())),
                 std::hash<int64_t>()(t.offset.count()));
    }
    case Kind::kDuration: {
      JavaDuration d = asDuration();
      return mix(mix(h, std::hash<int64_t>()(d.seconds)), std::hash<int32_t>()(d.nanos));
    }
    case Kind::kPeriod: {
      JavaPeriod p = asPeriod();
      return mix(mix(mix(h, std::hash<int32_t>()(p.years)), std::hash<int32_t>()(p.months)),
                 std::hash<int32_t>()(p.days));
    }
    case Kind::kGeoBoundingBox: {
      GeoBoundingBox b = asGeoBoundingBox();
      for (double d : {b.top_left.lat, b.top_left.lon, b.bottom_right.lat, b.bottom_right.lon}) {
        h = mix(h, canonicalDoubleBits(d));
      }
      return h;
    }
  }
  return h;
}

std::string GenericValue::toString() const {
  std::string out;
  appendTo(out, *this);
  return out;
}

std::ostream& operator<<(std::ostream& os, const GenericValue& v) { return os << v.toString(); }

}  // namespace wirestream
