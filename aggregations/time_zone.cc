// TZif (RFC 8536): a 44-byte header ("TZif", version, 15 reserved bytes, six
// big-endian 32-bit counts: isutcnt isstdcnt leapcnt timecnt typecnt
// charcnt), the data block (transition times, their type indices, the local
// time types as (int32 utoff, uint8 isdst, uint8 desigidx), the
// abbreviations, leap seconds and the two indicator arrays), and from
// version 2 on a second header and block with 64-bit times, then a footer:
// "\n" POSIX TZ string "\n".
#include "aggregations/time_zone.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <mutex>
#include <utility>

#include "aggregations/date_format.h"

namespace wirestream::aggregations::time_zone {

namespace {

[[noreturn]] void fail(std::string_view name, const std::string& what) {
  throw TimeZoneDataError("time zone file [" + std::string(name) + "]: " + what);
}

class Reader {
 public:
  Reader(std::span<const uint8_t> b, std::string_view name) : b_(b), name_(name) {}
  size_t pos() const { return pos_; }
  void need(size_t n) const {
    if (b_.size() - pos_ < n) {
      fail(name_, "truncated at byte " + std::to_string(pos_) + " (needs " + std::to_string(n) +
                      " more bytes)");
    }
  }
  uint8_t u8() {
    need(1);
    return b_[pos_++];
  }
  int64_t be(int bytes) {
    need(static_cast<size_t>(bytes));
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = v << 8 | b_[pos_++];
    if (bytes == 4) return static_cast<int32_t>(static_cast<uint32_t>(v));
    return static_cast<int64_t>(v);
  }
  void skip(size_t n) {
    need(n);
    pos_ += n;
  }
  std::span<const uint8_t> rest() const { return b_.subspan(pos_); }

 private:
  std::span<const uint8_t> b_;
  std::string_view name_;
  size_t pos_ = 0;
};

struct Counts {
  uint32_t isut, isstd, leap, time, type, chars;
};

Counts readHeader(Reader& r, std::string_view name, uint8_t* version) {
  r.need(44);
  if (r.u8() != 'T' || r.u8() != 'Z' || r.u8() != 'i' || r.u8() != 'f') fail(name, "no TZif magic");
  *version = r.u8();
  if (*version != 0 && (*version < '2' || *version > '4')) {
    fail(name, "unknown version byte " + std::to_string(*version));
  }
  r.skip(15);
  Counts c;
  c.isut = static_cast<uint32_t>(r.be(4));
  c.isstd = static_cast<uint32_t>(r.be(4));
  c.leap = static_cast<uint32_t>(r.be(4));
  c.time = static_cast<uint32_t>(r.be(4));
  c.type = static_cast<uint32_t>(r.be(4));
  c.chars = static_cast<uint32_t>(r.be(4));
  if (c.type == 0 || c.type > 256) fail(name, "type count " + std::to_string(c.type));
  if (c.chars == 0 || c.chars > 4096) fail(name, "abbreviation bytes " + std::to_string(c.chars));
  if (c.time > kMaxTransitions) fail(name, "transition count " + std::to_string(c.time));
  if (c.leap > 1000) fail(name, "leap second count " + std::to_string(c.leap));
  if ((c.isut != 0 && c.isut != c.type) || (c.isstd != 0 && c.isstd != c.type)) {
    fail(name, "indicator counts do not match the type count");
  }
  return c;
}

struct Block {
  std::vector<int64_t> times;
  std::vector<uint8_t> type_of;
  std::vector<int32_t> utoff;
};

Block readBlock(Reader& r, const Counts& c, int time_bytes, std::string_view name) {
  Block blk;
  size_t size = size_t{c.time} * time_bytes + c.time + size_t{c.type} * 6 + c.chars +
                size_t{c.leap} * (time_bytes + 4) + c.isstd + c.isut;
  r.need(size);
  for (uint32_t i = 0; i < c.time; ++i) {
    blk.times.push_back(r.be(time_bytes));
    if (i > 0 && blk.times[i] <= blk.times[i - 1]) fail(name, "transition times not ascending");
  }
  for (uint32_t i = 0; i < c.time; ++i) {
    uint8_t t = r.u8();
    if (t >= c.type) fail(name, "transition type index " + std::to_string(t));
    blk.type_of.push_back(t);
  }
  for (uint32_t i = 0; i < c.type; ++i) {
    auto off = static_cast<int32_t>(r.be(4));
    uint8_t isdst = r.u8();
    uint8_t desig = r.u8();
    // RFC 8536: utoff is in [-89999, 93599] (never -2^31).
    if (off < -89999 || off > 93599) fail(name, "UT offset " + std::to_string(off));
    if (isdst > 1) fail(name, "isdst byte " + std::to_string(isdst));
    if (desig >= c.chars) fail(name, "abbreviation index " + std::to_string(desig));
    blk.utoff.push_back(off);
  }
  r.skip(c.chars + size_t{c.leap} * (time_bytes + 4));
  for (uint32_t i = 0; i < c.isstd + c.isut; ++i) {
    if (r.u8() > 1) fail(name, "indicator byte above 1");
  }
  return blk;
}

// A POSIX TZ string's rule (the TZif footer), e.g. "CET-1CEST,M3.5.0,M10.5.0/3".
struct PosixRule {
  int32_t std_off = 0;  // seconds east of UTC
  bool has_dst = false;
  int32_t dst_off = 0;
  struct Date {
    char kind = 'M';  // 'M' month.week.day, 'J' julian 1..365, 'N' zero-based 0..365
    int32_t month = 0, week = 0, day = 0;
    int64_t time = 7200;  // seconds after local midnight (may be negative or past 24h)
  } start, end;
};

class PosixParser {
 public:
  PosixParser(std::string_view s, std::string_view name) : s_(s), name_(name) {}
  PosixRule parse() {
    PosixRule r;
    name();
    r.std_off = -static_cast<int32_t>(hms(24));
    if (at_end()) return r;
    name();
    r.has_dst = true;
    r.dst_off = r.std_off + 3600;
    if (!at_end() && peek() != ',') r.dst_off = -static_cast<int32_t>(hms(24));
    if (at_end()) bad("DST without transition rule");
    expect(',');
    r.start = date();
    expect(',');
    r.end = date();
    if (!at_end()) bad("trailing text");
    return r;
  }

