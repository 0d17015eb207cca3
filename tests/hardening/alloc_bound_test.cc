// Proves the allocation bound of the readers: with the counting allocator
// (counting_allocator.h), no input of n bytes makes a reader hold more than
// max(4 KiB, 4·n) bytes before it fails.
//
// Readers whose elements are larger in memory than 4 bytes per wire byte
// (readStringArray: a 32-byte std::string per 1-byte empty string;
// readVLongArray: 8 bytes per 1-byte vlong) must hold that much for the
// elements they have actually decoded; for them the bound adds
// 3 · expansion · (bytes consumed when the reader stopped) — the elements
// decoded, with room for one geometric regrowth. Inputs that fail at the first
// element therefore still get the plain max(4 KiB, 4·n): a reader that
// reserves for the announced count up front fails this test. The message of
// the StreamError being thrown is allowed on top (it is the error, not the
// reader's working memory).
//
// Input families, for every reader (alone, and behind a `01` presence byte):
// length prefixes of 0x7FFFFFFF, counts larger than the data, counts that fit
// only at one byte per element (k, k/2, k/4, k/8 over k bytes), every strict
// prefix of every committed fuzz seed, and randomized inputs whose seed is
// printed (set WIRESTREAM_TEST_SEED to replay one).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "aggregations/columnar.h"
#include "aggregations/internal_aggregation.h"
#include "aggregations/json/aggregation_json.h"
#include "aggregations/registry.h"
#include "fuzz/program.h"
#include "stream/page_recycler.h"
#include "stream/stream_input.h"
#include "stream/stream_output.h"
#include "stream/structured/generic_value.h"
#include "stream/structured/structured_stream.h"
#include "tests/support/counting_allocator.h"
#include "transport/frame_decoder.h"
#include "transport/inbound_message.h"
#include "tsm/tsm.h"
#include "tsm/tsm_stream.h"

namespace wirestream {
namespace {

using Bytes = std::vector<uint8_t>;
using testing::AllocationScope;

std::vector<std::string> g_seed_files;  // from argv: the fuzz corpus

// A StreamOutput that forgets what it is given, so that driving the readers
// through fuzz::decodeCoreOp measures the reader, not an output buffer.
class DiscardingOutput final : public StreamOutput {
 public:
  DiscardingOutput() { nextBuffer(); }

 protected:
  void nextBuffer() override {
    pos_ = buf_;
    end_ = buf_ + sizeof buf_;
  }

