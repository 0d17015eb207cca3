// Randomized round trips: a random sequence of values of every kind is
// written at a random page size and read back equal, through both inputs.
// The seed is printed; WIRESTREAM_SEED replays a failure.
#include <variant>

#include "tests/stream/test_util.h"

namespace wirestream {
namespace {

enum Kind {
  kByte,
  kShort,
  kInt,
  kLong,
  kVInt,
  kVLong,
  kZLong,
  kFloat,
  kDouble,
  kBool,
  kOptBool,
  kString,
  kByteArray,
  kVIntArray,
  kLongArray,
  kKinds
};

using Value = std::variant<int64_t, double, std::string, std::vector<uint8_t>, std::vector<int32_t>,
                           std::vector<int64_t>, std::optional<bool>>;

struct Op {
  Kind kind;
  Value value;
};

// Varint widths drawn uniformly, so every width is exercised.
int64_t randomBits(std::mt19937_64& rng, int max_bits) {
  int bits = std::uniform_int_distribution<int>(0, max_bits)(rng);
  return bits == 0 ? 0 : static_cast<int64_t>(rng() >> (64 - bits));
}

std::string randomUtf8(std::mt19937_64& rng) {
  static const char* pieces[] = {"a",
                                 "Z",
                                 "\0",
                                 "\xC3\xA9",
                                 "\xE2\x82\xAC",
                                 "\xF0\x9F\x98\x80",
                                 "\xEF\xBF\xBF",
                                 "\xF4\x8F\xBF\xBF",
                                 " ",
                                 "\x7F"};
  std::string s;
  int n = std::uniform_int_distribution<int>(0, 40)(rng);
  for (int i = 0; i < n; ++i) {
    const char* p = pieces[rng() % 10];
    s.append(p, p[0] ? std::strlen(p) : 1);
  }
  return s;
}

Op randomOp(std::mt19937_64& rng) {
  Kind k = static_cast<Kind>(rng() % kKinds);
  switch (k) {
    case kByte:
      return {k, static_cast<int64_t>(rng() & 0xFF)};
    case kShort:
      return {k, static_cast<int64_t>(static_cast<int16_t>(rng()))};
    case kInt:
      return {k, static_cast<int64_t>(static_cast<int32_t>(rng()))};
    case kLong:
      return {k, static_cast<int64_t>(rng())};
    case kVInt:
      return {k, static_cast<int64_t>(static_cast<int32_t>(randomBits(rng, 32)))};
    case kVLong:
      return {k, randomBits(rng, 63)};
    case kZLong:
      return {k, randomBits(rng, 64)};
    case kFloat:
      return {k, static_cast<double>(static_cast<float>(rng() % 100000) / 7.0f)};
    case kDouble:
      return {k, std::bit_cast<double>(rng() & ~(uint64_t{0x7FF} << 52))};
    case kBool:
      return {k, static_cast<int64_t>(rng() & 1)};
    case kOptBool: {
      int r = rng() % 3;
      return {k, r == 2 ? std::optional<bool>() : std::optional<bool>(r == 1)};
    }
    case kString:
      return {k, randomUtf8(rng)};
    case kByteArray: {
      std::vector<uint8_t> b(rng() % 70);
      for (auto& x : b) x = static_cast<uint8_t>(rng());
      return {k, b};
    }
    case kVIntArray: {
      std::vector<int32_t> v(rng() % 30);
      for (auto& x : v) x = static_cast<int32_t>(randomBits(rng, 32));
      return {k, v};
    }
    default: {
      std::vector<int64_t> v(rng() % 20);
      for (auto& x : v) x = static_cast<int64_t>(rng());
      return {k, v};
    }
  }
}

void write(StreamOutput& out, const Op& op) {
  auto i = [&] { return std::get<int64_t>(op.value); };
  switch (op.kind) {
    case kByte:
      out.writeByte(static_cast<uint8_t>(i()));
      break;
    case kShort:
      out.writeShort(static_cast<int16_t>(i()));
      break;
    case kInt:
      out.writeInt(static_cast<int32_t>(i()));
      break;
    case kLong:
      out.writeLong(i());
      break;
    case kVInt:
      out.writeVInt(static_cast<int32_t>(i()));
      break;
    case kVLong:
      out.writeVLong(i());
      break;
    case kZLong:
      out.writeZLong(i());
      break;
    case kFloat:
      out.writeFloat(static_cast<float>(std::get<double>(op.value)));
      break;
    case kDouble:
      out.writeDouble(std::get<double>(op.value));
      break;
    case kBool:
      out.writeBoolean(i() != 0);
      break;
    case kOptBool:
      out.writeOptionalBoolean(std::get<std::optional<bool>>(op.value));
      break;
    case kString:
      out.writeString(std::get<std::string>(op.value));
      break;
    case kByteArray:
      out.writeByteArray(std::get<std::vector<uint8_t>>(op.value));
      break;
    case kVIntArray:
      out.writeVIntArray(std::get<std::vector<int32_t>>(op.value));
      break;
    default:
      out.writeLongArray(std::get<std::vector<int64_t>>(op.value));
      break;
  }
}

Value read(StreamInput& in, Kind kind) {
  switch (kind) {
    case kByte:
      return static_cast<int64_t>(in.readByte());
    case kShort:
      return static_cast<int64_t>(in.readShort());
    case kInt:
      return static_cast<int64_t>(in.readInt());
    case kLong:
      return in.readLong();
    case kVInt:
      return static_cast<int64_t>(in.readVInt());
    case kVLong:
      return in.readVLong();
    case kZLong:
      return in.readZLong();
    case kFloat:
      return static_cast<double>(in.readFloat());
    case kDouble:
      return in.readDouble();
    case kBool:
      return static_cast<int64_t>(in.readBoolean());
    case kOptBool:
      return in.readOptionalBoolean();
    case kString:
      return in.readString();
    case kByteArray:
      return in.readByteArray();
    case kVIntArray:
      return in.readVIntArray();
    default:
      return in.readLongArray();
  }
}

TEST(RoundTrip, RandomSequencesAtRandomPageSizes) {
  std::mt19937_64 rng(testing::testSeed(20261130));
  for (int iteration = 0; iteration < 300; ++iteration) {
    size_t page = testing::kPageSizes[rng() % testing::kPageSizes.size()];
    std::vector<Op> ops(rng() % 60);
    for (auto& op : ops) op = randomOp(rng);
    PageRecycler recycler(page);
    BytesStreamOutput out(recycler);
    for (const Op& op : ops) write(out, op);
    std::vector<uint8_t> flat = out.bytes().toVector();

    // The same values written at another page size give the same bytes.
    PageRecycler other(16384);
    BytesStreamOutput out2(other);
    for (const Op& op : ops) write(out2, op);
    ASSERT_EQ(out2.bytes(), out.bytes()) << "iteration " << iteration;

    testing::readAll(flat, page, [&](StreamInput& in) {
      for (size_t i = 0; i < ops.size(); ++i) {
        ASSERT_EQ(read(in, ops[i].kind), ops[i].value)
            << "iteration " << iteration << " op " << i << " kind " << ops[i].kind;
      }
    });
  }
}

}  // namespace
}  // namespace wirestream
