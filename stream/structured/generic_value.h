// GenericValue: one value of any kind writeGenericValue can put on the wire
// (wire format §3): null, strings, numbers, booleans, bytes, dates and
// date-times, geo points, big integers, primitive arrays, durations, periods,
// geo bounding boxes, and lists, maps and sets of further values.
//
// Example (runs: generic_value):
//   #include <cassert>
//   #include "stream/bytes_stream_output.h"
//   #include "stream/structured/structured_stream.h"
//   GenericValue meta = GenericValue::ofMap(
//       {{"owner", "ops"}, {"ids", GenericValue::ofIntArray({1, 2})}});
//   BytesStreamOutput out;
//   writeGenericValue(out, meta);           // 0A 02 ...
//   BytesReferenceStreamInput in(out.bytes());
//   GenericValue back = readGenericValue(in);
//   assert(back == meta);
//   const GenericValue* owner = back.find("owner");
//
// Every wire tag has its own Kind, even where two tags carry the same C++
// data (list and object array; byte array, bytes reference and bytes ref;
// long and date; string and text; Joda and zoned date-times), so a value
// read and written again gives the same bytes. Maps and sets are kept as
// sequences in the order they were built or read; the "ordered" kinds (tags
// 9 and 24) compare in order, the plain ones (tags 10 and 25) regardless of
// order, like a Java HashMap. As in Java, a map has no repeated key and a set
// no repeated element: writing one is a caller error (std::invalid_argument)
// and reading one is CorruptStreamError (strict: Java would silently keep one
// of them). Floats compare as Java's Float.equals does: NaN equals NaN,
// 0.0 != -0.0.
//
// Map keys are strings before TransportVersion 8.7.0 and any GenericValue
// from 8.7.0 on; writing a non-string key at an older version is a caller
// error (std::invalid_argument), as is asking a value for the wrong kind.
// Writing a date-time whose zone id, or an offset time whose offset id, is
// not in java.time's own form, or an offset time out of range, is
// std::invalid_argument too (java_time.h); reading one is CorruptStreamError.
// A duration whose nano part is not in 0..999999999 is std::invalid_argument
// to write and CorruptStreamError to read (strict: ES carries it into the
// seconds). A geo bounding box (tag 30) is std::invalid_argument to write and
// CorruptStreamError to read before 8.11's 8512001 (ES refuses to write it
// there); reading a tag 30 of any other name is CorruptStreamError "Unknown
// NamedWriteable" naming it.
//
// A value type: copies are deep (a date-time's immutable data is shared,
// which no caller can tell apart), moves are cheap. Not thread-safe for
// concurrent mutation; concurrent reads are fine. readGenericValue does not
// recurse and refuses input nested deeper than StreamInput::maxNestingDepth()
// (default 100); ==, hash, toString, writeGenericValue, copies and the
// destructor recurse once per level of the value, which for values read from
// the wire is at most that limit (tested on a 256 KiB stack, ASan included).
// In memory a value costs sizeof(GenericValue) (48 bytes) a node, and a node
// can come from one input byte: a reader that fails has allocated at most
// about 4 x sizeof(GenericValue) per input byte consumed.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "stream/structured/big_integer.h"
#include "stream/structured/java_time.h"