 private:
  uint8_t buf_[64];
};

struct Reader {
  std::string name;
  std::function<void(StreamInput&)> read;
  size_t expansion;  // in-memory bytes per wire byte of an element, if above 4
};

// In-memory bytes per wire byte that decoded elements can legitimately hold
// (see the top of the file). Core: a 32-byte std::string per 1-byte string, an
// int64 per 1-byte vlong. Structured values hold at most 64: a GenericValue
// per 1-byte tag, a map entry per 2 bytes, a std::set node per 1-byte ordinal.
size_t expansionOf(const std::string& name) {
  static_assert(sizeof(GenericValue) <= 64);
  if (name == "readStringArray") return sizeof(std::string);
  if (name == "readVLongArray") return sizeof(int64_t);
  for (const char* small : {"readBytesReference", "readOptionalBytesReference", "readTimeValue",
                            "readOptionalTimeValue", "readInstant", "readOptionalInstant",
                            "readEnum", "readOptionalEnum"}) {
    if (name == small) return 0;
  }
  for (const fuzz::Op& op : fuzz::structuredOps()) {
    if (name == op.name) return 64;
  }
  return 0;
}

// Every op of an op table as a reader, and the table's whole program (op byte,
// value, ...) as the fuzz targets read it.
void addReaders(std::vector<Reader>& readers, std::span<const fuzz::Op> ops,
                const std::string& program_name) {
  size_t most = 0;
  for (const fuzz::Op& op : ops) {
    readers.push_back({op.name,
                       [&op](StreamInput& in) {
                         DiscardingOutput out;
                         op.run(in, out);
                       },
                       expansionOf(op.name)});
    most = std::max(most, readers.back().expansion);
  }
  readers.push_back({program_name,
                     [ops](StreamInput& in) {
                       DiscardingOutput out;
                       while (in.available() > 0) {
                         ops[in.readByte() % ops.size()].run(in, out);
                       }
                     },
                     most});
}

// The core readers, then the core program, the structured readers, the
// structured program, and InternalAggregations with the full registry at the
// versions of its gates. An aggregation holds at most 64 bytes of objects per
// wire byte it decoded (a terms bucket: ~100 bytes for >= 4 wire bytes, and
// each aggregation's name, metadata and format).
PageRecycler& testRecycler() {
  static PageRecycler* recycler = new PageRecycler(256, 0);  // keeps no pages
  return *recycler;
}

// A TSM decoder with a max_values, its output dropped.
template <typename T, void (*Decode)(std::span<const uint8_t>, std::vector<T>&, size_t)>
void decodeBlock(const Bytes& block, size_t max_values) {
  std::vector<T> out;
  Decode(block, out, max_values);
}

std::vector<Reader> allReaders() {
  std::vector<Reader> readers;
  addReaders(readers, fuzz::coreOps(), "coreProgram");
  addReaders(readers, fuzz::structuredOps(), "structuredProgram");
  for (auto [name, version] :
       {std::pair{"readInternalAggregations@7.10.0", TransportVersion::V_7_10_0},
        std::pair{"readInternalAggregations@8.0.0", TransportVersion::V_8_0_0},
        std::pair{"readInternalAggregations", TransportVersion::V_8_7_0}}) {
    readers.push_back({name,
                       [version](StreamInput& in) {
                         in.setTransportVersion(version);
                         aggregations::InternalAggregations::readFrom(
                             in, aggregations::defaultRegistry());
                       },
                       64});
  }
  // A connection's bytes through FrameDecoder (256-byte pages from its own
  // recycler, so the page size does not dominate small inputs) and every
  // frame through InboundMessage::parse. The reader first copies the input
  // (n bytes of the 4n); a compressed body may inflate up to max_body_size,
  // the configured limit, set here to 2n.
  readers.push_back({"transportFrames",
                     [](StreamInput& in) {
                       std::vector<uint8_t> bytes(in.available());
                       in.readBytes(bytes);
                       transport::FrameDecoder decoder(1 << 20, testRecycler());
                       decoder.feed(bytes, [&](transport::DecodedFrame&& f) {
                         if (!f.header.isPing()) {
                           (void)transport::InboundMessage::parse(std::move(f), 2 * bytes.size());
                         }
                       });
                     },
                     0});
  // The TSM block decoders (tsm/tsm.h), the input as one block. An RLE
  // block states any count in 20 bytes, so they get max_values, the configured
  // limit, set here to n/8 values (n bytes of 8-byte values, 1.5n while a float
  // decoder, which cannot count ahead, grows its array; the block's copy is
  // another n). A string block's snappy payload may inflate 22 times before
  // its strings are counted: expansion 8 (3 · 8 = 24n) covers it.
  auto addTsm = [&](const char* name, auto decode, size_t bytes_per_value, size_t expansion) {
    readers.push_back({name,
                       [decode, bytes_per_value](StreamInput& in) {
                         std::vector<uint8_t> block(in.available());
                         in.readBytes(block);
                         decode(block, std::max<size_t>(1, block.size() / bytes_per_value));
                       },
                       expansion});
  };
  addTsm("tsmFloat", decodeBlock<double, tsm::decodeFloatArray>, 8, 0);
  addTsm("tsmInteger", decodeBlock<int64_t, tsm::decodeIntegerArray>, 8, 0);
  addTsm("tsmUnsigned", decodeBlock<uint64_t, tsm::decodeUnsignedArray>, 8, 0);
  addTsm("tsmTime", decodeBlock<int64_t, tsm::decodeTimeArray>, 8, 0);
  addTsm("tsmBoolean", decodeBlock<bool, tsm::decodeBooleanArray>, 1, 0);
  addTsm("tsmString", decodeBlock<std::string, tsm::decodeStringArray>, 16, 8);
  // A block behind its length on a stream (tsm/tsm_stream.h), max_values n/8.
  readers.push_back({"tsmStreamTime",
                     [](StreamInput& in) {
                       (void)tsm::readTimeBlock(in, std::max<size_t>(1, in.available() / 8));
                     },
                     0});
  // The columnar aggregations: RLE columns hold any count in a few bytes, so
  // the objects are bounded by Limits::max_objects, set here to one per 8
  // input bytes; an object (a bucket, an Avg with its name, metadata and
  // format, a column slot) is below 64 x 8 bytes.
  readers.push_back({"readColumnarAggregations",
                     [](StreamInput& in) {
                       aggregations::columnar::Limits limits;
                       limits.max_objects = std::max<int64_t>(1, in.available() / 8);
                       aggregations::columnar::readAggregations(in, aggregations::defaultRegistry(),
                                                                limits);
                     },
                     64});
  return readers;
}

struct Outcome {
  size_t peak = 0;
  size_t consumed = 0;
  bool failed = false;
  size_t message = 0;  // the error's message, allocated as it is thrown
};

Outcome measure(const Reader& reader, const Bytes& input) {
  Outcome o;
  ByteArrayStreamInput in(input);
  {
    AllocationScope scope;
    try {
      reader.read(in);
    } catch (const StreamError& e) {
      o.failed = true;
      o.message = std::strlen(e.what());
    }
    o.peak = scope.peakBytes();
  }
  o.consumed = input.size() - in.available();
  return o;
}

// The error being thrown is not the reader's allocation: its message, and the
// temporaries that build it ("..." + std::to_string(v) + "..."), are allowed
// on top.
size_t bound(const Reader& reader, size_t n, const Outcome& o) {
  size_t message = o.failed ? 4 * o.message + 128 : 0;
  return std::max<size_t>(4096, 4 * n) + 3 * reader.expansion * o.consumed + message;
}

// Checks one input against one reader; returns false (and reports) on a breach.
bool checkBound(const Reader& reader, const Bytes& input, const std::string& what) {
  Outcome o = measure(reader, input);
  size_t b = bound(reader, input.size(), o);
  EXPECT_LE(o.peak, b) << reader.name << " on " << what << ": " << input.size() << " bytes ("
                       << (o.failed ? "failed" : "decoded") << " after " << o.consumed << ") held "
                       << o.peak << " bytes; input starts " << fuzz::hexPrefix(input);
  return o.peak <= b;
}

Bytes vint(uint32_t v) {
  Bytes b;
  do {
    uint8_t byte = v & 0x7F;
    v >>= 7;
    b.push_back(v ? (byte | 0x80) : byte);
  } while (v);
  return b;
}

Bytes concat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

const std::vector<Bytes> kPresencePrefixes = {{}, {0x01}};
// 00: smallest valid elements; 80: an unfinished varint / bad lead byte;
// FF: an invalid 5- or 10-byte varint; 01: small valid counts.
const uint8_t kFillers[] = {0x00, 0x80, 0xFF, 0x01};
const size_t kFillLengths[] = {0, 1, 7, 64, 1000, 20000};

TEST(CountingAllocator, CountsRecycledPages) {
  AllocationScope scope;
  PageRecycler recycler(4096, 0);
  uint8_t* page = recycler.obtain();
  EXPECT_GE(scope.peakBytes(), 4096u);
  recycler.release(page);
}

TEST(CountingAllocator, CountsWhatVectorsHold) {
  AllocationScope scope;
  {
    std::vector<int64_t> v(1000);
    EXPECT_GE(scope.peakBytes(), 8000u);
  }
  EXPECT_GE(scope.totalBytes(), 8000u);
  EXPECT_GE(scope.peakBytes(), 8000u);
}

TEST(AllocationBound, LengthPrefixOf0x7FFFFFFF) {
  for (const Reader& r : allReaders()) {
    for (const Bytes& prefix : kPresencePrefixes) {
      for (uint8_t fill : kFillers) {
        for (size_t k : kFillLengths) {
          Bytes in = concat({prefix, vint(0x7FFFFFFF), Bytes(k, fill)});
          checkBound(r, in, "0x7FFFFFFF prefix + " + std::to_string(k) + " fill");
        }
      }
    }
  }
}

TEST(AllocationBound, CountsLargerThanTheData) {
  for (const Reader& r : allReaders()) {
    for (const Bytes& prefix : kPresencePrefixes) {
      for (uint8_t fill : kFillers) {
        for (size_t k : kFillLengths) {
          for (uint64_t count : {k + 1, 2 * k + 1, 8 * k + 8, uint64_t{1} << 30}) {
            Bytes in = concat({prefix, vint(static_cast<uint32_t>(count)), Bytes(k, fill)});
            checkBound(r, in,
                       "count " + std::to_string(count) + " over " + std::to_string(k) + " bytes");
          }
        }
      }
    }
  }
}

// The counts a 1-byte-per-element check lets through: for 8-byte or 32-byte
// elements, reserving for the count would hold 8·n or 32·n bytes.
TEST(AllocationBound, CountsThatFitOnlyAtOneBytePerElement) {
  for (const Reader& r : allReaders()) {
    for (const Bytes& prefix : kPresencePrefixes) {
      for (uint8_t fill : kFillers) {
        for (size_t k : kFillLengths) {
          for (size_t div : {1, 2, 4, 8}) {
            Bytes in = concat({prefix, vint(static_cast<uint32_t>(k / div)), Bytes(k, fill)});
            checkBound(
                r, in,
                "count " + std::to_string(k / div) + " over " + std::to_string(k) + " bytes");
          }
        }
      }
    }
  }
}

const Reader& readerNamed(const std::vector<Reader>& readers, const std::string& name) {
  for (const Reader& r : readers) {
    if (r.name == name) return r;
  }
  ADD_FAILURE() << "no reader " << name;
  return readers.front();
}

// Found by this test: readStringArray reserved count * sizeof(std::string)
// (32 bytes per 1-byte element) before reading the first string, so 20 KB of
// input held 640 KB. Fixed by boundedReserve() in stream_input.cc.
TEST(AllocationBoundRegression, ReadStringArrayReservedCountTimes32Bytes) {
  std::vector<Reader> readers = allReaders();
  Bytes in = concat({vint(20000), Bytes(20000, 0xFF)});  // first string: bad vint
  Outcome o = measure(readerNamed(readers, "readStringArray"), in);
  EXPECT_TRUE(o.failed);
  EXPECT_LE(o.peak, 4 * in.size() + 4 * o.message + 128);
}

// Found by this test: readVLongArray built a vector of count int64s (8 bytes
// per 1-byte element) before reading the first vlong.
TEST(AllocationBoundRegression, ReadVLongArrayAllocatedCountTimes8Bytes) {
  std::vector<Reader> readers = allReaders();
  Bytes in = concat({vint(20000), Bytes(20000, 0xFF)});  // first vlong: invalid
  Outcome o = measure(readerNamed(readers, "readVLongArray"), in);
  EXPECT_TRUE(o.failed);
  EXPECT_LE(o.peak, 4 * in.size() + 4 * o.message + 128);
}

// Decoded elements are held, of course: 20000 empty strings are 640 KB of
// std::string, and the bound's expansion term is what admits them.
TEST(AllocationBound, DecodedElementsAreHeld) {
  std::vector<Reader> readers = allReaders();
  Bytes in = concat({vint(20000), Bytes(20000, 0x00)});
  const Reader& r = readerNamed(readers, "readStringArray");
  Outcome o = measure(r, in);
  EXPECT_FALSE(o.failed);
  EXPECT_GE(o.peak, 20000 * sizeof(std::string));
  EXPECT_LE(o.peak, bound(r, in.size(), o));
}

// Nesting: every level announces a count the rest of the input could hold,
// so each level's reserve is individually justified by the bytes left; a
// reader that reserves per level multiplies that by the depth.
Bytes nested(const Bytes& level, size_t depth, size_t fill, uint8_t filler) {
  Bytes in;
  for (size_t i = 0; i < depth; ++i) in.insert(in.end(), level.begin(), level.end());
  in.insert(in.end(), fill, filler);
  return in;
}

TEST(AllocationBound, DeepNesting) {
  std::vector<Reader> readers = allReaders();
  const Reader& generic = readerNamed(readers, "readGenericValue");
  const Reader& named = readerNamed(readers, "readNamedWriteable");
  for (size_t fill : {size_t{0}, size_t{100}, size_t{1000}, size_t{20000}}) {
    Bytes count = vint(static_cast<uint32_t>(fill));
    for (size_t depth :
         {size_t{1}, size_t{10}, size_t{99}, size_t{100}, size_t{101}, size_t{5000}}) {
      for (uint8_t filler : {uint8_t{0xFF}, uint8_t{0x63}}) {
        const std::string what =
            "depth " + std::to_string(depth) + ", count " + std::to_string(fill);
        // list / set / object array: tag, count, then the next level.
        for (uint8_t tag : {0x07, 0x08, 0x18, 0x19}) {
          checkBound(generic, nested(concat({{tag}, count}), depth, fill, filler), "list " + what);
        }
        // map: tag, count, a null key, then the next level as the value.
        for (uint8_t tag : {0x09, 0x0A}) {
          checkBound(generic, nested(concat({{tag}, count, {0xFF}}), depth, fill, filler),
                     "map " + what);
        }
        // named writeables: "group", label "", count, then the next member.
        Bytes group = {0x05, 'g', 'r', 'o', 'u', 'p', 0x00};
        checkBound(named, nested(concat({group, count}), depth, fill, filler), "group " + what);
      }
    }
  }
}

// Found by DeepNesting: every open list level reserved up to the whole
// max(4 KiB, 4 x bytes left) budget, checked against the same bytes left, so
// 100 levels of `07 64` over 300 bytes held 416 KB. Fixed by halving the
// budget per nesting level in StreamInput::boundedReserve.
TEST(AllocationBoundRegression, NestedGenericListsEachReservedTheWholeBudget) {
  std::vector<Reader> readers = allReaders();
  Bytes in = nested({0x07, 0x64}, 100, 100, 0xFF);
  Outcome o = measure(readerNamed(readers, "readGenericValue"), in);
  EXPECT_TRUE(o.failed);
  EXPECT_LE(o.peak, 4096 + 4 * o.message + 128 + 3 * 64 * o.consumed);
  EXPECT_LE(o.peak, 64 * 1024u);
}

// An sterms header at 8.7.0 (wire format §7) up to its bucket count.
Bytes stermsUpToBuckets(std::initializer_list<uint8_t> reduce_order) {
  return concat({{0x01, 0x06, 's', 't', 'e', 'r', 'm', 's', 0x01, 'a', 0xFF},
                 Bytes(reduce_order),
                 {0x01, 0x0A, 0x01, 0x00, 0x03, 'r', 'a', 'w', 0x0A, 0x00, 0x00}});
}

// Found by CountsSplicedAtEveryOffsetOfEverySeed: terms (and histogram)
// readers reserved every announced bucket (~100 bytes each for >= 3 wire
// bytes) before reading one; 10 KB held 320 KB. Fixed with boundedReserve in
// aggregations/terms.cc, histogram.cc, bucket_order.cc, internal_aggregation.cc.
TEST(AllocationBoundRegression, TermsBucketsWereReservedForTheirCount) {
  std::vector<Reader> readers = allReaders();
  Bytes in = concat({stermsUpToBuckets({0x01}), vint(3000), Bytes(10000, 0xFF)});
  Outcome o = measure(readerNamed(readers, "readInternalAggregations"), in);
  EXPECT_TRUE(o.failed);
  EXPECT_LE(o.peak, 4 * in.size() + 4 * o.message + 128);
}

// Found by the aggregations fuzz target: an sterms key is bytes, not
// necessarily UTF-8, and toResponseJson put them into a JSON string as they
// were, so dump() threw nlohmann's type_error 316 on a shard's result.
// Invalid bytes now render as U+FFFD (aggregations/text_util.h toUtf8Lossy).
TEST(FuzzRegression, StermsKeyThatIsNotUtf8BrokeTheResponseJson) {
  Bytes in = concat({stermsUpToBuckets({0x01}), {0x01, 0x05, 0x00, 0x02, 'a', 0xFF}});
  ByteArrayStreamInput stream(in);
  auto aggs = aggregations::InternalAggregations::readFrom(stream, aggregations::defaultRegistry());
  std::string json;
  ASSERT_NO_THROW(json = toResponseJson(aggs).dump());
  EXPECT_NE(json.find("\"key\":\"a\xEF\xBF\xBD\""), std::string::npos) << json;
}

// Same find: a compound BucketOrder reserved every announced order.
TEST(AllocationBoundRegression, CompoundOrderWasReservedForItsCount) {
  std::vector<Reader> readers = allReaders();
  Bytes header = stermsUpToBuckets({});
  header.resize(11);  // up to the reduce order
  Bytes in = concat({header, {0xFF}, vint(10000), Bytes(10000, 0xFF)});
  Outcome o = measure(readerNamed(readers, "readInternalAggregations"), in);
  EXPECT_TRUE(o.failed);
  EXPECT_LE(o.peak, 4 * in.size() + 4 * o.message + 128);
}

// A committed fuzz seed, reduced to what a reader reads: the program of a
// stream_input or structured seed (after its version byte), or the value of a
// generic_value seed.
struct SeedInput {
  std::string corpus;  // stream_input, structured, generic_value, aggregations, transport, tsm
  Bytes bytes;
};

std::vector<SeedInput> seedInputs() {
  std::vector<SeedInput> seeds;
  for (const std::string& path : g_seed_files) {
    std::ifstream f(path, std::ios::binary);
    Bytes b{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
    for (const char* corpus :
         {"stream_input", "structured", "generic_value", "aggregations", "transport", "tsm"}) {
      if (path.find(std::string("corpus/") + corpus + "/") == std::string::npos) continue;
      if (std::string(corpus) != "stream_input") {
        if (b.empty()) continue;
        b.erase(b.begin());  // the version byte
      }
      seeds.push_back({corpus, std::move(b)});
      break;
    }
  }
  return seeds;
}

TEST(AllocationBound, EveryPrefixOfEverySeed) {
  std::vector<SeedInput> seeds = seedInputs();
  ASSERT_GE(seeds.size(), 100u) << "fuzz corpora missing from the test's args";
  std::vector<Reader> readers = allReaders();
  const Reader& core_program = readerNamed(readers, "coreProgram");
  const Reader& structured_program = readerNamed(readers, "structuredProgram");
  const Reader& generic = readerNamed(readers, "readGenericValue");
  const Reader& aggs = readerNamed(readers, "readInternalAggregations");
  for (const SeedInput& seed : seeds) {
    if (seed.bytes.empty()) continue;
    // The program reader on the seed, and the op's own reader on its value.
    const Reader* program = seed.corpus == "aggregations" ? &aggs
                            : seed.corpus == "transport"  ? &readerNamed(readers, "transportFrames")
                                                          : &generic;
    const Reader* own = nullptr;
    if (seed.corpus == "stream_input") {
      program = &core_program;
      own = &readerNamed(readers, fuzz::coreOps()[seed.bytes[0] % fuzz::coreOps().size()].name);
    } else if (seed.corpus == "structured") {
      program = &structured_program;
      own = &readerNamed(readers,
                         fuzz::structuredOps()[seed.bytes[0] % fuzz::structuredOps().size()].name);
    }
    for (size_t len = 0; len <= seed.bytes.size(); ++len) {
      Bytes prefix(seed.bytes.begin(), seed.bytes.begin() + len);
      checkBound(*program, prefix, seed.corpus + " seed prefix");
      if (own != nullptr && len >= 1) {
        checkBound(*own, Bytes(prefix.begin() + 1, prefix.end()),
                   seed.corpus + " seed value prefix");
      }
    }
  }
}

// A count spliced in at every offset of every seed: whatever size, length or
// count field sits there now announces as many elements as the bytes after it
// could hold at 1, 2, 4 or 8 bytes each. Reaches the counts deep inside
// valid encodings (terms buckets, sub-aggregations, HLL++ sketches, compound
// orders) that prefix and filler inputs never get to.
TEST(AllocationBound, CountsSplicedAtEveryOffsetOfEverySeed) {
  std::vector<SeedInput> seeds = seedInputs();
  std::vector<Reader> readers = allReaders();
  const Reader& core_program = readerNamed(readers, "coreProgram");
  const Reader& structured_program = readerNamed(readers, "structuredProgram");
  const Reader& generic = readerNamed(readers, "readGenericValue");
  const Reader& aggs = readerNamed(readers, "readInternalAggregations");
  size_t runs = 0;
  for (const SeedInput& seed : seeds) {
    if (seed.bytes.size() > 1500) continue;
    const Reader& r = seed.corpus == "stream_input"   ? core_program
                      : seed.corpus == "structured"   ? structured_program
                      : seed.corpus == "aggregations" ? aggs
                      : seed.corpus == "transport"    ? readerNamed(readers, "transportFrames")
                                                      : generic;
    for (size_t at = 0; at < seed.bytes.size(); ++at) {
      // Without and with 10000 bytes of filler after the seed, so that the
      // announced count can be far above what the 4 KiB floor absorbs.
      for (size_t fill : {size_t{0}, size_t{10000}}) {
        Bytes base = seed.bytes;
        base.insert(base.end(), fill, 0xFF);
        size_t left = base.size() - at;
        for (size_t per : {1, 2, 4, 8}) {
          Bytes in = base;
          Bytes count = vint(static_cast<uint32_t>(left / per));
          std::copy(count.begin(), count.begin() + std::min(count.size(), left), in.begin() + at);
          checkBound(r, in,
                     seed.corpus + " seed with a count at " + std::to_string(at) + " and " +
                         std::to_string(fill) + " bytes of filler");
          ++runs;
        }
      }
    }
  }
  EXPECT_GT(runs, 10000u);
}

// TSM blocks at the edges of what their bytes can state: RLE counts up to
// 2^64 - 1, simple8b words of 240 values each, float bits of one value each,
// boolean and snappy lengths above the data; and every prefix of every tsm
// seed without its kind byte.
TEST(AllocationBound, TsmBlocksAtTheirLimits) {
  std::vector<Reader> readers = allReaders();
  std::vector<Bytes> blocks;
  for (uint8_t header : {0x20, 0x21, 0x29, 0x2C}) {
    for (Bytes count : {Bytes{0x80, 0x80, 0x80, 0x80, 0x10}, Bytes(9, 0xFF), Bytes{0x7F}}) {
      if (count.size() == 9) count.push_back(0x01);
      blocks.push_back(concat({Bytes{header}, Bytes(8, 0), Bytes{0x02}, count}));
    }
  }
  for (size_t words : {1, 17, 1000}) {
    blocks.push_back(concat({Bytes{0x10}, Bytes(8, 0), Bytes(8 * words, 0)}));  // selector 0
    blocks.push_back(concat({Bytes{0x10}, Bytes(8, 0), Bytes(8 * words, 0), Bytes{0x01}}));
  }
  for (size_t k : {0, 1, 100, 5000}) {
    blocks.push_back(concat({Bytes{0x10, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0}, Bytes(k, 0)}));  // repeats
    blocks.push_back(concat({Bytes{0x10}, vint(0x7FFFFFFF), Bytes(k, 0xAA)}));
    blocks.push_back(concat({Bytes{0x10}, vint(static_cast<uint32_t>(8 * k)), Bytes(k, 0xAA)}));
  }
  // Snappy: a declared length of 2^31 - 1, and 64-byte copies of one literal.
  blocks.push_back(concat({Bytes{0x10}, vint(0x7FFFFFFF), Bytes(100, 0x00)}));
  {
    Bytes copies{0x10};
    Bytes len = vint(1 + 64 * 3000);
    copies.insert(copies.end(), len.begin(), len.end());
    copies.insert(copies.end(), {0x00, 0x00});  // literal of one byte: 00
    for (int i = 0; i < 3000; ++i)
      copies.insert(copies.end(), {0xFE, 0x01, 0x00});  // copy 64, offset 1
    blocks.push_back(copies);
  }
  for (const SeedInput& seed : seedInputs()) {
    if (seed.corpus != "tsm" || seed.bytes.empty()) continue;
    Bytes block(seed.bytes.begin() + 1, seed.bytes.end());
    for (size_t n = 0; n <= block.size(); ++n)
      blocks.emplace_back(block.begin(), block.begin() + n);
  }
  for (const Reader& r : readers) {
    if (r.name.rfind("tsm", 0) != 0) continue;
    for (const Bytes& b : blocks) checkBound(r, b, "a TSM block");
  }
}

uint64_t testSeed() {
  if (const char* s = std::getenv("WIRESTREAM_TEST_SEED")) return std::strtoull(s, nullptr, 0);
  return 0x5EED0008;
}

TEST(AllocationBound, RandomizedInputs) {
  const uint64_t seed = testSeed();
  std::printf("AllocationBound.RandomizedInputs seed: %llu (WIRESTREAM_TEST_SEED)\n",
              static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  std::vector<SeedInput> seeds = seedInputs();
  ASSERT_FALSE(seeds.empty());
  std::vector<Reader> readers = allReaders();
  int breaches = 0;
  for (const Reader& r : readers) {
    for (int iter = 0; iter < 400 && breaches < 5; ++iter) {
      Bytes in;
      switch (iter % 4) {
        case 0: {  // random bytes
          in.resize(rng() % 3000);
          for (auto& b : in) b = static_cast<uint8_t>(rng());
          break;
        }
        case 1: {  // a plausible count, then random small bytes
          size_t k = rng() % 3000;
          in = vint(static_cast<uint32_t>(rng() % (k + 2)));
          for (size_t i = 0; i < k; ++i)
            in.push_back(static_cast<uint8_t>(rng() % 4 == 0 ? rng() : rng() % 3));
          break;
        }
        default: {  // a mutated seed value: byte flips, a huge count spliced in
          const Bytes& s = seeds[rng() % seeds.size()].bytes;
          in.assign(s.begin() + (s.empty() ? 0 : 1), s.end());
          for (int m = 0, muts = 1 + static_cast<int>(rng() % 4); m < muts && !in.empty(); ++m) {
            size_t at = rng() % in.size();
            if (rng() % 3 == 0) {
              Bytes big = vint(static_cast<uint32_t>(rng() % 0x7FFFFFFF));
              in.insert(in.begin() + static_cast<std::ptrdiff_t>(at), big.begin(), big.end());
            } else {
              in[at] = static_cast<uint8_t>(rng());
            }
          }
          break;
        }
      }
      if (!checkBound(r, in, "random input (seed " + std::to_string(seed) + ")")) ++breaches;
    }
  }
}

}  // namespace
}  // namespace wirestream

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) wirestream::g_seed_files.emplace_back(argv[i]);
  return RUN_ALL_TESTS();
}
