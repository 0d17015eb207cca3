// NamedWriteableRegistry and writeNamedWriteable / readNamedWriteable<C>:
// names on the wire, categories, unknown names, missing registries, and the
// nesting limit for named writeables that contain named writeables.
#include <gtest/gtest.h>

#include "stream/bytes_stream_output.h"
#include "stream/structured/named_writeable_registry.h"
#include "stream/structured/structured_stream.h"
#include "tests/stream/structured_test_util.h"

namespace wirestream {
namespace {

using testing::bytesOf;
using testing::hexBytes;
using testing::PiecewiseInput;
using testing::toHex;
using testing::writeAt;

class Shape : public NamedWriteable {
 public:
  static constexpr std::string_view kWriteableCategory = "Shape";
  virtual double area() const = 0;
};

class Circle final : public Shape {
 public:
  explicit Circle(double r) : r_(r) {}
  explicit Circle(StreamInput& in) : r_(in.readDouble()) {}
  std::string_view getWriteableName() const override { return "circle"; }
  void writeTo(StreamOutput& out) const override { out.writeDouble(r_); }
  double area() const override { return 3 * r_ * r_; }
  double r() const { return r_; }

 private:
  double r_;
};

// A shape made of shapes: a recursive named writeable.
class Group final : public Shape {
 public:
  explicit Group(std::vector<std::unique_ptr<Shape>> parts) : parts_(std::move(parts)) {}
  explicit Group(StreamInput& in) : parts_(readNamedWriteableCollection<Shape>(in)) {}
  std::string_view getWriteableName() const override { return "group"; }
  void writeTo(StreamOutput& out) const override { out.writeNamedWriteableCollection(parts_); }
  double area() const override {
    double a = 0;
    for (const auto& p : parts_) a += p->area();
    return a;
  }
  const std::vector<std::unique_ptr<Shape>>& parts() const { return parts_; }