namespace wirestream {

class BytesReference;

struct GeoPoint {
  double lat = 0;
  double lon = 0;
  // Double.equals on each coordinate.
  friend bool operator==(const GeoPoint& a, const GeoPoint& b);
};

// java.time.Duration (tag 28, ES 8.9 on): seconds, and the nanoseconds of
// that second in 0..999999999 (Duration.getSeconds() and getNano(); a
// negative duration has negative seconds and a nonnegative nano part).
struct JavaDuration {
  int64_t seconds = 0;
  int32_t nanos = 0;
  bool valid() const { return nanos >= 0 && nanos <= 999999999; }
  friend bool operator==(const JavaDuration&, const JavaDuration&) = default;
};

// java.time.Period (tag 29, ES 8.9 on): years, months and days, each any int.
struct JavaPeriod {
  int32_t years = 0;
  int32_t months = 0;
  int32_t days = 0;
  friend bool operator==(const JavaPeriod&, const JavaPeriod&) = default;
};

// Elasticsearch's GeoBoundingBox, the one GenericNamedWriteable ES's server
// registers (tag 30, name "GeoBoundingBox"): two geo points.
struct GeoBoundingBox {
  GeoPoint top_left;
  GeoPoint bottom_right;
  friend bool operator==(const GeoBoundingBox&, const GeoBoundingBox&) = default;
};

class GenericValue {
 public:
  // Declaration order is the order of the wire-format table; wireTag() maps.
  enum class Kind : uint8_t {
    kNull,            // FF
    kString,          // 0
    kInt,             // 1
    kLong,            // 2
    kFloat,           // 3
    kDouble,          // 4
    kBoolean,         // 5
    kByteArray,       // 6
    kList,            // 7
    kObjectArray,     // 8
    kOrderedMap,      // 9
    kMap,             // 10
    kByte,            // 11
    kDate,            // 12 (epoch millis)
    kJodaDateTime,    // 13 (7.x Joda DateTime; a ZonedDateTime here)
    kBytesReference,  // 14
    kText,            // 15
    kShort,           // 16
    kIntArray,        // 17
    kLongArray,       // 18
    kFloatArray,      // 19
    kDoubleArray,     // 20
    kBytesRef,        // 21
    kGeoPoint,        // 22
    kZonedDateTime,   // 23
    kOrderedSet,      // 24
    kSet,             // 25
    kBigInteger,      // 26
    kOffsetTime,      // 27
    kDuration,        // 28
    kPeriod,          // 29
    kGeoBoundingBox,  // 30 (a GenericNamedWriteable named "GeoBoundingBox")
  };
  static constexpr size_t kKindCount = static_cast<size_t>(Kind::kGeoBoundingBox) + 1;

  using List = std::vector<GenericValue>;
  using Entry = std::pair<GenericValue, GenericValue>;
  using Entries = std::vector<Entry>;
  using Bytes = std::vector<uint8_t>;

  // null
  GenericValue() = default;
  GenericValue(std::nullptr_t) {}  // NOLINT: implicit on purpose, as below

  // Convenience conversions for the common kinds; every kind also has an
  // explicit of...() factory, which is the way to get float, byte, short,
  // dates, text, big integers and offset times.
  GenericValue(const char* s) : GenericValue(std::string(s)) {}
  GenericValue(std::string_view s) : GenericValue(std::string(s)) {}
  GenericValue(std::string s) : kind_(Kind::kString), storage_(std::move(s)) {}
  GenericValue(bool v) : kind_(Kind::kBoolean), storage_(v) {}
  GenericValue(int32_t v) : kind_(Kind::kInt), storage_(v) {}
  GenericValue(int64_t v) : kind_(Kind::kLong), storage_(v) {}
  GenericValue(double v) : kind_(Kind::kDouble), storage_(v) {}
  // Any other pointer would silently become a boolean.
  template <typename T>
  requires(!std::is_same_v<std::remove_cv_t<T>, char>) GenericValue(T*)
  = delete;

