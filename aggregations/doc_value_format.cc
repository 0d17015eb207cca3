// DocValueFormat on the wire (wire format §7): string name, then the body:
//   raw, bool, geo_hash, geo_tile, ip, binary, unsigned_long_shifted, tsid: none
//   decimal   := string pattern
//   date_time := string pattern, string zone id, VInt resolution,
//                [7.7.0 <= v < 8.0.0] boolean (joda pattern; ES 8 writes false,
//                                     we write back what we read),
//                [v >= 7.13.0] boolean formatSortValues
// (ES's DocValueFormat.DateTime; the 7.13.0 gate is the 7.x line's, ES 8
// reads the boolean unconditionally as it talks to 7.17+ only.)
#include "aggregations/doc_value_format.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "aggregations/date_format.h"
#include "aggregations/text_util.h"
#include "stream/errors.h"
#include "stream/structured/structured_stream.h"

namespace wirestream::aggregations {

namespace {

constexpr TransportVersion kJodaFlagFrom = TransportVersion::fromRelease(7, 7, 0);
constexpr TransportVersion kFormatSortValuesFrom = TransportVersion::fromRelease(7, 13, 0);

struct NameOf {
  DocValueFormat::Kind kind;
  std::string_view name;
};
constexpr std::array<NameOf, 10> kNames = {{
    {DocValueFormat::Kind::kRaw, "raw"},
    {DocValueFormat::Kind::kBoolean, "bool"},
    {DocValueFormat::Kind::kDateTime, "date_time"},
    {DocValueFormat::Kind::kDecimal, "decimal"},
    {DocValueFormat::Kind::kGeoHash, "geo_hash"},
    {DocValueFormat::Kind::kGeoTile, "geo_tile"},
    {DocValueFormat::Kind::kIp, "ip"},
    {DocValueFormat::Kind::kBinary, "binary"},
    {DocValueFormat::Kind::kUnsignedLongShifted, "unsigned_long_shifted"},
    {DocValueFormat::Kind::kTimeSeriesId, "tsid"},
}};

bool hasBody(DocValueFormat::Kind k) {
  return k == DocValueFormat::Kind::kDateTime || k == DocValueFormat::Kind::kDecimal;
}

[[noreturn]] void unknown(std::string_view name) {
  internal::throwCorrupt("Unknown NamedWriteable [DocValueFormat][" + std::string(name) + "]");
}

DocValueFormat::Resolution resolutionOf(int64_t ordinal) {
  if (ordinal != 0 && ordinal != 1) {
    internal::throwCorrupt("unknown date resolution ordinal [" + std::to_string(ordinal) + "]");
  }
  return static_cast<DocValueFormat::Resolution>(ordinal);
}

// ---- renderings ----

// Geohash.stringEncode(long): the level in the low 4 bits, 5 bits a character above.
std::string geoHashString(int64_t v) {
  static constexpr char kBase32[] = "0123456789bcdefghjkmnpqrstuvwxyz";
  auto u = static_cast<uint64_t>(v);
  int level = static_cast<int>(u & 15);
  u >>= 4;
  std::string out(static_cast<size_t>(level), '0');
  while (level > 0) {
    out[static_cast<size_t>(--level)] = kBase32[u & 31];
    u >>= 5;
  }
  return out;
}

// GeoTileUtils.stringEncode(long): zoom in bits 58.., x in 29..57, y in 0..28.
std::string geoTileString(int64_t v) {
  auto u = static_cast<uint64_t>(v);
  constexpr uint64_t kMask = (uint64_t{1} << 29) - 1;
  return std::to_string(u >> 58) + "/" + std::to_string((u >> 29) & kMask) + "/" +
         std::to_string(u & kMask);
}

// NetworkAddress.format(InetAddressPoint.decode(bytes)): an IPv4-mapped
// address as a dotted quad, any other as RFC 5952 text (Guava's toAddrString:
// lower-case hex, the longest run of two or more zero groups as "::").
std::optional<std::string> ipString(std::string_view b) {
  if (b.size() != 16) return std::nullopt;
  auto byte = [&](size_t i) { return static_cast<uint8_t>(b[i]); };
  bool mapped = true;
  for (size_t i = 0; i < 10; ++i) mapped = mapped && byte(i) == 0;
  mapped = mapped && byte(10) == 0xff && byte(11) == 0xff;
  if (mapped) {
    return std::to_string(byte(12)) + "." + std::to_string(byte(13)) + "." +
           std::to_string(byte(14)) + "." + std::to_string(byte(15));
  }
  std::array<uint32_t, 8> g{};
  for (size_t i = 0; i < 8; ++i) g[i] = (uint32_t{byte(2 * i)} << 8) | byte(2 * i + 1);
  int best = -1, best_len = 0;
  for (int i = 0; i < 8;) {
    if (g[static_cast<size_t>(i)] != 0) {
      ++i;
      continue;
    }
    int j = i;
    while (j < 8 && g[static_cast<size_t>(j)] == 0) ++j;
    if (j - i >= 2 && j - i > best_len) {
      best = i;
      best_len = j - i;
    }
    i = j;
  }
  std::string out;
  char buf[8];
  for (int i = 0; i < 8; ++i) {
    if (i == best) {
      out += "::";
      i += best_len - 1;
      continue;
    }
    if (!out.empty() && out.back() != ':') out += ':';
    auto r = std::to_chars(buf, buf + sizeof buf, g[static_cast<size_t>(i)], 16);
    out.append(buf, r.ptr);
  }
  return out;
}

std::string base64NoPadding(std::string_view b) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < b.size(); i += 3) {
    uint32_t n = (uint32_t{static_cast<uint8_t>(b[i])} << 16) |
                 (uint32_t{static_cast<uint8_t>(b[i + 1])} << 8) | static_cast<uint8_t>(b[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += kAlphabet[(n >> s) & 63];
  }
  size_t rest = b.size() - i;
  if (rest > 0) {
    uint32_t n = uint32_t{static_cast<uint8_t>(b[i])} << 16;
    if (rest == 2) n |= uint32_t{static_cast<uint8_t>(b[i + 1])} << 8;
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    if (rest == 2) out += kAlphabet[(n >> 6) & 63];
  }
  return out;
}

// A java.text.DecimalFormat pattern's positive part: prefix, integer digits
// ('0' required, '#' optional, ',' grouping), optional '.' and fraction
// digits, suffix; '%' (x100) and '\u2030' (x1000) in the affixes, 'quoted'
// text. Exponents and a negative subpattern's own affixes are not supported.
struct DecimalPattern {
  std::string prefix, suffix;
  int min_int = 0;
  int min_frac = 0, max_frac = 0;
  int grouping = 0;  // 0: none
  int multiplier = 1;
};

std::optional<DecimalPattern> parseDecimal(std::string_view p) {
  size_t semi = p.find(';');
  if (semi != std::string_view::npos) p = p.substr(0, semi);
  DecimalPattern d;
  enum { kPrefix, kNumber, kSuffix } state = kPrefix;
  bool seen_dot = false;
  int since_comma = -1;
  bool any_digit = false;
  for (size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    bool number_char = c == '#' || c == '0' || c == ',' || c == '.';
    if (state != kSuffix && number_char) {
      state = kNumber;
      any_digit = true;
      if (c == '.') {
        if (seen_dot) return std::nullopt;
        seen_dot = true;
        if (since_comma >= 0) d.grouping = since_comma;
      } else if (c == ',') {
        if (seen_dot) return std::nullopt;
        since_comma = 0;
      } else if (!seen_dot) {
        if (c == '0') ++d.min_int;
        if (since_comma >= 0) ++since_comma;
      } else {
        if (c == '0') {
          if (d.max_frac != d.min_frac) return std::nullopt;  // "#0" after the dot
          ++d.min_frac;
        }
        ++d.max_frac;
      }
      continue;
    }
    if (state == kNumber) {
      if (!seen_dot && since_comma >= 0) d.grouping = since_comma;
      state = kSuffix;
      if (c == 'E') return std::nullopt;  // an exponent: not supported
    }
    std::string& affix = state == kPrefix ? d.prefix : d.suffix;
    if (c == '\'') {
      size_t j = p.find('\'', i + 1);
      if (j == std::string_view::npos) return std::nullopt;
      affix += j == i + 1 ? std::string("'") : std::string(p.substr(i + 1, j - i - 1));
      i = j;
      continue;
    }
    if (c == '%') d.multiplier = 100;
    if (p.substr(i).starts_with("\u2030")) d.multiplier = 1000;
    affix += c;
  }
  if (state == kNumber && !seen_dot && since_comma >= 0) d.grouping = since_comma;
  if (!any_digit) return std::nullopt;
  if (d.grouping == 0 && since_comma >= 0) return std::nullopt;
  return d;
}

// Lays out integer and fraction digits as the pattern says: leading zeros
// dropped then padded to min_int, trailing fraction zeros dropped down to
// min_frac, grouping, affixes; a value that is all zeros prints no sign.
std::string layout(const DecimalPattern& d, std::string int_part, std::string frac, bool negative) {
  while (static_cast<int>(frac.size()) > d.min_frac && frac.back() == '0') frac.pop_back();
  while (static_cast<int>(frac.size()) < d.min_frac) frac += '0';
  size_t first = int_part.find_first_not_of('0');
  int_part = first == std::string::npos ? "" : int_part.substr(first);
  while (static_cast<int>(int_part.size()) < d.min_int) int_part.insert(0, 1, '0');
  if (int_part.empty() && frac.empty()) int_part = "0";
  if (d.grouping > 0) {
    std::string grouped;
    int count = 0;
    for (size_t i = int_part.size(); i-- > 0;) {
      grouped.insert(0, 1, int_part[i]);
      if (++count % d.grouping == 0 && i > 0) grouped.insert(0, 1, ',');
    }
    int_part = std::move(grouped);
  }
  std::string body = frac.empty() ? int_part : int_part + "." + frac;
  if (body.find_first_not_of("0.,") == std::string::npos) negative = false;
  return (negative ? "-" : "") + d.prefix + body + d.suffix;
}

// |v| rounded half-even at max_frac (glibc rounds the exact binary value, as
// DecimalFormat does since JDK 8), then laid out.
std::optional<std::string> formatDecimal(const DecimalPattern& d, double v) {
  if (std::isnan(v)) return std::string("NaN");
  bool negative = std::signbit(v) && v != 0;
  v = std::fabs(v) * d.multiplier;
  if (std::isinf(v)) return (negative ? "-" : "") + d.prefix + "\u221e" + d.suffix;
  char buf[512];
  int n = std::snprintf(buf, sizeof buf, "%.*f", d.max_frac, v);
  if (n <= 0 || n >= static_cast<int>(sizeof buf)) return std::nullopt;
  std::string s(buf, static_cast<size_t>(n));
  size_t dot = s.find('.');
  if (dot == std::string::npos) return layout(d, s, "", negative);
  return layout(d, s.substr(0, dot), s.substr(dot + 1), negative);
}

// A long's exact digits (a double cannot hold every long).
std::string formatDecimalLong(const DecimalPattern& d, int64_t v) {
  std::string digits = std::to_string(v);
  bool negative = v < 0;
  if (negative) digits.erase(0, 1);
  if (d.multiplier == 100) digits += "00";
  if (d.multiplier == 1000) digits += "000";
  return layout(d, digits, "", negative);
}

std::pair<int64_t, int32_t> splitEpoch(int64_t v, DocValueFormat::Resolution r) {
  int64_t unit = r == DocValueFormat::Resolution::kMilliseconds ? 1000 : 1000000000;
  // Floor division without sec * unit, which overflows near INT64_MIN.
  int64_t rem = v % unit;
  int64_t sec = v / unit;
  if (rem < 0) {
    rem += unit;
    --sec;
  }
  auto nanos =
      static_cast<int32_t>(r == DocValueFormat::Resolution::kMilliseconds ? rem * 1000000 : rem);
  return {sec, nanos};
}

}  // namespace

std::string javaDoubleToString(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  char buf[64];
  // Shortest round-trip digits in scientific form: d[.ddd]e[+-]xx.
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, r.ptr);
  bool negative = sci[0] == '-';
  if (negative) sci.erase(0, 1);
  size_t e = sci.find('e');
  std::string digits = sci.substr(0, e);
  int exp = std::stoi(sci.substr(e + 1));
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  std::string out;
  double a = std::fabs(v);
  if (a >= 1e-3 && a < 1e7) {
    if (exp >= 0) {
      std::string int_part = digits.substr(0, std::min(digits.size(), size_t(exp) + 1));
      while (int_part.size() < size_t(exp) + 1) int_part += '0';
      std::string frac = digits.size() > size_t(exp) + 1 ? digits.substr(size_t(exp) + 1) : "0";
      out = int_part + "." + frac;
    } else {
      out = "0." + std::string(size_t(-exp - 1), '0') + digits;
    }
  } else {
    out = digits.substr(0, 1) + "." + (digits.size() > 1 ? digits.substr(1) : "0") + "E" +
          std::to_string(exp);
  }
  return negative ? "-" + out : out;
}