 private:
  std::vector<std::unique_ptr<Shape>> parts_;
};

// A category with no kWriteableCategory: messages use the type name.
class DocFormat : public NamedWriteable {};

class RawFormat final : public DocFormat {
 public:
  RawFormat() = default;
  explicit RawFormat(StreamInput&) {}
  std::string_view getWriteableName() const override { return "raw"; }
  void writeTo(StreamOutput&) const override {}
};

// "circle" is registered in both categories: names are per category.
class CircleFormat final : public DocFormat {
 public:
  explicit CircleFormat(StreamInput&) {}
  std::string_view getWriteableName() const override { return "circle"; }
  void writeTo(StreamOutput&) const override {}
};

NamedWriteableRegistry makeRegistry() {
  NamedWriteableRegistry r;
  r.registerReader<Shape>("circle", [](StreamInput& in) { return std::make_unique<Circle>(in); });
  r.registerReader<Shape>("group", [](StreamInput& in) { return std::make_unique<Group>(in); });
  r.registerReader<DocFormat>("raw",
                              [](StreamInput& in) { return std::make_unique<RawFormat>(in); });
  r.registerReader<DocFormat>("circle",
                              [](StreamInput& in) { return std::make_unique<CircleFormat>(in); });
  return r;
}

const std::string kCircleHex = "06 63 69 72 63 6c 65 3f f8 00 00 00 00 00 00";  // "circle", 1.5

TEST(NamedWriteableTest, WritesNameThenBody) {
  Circle c(1.5);
  EXPECT_EQ(toHex(bytesOf([&](StreamOutput& out) { out.writeNamedWriteable(c); })), kCircleHex);
  EXPECT_EQ(toHex(bytesOf([&](StreamOutput& out) {
              out.writeOptionalNamedWriteable(nullptr);
              out.writeOptionalNamedWriteable(&c);
            })),
            "00 01 " + kCircleHex);
}

TEST(NamedWriteableTest, ReadsThroughTheInputsRegistry) {
  NamedWriteableRegistry registry = makeRegistry();
  EXPECT_TRUE(registry.contains<Shape>("circle"));
  EXPECT_FALSE(registry.contains<Shape>("raw"));
  for (size_t page : testing::kPageSizes) {
    auto bytes = hexBytes(kCircleHex + " 03 72 61 77 06 63 69 72 63 6c 65");
    PiecewiseInput input(bytes, page);
    StreamInput& in = input.in();
    in.setNamedWriteableRegistry(&registry);
    std::unique_ptr<Shape> s = readNamedWriteable<Shape>(in);
    ASSERT_NE(dynamic_cast<Circle*>(s.get()), nullptr);
    EXPECT_EQ(static_cast<Circle&>(*s).r(), 1.5);
    std::unique_ptr<DocFormat> f = readNamedWriteable<DocFormat>(in);
    EXPECT_EQ(f->getWriteableName(), "raw");
    // The same name in another category picks that category's reader.
    std::unique_ptr<DocFormat> g = readNamedWriteable<DocFormat>(in);
    EXPECT_NE(dynamic_cast<CircleFormat*>(g.get()), nullptr);
    EXPECT_EQ(in.available(), 0u);
  }
}

TEST(NamedWriteableTest, ExplicitRegistryAndOptional) {
  NamedWriteableRegistry registry = makeRegistry();
  auto bytes = hexBytes(kCircleHex);
  ByteArrayStreamInput in(bytes);
  EXPECT_EQ(readNamedWriteable<Shape>(in, registry)->area(), 3 * 1.5 * 1.5);

  auto optional = hexBytes("00 01 " + kCircleHex);
  ByteArrayStreamInput opt(optional);
  opt.setNamedWriteableRegistry(&registry);
  EXPECT_EQ(readOptionalNamedWriteable<Shape>(opt), nullptr);
  EXPECT_NE(readOptionalNamedWriteable<Shape>(opt), nullptr);
}

TEST(NamedWriteableTest, NoRegistryIsAClearErrorAndConsumesNothing) {
  auto bytes = hexBytes(kCircleHex);
  ByteArrayStreamInput in(bytes);
  try {
    (void)readNamedWriteable<Shape>(in);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("without a NamedWriteableRegistry"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("[Shape]"), std::string::npos) << e.what();
  }
  EXPECT_EQ(in.position(), 0u);
  EXPECT_THROW(readNamedWriteableCollection<Shape>(in), std::invalid_argument);
  EXPECT_EQ(in.position(), 0u);
}

TEST(NamedWriteableTest, UnknownNameOrCategoryIsCorrupt) {
  NamedWriteableRegistry registry = makeRegistry();
  auto hexagon = hexBytes("07 68 65 78 61 67 6f 6e");
  ByteArrayStreamInput in(hexagon);
  in.setNamedWriteableRegistry(&registry);
  try {
    (void)readNamedWriteable<Shape>(in);
    FAIL();
  } catch (const CorruptStreamError& e) {
    EXPECT_STREQ(e.what(), "Unknown NamedWriteable [Shape][hexagon]");
  }

  NamedWriteableRegistry shapes_only;
  shapes_only.registerReader<Shape>("circle",
                                    [](StreamInput& in) { return std::make_unique<Circle>(in); });
  auto raw = hexBytes("03 72 61 77");
  ByteArrayStreamInput in2(raw);
  in2.setNamedWriteableRegistry(&shapes_only);
  try {
    (void)readNamedWriteable<DocFormat>(in2);
    FAIL();
  } catch (const CorruptStreamError& e) {
    EXPECT_NE(std::string(e.what()).find("DocFormat][raw]"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("Unknown NamedWriteable [", 0), 0u) << e.what();
  }
}

TEST(NamedWriteableTest, DuplicateRegistrationIsCallerError) {
  NamedWriteableRegistry registry = makeRegistry();
  try {
    registry.registerReader<Shape>("circle",
                                   [](StreamInput& in) { return std::make_unique<Circle>(in); });
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "NamedWriteable [Shape][circle] is already registered");
  }
}

TEST(NamedWriteableTest, CollectionsAndRecursion) {
  NamedWriteableRegistry registry = makeRegistry();
  std::vector<std::unique_ptr<Shape>> inner;
  inner.push_back(std::make_unique<Circle>(1));
  std::vector<std::unique_ptr<Shape>> parts;
  parts.push_back(std::make_unique<Circle>(2));
  parts.push_back(std::make_unique<Group>(std::move(inner)));
  Group g(std::move(parts));
  auto write = [&](StreamOutput& out) { out.writeNamedWriteable(g); };
  auto bytes = bytesOf(write);
  EXPECT_EQ(toHex(bytes),
            "05 67 72 6f 75 70 02 "                           // "group", 2 parts
            "06 63 69 72 63 6c 65 40 00 00 00 00 00 00 00 "   // circle 2
            "05 67 72 6f 75 70 01 "                           // "group", 1 part
            "06 63 69 72 63 6c 65 3f f0 00 00 00 00 00 00");  // circle 1
  ByteArrayStreamInput in(bytes);
  in.setNamedWriteableRegistry(&registry);
  std::unique_ptr<Shape> back = readNamedWriteable<Shape>(in);
  EXPECT_EQ(back->area(), g.area());
  EXPECT_EQ(in.nestingDepth(), 0);
  EXPECT_EQ(bytesOf([&](StreamOutput& out) { out.writeNamedWriteable(*back); }), bytes);

  for (size_t n = 0; n < bytes.size(); ++n) {
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + n);
    ByteArrayStreamInput p(prefix);
    p.setNamedWriteableRegistry(&registry);
    EXPECT_THROW(readNamedWriteable<Shape>(p), EndOfStreamError) << "prefix " << n;
    EXPECT_EQ(p.nestingDepth(), 0);
  }
}

TEST(NamedWriteableTest, NestedNamedWriteablesHitTheNestingLimit) {
  NamedWriteableRegistry registry = makeRegistry();
  auto groups = [](int depth) {
    std::string hex;
    for (int i = 0; i < depth; ++i) hex += "05 67 72 6f 75 70 01 ";
    return hexBytes(hex + "05 67 72 6f 75 70 00");
  };
  auto ok = groups(99);  // 100 named writeables deep
  ByteArrayStreamInput in(ok);
  in.setNamedWriteableRegistry(&registry);
  EXPECT_NO_THROW(readNamedWriteable<Shape>(in));

  auto deep = groups(100);
  ByteArrayStreamInput too_deep(deep);
  too_deep.setNamedWriteableRegistry(&registry);
  try {
    (void)readNamedWriteable<Shape>(too_deep);
    FAIL();
  } catch (const LimitExceededError& e) {
    EXPECT_STREQ(e.what(), "nesting depth [101] exceeds the limit of [100]");
  }
  EXPECT_EQ(too_deep.nestingDepth(), 0);
}

}  // namespace
}  // namespace wirestream
