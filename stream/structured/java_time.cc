// Zone and offset ids as java.time writes them (ZoneOffset.getId,
// ZoneId.of's prefixes, ZoneRegion's id pattern). No byte grammar here: the
// generic-value codec writes these ids with writeString.
#include "stream/structured/java_time.h"

#include <cstdio>

namespace wirestream {

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Two digits at `at`, or -1.
int twoDigits(std::string_view s, size_t at) {
  if (at + 2 > s.size() || !isDigit(s[at]) || !isDigit(s[at + 1])) return -1;
  return (s[at] - '0') * 10 + (s[at + 1] - '0');
}

// ZoneRegion.checkName: [A-Za-z][A-Za-z0-9~/._+-]+
bool isRegionId(std::string_view id) {
  if (id.size() < 2 || !isLetter(id[0])) return false;
  for (char c : id.substr(1)) {
    if (!isLetter(c) && !isDigit(c) && c != '~' && c != '/' && c != '.' && c != '_' && c != '+' &&
        c != '-') {
      return false;
    }
  }
  return true;
}

}  // namespace

std::string OffsetTime::offsetIdOf(std::chrono::seconds offset) {
  int64_t total = offset.count();
  if (total == 0) return "Z";
  int64_t abs = total < 0 ? -total : total;
  char buf[16];
  int n = std::snprintf(buf, sizeof buf, "%c%02d:%02d", total < 0 ? '-' : '+',
                        static_cast<int>(abs / 3600), static_cast<int>(abs / 60 % 60));
  if (abs % 60 != 0) std::snprintf(buf + n, sizeof buf - n, ":%02d", static_cast<int>(abs % 60));
  return buf;
}

std::optional<std::chrono::seconds> OffsetTime::parseOffsetId(std::string_view id) {
  if (id == "Z") return std::chrono::seconds(0);
  if (id.size() != 6 && id.size() != 9) return std::nullopt;
  if (id[0] != '+' && id[0] != '-') return std::nullopt;
  int h = twoDigits(id, 1);
  int m = id[3] == ':' ? twoDigits(id, 4) : -1;
  int s = 0;
  if (id.size() == 9) {
    s = id[6] == ':' ? twoDigits(id, 7) : -1;
    if (s == 0) return std::nullopt;  // Java leaves out a zero seconds field
  }
  if (h < 0 || m < 0 || s < 0 || m > 59 || s > 59) return std::nullopt;
  int64_t total = h * 3600 + m * 60 + s;
  if (total == 0 || total > kMaxOffset.count()) return std::nullopt;  // zero is "Z"
  return std::chrono::seconds(id[0] == '-' ? -total : total);
}

std::string OffsetTime::toString() const {
  // LocalTime.toString: HH:mm, then :ss if seconds or nanos, then the
  // fraction in groups of three digits.
  int64_t n = time_of_day.count();
  int64_t secs = n / 1000000000;
  int64_t nanos = n % 1000000000;
  char buf[40];
  int len = std::snprintf(buf, sizeof buf, "%02d:%02d", static_cast<int>(secs / 3600),
                          static_cast<int>(secs / 60 % 60));
  if (secs % 60 != 0 || nanos != 0) {
    len += std::snprintf(buf + len, sizeof buf - len, ":%02d", static_cast<int>(secs % 60));
    if (nanos % 1000000 == 0 && nanos != 0) {
      std::snprintf(buf + len, sizeof buf - len, ".%03d", static_cast<int>(nanos / 1000000));
    } else if (nanos % 1000 == 0 && nanos != 0) {
      std::snprintf(buf + len, sizeof buf - len, ".%06d", static_cast<int>(nanos / 1000));
    } else if (nanos != 0) {
      std::snprintf(buf + len, sizeof buf - len, ".%09d", static_cast<int>(nanos));
    }
  }
  return buf + offsetId();
}

bool ZonedDateTime::isZoneId(std::string_view id) {
  if (id.empty()) return false;
  if (id.size() == 1 || id[0] == '+' || id[0] == '-') {
    return OffsetTime::parseOffsetId(id).has_value();
  }
  // ZoneId.of: "UTC" / "GMT" / "UT" alone, or with an offset after them.
  for (std::string_view prefix : {"UTC", "GMT", "UT"}) {
    if (id.substr(0, prefix.size()) != prefix) continue;
    if (id.size() == prefix.size()) return true;
    char next = id[prefix.size()];
    if (next == '+' || next == '-') {
      auto offset = OffsetTime::parseOffsetId(id.substr(prefix.size()));
      return offset.has_value() && offset->count() != 0;
    }
    break;  // "UTCX...": a region id
  }
  return isRegionId(id);
}

}  // namespace wirestream