DocValueFormat DocValueFormat::dateTime(std::string pattern, std::string zone_id,
                                        Resolution resolution, bool format_sort_values, bool joda) {
  DocValueFormat f(Kind::kDateTime);
  f.joda_ = joda;
  f.pattern_ = std::move(pattern);
  f.zone_id_ = std::move(zone_id);
  f.resolution_ = resolution;
  f.format_sort_values_ = format_sort_values;
  return f;
}

DocValueFormat DocValueFormat::decimal(std::string pattern) {
  DocValueFormat f(Kind::kDecimal);
  f.pattern_ = std::move(pattern);
  return f;
}

std::string_view DocValueFormat::getWriteableName() const {
  for (const NameOf& n : kNames)
    if (n.kind == kind_) return n.name;
  return kRawName;
}

const std::vector<std::string_view>& DocValueFormat::allNames() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> v;
    v.reserve(kNames.size());
    for (const NameOf& n : kNames) v.push_back(n.name);
    return v;
  }();
  return names;
}

void DocValueFormat::writeTo(StreamOutput& out) const {
  if (kind_ == Kind::kDecimal) {
    out.writeString(pattern_);
  } else if (kind_ == Kind::kDateTime) {
    TransportVersion v = out.transportVersion();
    out.writeString(pattern_);
    if (v.onOrAfter(TransportVersion::V_8_16_0)) out.writeString(locale_);
    out.writeString(zone_id_);
    out.writeVInt(static_cast<int32_t>(resolution_));
    if (v.onOrAfter(kJodaFlagFrom) && v.before(TransportVersion::V_8_0_0)) out.writeBoolean(joda_);
    if (v.onOrAfter(kFormatSortValuesFrom)) out.writeBoolean(format_sort_values_);
  }
}

