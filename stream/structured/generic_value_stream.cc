// writeGenericValue / readGenericValue (wire format §3).
//
// Grammar:
//   value   := tag payload
//   tag FF  null            (no payload)
//   tag 0   string          string
//   tag 1   int32           int (4 bytes, big-endian)
//   tag 2   int64           long
//   tag 3   float           int of the IEEE bits
//   tag 4   double          long of the IEEE bits
//   tag 5   boolean         00 | 01
//   tag 6   byte array      vint length, byte*
//   tag 7   list            vint count, value*
//   tag 8   object array    as 7
//   tag 9   ordered map     vint count, (key value)*
//   tag 10  map             as 9
//             key := string          before 8.7.0
//             key := value           from 8.7.0 on
//   tag 11  byte            1 byte
//   tag 12  date            long epoch millis
//   tag 13  Joda date-time  string zone id, long epoch millis (written by 7.x)
//   tag 14  bytes reference vint length, byte*
//   tag 15  text            int length, UTF-8 byte*
//   tag 16  short           2 bytes
//   tag 17..20  int / long / float / double array: vint count, fixed-width values
//   tag 21  bytes ref       vint length, byte*
//   tag 22  geo point       double lat, double lon
//   tag 23  zoned date-time string zone id, long epoch millis (before 8.16.0's 8772001)
//                           string zone id, ZLong epoch seconds, int nano of second (from it)
//   tag 24  ordered set     vint count, value*
//   tag 25  set             as 24
//   tag 26  big integer     string: the decimal, as BigInteger.toString()
//   tag 27  offset time     string offset id, long nano of day
//   tag 28  duration        long seconds, long nano of second (ES 8.9 on; no gate)
//   tag 29  period          int years, int months, int days (ES 8.9 on; no gate)
//   tag 30  named writeable string name, the writeable's bytes (ES's
//                           GenericNamedWriteable; written from V_8_11_X on)
//             "GeoBoundingBox": geo point top left, geo point bottom right
// A map with a repeated key or a set with a repeated element is refused both
// ways (strict; Java cannot hold one, and would keep one of them silently).
// Zone and offset ids and big-integer decimals are refused in any spelling
// but the one Java writes (java_time.h, big_integer.h; strict: Java reads
// and rewrites some others). A tag-23 instant from 8.16 on whose milliseconds
// do not fit an int64 (java.time holds years to 1e9) is CorruptStreamError.
// A duration's nanos outside 0..999999999 are CorruptStreamError (stricter
// than ES, whose Duration.ofSeconds carries them into the seconds). Tag 30
// below V_8_11_X is CorruptStreamError (stricter: ES reads it, but no ES
// writes it there); a tag 30 of a name other than GeoBoundingBox (ES plugins
// register more, e.g. painless's IPAddress) is CorruptStreamError
// "Unknown NamedWriteable [GenericNamedWriteable][name]".
// Any other tag: CorruptStreamError "Can't read unknown type [t]".
//
// Reading does not recurse: open lists, maps and sets wait on a heap stack,
// each inside a StreamInput::NestingScope, so the input's depth limit bounds
// the work and no depth reaches the machine stack. Writing recurses once per
// level of the caller's tree.
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

#include "stream/string_codec.h"
#include "stream/structured/generic_value.h"
#include "stream/structured/java_time.h"
#include "stream/structured/structured_stream.h"