 private:
  bool at_end() const { return i_ == s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[i_]; }
  [[noreturn]] void bad(const std::string& what) const {
    fail(name_, "footer [" + std::string(s_) + "]: " + what);
  }
  void expect(char c) {
    if (peek() != c) bad(std::string("expected '") + c + "'");
    ++i_;
  }
  void name() {
    size_t from = i_;
    if (peek() == '<') {
      while (!at_end() && s_[i_] != '>') ++i_;
      expect('>');
      return;
    }
    while (!at_end() && ((s_[i_] >= 'A' && s_[i_] <= 'Z') || (s_[i_] >= 'a' && s_[i_] <= 'z'))) {
      ++i_;
    }
    if (i_ - from < 3) bad("zone abbreviation shorter than 3 letters");
  }
  int64_t number(int64_t max) {
    if (!(peek() >= '0' && peek() <= '9')) bad("expected a digit");
    int64_t v = 0;
    while (peek() >= '0' && peek() <= '9') {
      v = v * 10 + (s_[i_++] - '0');
      if (v > max) bad("number above " + std::to_string(max));
    }
    return v;
  }
  // [+-]hh[:mm[:ss]] in seconds.
  int64_t hms(int64_t max_hours) {
    int64_t sign = 1;
    if (peek() == '+' || peek() == '-') sign = s_[i_++] == '-' ? -1 : 1;
    int64_t v = number(max_hours) * 3600;
    if (peek() == ':') {
      ++i_;
      v += number(59) * 60;
      if (peek() == ':') {
        ++i_;
        v += number(59);
      }
    }
    return sign * v;
  }
  PosixRule::Date date() {
    PosixRule::Date d;
    if (peek() == 'M') {
      ++i_;
      d.month = static_cast<int32_t>(number(12));
      expect('.');
      d.week = static_cast<int32_t>(number(5));
      expect('.');
      d.day = static_cast<int32_t>(number(6));
      if (d.month < 1 || d.week < 1) bad("month and week start at 1");
    } else if (peek() == 'J') {
      ++i_;
      d.kind = 'J';
      d.day = static_cast<int32_t>(number(365));
      if (d.day < 1) bad("julian day starts at 1");
    } else {
      d.kind = 'N';
      d.day = static_cast<int32_t>(number(365));
    }
    if (peek() == '/') {
      ++i_;
      d.time = hms(167);  // RFC 8536 (version 3): -167..167 hours
    }
    return d;
  }