  static GenericValue null() { return {}; }
  [[nodiscard]] static GenericValue ofString(std::string s) { return GenericValue(std::move(s)); }
  [[nodiscard]] static GenericValue ofInt(int32_t v) { return GenericValue(v); }
  [[nodiscard]] static GenericValue ofLong(int64_t v) { return GenericValue(v); }
  [[nodiscard]] static GenericValue ofFloat(float v) { return {Kind::kFloat, v}; }
  [[nodiscard]] static GenericValue ofDouble(double v) { return GenericValue(v); }
  [[nodiscard]] static GenericValue ofBoolean(bool v) { return GenericValue(v); }
  [[nodiscard]] static GenericValue ofByteArray(Bytes v) {
    return {Kind::kByteArray, std::move(v)};
  }
  [[nodiscard]] static GenericValue ofList(List v) { return {Kind::kList, std::move(v)}; }
  [[nodiscard]] static GenericValue ofObjectArray(List v) {
    return {Kind::kObjectArray, std::move(v)};
  }
  [[nodiscard]] static GenericValue ofOrderedMap(Entries v) {
    return {Kind::kOrderedMap, std::move(v)};
  }
  [[nodiscard]] static GenericValue ofMap(Entries v) { return {Kind::kMap, std::move(v)}; }
  [[nodiscard]] static GenericValue ofByte(int8_t v) { return {Kind::kByte, v}; }
  [[nodiscard]] static GenericValue ofDate(int64_t epoch_millis) {
    return {Kind::kDate, epoch_millis};
  }
  [[nodiscard]] static GenericValue ofBytesReference(Bytes v) {
    return {Kind::kBytesReference, std::move(v)};
  }
  [[nodiscard]] static GenericValue ofBytesReference(const BytesReference& ref);
  // UTF-8 text (Elasticsearch's Text); travels as int length + UTF-8 bytes.
  [[nodiscard]] static GenericValue ofText(std::string utf8) {
    return {Kind::kText, std::move(utf8)};
  }
  [[nodiscard]] static GenericValue ofShort(int16_t v) { return {Kind::kShort, v}; }
  [[nodiscard]] static GenericValue ofIntArray(std::vector<int32_t> v) {
    return {Kind::kIntArray, std::move(v)};
  }
  [[nodiscard]] static GenericValue ofLongArray(std::vector<int64_t> v) {
    return {Kind::kLongArray, std::move(v)};
  }
  [[nodiscard]] static GenericValue ofFloatArray(std::vector<float> v) {
    return {Kind::kFloatArray, std::move(v)};
  }
  [[nodiscard]] static GenericValue ofDoubleArray(std::vector<double> v) {
    return {Kind::kDoubleArray, std::move(v)};
  }
  [[nodiscard]] static GenericValue ofBytesRef(Bytes v) { return {Kind::kBytesRef, std::move(v)}; }
  [[nodiscard]] static GenericValue ofGeoPoint(double lat, double lon) {
    return {Kind::kGeoPoint, GeoPoint{lat, lon}};
  }
  [[nodiscard]] static GenericValue ofOrderedSet(List v) {
    return {Kind::kOrderedSet, std::move(v)};
  }
  [[nodiscard]] static GenericValue ofSet(List v) { return {Kind::kSet, std::move(v)}; }
  // java.time.ZonedDateTime: zone id, then epoch millis on the wire.
  [[nodiscard]] static GenericValue ofZonedDateTime(ZonedDateTime v) {
    return {Kind::kZonedDateTime, std::make_shared<const ZonedDateTime>(std::move(v))};
  }
  // A 7.x Joda DateTime (tag 13); the same data, which ES 8 reads as a
  // ZonedDateTime and ES 7 writes with "UTC" for "Z".
  [[nodiscard]] static GenericValue ofJodaDateTime(ZonedDateTime v) {
    return {Kind::kJodaDateTime, std::make_shared<const ZonedDateTime>(std::move(v))};
  }
  [[nodiscard]] static GenericValue ofBigInteger(BigInteger v) {
    return {Kind::kBigInteger, std::move(v)};
  }
  [[nodiscard]] static GenericValue ofOffsetTime(OffsetTime v) { return {Kind::kOffsetTime, v}; }
  [[nodiscard]] static GenericValue ofDuration(JavaDuration v) { return {Kind::kDuration, v}; }
  [[nodiscard]] static GenericValue ofPeriod(JavaPeriod v) { return {Kind::kPeriod, v}; }
  [[nodiscard]] static GenericValue ofGeoBoundingBox(GeoBoundingBox v) {
    return {Kind::kGeoBoundingBox, v};
  }