namespace wirestream {

namespace {

using Kind = GenericValue::Kind;

void writeValue(StreamOutput& out, const GenericValue& v, bool generic_keys);

constexpr std::string_view kGeoBoundingBoxName = "GeoBoundingBox";

// A value from the wire, shortened for a message: it may be hostile.
std::string shown(std::string_view s) {
  constexpr size_t kMaxShown = 80;
  if (s.size() <= kMaxShown) return std::string(s);
  return std::string(s.substr(0, kMaxShown)) + "...";
}

// "duplicate key [k] in map" with the value shortened.
std::string duplicateMessage(const GenericValue& container, size_t index) {
  bool map = container.isMap();
  const GenericValue& repeat = map ? container.entries()[index].first : container.elements()[index];
  return std::string(map ? "duplicate key [" : "duplicate element [") + shown(repeat.toString()) +
         "] in " + std::string(GenericValue::kindName(container.kind()));
}

// Java maps and sets cannot hold a repeat, so bytes with one are corrupt and
// a value with one cannot be written.
[[gnu::noinline]] void checkNoDuplicate(const GenericValue& container, bool reading) {
  std::optional<size_t> d = container.findDuplicate();
  if (!d) return;
  if (reading) internal::throwCorrupt(duplicateMessage(container, *d));
  throw std::invalid_argument("writeGenericValue: " + duplicateMessage(container, *d));
}

// Tag 13 (Joda) always, and tag 23 below V_8_16_0: zone id, epoch millis. Tag 23 from it:
// zone id, ZLong epoch seconds, int nano of second. Out of line: writeValue recurses once a
// nesting level, and this one's locals (its messages' strings) would widen every frame of
// it (under ASan a tree at the nesting limit then overflowed a 256 KiB stack).
[[gnu::noinline]] void writeDateTime(StreamOutput& out, const ZonedDateTime& t, bool zoned) {
  if (!ZonedDateTime::isZoneId(t.zone_id)) {
    throw std::invalid_argument("writeGenericValue: [" + shown(t.zone_id) +
                                "] is not a zone id as java.time writes it");
  }
  if (t.nano_of_milli < 0 || t.nano_of_milli > 999999) {
    throw std::invalid_argument("writeGenericValue: nano of milli [" +
                                std::to_string(t.nano_of_milli) + "] is not in 0..999999");
  }
  out.writeString(t.zone_id);
  int64_t millis = t.instant.time_since_epoch().count();
  if (!zoned || out.transportVersion().before(TransportVersion::V_8_16_0)) {
    out.writeLong(millis);
    return;
  }
  int64_t seconds = millis / 1000;
  int64_t milli = millis % 1000;
  if (milli < 0) {
    seconds -= 1;
    milli += 1000;
  }
  out.writeZLong(seconds);
  out.writeInt(static_cast<int32_t>(milli * 1000000 + t.nano_of_milli));
}

[[gnu::noinline]] void writeOffsetTime(StreamOutput& out, const OffsetTime& t) {
  if (!t.valid()) {
    throw std::invalid_argument(
        "writeGenericValue: offset time out of range: " + std::to_string(t.time_of_day.count()) +
        "ns at offset " + std::to_string(t.offset.count()) + "s");
  }
  out.writeString(t.offsetId());
  out.writeLong(t.time_of_day.count());
}

// Out of line, as the writers below and writeDateTime are, for its reason: writeValue's frame.
[[gnu::noinline]] void writeDuration(StreamOutput& out, const GenericValue& v) {
  const JavaDuration d = v.asDuration();
  if (!d.valid()) {
    throw std::invalid_argument("writeGenericValue: duration nano of second [" +
                                std::to_string(d.nanos) + "] is not in 0..999999999");
  }
  out.writeLong(d.seconds);
  out.writeLong(d.nanos);
}

[[gnu::noinline]] void writePeriod(StreamOutput& out, const GenericValue& v) {
  const JavaPeriod p = v.asPeriod();
  out.writeInt(p.years);
  out.writeInt(p.months);
  out.writeInt(p.days);
}

// ES's GeoBoundingBox asks for V_8_11_X at least and refuses older streams.
[[gnu::noinline]] void writeGeoBoundingBox(StreamOutput& out, const GenericValue& v) {
  const GeoBoundingBox b = v.asGeoBoundingBox();
  if (out.transportVersion().before(TransportVersion::V_8_11_X)) {
    throw std::invalid_argument(
        "writeGenericValue: [GeoBoundingBox] requires transport version 8512001 (8.11) and "
        "cannot be written at " +
        out.transportVersion().toString());
  }
  out.writeString(kGeoBoundingBoxName);
  out.writeDouble(b.top_left.lat);
  out.writeDouble(b.top_left.lon);
  out.writeDouble(b.bottom_right.lat);
  out.writeDouble(b.bottom_right.lon);
}

// Int length, then UTF-8 (checked: std::invalid_argument before any byte of it).
[[gnu::noinline]] void writeText(StreamOutput& out, const std::string& s) {
  measureUtf8(s);
  if (s.size() > static_cast<size_t>(INT32_MAX)) {
    throw std::invalid_argument("writeGenericValue: text too long for the wire");
  }
  out.writeInt(static_cast<int32_t>(s.size()));
  out.writeBytes({reinterpret_cast<const uint8_t*>(s.data()), s.size()});
}

[[noreturn, gnu::noinline]] void throwNonStringKey(const StreamOutput& out,
                                                   const GenericValue& key) {
  throw std::invalid_argument("writeGenericValue: map keys must be strings before 8.7.0, got a " +
                              std::string(GenericValue::kindName(key.kind())) + " at " +
                              out.transportVersion().toString());
}

void writeEntries(StreamOutput& out, const GenericValue::Entries& entries, bool generic_keys) {
  out.writeArraySize(entries.size());
  for (const auto& [key, value] : entries) {
    if (generic_keys) {
      writeValue(out, key, true);
    } else {
      if (key.kind() != Kind::kString) throwNonStringKey(out, key);
      out.writeString(key.asString());
    }
    writeValue(out, value, generic_keys);
  }
}

void writeValue(StreamOutput& out, const GenericValue& v, bool generic_keys) {
  out.writeByte(static_cast<uint8_t>(GenericValue::wireTag(v.kind())));
  switch (v.kind()) {
    case Kind::kNull:
      return;
    case Kind::kString:
      out.writeString(v.asString());
      return;
    case Kind::kInt:
      out.writeInt(v.asInt());
      return;
    case Kind::kLong:
    case Kind::kDate:
      out.writeLong(v.asLong());
      return;
    case Kind::kFloat:
      out.writeFloat(v.asFloat());
      return;
    case Kind::kDouble:
      out.writeDouble(v.asDouble());
      return;
    case Kind::kBoolean:
      out.writeBoolean(v.asBoolean());
      return;
    case Kind::kByteArray:
    case Kind::kBytesReference:
    case Kind::kBytesRef:
      out.writeByteArray(v.asBytes());
      return;
    case Kind::kOrderedSet:
    case Kind::kSet:
      checkNoDuplicate(v, false);
      [[fallthrough]];
    case Kind::kList:
    case Kind::kObjectArray:
      out.writeArraySize(v.elements().size());
      for (const auto& e : v.elements()) writeValue(out, e, generic_keys);
      return;
    case Kind::kOrderedMap:
    case Kind::kMap:
      checkNoDuplicate(v, false);
      writeEntries(out, v.entries(), generic_keys);
      return;
    case Kind::kByte:
      out.writeByte(static_cast<uint8_t>(v.asByte()));
      return;
    case Kind::kText:
      writeText(out, v.asString());
      return;
    case Kind::kShort:
      out.writeShort(v.asShort());
      return;
    case Kind::kIntArray:
      out.writeIntArray(v.asIntArray());
      return;
    case Kind::kLongArray:
      out.writeLongArray(v.asLongArray());
      return;
    case Kind::kFloatArray:
      out.writeFloatArray(v.asFloatArray());
      return;
    case Kind::kDoubleArray:
      out.writeDoubleArray(v.asDoubleArray());
      return;
    case Kind::kGeoPoint:
      out.writeDouble(v.asGeoPoint().lat);
      out.writeDouble(v.asGeoPoint().lon);
      return;
    case Kind::kJodaDateTime:
    case Kind::kZonedDateTime:
      writeDateTime(out, v.asZonedDateTime(), v.kind() == Kind::kZonedDateTime);
      return;
    case Kind::kBigInteger:
      out.writeString(v.asBigInteger().toDecimal());
      return;
    case Kind::kOffsetTime:
      writeOffsetTime(out, v.asOffsetTime());
      return;
    case Kind::kDuration:
      writeDuration(out, v);
      return;
    case Kind::kPeriod:
      writePeriod(out, v);
      return;
    case Kind::kGeoBoundingBox:
      writeGeoBoundingBox(out, v);
      return;
  }
}

// Text: int length (not a VInt), then UTF-8 validated strictly.
std::string readText(StreamInput& in) {
  int32_t n = in.readInt();
  if (n < 0) {
    internal::throwCorrupt("array size must be positive but was: " + std::to_string(n));
  }
  if (n > in.maxArraySize()) {
    internal::throwLimitExceeded("array size " + std::to_string(n) + " is above the limit of " +
                                 std::to_string(in.maxArraySize()));
  }
  if (in.available() < static_cast<size_t>(n)) {
    internal::throwEndOfStream(static_cast<uint64_t>(n), in.available());
  }
  std::string s(static_cast<size_t>(n), '\0');
  in.readBytes({reinterpret_cast<uint8_t*>(s.data()), s.size()});
  try {
    measureUtf8(s);
  } catch (const std::invalid_argument& e) {
    internal::throwCorrupt(std::string("Invalid string: text is not UTF-8: ") + e.what());
  }
  return s;
}

// Zone id then epoch millis, both read before the id is checked, as ES does; tag 23
// from V_8_16_0: zone id, ZLong epoch seconds, int nanos (Instant.ofEpochSecond's
// adjustment: any int, carried into the seconds).
ZonedDateTime readDateTime(StreamInput& in, bool zoned) {
  std::string zone = in.readString();
  if (!zoned || in.transportVersion().before(TransportVersion::V_8_16_0)) {
    int64_t millis = in.readLong();
    if (!ZonedDateTime::isZoneId(zone)) {
      internal::throwCorrupt("Invalid zone id [" + shown(zone) + "]");
    }
    return {ZonedDateTime::Millis(std::chrono::milliseconds(millis)), std::move(zone)};
  }
  int64_t seconds = in.readZLong();
  int32_t nanos = in.readInt();
  if (!ZonedDateTime::isZoneId(zone)) {
    internal::throwCorrupt("Invalid zone id [" + shown(zone) + "]");
  }
  int64_t carry = nanos / 1000000000;
  int64_t nano = nanos % 1000000000;
  if (nano < 0) {
    carry -= 1;
    nano += 1000000000;
  }
  // In 128 bits: seconds x 1000 may pass int64 where the milliseconds, the nanos added, do
  // not (Long.MIN_VALUE ms is second -9223372036854776 and 192 ms, as wirestream writes it).
  __int128 wide = (static_cast<__int128>(seconds) + carry) * 1000 + nano / 1000000;
  if (wide < std::numeric_limits<int64_t>::min() || wide > std::numeric_limits<int64_t>::max()) {
    internal::throwCorrupt("zoned date-time out of range: epoch second [" +
                           std::to_string(seconds) + "], nanos [" + std::to_string(nanos) +
                           "] (wirestream holds int64 epoch milliseconds)");
  }
  auto millis = static_cast<int64_t>(wide);
  ZonedDateTime t{ZonedDateTime::Millis(std::chrono::milliseconds(millis)), std::move(zone)};
  t.nano_of_milli = static_cast<int32_t>(nano % 1000000);
  return t;
}

BigInteger readBigInteger(StreamInput& in) {
  std::string s = in.readString();
  try {
    return BigInteger::fromDecimal(s);
  } catch (const std::length_error& e) {
    internal::throwLimitExceeded(e.what());
  } catch (const std::invalid_argument& e) {
    internal::throwCorrupt(std::string("Invalid BigInteger: ") + e.what());
  }
}

OffsetTime readOffsetTime(StreamInput& in) {
  std::string id = in.readString();
  int64_t nanos = in.readLong();
  std::optional<std::chrono::seconds> offset = OffsetTime::parseOffsetId(id);
  if (!offset) internal::throwCorrupt("Invalid ZoneOffset id [" + shown(id) + "]");
  OffsetTime t{std::chrono::nanoseconds(nanos), *offset};
  if (!t.valid()) {
    // LocalTime.ofNanoOfDay's check and message.
    internal::throwCorrupt("Invalid value for NanoOfDay (valid values 0 - 86399999999999): " +
                           std::to_string(nanos));
  }
  return t;
}

// Duration: seconds, then the nanos of the second as ES writes them (getNano(), 0..999999999).
// Duration.ofSeconds would carry any other long into the seconds; refused here (stricter than
// ES, as instants whose nanos need normalising are), so a value read writes the same bytes.
JavaDuration readDuration(StreamInput& in) {
  int64_t seconds = in.readLong();
  int64_t nanos = in.readLong();
  if (nanos < 0 || nanos > 999999999) {
    internal::throwCorrupt("duration nanos [" + std::to_string(nanos) +
                           "] not in 0..999999999 (seconds [" + std::to_string(seconds) + "])");
  }
  return {seconds, static_cast<int32_t>(nanos)};
}

// A GenericNamedWriteable: its name, then its own bytes. wirestream knows the one ES's
// server registers.
GeoBoundingBox readNamedGeneric(StreamInput& in) {
  // No ES writes one below V_8_11_X (it refuses to); neither could wirestream write it back.
  if (in.transportVersion().before(TransportVersion::V_8_11_X)) {
    internal::throwCorrupt("a GenericNamedWriteable (tag 30) at transport version " +
                           in.transportVersion().toString() + ", before 8512001 (8.11)");
  }
  std::string name = in.readString();
  if (name != kGeoBoundingBoxName) {
    internal::throwCorrupt("Unknown NamedWriteable [GenericNamedWriteable][" + shown(name) +
                           "] (wirestream reads GeoBoundingBox only)");
  }
  GeoBoundingBox b;
  b.top_left.lat = in.readDouble();
  b.top_left.lon = in.readDouble();
  b.bottom_right.lat = in.readDouble();
  b.bottom_right.lon = in.readDouble();
  return b;
}

// Every kind that is not a container.
GenericValue readScalar(StreamInput& in, int8_t tag) {
  switch (tag) {
    case -1:
      return GenericValue::null();
    case 0:
      return GenericValue::ofString(in.readString());
    case 1:
      return GenericValue::ofInt(in.readInt());
    case 2:
      return GenericValue::ofLong(in.readLong());
    case 3:
      return GenericValue::ofFloat(in.readFloat());
    case 4:
      return GenericValue::ofDouble(in.readDouble());
    case 5:
      return GenericValue::ofBoolean(in.readBoolean());
    case 6:
      return GenericValue::ofByteArray(in.readByteArray());
    case 11:
      return GenericValue::ofByte(static_cast<int8_t>(in.readByte()));
    case 12:
      return GenericValue::ofDate(in.readLong());
    case 14:
      return GenericValue::ofBytesReference(in.readByteArray());
    case 15:
      return GenericValue::ofText(readText(in));
    case 16:
      return GenericValue::ofShort(in.readShort());
    case 17:
      return GenericValue::ofIntArray(in.readIntArray());
    case 18:
      return GenericValue::ofLongArray(in.readLongArray());
    case 19:
      return GenericValue::ofFloatArray(in.readFloatArray());
    case 20:
      return GenericValue::ofDoubleArray(in.readDoubleArray());
    case 21:
      return GenericValue::ofBytesRef(in.readByteArray());
    case 22: {
      double lat = in.readDouble();
      double lon = in.readDouble();
      return GenericValue::ofGeoPoint(lat, lon);
    }
    case 13:
      return GenericValue::ofJodaDateTime(readDateTime(in, false));
    case 23:
      return GenericValue::ofZonedDateTime(readDateTime(in, true));
    case 26:
      return GenericValue::ofBigInteger(readBigInteger(in));
    case 27:
      return GenericValue::ofOffsetTime(readOffsetTime(in));
    case 28:
      return GenericValue::ofDuration(readDuration(in));
    case 29: {
      JavaPeriod p;
      p.years = in.readInt();
      p.months = in.readInt();
      p.days = in.readInt();
      return GenericValue::ofPeriod(p);
    }
    case 30:
      return GenericValue::ofGeoBoundingBox(readNamedGeneric(in));
    default:
      internal::throwCorrupt("Can't read unknown type [" + std::to_string(tag) + "]");
  }
}

bool isContainerTag(int8_t tag) {
  return tag == 7 || tag == 8 || tag == 9 || tag == 10 || tag == 24 || tag == 25;
}

// A list, set or map being read: what is left of it, and what has been read.
struct Frame {
  Frame(int8_t t, int32_t n) : tag(t), remaining(n) {}