  std::string_view s_;
  std::string_view name_;
  size_t i_ = 0;
};

bool isLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// The epoch day of a rule date in year `y`.
int64_t ruleDay(const PosixRule::Date& d, int64_t y) {
  int64_t jan1 = date_format::daysFromCivil(y, 1, 1);
  if (d.kind == 'J') return jan1 + d.day - 1 + (isLeap(y) && d.day >= 60 ? 1 : 0);
  if (d.kind == 'N') return jan1 + d.day;
  int64_t first = date_format::daysFromCivil(y, d.month, 1);
  int64_t first_wday = ((first % 7) + 7 + 4) % 7;  // 0 = Sunday; 1970-01-01 was a Thursday
  int64_t day = first + (d.day - first_wday + 7) % 7 + int64_t{d.week - 1} * 7;
  int32_t next_month = d.month == 12 ? 1 : d.month + 1;
  int64_t next = date_format::daysFromCivil(d.month == 12 ? y + 1 : y, next_month, 1);
  while (day >= next) day -= 7;  // week 5: the last such weekday
  return day;
}

}  // namespace

ZoneRules ZoneRules::parse(std::span<const uint8_t> tzif, std::string_view name) {
  if (tzif.size() > kMaxFileBytes) fail(name, "larger than " + std::to_string(kMaxFileBytes));
  Reader r(tzif, name);
  uint8_t version;
  Counts c = readHeader(r, name, &version);
  Block blk = readBlock(r, c, 4, name);
  std::optional<PosixRule> rule;
  if (version != 0) {
    Counts c2 = readHeader(r, name, &version);
    blk = readBlock(r, c2, 8, name);
    auto rest = r.rest();
    if (rest.empty() || rest.front() != '\n' || rest.back() != '\n' || rest.size() < 2 ||
        rest.size() > 258) {
      fail(name, "no footer at byte " + std::to_string(r.pos()));
    }
    std::string_view footer(reinterpret_cast<const char*>(rest.data()) + 1, rest.size() - 2);
    if (footer.find('\n') != std::string_view::npos) fail(name, "text after the footer");
    if (!footer.empty()) rule = PosixParser(footer, name).parse();
  } else if (!r.rest().empty()) {
    fail(name, "bytes after the version 1 data");
  }

  ZoneRules z;
  z.offsets_.push_back(blk.utoff[0]);
  auto add = [&](int64_t t, int32_t off) {
    if (off == z.offsets_.back()) return;  // not a change of offset: no transition in Java
    z.transitions_.push_back(t);
    z.offsets_.push_back(off);
  };
  for (size_t i = 0; i < blk.times.size(); ++i) add(blk.times[i], blk.utoff[blk.type_of[i]]);
  // A footer without DST is the last type's offset already; one with DST
  // gives the transitions after the last listed one.
  if (rule && rule->has_dst) {
    {
      int64_t last = blk.times.empty() ? INT64_MIN : blk.times.back();
      int64_t first_year = 1970;
      if (!blk.times.empty()) {
        first_year = date_format::civilFromDays(last / 86400 - (last % 86400 < 0)).year;
        first_year = std::clamp<int64_t>(first_year, 1800, kLastRuleYear);
      }
      std::vector<std::pair<int64_t, int32_t>> generated;
      for (int64_t y = first_year; y <= kLastRuleYear; ++y) {
        generated.emplace_back(ruleDay(rule->start, y) * 86400 + rule->start.time - rule->std_off,
                               rule->dst_off);
        generated.emplace_back(ruleDay(rule->end, y) * 86400 + rule->end.time - rule->dst_off,
                               rule->std_off);
      }
      std::sort(generated.begin(), generated.end());
      for (const auto& [t, off] : generated) {
        if (t > last) add(t, off);
      }
    }
  }
  return z;
}

int32_t ZoneRules::offsetAt(int64_t epoch_second) const {
  // The number of transitions at or before the instant indexes its offset.
  auto it = std::upper_bound(transitions_.begin(), transitions_.end(), epoch_second);
  return offsets_[static_cast<size_t>(it - transitions_.begin())];
}

std::vector<int32_t> ZoneRules::validOffsets(int64_t local_second) const {
  // Offsets are within a day of UTC: only segments overlapping that window
  // can hold the local time, and they are checked in order.
  constexpr int64_t kWindow = int64_t{2} * 86400;
  auto lo = std::upper_bound(transitions_.begin(), transitions_.end(), local_second - kWindow);
  auto hi = std::upper_bound(transitions_.begin(), transitions_.end(), local_second + kWindow);
  std::vector<int32_t> out;
  for (size_t seg = static_cast<size_t>(lo - transitions_.begin());
       seg <= static_cast<size_t>(hi - transitions_.begin()); ++seg) {
    int64_t instant = local_second - offsets_[seg];
    bool after_start = seg == 0 || transitions_[seg - 1] <= instant;
    bool before_end = seg == transitions_.size() || instant < transitions_[seg];
    if (after_start && before_end) out.push_back(offsets_[seg]);
  }
  return out;
}

std::optional<int64_t> ZoneRules::gapTransition(int64_t local_second) const {
  constexpr int64_t kWindow = int64_t{2} * 86400;
  auto lo = std::upper_bound(transitions_.begin(), transitions_.end(), local_second - kWindow);
  for (auto it = lo; it != transitions_.end() && *it <= local_second + kWindow; ++it) {
    size_t i = static_cast<size_t>(it - transitions_.begin());
    int64_t before = *it + offsets_[i];  // the local time the transition leaves
    int64_t after = *it + offsets_[i + 1];
    if (before <= local_second && local_second < after) return *it;
  }
  return std::nullopt;
}

std::optional<int64_t> ZoneRules::previousTransition(int64_t epoch_millis) const {
  // Transition t (seconds) is before the instant when t * 1000 < epoch_millis.
  int64_t sec = epoch_millis / 1000 - (epoch_millis % 1000 < 0);
  bool exact = epoch_millis % 1000 == 0;
  auto it = exact ? std::lower_bound(transitions_.begin(), transitions_.end(), sec)
                  : std::upper_bound(transitions_.begin(), transitions_.end(), sec);
  if (it == transitions_.begin()) return std::nullopt;
  return *(it - 1);
}

namespace {

bool validId(std::string_view id) {
  if (id.empty() || id.size() > 64) return false;
  bool part_start = true;
  for (char ch : id) {
    bool ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
              ch == '_' || ch == '-' || ch == '+' || ch == '/';
    if (!ok || (part_start && (ch == '/' || ch == '.'))) return false;
    part_start = ch == '/';
  }
  return !part_start;
}

}  // namespace

std::shared_ptr<const ZoneRules> load(std::string_view zone_id) {
  if (!validId(zone_id)) return nullptr;
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const ZoneRules>, std::less<>> cache;
  {
    std::lock_guard lock(mu);
    if (auto it = cache.find(zone_id); it != cache.end()) return it->second;
  }
  std::string path = "/usr/share/zoneinfo/" + std::string(zone_id);
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) return nullptr;
  std::streamoff size = f.tellg();
  if (size <= 0) return nullptr;  // a directory, an unreadable or empty file
  // Only what the file holds (one byte past the limit is enough to refuse it).
  std::vector<uint8_t> bytes(std::min<size_t>(static_cast<size_t>(size), kMaxFileBytes + 1));
  f.seekg(0);
  f.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<size_t>(f.gcount()));
  if (bytes.empty()) return nullptr;
  auto rules = std::make_shared<const ZoneRules>(ZoneRules::parse(bytes, zone_id));
  std::lock_guard lock(mu);
  if (cache.size() < kMaxCachedZones) cache.emplace(std::string(zone_id), rules);
  return rules;
}

}  // namespace wirestream::aggregations::time_zone