  Kind kind() const { return kind_; }
  bool isNull() const { return kind_ == Kind::kNull; }
  bool isMap() const { return kind_ == Kind::kMap || kind_ == Kind::kOrderedMap; }
  // List, object array, ordered set and set: elements() works.
  bool isSequence() const {
    return kind_ == Kind::kList || kind_ == Kind::kObjectArray || kind_ == Kind::kOrderedSet ||
           kind_ == Kind::kSet;
  }

  // Accessors; std::invalid_argument when the value is of another kind.
  const std::string& asString() const;  // string or text
  int32_t asInt() const;                // int
  int64_t asLong() const;               // long or date
  float asFloat() const;
  double asDouble() const;
  bool asBoolean() const;
  int8_t asByte() const;
  int16_t asShort() const;
  std::span<const uint8_t> asBytes() const;  // byte array, bytes reference, bytes ref
  const List& elements() const;              // list, object array, sets
  List& elements();
  const Entries& entries() const;  // maps, in their order
  Entries& entries();
  const std::vector<int32_t>& asIntArray() const;
  const std::vector<int64_t>& asLongArray() const;
  const std::vector<float>& asFloatArray() const;
  const std::vector<double>& asDoubleArray() const;
  GeoPoint asGeoPoint() const;
  const ZonedDateTime& asZonedDateTime() const;  // zoned or Joda date-time
  const BigInteger& asBigInteger() const;
  OffsetTime asOffsetTime() const;
  JavaDuration asDuration() const;
  JavaPeriod asPeriod() const;
  GeoBoundingBox asGeoBoundingBox() const;

  // The value of the first entry whose key is the string `key`; nullptr if
  // none. std::invalid_argument if this is not a map.
  const GenericValue* find(std::string_view key) const;

  // For maps, the index of the first entry whose key equals an earlier key;
  // for sets, of the first element equal to an earlier one; nullopt if none.
  // std::invalid_argument for other kinds. O(n log n) unless hashes collide.
  std::optional<size_t> findDuplicate() const;

  // Consistent with ==: maps and sets hash their entries order-insensitively.
  size_t hash() const;

  // A readable rendering: JSON-like, with the kinds JSON cannot tell apart
  // marked, e.g. {"a": 1, "b": 2L, "c": [1.5f, (short)3], "d": date(0)}.
  std::string toString() const;

  friend bool operator==(const GenericValue& a, const GenericValue& b);
  friend std::ostream& operator<<(std::ostream& os, const GenericValue& v);

  // The tag byte writeGenericValue puts before a value of this kind.
  static int8_t wireTag(Kind kind);
  // "null", "string", "int", ... for messages.
  static std::string_view kindName(Kind kind);

 private:
  // A date-time is shared, immutable, behind a pointer: inline it would make
  // every value 8 bytes larger.
  using Storage =
      std::variant<std::monostate, bool, int8_t, int16_t, int32_t, int64_t, float, double, GeoPoint,
                   std::string, Bytes, List, Entries, std::vector<int32_t>, std::vector<int64_t>,
                   std::vector<float>, std::vector<double>, std::shared_ptr<const ZonedDateTime>,
                   BigInteger, OffsetTime, JavaDuration, JavaPeriod, GeoBoundingBox>;

  template <typename T>
  GenericValue(Kind kind, T&& value) : kind_(kind), storage_(std::forward<T>(value)) {}

  template <typename T>
  const T& get(std::string_view wanted) const;
  [[noreturn, gnu::cold]] void throwWrongKind(std::string_view wanted) const;

  Kind kind_ = Kind::kNull;
  Storage storage_;
};

}  // namespace wirestream

template <>
struct std::hash<wirestream::GenericValue> {
  size_t operator()(const wirestream::GenericValue& v) const { return v.hash(); }
};