  int8_t tag;
  int32_t remaining;
  GenericValue::List elements;    // lists and sets
  GenericValue::Entries entries;  // maps
  GenericValue key;               // a map key waiting for its value
  bool has_key = false;

  bool isMap() const { return tag == 9 || tag == 10; }

  // Takes the next element, key or value; true once the container is full.
  bool add(GenericValue v) {
    if (isMap()) {
      if (!has_key) {
        key = std::move(v);
        has_key = true;
        return false;
      }
      entries.emplace_back(std::move(key), std::move(v));
      has_key = false;
    } else {
      elements.push_back(std::move(v));
    }
    return --remaining == 0;
  }

  GenericValue finish() {
    GenericValue v;
    switch (tag) {
      case 7:
        return GenericValue::ofList(std::move(elements));
      case 8:
        return GenericValue::ofObjectArray(std::move(elements));
      case 9:
        v = GenericValue::ofOrderedMap(std::move(entries));
        break;
      case 10:
        v = GenericValue::ofMap(std::move(entries));
        break;
      case 24:
        v = GenericValue::ofOrderedSet(std::move(elements));
        break;
      default:
        v = GenericValue::ofSet(std::move(elements));
        break;
    }
    checkNoDuplicate(v, true);
    return v;
  }
};

// Iterative, with the open containers on a heap stack: the machine stack
// stays flat whatever the depth, and each open container holds a
// NestingScope, so the depth limit is the only bound.
GenericValue readValue(StreamInput& in) {
  auto tag = static_cast<int8_t>(in.readByte());
  // Scalars (null metadata, say) need none of the machinery below.
  if (!isContainerTag(tag)) return readScalar(in, tag);

  const bool generic_keys = in.transportVersion().onOrAfter(TransportVersion::V_8_7_0);
  std::vector<Frame> open;
  StreamInput::NestingLevels levels(in);  // one level per open frame
  GenericValue v;
  for (bool first = true;; first = false) {
    // Produce the next complete value, or open a container and go on.
    if (!generic_keys && !open.empty() && open.back().isMap() && !open.back().has_key) {
      v = GenericValue::ofString(in.readString());  // a map key before 8.7.0
    } else {
      if (!first) tag = static_cast<int8_t>(in.readByte());
      if (isContainerTag(tag)) {
        levels.enter();
        bool map = tag == 9 || tag == 10;
        // A value is at least its tag byte; a map entry at least two bytes.
        int32_t n = in.readArraySize(map ? 2 : 1);
        Frame& f = open.emplace_back(tag, n);
        if (map) {
          f.entries.reserve(in.boundedReserve(static_cast<size_t>(n), sizeof(GenericValue::Entry)));
        } else {
          f.elements.reserve(in.boundedReserve(static_cast<size_t>(n), sizeof(GenericValue)));
        }
        if (n > 0) continue;
        v = f.finish();
        open.pop_back();
        levels.leave();
      } else {
        v = readScalar(in, tag);
      }
    }
    // Hand it to its container, closing every container it completes.
    for (;;) {
      if (open.empty()) return v;
      if (!open.back().add(std::move(v))) break;
      v = open.back().finish();
      open.pop_back();
      levels.leave();
    }
  }
}

}  // namespace

void writeGenericValue(StreamOutput& out, const GenericValue& value) {
  writeValue(out, value, out.transportVersion().onOrAfter(TransportVersion::V_8_7_0));
}

GenericValue readGenericValue(StreamInput& in) { return readValue(in); }

}  // namespace wirestream
