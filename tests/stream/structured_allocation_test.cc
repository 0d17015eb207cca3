// How much the structured readers allocate before they fail on hostile
// input, counted by //tests/support:counting_allocator while a read runs.
//
// - Readers of flat data (collections, maps, enum sets, bytes references,
//   text, primitive arrays) stay within max(4 KiB, 4 x input bytes).
// - readGenericValue builds a tree whose nodes are sizeof(GenericValue)
//   bytes each, and a node can come from a single input byte (FF is null), so
//   its bound is per node: it reserves at most max(4 KiB, 4 x input) up front
//   and grows only as elements actually arrive. The test pins that bound as
//   max(4 KiB, kTreeBytesPerInputByte x input) and prints the worst ratio seen.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <functional>
#include <random>

#include "stream/bytes_reference.h"
#include "stream/structured/generic_value.h"
#include "stream/structured/structured_stream.h"
#include "tests/stream/structured_test_util.h"
#include "tests/support/counting_allocator.h"

namespace wirestream {
namespace {

using GV = GenericValue;
using testing::bytesOf;
using testing::hexBytes;
using testing::writeAt;

// Generous: a null element is 1 input byte and one GenericValue, and a vector
// grows by doubling, so allocations sum to about 2 x 2 x sizeof(GenericValue)
// per input byte at worst.
constexpr size_t kTreeBytesPerInputByte = 4 * sizeof(GenericValue);

// Bytes allocated while `read` runs (freed or not).
template <typename F>
size_t allocatedBy(F read) {
  wirestream::testing::AllocationScope scope;
  try {
    read();
  } catch (const StreamError&) {
  }
  return scope.totalBytes();
}

// The exception's message is allocated too; it is not part of the budget.
constexpr size_t kMessageBytes = 256;

size_t flatBound(size_t n) { return std::max<size_t>(4096, 4 * n) + kMessageBytes; }

// The counter must see allocations made inside //stream, or every bound
// below would hold vacuously.
TEST(AllocationTest, CounterSeesLibraryAllocations) {
  auto bytes = hexBytes("06 03 01 02 03");
  size_t got = allocatedBy([&] {
    ByteArrayStreamInput in(bytes);
    (void)readGenericValue(in);
  });
  EXPECT_GE(got, 3u);
}

TEST(AllocationTest, FlatReadersStayWithinFourBytesPerInputByte) {
  struct Case {
    const char* what;
    std::string hex;
    std::function<void(StreamInput&)> read;
  } cases[] = {
      {"collection of INT32_MAX", "ff ff ff ff 07 01 02",
       [](StreamInput& in) {
         (void)in.readCollection([](StreamInput& i) { return i.readLong(); });
       }},
      // 1000 elements of 512 bytes announced, 1000 bytes left, the first
      // element corrupt: reserving the count would take 512 KB.
      {"collection of big elements",
       "e8 07" +
           [] {
             std::string h;
             for (int i = 0; i < 1000; ++i) h += " 05";
             return h;
           }(),
       [](StreamInput& in) {
         (void)in.readCollection([](StreamInput& i) {
           (void)i.readBoolean();
           return std::array<uint8_t, 512>{};
         });
       }},
      {"map of INT32_MAX", "ff ff ff ff 07 01 61",
       [](StreamInput& in) {
         (void)in.readMap([](StreamInput& i) { return i.readString(); },
                          [](StreamInput& i) { return i.readVInt(); });
       }},
      {"enum set of INT32_MAX", "ff ff ff ff 07 00 01",
       [](StreamInput& in) { (void)readEnumSet<TimeUnit>(in); }},
      {"bytes reference", "ff ff ff ff 07 00",
       [](StreamInput& in) { (void)in.readBytesReference(); }},
      {"optional bytes reference", "ff ff ff ff 07 00",
       [](StreamInput& in) { (void)in.readOptionalBytesReference(); }},
      {"text", "0f 7f ff ff ff 61", [](StreamInput& in) { (void)readGenericValue(in); }},
      {"double array", "14 ff ff ff ff 07 00", [](StreamInput& in) { (void)readGenericValue(in); }},
      {"list of INT32_MAX", "07 ff ff ff ff 07 ff",
       [](StreamInput& in) { (void)readGenericValue(in); }},
      {"map of INT32_MAX", "0a ff ff ff ff 07 ff",
       [](StreamInput& in) { (void)readGenericValue(in); }},
  };
  for (auto& c : cases) {
    auto bytes = hexBytes(c.hex);
    size_t got = allocatedBy([&] {
      ByteArrayStreamInput in(bytes);
      c.read(in);
    });
    EXPECT_LE(got, flatBound(bytes.size())) << c.what << ": " << bytes.size() << " input bytes";
  }
}

// Every strict prefix of random trees, and random byte flips in them: the
// allocation while failing is bounded per input byte.
TEST(AllocationTest, FailingGenericReadsAreBoundedPerInputByte) {
  const uint64_t seed = 77;
  std::printf("allocation test seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  std::vector<GV> trees = {
      GV::ofList(GV::List(8000, GV())),  // 1 byte a node: the worst case
      GV::ofMap([] {
        GV::Entries e;
        for (int i = 0; i < 3000; ++i) e.emplace_back(GV(std::to_string(i)), GV());
        return e;
      }()),
      GV::ofSet([] {
        GV::List l;
        for (int i = 0; i < 2000; ++i)
          l.push_back(GV::ofList({GV::ofShort(static_cast<int16_t>(i))}));
        return l;
      }()),
      GV::ofList(GV::List(2000, GV::ofIntArray({1, 2, 3}))),
  };
  double worst = 0;
  for (const GV& tree : trees) {
    auto bytes = bytesOf([&](StreamOutput& out) { writeGenericValue(out, tree); });
    std::vector<size_t> cuts;
    for (int i = 0; i < 40; ++i) cuts.push_back(rng() % bytes.size());
    cuts.push_back(bytes.size() - 1);
    for (size_t cut : cuts) {
      std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + cut);
      size_t got = allocatedBy([&] {
        ByteArrayStreamInput in(prefix);
        (void)readGenericValue(in);
      });
      worst = std::max(worst, static_cast<double>(got) / std::max<size_t>(1, cut));
      ASSERT_LE(got, std::max<size_t>(4096, kTreeBytesPerInputByte * cut) + kMessageBytes)
          << "cut " << cut;
    }
    for (int i = 0; i < 40; ++i) {
      std::vector<uint8_t> flipped = bytes;
      flipped[rng() % flipped.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
      size_t got = allocatedBy([&] {
        ByteArrayStreamInput in(flipped);
        (void)readGenericValue(in);
      });
      ASSERT_LE(got,
                std::max<size_t>(4096, kTreeBytesPerInputByte * flipped.size()) + kMessageBytes);
    }
  }
  std::printf(
      "worst allocation while failing: %.1f bytes per input byte "
      "(sizeof(GenericValue) = %zu)\n",
      worst, sizeof(GenericValue));
}

}  // namespace
}  // namespace wirestream
