// The subset of java.time printing that ES's date formats use; see
// date_format.h for what is covered. Each supported pattern is compiled to a
// list of fields and printed against one broken-down local time.
#include "aggregations/date_format.h"

#include <array>
#include <cstdlib>
#include <string>
#include <vector>

#include "aggregations/time_zone.h"

namespace wirestream::aggregations::date_format {

CivilDate civilFromDays(int64_t z) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const int64_t m = mp < 10 ? mp + 3 : mp - 9;
  return {yoe + era * 400 + (m <= 2 ? 1 : 0), static_cast<int32_t>(m), static_cast<int32_t>(d)};
}

int64_t daysFromCivil(int64_t y, int32_t m, int32_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

namespace {

int64_t floorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// "+01:00", "-0530", "+1", "+01", "+01:30:15" -> seconds; nullopt otherwise.
std::optional<int32_t> parseOffset(std::string_view s) {
  if (s.empty() || (s[0] != '+' && s[0] != '-')) return std::nullopt;
  int sign = s[0] == '-' ? -1 : 1;
  std::string_view r = s.substr(1);
  auto digits = [](std::string_view t) {
    for (char c : t)
      if (c < '0' || c > '9') return false;
    return !t.empty();
  };
  int h = 0, m = 0, sec = 0;
  auto num = [](std::string_view t) { return std::atoi(std::string(t).c_str()); };
  if (r.size() <= 2 && digits(r)) {
    h = num(r);
  } else if (r.size() == 4 && digits(r)) {
    h = num(r.substr(0, 2));
    m = num(r.substr(2));
  } else if (r.size() == 5 && r[2] == ':' && digits(r.substr(0, 2)) && digits(r.substr(3))) {
    h = num(r.substr(0, 2));
    m = num(r.substr(3));
  } else if (r.size() == 6 && digits(r)) {
    h = num(r.substr(0, 2));
    m = num(r.substr(2, 2));
    sec = num(r.substr(4));
  } else if (r.size() == 8 && r[2] == ':' && r[5] == ':' && digits(r.substr(0, 2)) &&
             digits(r.substr(3, 2)) && digits(r.substr(6))) {
    h = num(r.substr(0, 2));
    m = num(r.substr(3, 2));
    sec = num(r.substr(6));
  } else {
    return std::nullopt;
  }
  if (h > 18 || m > 59 || sec > 59) return std::nullopt;
  int32_t total = h * 3600 + m * 60 + sec;
  if (total > 18 * 3600) return std::nullopt;  // ZoneOffset's range
  return sign * total;
}

const std::array<const char*, 12> kMonths = {"January",   "February", "March",    "April",
                                             "May",       "June",     "July",     "August",
                                             "September", "October",  "November", "December"};
const std::array<const char*, 7> kDays = {"Monday", "Tuesday",  "Wednesday", "Thursday",
                                          "Friday", "Saturday", "Sunday"};

struct Local {
  int64_t year;
  int32_t month, day, day_of_year, day_of_week;  // day_of_week: 0 = Monday
  int32_t hour, minute, second, nanos;
  int32_t offset;  // seconds
  std::string_view zone_id;
};

enum class Op {
  kLiteral,
  kYear,  // width, max, sign style in flags
  kYearOfEra,
  kYear2,  // two-digit reduced year
  kMonth,
  kMonthText,  // width 3 short, 4 full, 5 narrow
  kDay,
  kDayOfYear,
  kHour,            // H
  kClockHourAmPm,   // h
  kClockHourOfDay,  // k
  kHourAmPm,        // K
  kMinute,
  kSecond,
  kFraction,  // min, max digits; decimal point in flags
  kAmPm,
  kDayText,  // width 3 short, 4 full, 5 narrow
  kOffset,   // text pattern in literal, zero text in zero
  kZoneId,
  kEpochMillis,
  kEpochSecond,
};

struct Field {
  Op op;
  int min = 0;
  int max = 0;
  bool exceeds_pad = false;  // SignStyle.EXCEEDS_PAD: '+' when wider than min
  bool decimal_point = false;
  std::string text{};  // literal, or the offset pattern
  std::string zero{};  // the offset's text for zero
};

void appendPadded(std::string& out, int64_t v, int min_width) {
  std::string digits = std::to_string(v < 0 ? -v : v);
  if (v < 0) out += '-';
  for (int i = static_cast<int>(digits.size()); i < min_width; ++i) out += '0';
  out += digits;
}

void appendOffset(std::string& out, const Field& f, int32_t offset) {
  if (offset == 0) {
    out += f.zero;
    return;
  }
  int32_t a = offset < 0 ? -offset : offset;
  int h = a / 3600, m = a / 60 % 60, s = a % 60;
  out += offset < 0 ? '-' : '+';
  const std::string& p = f.text;  // "+HH", "+HHmm", "+HHMM", "+HH:MM", "+HHMMss", "+HH:MM:ss"
  bool colon = p.find(':') != std::string::npos;
  appendPadded(out, h, 2);
  bool lenient_minute = p == "+HHmm" || p == "+HH:mm";
  bool has_minute = p.size() > 3;
  if (has_minute && !(lenient_minute && m == 0 && s == 0)) {
    if (colon) out += ':';
    appendPadded(out, m, 2);
  }
  bool has_second = p.find("ss") != std::string::npos;
  if (has_second && s != 0) {
    if (colon) out += ':';
    appendPadded(out, s, 2);
  }
}

void appendFraction(std::string& out, const Field& f, int32_t nanos) {
  std::string digits = std::to_string(nanos);
  digits.insert(0, 9 - digits.size(), '0');
  size_t n = digits.size();
  while (n > static_cast<size_t>(f.min) && digits[n - 1] == '0') --n;
  n = std::min(n, static_cast<size_t>(f.max));
  if (n == 0) return;
  if (f.decimal_point) out += '.';
  out.append(digits, 0, n);
}

// seconds + nanos as a decimal number of `unit_nanos` units, trailing zeros dropped.
std::string epochDecimal(int64_t seconds, int32_t nanos, int64_t unit_nanos) {
  // total = seconds * 1e9 + nanos, split into whole units and a remainder
  // without overflowing: units per second is 1e9 / unit_nanos.
  const int64_t per_second = 1000000000 / unit_nanos;
  int64_t whole = seconds * per_second + nanos / unit_nanos;
  int64_t rem = nanos % unit_nanos;  // 0 <= rem < unit_nanos
  bool negative = whole < 0 && rem != 0;
  if (negative) {  // -1.5 is whole -2, remainder 0.5: print the magnitude
    whole += 1;
    rem = unit_nanos - rem;
  }
  std::string out = negative && whole == 0 ? "-0" : std::to_string(whole);
  if (rem != 0) {
    std::string digits = std::to_string(rem);
    int width = 0;
    for (int64_t u = unit_nanos; u > 1; u /= 10) ++width;
    digits.insert(0, width - digits.size(), '0');
    while (!digits.empty() && digits.back() == '0') digits.pop_back();
    out += '.' + digits;
  }
  return out;
}

void print(std::string& out, const Field& f, const Local& t, int64_t epoch_seconds) {
  switch (f.op) {
    case Op::kLiteral:
      out += f.text;
      break;
    case Op::kYear:
    case Op::kYearOfEra: {
      int64_t y = f.op == Op::kYear ? t.year : (t.year >= 1 ? t.year : 1 - t.year);
      std::string digits = std::to_string(y < 0 ? -y : y);
      if (y < 0) {
        out += '-';
      } else if (f.exceeds_pad && static_cast<int>(digits.size()) > f.min) {
        out += '+';
      }
      for (int i = static_cast<int>(digits.size()); i < f.min; ++i) out += '0';
      out += digits;
      break;
    }
    case Op::kYear2: {
      int64_t y = ((t.year % 100) + 100) % 100;
      appendPadded(out, y, 2);
      break;
    }
    case Op::kMonth:
      appendPadded(out, t.month, f.min);
      break;
    case Op::kMonthText: {
      std::string name = kMonths[t.month - 1];
      out += f.min == 4 ? name : (f.min == 5 ? name.substr(0, 1) : name.substr(0, 3));
      break;
    }
    case Op::kDay:
      appendPadded(out, t.day, f.min);
      break;
    case Op::kDayOfYear:
      appendPadded(out, t.day_of_year, f.min);
      break;
    case Op::kHour:
      appendPadded(out, t.hour, f.min);
      break;
    case Op::kClockHourAmPm:
      appendPadded(out, t.hour % 12 == 0 ? 12 : t.hour % 12, f.min);
      break;
    case Op::kClockHourOfDay:
      appendPadded(out, t.hour == 0 ? 24 : t.hour, f.min);
      break;
    case Op::kHourAmPm:
      appendPadded(out, t.hour % 12, f.min);
      break;
    case Op::kMinute:
      appendPadded(out, t.minute, f.min);
      break;
    case Op::kSecond:
      appendPadded(out, t.second, f.min);
      break;
    case Op::kFraction:
      appendFraction(out, f, t.nanos);
      break;
    case Op::kAmPm:
      out += t.hour < 12 ? "AM" : "PM";
      break;
    case Op::kDayText: {
      std::string name = kDays[t.day_of_week];
      out += f.min == 4 ? name : (f.min == 5 ? name.substr(0, 1) : name.substr(0, 3));
      break;
    }
    case Op::kOffset:
      appendOffset(out, f, t.offset);
      break;
    case Op::kZoneId:
      out += t.zone_id;
      break;
    case Op::kEpochMillis:
      out += epochDecimal(epoch_seconds, t.nanos, 1000000);
      break;
    case Op::kEpochSecond:
      out += epochDecimal(epoch_seconds, t.nanos, 1000000000);
      break;
  }
}

Field lit(std::string s) { return {Op::kLiteral, 0, 0, false, false, std::move(s), {}}; }
Field num(Op op, int width) { return {.op = op, .min = width, .max = width}; }
Field offset(std::string pattern, std::string zero) {
  return {Op::kOffset, 0, 0, false, false, std::move(pattern), std::move(zero)};
}
Field fraction(int min, int max) {
  return {.op = Op::kFraction, .min = min, .max = max, .decimal_point = true};
}
Field year4() { return {.op = Op::kYear, .min = 4, .max = 19, .exceeds_pad = true}; }

std::vector<Field> ymd() {
  return {year4(), lit("-"), num(Op::kMonth, 2), lit("-"), num(Op::kDay, 2)};
}

std::vector<Field> cat(std::vector<Field> a, const std::vector<Field>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// ES's built-in printers (DateFormatters), by name without "strict_".
std::optional<std::vector<Field>> builtIn(std::string_view name) {
  const std::vector<Field> hm = {num(Op::kHour, 2), lit(":"), num(Op::kMinute, 2)};
  const std::vector<Field> hms = cat(hm, {lit(":"), num(Op::kSecond, 2)});
  const Field z = offset("+HH:MM", "Z");
  if (name == "date_optional_time" || name == "date_time")
    return cat(cat(ymd(), {lit("T")}), cat(hms, {fraction(3, 3), z}));
  if (name == "date_optional_time_nanos")
    return cat(cat(ymd(), {lit("T")}), cat(hms, {fraction(3, 9), z}));
  if (name == "date_time_no_millis") return cat(cat(ymd(), {lit("T")}), cat(hms, {z}));
  if (name == "date" || name == "year_month_day") return ymd();
  if (name == "date_hour") return cat(ymd(), {lit("T"), num(Op::kHour, 2)});
  if (name == "date_hour_minute") return cat(cat(ymd(), {lit("T")}), hm);
  if (name == "date_hour_minute_second") return cat(cat(ymd(), {lit("T")}), hms);
  if (name == "date_hour_minute_second_millis" || name == "date_hour_minute_second_fraction")
    return cat(cat(ymd(), {lit("T")}), cat(hms, {fraction(3, 3)}));
  if (name == "hour_minute_second") return hms;
  if (name == "hour_minute") return hm;
  if (name == "year_month") return std::vector<Field>{year4(), lit("-"), num(Op::kMonth, 2)};
  if (name == "year") return std::vector<Field>{year4()};
  if (name == "basic_date")
    return std::vector<Field>{num(Op::kYear, 4), num(Op::kMonth, 2), num(Op::kDay, 2)};
  if (name == "epoch_millis") return std::vector<Field>{{.op = Op::kEpochMillis}};
  if (name == "epoch_second") return std::vector<Field>{{.op = Op::kEpochSecond}};
  return std::nullopt;
}

// A java.time pattern (DateTimeFormatter.ofPattern), or nullopt for a letter
// or construct we do not print.
std::optional<std::vector<Field>> javaPattern(std::string_view p) {
  std::vector<Field> out;
  for (size_t i = 0; i < p.size();) {
    char c = p[i];
    if (c == '\'') {
      size_t j = i + 1;
      std::string text;
      if (j < p.size() && p[j] == '\'') {  // '' is a quote
        out.push_back(lit("'"));
        i = j + 1;
        continue;
      }
      while (j < p.size()) {
        if (p[j] == '\'') {
          if (j + 1 < p.size() && p[j + 1] == '\'') {
            text += '\'';
            j += 2;
            continue;
          }
          break;
        }
        text += p[j++];
      }
      if (j >= p.size()) return std::nullopt;  // unterminated
      out.push_back(lit(text));
      i = j + 1;
      continue;
    }
    if (c == '[' || c == ']') {  // optional sections: every field is present
      ++i;
      continue;
    }
    if (c == '{' || c == '}' || c == '#') return std::nullopt;
    bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!letter) {
      out.push_back(lit(std::string(1, c)));
      ++i;
      continue;
    }
    size_t j = i;
    while (j < p.size() && p[j] == c) ++j;
    int n = static_cast<int>(j - i);
    i = j;
    auto twoMax = [&](Op op) -> bool {
      if (n > 2) return false;
      out.push_back({op, n, n == 1 ? 19 : 2});
      return true;
    };
    bool ok = true;
    switch (c) {
      case 'y':
      case 'u': {
        Op op = c == 'y' ? Op::kYearOfEra : Op::kYear;
        if (n == 2) {
          out.push_back({Op::kYear2, 2, 2});
        } else {
          out.push_back({op, n == 1 ? 1 : n, 19, n >= 4});
        }
        break;
      }
      case 'M':
      case 'L':
        if (n <= 2) {
          out.push_back(num(Op::kMonth, n));
        } else if (n <= 5) {
          out.push_back({Op::kMonthText, n, n});
        } else {
          ok = false;
        }
        break;
      case 'd':
        ok = twoMax(Op::kDay);
        break;
      case 'D':
        if (n > 3)
          ok = false;
        else
          out.push_back(num(Op::kDayOfYear, n));
        break;
      case 'H':
        ok = twoMax(Op::kHour);
        break;
      case 'h':
        ok = twoMax(Op::kClockHourAmPm);
        break;
      case 'k':
        ok = twoMax(Op::kClockHourOfDay);
        break;
      case 'K':
        ok = twoMax(Op::kHourAmPm);
        break;
      case 'm':
        ok = twoMax(Op::kMinute);
        break;
      case 's':
        ok = twoMax(Op::kSecond);
        break;
      case 'S':
        if (n > 9)
          ok = false;
        else
          out.push_back({Op::kFraction, n, n, false, false});
        break;
      case 'a':
        if (n != 1)
          ok = false;
        else
          out.push_back({Op::kAmPm});
        break;
      case 'E':
        if (n > 5)
          ok = false;
        else
          out.push_back({Op::kDayText, n <= 3 ? 3 : n, 0});
        break;
      case 'Z':
        if (n <= 3)
          out.push_back(offset("+HHMM", "+0000"));
        else if (n == 5)
          out.push_back(offset("+HH:MM:ss", "Z"));
        else
          ok = false;
        break;
      case 'X':
      case 'x': {
        static const char* kPatterns[] = {"+HHmm", "+HHMM", "+HH:MM", "+HHMMss", "+HH:MM:ss"};
        static const char* kZeros[] = {"+00", "+0000", "+00:00", "+0000", "+00:00"};
        if (n > 5) {
          ok = false;
        } else {
          out.push_back(offset(kPatterns[n - 1], c == 'X' ? "Z" : kZeros[n - 1]));
        }
        break;
      }
      case 'V':
        if (n != 2)
          ok = false;
        else
          out.push_back({Op::kZoneId});
        break;
      default:
        ok = false;
    }
    if (!ok) return std::nullopt;
  }
  return out;
}

std::optional<std::vector<Field>> compile(std::string_view pattern) {
  // The printer of "a||b" is a.
  size_t bar = pattern.find("||");
  if (bar != std::string_view::npos) pattern = pattern.substr(0, bar);
  std::string_view name = pattern;
  if (name.starts_with("strict_")) name.remove_prefix(7);
  if (auto b = builtIn(name)) return b;
  return javaPattern(pattern);
}

}  // namespace

std::optional<int32_t> fixedOffsetSeconds(std::string_view id) {
  if (id == "Z" || id == "UTC" || id == "GMT" || id == "UT" || id == "Etc/UTC" || id == "Etc/GMT" ||
      id == "Etc/UCT" || id == "UCT" || id == "Etc/Universal" || id == "Etc/Zulu" ||
      id == "Universal" || id == "Zulu" || id == "Etc/Greenwich" || id == "Greenwich" ||
      id == "GMT0" || id == "Etc/GMT0" || id == "Etc/GMT+0" || id == "Etc/GMT-0") {
    return 0;
  }
  for (std::string_view prefix : {"UTC", "GMT", "UT"}) {
    if (id.starts_with(prefix) && id.size() > prefix.size() &&
        (id[prefix.size()] == '+' || id[prefix.size()] == '-')) {
      return parseOffset(id.substr(prefix.size()));
    }
  }
  return parseOffset(id);
}

std::optional<int32_t> offsetAt(std::string_view zone_id, int64_t epoch_seconds) {
  if (auto fixed = fixedOffsetSeconds(zone_id)) return fixed;
  std::shared_ptr<const time_zone::ZoneRules> rules = time_zone::load(zone_id);
  if (!rules) return std::nullopt;
  return rules->offsetAt(epoch_seconds);
}

bool isSupportedPattern(std::string_view pattern) { return compile(pattern).has_value(); }

std::optional<std::string> format(std::string_view pattern, std::string_view locale,
                                  std::string_view zone_id, int64_t epoch_seconds, int32_t nanos) {
  const bool english_names = locale.empty() || locale == "en" || locale.starts_with("en_");
  if (!english_names) {
    auto fields = compile(pattern);
    if (!fields) return std::nullopt;
    for (const Field& f : *fields) {
      if (f.op == Op::kMonthText || f.op == Op::kDayText || f.op == Op::kAmPm) return std::nullopt;
    }
  }
  return format(pattern, zone_id, epoch_seconds, nanos);
}

std::optional<std::string> format(std::string_view pattern, std::string_view zone_id,
                                  int64_t epoch_seconds, int32_t nanos) {
  auto fields = compile(pattern);
  if (!fields) return std::nullopt;
  std::optional<int32_t> offset;
  try {
    offset = offsetAt(zone_id, epoch_seconds);
  } catch (const time_zone::TimeZoneDataError&) {
    return std::nullopt;  // a broken system file: print the raw value, as for an unknown zone
  }
  if (!offset) return std::nullopt;
  Local t{};
  int64_t local = epoch_seconds + *offset;
  int64_t days = floorDiv(local, 86400);
  int64_t secs = local - days * 86400;
  CivilDate c = civilFromDays(days);
  t.year = c.year;
  t.month = c.month;
  t.day = c.day;
  t.day_of_year = static_cast<int32_t>(days - daysFromCivil(c.year, 1, 1) + 1);
  t.day_of_week = static_cast<int32_t>(((days % 7) + 7 + 3) % 7);  // 1970-01-01 was a Thursday
  t.hour = static_cast<int32_t>(secs / 3600);
  t.minute = static_cast<int32_t>(secs / 60 % 60);
  t.second = static_cast<int32_t>(secs % 60);
  t.nanos = nanos;
  t.offset = *offset;
  t.zone_id = zone_id;
  std::string out;
  for (const Field& f : *fields) print(out, f, t, epoch_seconds);
  return out;
}

}  // namespace wirestream::aggregations::date_format
