// DocValueFormat: how an aggregation formats its keys and values for display.
// On the wire it is a NamedWriteable (wire format §7): the name, then the
// format's body. Every format ES 8.7 registers is here:
//
//   name                  body                                    renders
//   raw                   -                                       numbers, bytes as UTF-8
//   bool                  -                                       0 -> false, else true
//   date_time             pattern, [>= 8.16.0's 8772001] locale (Java's
//                         Locale.toString, "" for ROOT), zone id, VInt
//                         resolution (0 ms, 1 ns),
//                         [7.7.0 <= v < 8.0.0] boolean joda (false),
//                         [>= 7.13.0] boolean formatSortValues    date_format.h
//   decimal               pattern                                 java.text.DecimalFormat subset
//   geo_hash              -                                       geohash string of a long
//   geo_tile              -                                       "zoom/x/y" of a long
//   ip                    -                                       16-byte address as text
//   binary                -                                       base64 without padding
//   unsigned_long_shifted -                                       the unsigned long
//   tsid                  -                                       (rendered as raw, see
//   aggregations.md)
//
// Example (runs: doc_value_format):
//   #include <cassert>
//   #include "stream/bytes_stream_output.h"
//   BytesStreamOutput out;
//   DocValueFormat::raw().writeNamed(out);                 // 03 72 61 77
//   DocValueFormat d = DocValueFormat::dateTime("strict_date_optional_time", "Z");
//   assert(d.formatLongAsString(1420070400000) == "2015-01-01T00:00:00.000Z");
//
// Unknown names are CorruptStreamError "Unknown NamedWriteable
// [DocValueFormat][name]"; a resolution other than 0 or 1 is
// CorruptStreamError. A date pattern or zone that date_format.h cannot print
// is carried unchanged on the wire and rendered as the raw value (ES would
// refuse an invalid one; we cannot tell invalid from unsupported).
//
// A value type; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "stream/stream_input.h"
#include "stream/stream_output.h"
#include "stream/structured/named_writeable_registry.h"
#include "stream/writeable.h"

namespace wirestream::aggregations {

class DocValueFormat final : public NamedWriteable {
 public:
  static constexpr std::string_view kWriteableCategory = "DocValueFormat";
  static constexpr std::string_view kRawName = "raw";

  enum class Kind {
    kRaw,
    kBoolean,
    kDateTime,
    kDecimal,
    kGeoHash,
    kGeoTile,
    kIp,
    kBinary,
    kUnsignedLongShifted,
    kTimeSeriesId,
  };
  // DateFieldMapper.Resolution, by ordinal.
  enum class Resolution { kMilliseconds = 0, kNanoseconds = 1 };

  DocValueFormat() = default;  // raw
  static DocValueFormat raw() { return DocValueFormat(); }
  static DocValueFormat boolean() { return DocValueFormat(Kind::kBoolean); }
  static DocValueFormat geoHash() { return DocValueFormat(Kind::kGeoHash); }
  static DocValueFormat geoTile() { return DocValueFormat(Kind::kGeoTile); }
  static DocValueFormat ip() { return DocValueFormat(Kind::kIp); }
  static DocValueFormat binary() { return DocValueFormat(Kind::kBinary); }
  static DocValueFormat unsignedLongShifted() { return DocValueFormat(Kind::kUnsignedLongShifted); }
  static DocValueFormat timeSeriesId() { return DocValueFormat(Kind::kTimeSeriesId); }
  // ES's date fields default to "strict_date_optional_time||epoch_millis" in "Z".
  // `joda`: see joda() below.
  static DocValueFormat dateTime(std::string pattern, std::string zone_id,
                                 Resolution resolution = Resolution::kMilliseconds,
                                 bool format_sort_values = false, bool joda = false);
  static DocValueFormat decimal(std::string pattern);

  Kind kind() const { return kind_; }
  bool isRaw() const { return kind_ == Kind::kRaw; }
  // date_time and decimal; empty for the others.
  const std::string& pattern() const { return pattern_; }
  // date_time only.
  const std::string& zoneId() const { return zone_id_; }
  Resolution resolution() const { return resolution_; }
  bool formatSortValues() const { return format_sort_values_; }
  // date_time only: the formatter's locale as Java's Locale.toString ("" is ROOT, ES's
  // default; "en_US", "de"). On the wire from V_8_16_0 (dropped below it, as ES does).
  // The renderings below know ROOT's and English names only: a pattern with month or day
  // names or AM/PM in another locale is not rendered (the raw value, as for any pattern
  // date_format.h does not support), never rendered in the wrong language.
  const std::string& locale() const { return locale_; }
  // A copy with that locale (date_time only; ignored by the other kinds' wire).
  DocValueFormat withLocale(std::string locale) const {
    DocValueFormat f = *this;
    f.locale_ = std::move(locale);
    return f;
  }
  // The 7.7.0..7.x flag "the pattern is joda style": ES 8 writes false and
  // ignores it; a value read is kept so that it is written back as it came.
  bool joda() const { return joda_; }

  std::string_view getWriteableName() const override;
  // The body, with the version gates of date_time. writeNamed adds the name.
  void writeTo(StreamOutput& out) const override;
  void writeNamed(StreamOutput& out) const;
  // Reads the name and the body through `registry` (category DocValueFormat).
  static DocValueFormat readFrom(StreamInput& in, const NamedWriteableRegistry& registry);
  // The body of the format named `name` (what the registry's readers call).
  static DocValueFormat readBody(std::string_view name, StreamInput& in);
  // Every name above, for registering readers.
  static const std::vector<std::string_view>& allNames();
  // From the name alone, for the formats without a body; CorruptStreamError
  // when unknown or when the format has a body.
  static DocValueFormat fromName(std::string_view name);

  // Java's toString of what ES's format(long), format(double) and
  // format(BytesRef) return (the key_as_string / value_as_string of a
  // response; format(BytesRef) always returns a string: invalid UTF-8 becomes
  // U+FFFD). A format that has no rendering for the value (ES throws
  // UnsupportedOperationException) gives the raw rendering. The JSON values
  // themselves (a number, a boolean or a string) and the format's wire JSON
  // are in aggregations/json/model_json.h.
  std::string formatLongAsString(int64_t v) const;
  std::string formatDoubleAsString(double v) const;
  std::string formatBytesAsString(std::string_view v) const;

  bool operator==(const DocValueFormat& o) const {
    return kind_ == o.kind_ && pattern_ == o.pattern_ && zone_id_ == o.zone_id_ &&
           resolution_ == o.resolution_ && format_sort_values_ == o.format_sort_values_ &&
           joda_ == o.joda_ && locale_ == o.locale_;
  }

 private:
  explicit DocValueFormat(Kind k) : kind_(k) {}

  Kind kind_ = Kind::kRaw;
  std::string pattern_;
  std::string zone_id_;
  Resolution resolution_ = Resolution::kMilliseconds;
  bool format_sort_values_ = false;
  bool joda_ = false;
  std::string locale_;
};

// Java's Double.toString (the shortest digits that round-trip): "10.0",
// "0.001", "1.0E7", "NaN", "-Infinity".
std::string javaDoubleToString(double v);

}  // namespace wirestream::aggregations
