// The op table of the structured readers (program.h): generic values, bytes
// references, time values, instants, collections, maps, enums, optional and
// named writeables, each paired with its writer.
//
// Grammar of a structured program (wire format §2, §3):
//   program := (op value)*
//   op      := 1 byte, reader = kOps[op % size]
//   value   := what that reader reads; named writeables come from a small
//              registry of category "Shape": "circle" := double radius,
//              "group" := string label, vint count, (named Shape)* (recursive)
// Maps are read into std::map and enum sets into std::set, which write back
// sorted: those ops are not `exact`.
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "fuzz/program.h"
#include "stream/bytes_reference.h"
#include "stream/structured/generic_value.h"
#include "stream/structured/named_writeable_registry.h"
#include "stream/structured/structured_stream.h"

namespace wirestream {

namespace fuzz {
enum class Fruit { kApple, kPear, kPlum };
}  // namespace fuzz

template <>
struct WireEnumTraits<fuzz::Fruit> {
  static constexpr std::string_view kName = "Fruit";
  static constexpr int32_t kCount = 3;
};

namespace fuzz {
namespace {

class Shape : public NamedWriteable {
 public:
  static constexpr std::string_view kWriteableCategory = "Shape";
};

class Circle final : public Shape {
 public:
  explicit Circle(StreamInput& in) : radius_(in.readDouble()) {}
  std::string_view getWriteableName() const override { return "circle"; }
  void writeTo(StreamOutput& out) const override { out.writeDouble(radius_); }
  bool hasNan() const { return std::isnan(radius_); }

 private:
  double radius_;
};

class Group final : public Shape {
 public:
  explicit Group(StreamInput& in)
      : label_(in.readString()), members_(readNamedWriteableCollection<Shape>(in)) {}
  std::string_view getWriteableName() const override { return "group"; }
  void writeTo(StreamOutput& out) const override {
    out.writeString(label_);
    out.writeNamedWriteableCollection(members_);
  }
  bool hasNan() const;