void DocValueFormat::writeNamed(StreamOutput& out) const {
  out.writeString(getWriteableName());
  writeTo(out);
}

DocValueFormat DocValueFormat::readBody(std::string_view name, StreamInput& in) {
  for (const NameOf& n : kNames) {
    if (n.name != name) continue;
    DocValueFormat f(n.kind);
    if (n.kind == Kind::kDecimal) {
      f.pattern_ = in.readString();
    } else if (n.kind == Kind::kDateTime) {
      TransportVersion v = in.transportVersion();
      f.pattern_ = in.readString();
      if (v.onOrAfter(TransportVersion::V_8_16_0)) f.locale_ = in.readString();
      f.zone_id_ = in.readString();
      f.resolution_ = resolutionOf(in.readVInt());
      if (v.onOrAfter(kJodaFlagFrom) && v.before(TransportVersion::V_8_0_0)) {
        f.joda_ = in.readBoolean();  // ES 8 ignores it; kept to write it back as read
      }
      if (v.onOrAfter(kFormatSortValuesFrom)) f.format_sort_values_ = in.readBoolean();
    }
    return f;
  }
  unknown(name);
}

DocValueFormat DocValueFormat::fromName(std::string_view name) {
  for (const NameOf& n : kNames) {
    if (n.name == name && !hasBody(n.kind)) return DocValueFormat(n.kind);
  }
  unknown(name);
}