 private:
  std::string label_;
  std::vector<std::unique_ptr<Shape>> members_;
};

bool shapeHasNan(const Shape& s) {
  if (auto* c = dynamic_cast<const Circle*>(&s)) return c->hasNan();
  return static_cast<const Group&>(s).hasNan();
}

bool Group::hasNan() const {
  for (const auto& m : members_) {
    if (shapeHasNan(*m)) return true;
  }
  return false;
}

const NamedWriteableRegistry& shapes() {
  static const NamedWriteableRegistry* registry = [] {
    auto* r = new NamedWriteableRegistry;
    r->registerReader<Shape>("circle",
                             [](StreamInput& in) { return std::make_unique<Circle>(in); });
    r->registerReader<Shape>("group", [](StreamInput& in) { return std::make_unique<Group>(in); });
    return r;
  }();
  return *registry;
}

// An optional Writeable that is not named: a (VInt, string) pair.
struct Tag final : Writeable {
  int32_t id;
  std::string text;
  explicit Tag(StreamInput& in) : id(in.readVInt()), text(in.readString()) {}
  void writeTo(StreamOutput& out) const override {
    out.writeVInt(id);
    out.writeString(text);
  }
};

const Op kOps[] = {
    {"readGenericValue",
     [](StreamInput& in, StreamOutput& out) {
       GenericValue v = readGenericValue(in);
       writeGenericValue(out, v);
       return containsNan(v);
     },
     true},
    {"readBytesReference",
     [](StreamInput& in, StreamOutput& out) {
       out.writeBytesReference(in.readBytesReference());
       return false;
     },
     true},
    {"readOptionalBytesReference",
     [](StreamInput& in, StreamOutput& out) {
       out.writeOptionalBytesReference(in.readOptionalBytesReference());
       return false;
     },
     true},
    {"readTimeValue",
     [](StreamInput& in, StreamOutput& out) {
       writeTimeValue(out, readTimeValue(in));
       return false;
     },
     true},
    {"readOptionalTimeValue",
     [](StreamInput& in, StreamOutput& out) {
       writeOptionalTimeValue(out, readOptionalTimeValue(in));
       return false;
     },
     true},
    {"readInstant",
     [](StreamInput& in, StreamOutput& out) {
       writeInstant(out, readInstant(in));
       return false;
     },
     true},
    {"readOptionalInstant",
     [](StreamInput& in, StreamOutput& out) {
       writeOptionalInstant(out, readOptionalInstant(in));
       return false;
     },
     true},
    {"readCollectionOfStrings",
     [](StreamInput& in, StreamOutput& out) {
       auto v = in.readCollection([](StreamInput& i) { return i.readString(); });
       out.writeCollection(v, [](StreamOutput& o, const std::string& s) { o.writeString(s); });
       return false;
     },
     true},
    {"readCollectionOfGenericValues",
     [](StreamInput& in, StreamOutput& out) {
       auto v = in.readCollection([](StreamInput& i) { return readGenericValue(i); });
       bool nan = false;
       out.writeCollection(v, [&](StreamOutput& o, const GenericValue& g) {
         nan |= containsNan(g);
         writeGenericValue(o, g);
       });
       return nan;
     },
     true},
    {"readMapOfStringToGenericValue",
     [](StreamInput& in, StreamOutput& out) {
       auto m = in.readMap([](StreamInput& i) { return i.readString(); },
                           [](StreamInput& i) { return readGenericValue(i); });
       bool nan = false;
       out.writeMap(
           m, [](StreamOutput& o, const std::string& k) { o.writeString(k); },
           [&](StreamOutput& o, const GenericValue& g) {
             nan |= containsNan(g);
             writeGenericValue(o, g);
           });
       return nan;
     },
     false},
    {"readMapOfVLongToStrings",
     [](StreamInput& in, StreamOutput& out) {
       auto m = in.readMap([](StreamInput& i) { return i.readVLong(); },
                           [](StreamInput& i) { return i.readStringArray(); });
       out.writeMap(
           m, [](StreamOutput& o, int64_t k) { o.writeVLongNoCheck(k); },
           [](StreamOutput& o, const std::vector<std::string>& v) {
             o.writeStringArray(std::span<const std::string>(v));
           });
       return false;
     },
     false},
    {"readEnum",
     [](StreamInput& in, StreamOutput& out) {
       writeEnum(out, readEnum<Fruit>(in));
       return false;
     },
     true},
    {"readOptionalEnum",
     [](StreamInput& in, StreamOutput& out) {
       writeOptionalEnum(out, readOptionalEnum<Fruit>(in));
       return false;
     },
     true},
    {"readEnumSet",
     [](StreamInput& in, StreamOutput& out) {
       writeEnumSet(out, readEnumSet<Fruit>(in));
       return false;
     },
     false},
    {"readOptionalWriteable",
     [](StreamInput& in, StreamOutput& out) {
       auto t = in.readOptionalWriteable([](StreamInput& i) { return Tag(i); });
       out.writeOptionalWriteable(t ? &*t : nullptr);
       return false;
     },
     true},
    {"readNamedWriteable",
     [](StreamInput& in, StreamOutput& out) {
       in.setNamedWriteableRegistry(&shapes());  // for the groups' members
       auto s = readNamedWriteable<Shape>(in, shapes());
       out.writeNamedWriteable(*s);
       return shapeHasNan(*s);
     },
     true},
    {"readOptionalNamedWriteable",
     [](StreamInput& in, StreamOutput& out) {
       in.setNamedWriteableRegistry(&shapes());
       auto s = readOptionalNamedWriteable<Shape>(in);
       out.writeOptionalNamedWriteable(s.get());
       return s && shapeHasNan(*s);
     },
     true},
    {"readNamedWriteableCollection",
     [](StreamInput& in, StreamOutput& out) {
       in.setNamedWriteableRegistry(&shapes());
       auto v = readNamedWriteableCollection<Shape>(in);
       out.writeNamedWriteableCollection(v);
       bool nan = false;
       for (const auto& s : v) nan |= shapeHasNan(*s);
       return nan;
     },
     true},
};

}  // namespace

std::span<const Op> structuredOps() { return kOps; }

bool containsNan(const GenericValue& v) {
  using Kind = GenericValue::Kind;
  switch (v.kind()) {
    case Kind::kFloat:
      return std::isnan(v.asFloat());
    case Kind::kDouble:
      return std::isnan(v.asDouble());
    case Kind::kGeoPoint:
      return std::isnan(v.asGeoPoint().lat) || std::isnan(v.asGeoPoint().lon);
    case Kind::kGeoBoundingBox: {
      GeoBoundingBox b = v.asGeoBoundingBox();
      return std::isnan(b.top_left.lat) || std::isnan(b.top_left.lon) ||
             std::isnan(b.bottom_right.lat) || std::isnan(b.bottom_right.lon);
    }
    case Kind::kFloatArray:
      for (float f : v.asFloatArray()) {
        if (std::isnan(f)) return true;
      }
      return false;
    case Kind::kDoubleArray:
      for (double d : v.asDoubleArray()) {
        if (std::isnan(d)) return true;
      }
      return false;
    default:
      break;
  }
  if (v.isSequence()) {
    for (const auto& e : v.elements()) {
      if (containsNan(e)) return true;
    }
  } else if (v.isMap()) {
    for (const auto& [k, e] : v.entries()) {
      if (containsNan(k) || containsNan(e)) return true;
    }
  }
  return false;
}

}  // namespace fuzz
}  // namespace wirestream