DocValueFormat DocValueFormat::readFrom(StreamInput& in, const NamedWriteableRegistry& registry) {
  return *readNamedWriteable<DocValueFormat>(in, registry);
}

std::string DocValueFormat::formatLongAsString(int64_t v) const {
  switch (kind_) {
    case Kind::kBoolean:
      return v != 0 ? "true" : "false";
    case Kind::kDateTime: {
      auto [sec, nanos] = splitEpoch(v, resolution_);
      auto s = date_format::format(pattern_, locale_, zone_id_, sec, nanos);
      return s ? *s : std::to_string(v);
    }
    case Kind::kDecimal: {
      auto d = parseDecimal(pattern_);
      return d ? formatDecimalLong(*d, v) : std::to_string(v);
    }
    case Kind::kGeoHash:
      return geoHashString(v);
    case Kind::kGeoTile:
      return geoTileString(v);
    case Kind::kUnsignedLongShifted:
      return std::to_string(static_cast<uint64_t>(v) ^ (uint64_t{1} << 63));
    default:
      return std::to_string(v);
  }
}

std::string DocValueFormat::formatDoubleAsString(double v) const {
  // Java's (long) cast: NaN is 0, out-of-range values saturate.
  auto toLong = [](double d) -> int64_t {
    if (std::isnan(d)) return 0;
    if (d >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
    if (d <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
    return static_cast<int64_t>(d);
  };
  switch (kind_) {
    case Kind::kBoolean:
      return v != 0 ? "true" : "false";
    case Kind::kDateTime:
    case Kind::kGeoHash:
    case Kind::kGeoTile:
      return formatLongAsString(toLong(v));
    case Kind::kDecimal: {
      auto d = parseDecimal(pattern_);
      auto s = d ? formatDecimal(*d, v) : std::nullopt;
      return s ? *s : javaDoubleToString(v);
    }
    default:
      return javaDoubleToString(v);
  }
}

std::string DocValueFormat::formatBytesAsString(std::string_view v) const {
  switch (kind_) {
    case Kind::kIp: {
      auto s = ipString(v);
      return s ? *s : text_util::toUtf8Lossy(v);
    }
    case Kind::kBinary:
      return base64NoPadding(v);
    default:
      return text_util::toUtf8Lossy(v);
  }
}

}  // namespace wirestream::aggregations
