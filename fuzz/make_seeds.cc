// Writes the seed corpora of the fuzz targets: small valid encodings of every
// kind each reader accepts, one file each, named <what>.bin.
//
//   bazel run //fuzz:make_seeds            # rewrites fuzz/corpus/<target>/
//   bazel run //fuzz:make_seeds -- DIR     # writes DIR/<target>/
//
// Every seed is checked to decode cleanly before it is written, so the corpus
// starts from inputs that reach deep into the readers. The output is
// deterministic; commit it.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "aggregations/columnar.h"
#include "aggregations/json/aggregation_json.h"
#include "fuzz/program.h"
#include "stream/bytes_reference.h"
#include "stream/bytes_stream_output.h"
#include "stream/structured/generic_value.h"
#include "stream/structured/structured_stream.h"
#include "tests/aggregations/agg_test_util.h"
#include "tools/wire_json.h"
#include "transport/frame.h"
#include "transport/handshake.h"
#include "transport/remote_exception.h"
#include "tsm/tsm.h"

namespace wirestream::fuzz {
namespace {

using Bytes = std::vector<uint8_t>;
using Writer = std::function<void(StreamOutput&)>;

// The seeds are written at 8.7.0, the newest of the versions the targets read
// (program.h, versionFromByte), never at TransportVersion::current(): the committed corpus
// stays what it was when current() was 8.7.0.
constexpr TransportVersion kSeedVersion = TransportVersion::V_8_7_0;

Bytes encode(const Writer& w, TransportVersion version = kSeedVersion) {
  BytesStreamOutput out;
  out.setTransportVersion(version);
  w(out);
  return out.bytes().toVector();
}

struct Seed {
  std::string name;
  Bytes bytes;
};

// One program per (reader, value), and one that runs all of them in a row.
std::vector<Seed> coreSeeds() {
  const std::string kStrings[] = {"",
                                  "hello",
                                  "h\xC3\xA9",
                                  "\xE2\x82\xAC",
                                  "\xF0\x9F\x98\x80",
                                  std::string(1, '\0'),
                                  std::string(200, 'x')};
  struct Case {
    const char* op;
    std::vector<Writer> values;
  };
  const std::vector<Case> cases = {
      {"readByte",
       {[](StreamOutput& o) { o.writeByte(0); }, [](StreamOutput& o) { o.writeByte(0xFF); }}},
      {"readShort", {[](StreamOutput& o) { o.writeShort(-2); }}},
      {"readInt",
       {[](StreamOutput& o) { o.writeInt(1); }, [](StreamOutput& o) { o.writeInt(INT32_MIN); }}},
      {"readLong", {[](StreamOutput& o) { o.writeLong(-1); }}},
      {"readVInt",
       {[](StreamOutput& o) { o.writeVInt(0); }, [](StreamOutput& o) { o.writeVInt(300); },
        [](StreamOutput& o) { o.writeVInt(-1); }, [](StreamOutput& o) { o.writeVInt(INT32_MAX); }}},
      {"readVLong",
       {[](StreamOutput& o) { o.writeVLong(128); },
        [](StreamOutput& o) { o.writeVLong(INT64_MAX); },
        [](StreamOutput& o) { o.writeVLongNoCheck(-1); }}},
      {"readZLong",
       {[](StreamOutput& o) { o.writeZLong(-2); },
        [](StreamOutput& o) { o.writeZLong(INT64_MIN); }}},
      {"readFloat", {[](StreamOutput& o) { o.writeFloat(1.5f); }}},
      {"readDouble",
       {[](StreamOutput& o) { o.writeDouble(-0.25); },
        [](StreamOutput& o) { o.writeDouble(std::numeric_limits<double>::quiet_NaN()); }}},
      {"readBoolean", {[](StreamOutput& o) { o.writeBoolean(true); }}},
      {"readOptionalBoolean",
       {[](StreamOutput& o) { o.writeOptionalBoolean(std::nullopt); },
        [](StreamOutput& o) { o.writeOptionalBoolean(false); }}},
      {"readOptionalVInt",
       {[](StreamOutput& o) { o.writeOptionalVInt(5); },
        [](StreamOutput& o) { o.writeOptionalVInt(std::nullopt); }}},
      {"readOptionalVLong", {[](StreamOutput& o) { o.writeOptionalVLong(1LL << 40); }}},
      {"readOptionalInt", {[](StreamOutput& o) { o.writeOptionalInt(-7); }}},
      {"readOptionalLong", {[](StreamOutput& o) { o.writeOptionalLong(7); }}},
      {"readOptionalFloat", {[](StreamOutput& o) { o.writeOptionalFloat(2.0f); }}},
      {"readOptionalDouble", {[](StreamOutput& o) { o.writeOptionalDouble(3.0); }}},
      {"readString", {}},
      {"readOptionalString",
       {[](StreamOutput& o) { o.writeOptionalString("opt"); },
        [](StreamOutput& o) { o.writeOptionalString(std::nullopt); }}},
      {"readByteArray", {[](StreamOutput& o) {
         o.writeByteArray(Bytes{1, 2, 0x80, 0xFF});
       }}},
      {"readStringArray",
       {[&](StreamOutput& o) { o.writeStringArray(std::span<const std::string>(kStrings)); }}},
      {"readVIntArray", {[](StreamOutput& o) {
         o.writeVIntArray(std::vector<int32_t>{0, 300, -1});
       }}},
      {"readVLongArray", {[](StreamOutput& o) {
         o.writeVLongArray(std::vector<int64_t>{1, 1LL << 50});
       }}},
      {"readIntArray", {[](StreamOutput& o) {
         o.writeIntArray(std::vector<int32_t>{1, 2, 3});
       }}},
      {"readLongArray", {[](StreamOutput& o) {
         o.writeLongArray(std::vector<int64_t>{-1, 2});
       }}},
      {"readFloatArray", {[](StreamOutput& o) { o.writeFloatArray(std::vector<float>{0.5f}); }}},
      {"readDoubleArray", {[](StreamOutput& o) {
         o.writeDoubleArray(std::vector<double>{1e300, -0.0});
       }}},
  };
  std::vector<Seed> seeds;
  Bytes all;
  auto add = [&](const char* op, size_t i, const Writer& w) {
    Bytes b{opIndex(coreOps(), op)};
    Bytes v = encode(w);
    b.insert(b.end(), v.begin(), v.end());
    all.insert(all.end(), b.begin(), b.end());
    seeds.push_back({std::string(op) + "-" + std::to_string(i), std::move(b)});
  };
  for (const Case& c : cases) {
    for (size_t i = 0; i < c.values.size(); ++i) add(c.op, i, c.values[i]);
  }
  for (size_t i = 0; i < std::size(kStrings); ++i) {
    add("readString", i, [&](StreamOutput& o) { o.writeString(kStrings[i]); });
  }
  seeds.push_back({"all-ops", all});
  for (const Seed& s : seeds) {
    ByteArrayStreamInput in(s.bytes);
    ProgramResult r = runProgram(coreOps(), in, s.bytes);
    if (!r.error.empty()) {
      std::fprintf(stderr, "make_seeds: seed %s fails: %s\n", s.name.c_str(), r.error.c_str());
      std::exit(1);
    }
  }
  return seeds;
}

// The paged target takes a layout byte first: each program under two layouts.
std::vector<Seed> pagedSeeds() {
  std::vector<Seed> out;
  for (const Seed& s : coreSeeds()) {
    for (uint8_t layout : {uint8_t{0x00}, uint8_t{0x93}}) {
      Bytes b{layout};
      b.insert(b.end(), s.bytes.begin(), s.bytes.end());
      char suffix[8];
      std::snprintf(suffix, sizeof suffix, "-%02x", layout);
      out.push_back({s.name + suffix, std::move(b)});
    }
  }
  return out;
}

GenericValue sampleMap() {
  return GenericValue::ofMap(
      {{"owner", "ops"},
       {"ids", GenericValue::ofIntArray({1, 2})},
       {"nested", GenericValue::ofList({GenericValue::null(), 1.5, int64_t{7},
                                        GenericValue::ofOrderedMap({{"k", true}})})}});
}

// Every generic kind once, then containers of them.
std::vector<std::pair<std::string, GenericValue>> genericSamples() {
  using GV = GenericValue;
  return {
      {"null", GV::null()},
      {"string", GV::ofString("h\xC3\xA9\xF0\x9F\x98\x80")},
      {"int", GV::ofInt(-5)},
      {"long", GV::ofLong(1LL << 40)},
      {"float", GV::ofFloat(0.5f)},
      {"double", GV::ofDouble(-2.25)},
      {"boolean", GV::ofBoolean(true)},
      {"byte_array", GV::ofByteArray({1, 2, 3})},
      {"list", GV::ofList({1, "a", GV::null()})},
      {"object_array", GV::ofObjectArray({int64_t{2}})},
      {"ordered_map", GV::ofOrderedMap({{"b", 1}, {"a", 2}})},
      {"map", sampleMap()},
      {"byte", GV::ofByte(-1)},
      {"date", GV::ofDate(1700000000000)},
      {"bytes_reference", GV::ofBytesReference(GV::Bytes{9, 8})},
      {"text", GV::ofText("text \xE2\x82\xAC")},
      {"short", GV::ofShort(300)},
      {"int_array", GV::ofIntArray({1, 2, 3})},
      {"long_array", GV::ofLongArray({-1})},
      {"float_array", GV::ofFloatArray({1.0f, 2.0f})},
      {"double_array", GV::ofDoubleArray({3.0})},
      {"bytes_ref", GV::ofBytesRef(GV::Bytes{0xFF})},
      {"geo_point", GV::ofGeoPoint(52.5, 13.4)},
      {"ordered_set", GV::ofOrderedSet({"x", "y"})},
      {"set", GV::ofSet({1, 2})},
      {"joda_date_time",
       GV::ofJodaDateTime({ZonedDateTime::Millis(std::chrono::milliseconds(1000)), "UTC"})},
      {"zoned_date_time",
       GV::ofZonedDateTime(
           {ZonedDateTime::Millis(std::chrono::milliseconds(1700000000000)), "Europe/Paris"})},
      {"zoned_date_time_offset",
       GV::ofZonedDateTime({ZonedDateTime::Millis(std::chrono::milliseconds(-1)), "UTC+05:30"})},
      {"big_integer", GV::ofBigInteger(BigInteger::fromDecimal("-18446744073709551616"))},
      {"offset_time", GV::ofOffsetTime({std::chrono::nanoseconds(34200000000001),
                                        std::chrono::seconds(-(8 * 3600 + 15))})},
      {"duration", GV::ofDuration({-2, 500000000})},
      {"period", GV::ofPeriod({1, -2, 3})},
      {"deep", GV::ofList({GV::ofList({GV::ofList({GV::ofMap({{"d", GV::ofList({})}})})})})},
  };
}

// Version byte (00: 8.7.0, 01: 7.10.0), then one generic value.
std::vector<Seed> genericValueSeeds() {
  std::vector<Seed> seeds;
  for (auto& [name, v] : genericSamples()) {
    for (uint8_t vb : {uint8_t{0}, uint8_t{1}}) {
      TransportVersion version = vb ? TransportVersion::V_7_10_0 : TransportVersion::V_8_7_0;
      Bytes b{vb};
      Bytes e = encode([&](StreamOutput& o) { writeGenericValue(o, v); }, version);
      b.insert(b.end(), e.begin(), e.end());
      seeds.push_back({name + (vb ? "-v7_10" : "-v8_7"), std::move(b)});
    }
  }
  return seeds;
}

// The shapes of structured_ops.cc, written by hand: "circle" := double,
// "group" := string label, vint count, named shapes.
void writeCircle(StreamOutput& o, double r) {
  o.writeString("circle");
  o.writeDouble(r);
}

std::vector<Seed> structuredSeeds() {
  using GV = GenericValue;
  struct Case {
    const char* op;
    Writer write;
  };
  const std::vector<Case> cases = {
      {"readGenericValue", [](StreamOutput& o) { writeGenericValue(o, sampleMap()); }},
      {"readBytesReference",
       [](StreamOutput& o) {
         o.writeBytesReference(BytesReference::copyOf(Bytes{1, 2, 3}));
       }},
      {"readOptionalBytesReference",
       [](StreamOutput& o) { o.writeOptionalBytesReference(BytesReference::copyOf(Bytes{4})); }},
      {"readOptionalBytesReference",
       [](StreamOutput& o) { o.writeOptionalBytesReference(std::nullopt); }},
      {"readTimeValue",
       [](StreamOutput& o) { writeTimeValue(o, TimeValue(100, TimeUnit::kDays)); }},
      {"readOptionalTimeValue",
       [](StreamOutput& o) { writeOptionalTimeValue(o, TimeValue(30000)); }},
      {"readInstant", [](StreamOutput& o) { writeInstant(o, Instant::ofEpochMilli(-1)); }},
      {"readOptionalInstant",
       [](StreamOutput& o) {
         writeOptionalInstant(o, Instant{5, 6});
       }},
      {"readCollectionOfStrings",
       [](StreamOutput& o) {
         o.writeCollection(std::vector<std::string>{"a", "", "\xE2\x82\xAC"},
                           [](StreamOutput& w, const std::string& s) { w.writeString(s); });
       }},
      {"readCollectionOfGenericValues",
       [](StreamOutput& o) {
         o.writeCollection(std::vector<GV>{GV::null(), 1, "s"},
                           [](StreamOutput& w, const GV& g) { writeGenericValue(w, g); });
       }},
      {"readMapOfStringToGenericValue",
       [](StreamOutput& o) {
         std::map<std::string, GV> m{{"a", 1}, {"b", GV::ofList({2.5})}};
         o.writeMap(
             m, [](StreamOutput& w, const std::string& k) { w.writeString(k); },
             [](StreamOutput& w, const GV& g) { writeGenericValue(w, g); });
       }},
      {"readMapOfVLongToStrings",
       [](StreamOutput& o) {
         std::map<int64_t, std::vector<std::string>> m{{1, {"x"}}, {300, {}}};
         o.writeMap(
             m, [](StreamOutput& w, int64_t k) { w.writeVLong(k); },
             [](StreamOutput& w, const std::vector<std::string>& v) {
               w.writeStringArray(std::span<const std::string>(v));
             });
       }},
      {"readEnum", [](StreamOutput& o) { o.writeVInt(2); }},
      {"readOptionalEnum",
       [](StreamOutput& o) {
         o.writeBoolean(true);
         o.writeVInt(1);
       }},
      {"readEnumSet",
       [](StreamOutput& o) {
         o.writeVInt(2);
         o.writeVInt(0);
         o.writeVInt(2);
       }},
      {"readOptionalWriteable",
       [](StreamOutput& o) {
         o.writeBoolean(true);
         o.writeVInt(7);
         o.writeString("tag");
       }},
      {"readNamedWriteable", [](StreamOutput& o) { writeCircle(o, 1.5); }},
      {"readNamedWriteable",
       [](StreamOutput& o) {
         o.writeString("group");
         o.writeString("g");
         o.writeVInt(2);
         writeCircle(o, 2.0);
         o.writeString("group");
         o.writeString("inner");
         o.writeVInt(1);
         writeCircle(o, 3.0);
       }},
      {"readOptionalNamedWriteable",
       [](StreamOutput& o) {
         o.writeBoolean(true);
         writeCircle(o, 4.0);
       }},
      {"readNamedWriteableCollection",
       [](StreamOutput& o) {
         o.writeVInt(2);
         writeCircle(o, 5.0);
         writeCircle(o, 6.0);
       }},
  };
  std::vector<Seed> seeds;
  for (uint8_t vb : {uint8_t{0}, uint8_t{1}}) {
    TransportVersion version = vb ? TransportVersion::V_7_10_0 : TransportVersion::V_8_7_0;
    Bytes all{vb};
    for (size_t i = 0; i < cases.size(); ++i) {
      Bytes prog{opIndex(structuredOps(), cases[i].op)};
      Bytes v = encode(cases[i].write, version);
      prog.insert(prog.end(), v.begin(), v.end());
      all.insert(all.end(), prog.begin(), prog.end());
      prog.insert(prog.begin(), vb);
      seeds.push_back(
          {std::string(cases[i].op) + "-" + std::to_string(i) + (vb ? "-v7_10" : "-v8_7"),
           std::move(prog)});
    }
    seeds.push_back({std::string("all-ops") + (vb ? "-v7_10" : "-v8_7"), std::move(all)});
  }
  for (const Seed& s : seeds) {
    ByteArrayStreamInput in(std::span<const uint8_t>(s.bytes).subspan(1));
    in.setTransportVersion(s.bytes[0] ? TransportVersion::V_7_10_0 : TransportVersion::V_8_7_0);
    ProgramResult r = runProgram(structuredOps(), in, std::span<const uint8_t>(s.bytes).subspan(1));
    if (!r.error.empty()) {
      std::fprintf(stderr, "make_seeds: seed %s fails: %s\n", s.name.c_str(), r.error.c_str());
      std::exit(1);
    }
  }
  return seeds;
}

// Version byte (% 3: 7.10.0, 7.17.0, 8.7.0), then an InternalAggregations:
// one of every type (random but seeded, with sub-aggregations), and a mix.
std::vector<Seed> aggregationSeeds() {
  using namespace wirestream::aggregations;
  using aggregations::testing::RandomAggs;
  std::vector<Seed> seeds;
  for (uint8_t vb = 0; vb < kVersionBytes; ++vb) {
    const TransportVersion v = versionFromByte(vb);
    uint64_t seed = 8 + vb;
    for (const std::string& type : aggregations::testing::kAllTypes) {
      RandomAggs random(seed++, v);
      InternalAggregations aggs;
      aggs.add(random.agg(type, type == "cardinality" ? 0 : 2));
      Bytes b{vb};
      Bytes e = aggregations::testing::writeAggs(aggs, v);
      b.insert(b.end(), e.begin(), e.end());
      if (b.size() > 4096) continue;  // keep the corpus small and fast
      seeds.push_back({type + "-" + versionNameFromByte(vb), std::move(b)});
    }
    RandomAggs random(seed, v);
    Bytes b{vb};
    Bytes e = aggregations::testing::writeAggs(random.aggs(1), v);
    b.insert(b.end(), e.begin(), e.end());
    seeds.push_back({std::string("mixed-") + versionNameFromByte(vb), std::move(b)});
  }
  return seeds;
}

// Version byte (% 3: 7.10.0, 8.0.0, 8.7.0), then wire JSON text: every type
// (random, with sub-aggregations) as `wirestream decode` prints it, and the
// inputs `encode` refuses: nesting past the parser's limit, a duplicate key,
// a wide object, malformed text.
std::vector<Seed> wireJsonSeeds() {
  using namespace wirestream::aggregations;
  using aggregations::testing::RandomAggs;
  std::vector<Seed> seeds;
  auto add = [&](const std::string& name, uint8_t vb, const std::string& text) {
    Bytes b{vb};
    b.insert(b.end(), text.begin(), text.end());
    seeds.push_back({name, std::move(b)});
  };
  uint64_t seed = 40;
  for (const std::string& type : aggregations::testing::kAllTypes) {
    RandomAggs random(seed++, TransportVersion::V_8_7_0);
    InternalAggregations aggs;
    aggs.add(random.agg(type, type == "cardinality" ? 0 : 2));
    std::string text =
        toWireJson(aggs).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    if (text.size() > 4096) continue;  // keep the corpus small and fast
    // Checked the way the target reads it: every seed must parse.
    (void)cli::aggregationsFromWireJsonText(text);
    add(type, 2, text);
  }
  add("deep", 2,
      std::string(cli::kMaxJsonNesting + 1, '[') + std::string(cli::kMaxJsonNesting + 1, ']'));
  add("duplicate-key", 2,
      R"([{"type":"max","name":"a","metadata":null,"format":"raw","value":1,"value":2}])");
  std::string wide = R"([{"type":"max","name":"a","metadata":null,"format":"raw","value":1)";
  for (int i = 0; i < 100; ++i) wide += ",\"k" + std::to_string(i) + "\":" + std::to_string(i);
  add("wide", 0, wide + "}]");
  add("malformed", 1, R"([{"type":"max","name":"a\u12)");
  return seeds;
}

// Slicing byte, then a connection's byte stream: single frames of every kind
// (request, response, error, handshake, compressed, ping) and a stream of all.
std::vector<Seed> transportSeeds() {
  namespace tr = wirestream::transport;
  struct Body final : Writeable {
    std::string text;
    void writeTo(StreamOutput& out) const override { out.writeString(text); }
  };
  Body small;
  small.text = "hello";
  Body big;
  big.text = std::string(300, 'z');
  const tr::RequestHeaders req_headers = {{"trace", "abc"}};
  const tr::ResponseHeaders resp_headers = {{"warning", {"w1", "w2"}}};
  auto frame = [](const std::function<void(BytesStreamOutput&)>& w) {
    BytesStreamOutput out;
    w(out);
    return out.bytes().toVector();
  };
  std::vector<std::pair<std::string, Bytes>> frames = {
      {"request", frame([&](BytesStreamOutput& o) {
         tr::writeRequestFrame(o, {7, kSeedVersion, false}, "indices:data/read", {}, small,
                               tr::CompressionScheme::kNone);
       })},
      {"request-headers", frame([&](BytesStreamOutput& o) {
         tr::writeRequestFrame(o, {8, TransportVersion::V_7_10_0, false}, "a", req_headers, small,
                               tr::CompressionScheme::kNone);
       })},
      {"response", frame([&](BytesStreamOutput& o) {
         tr::writeResponseFrame(o, {9, kSeedVersion, false}, resp_headers, small,
                                tr::CompressionScheme::kNone);
       })},
      {"error", frame([&](BytesStreamOutput& o) {
         tr::writeErrorFrame(o, {10, kSeedVersion, false},
                             *tr::wrapInRemoteTransport("n", "127.0.0.1:9300", "a",
                                                        tr::exceptionFromTypeAndMessage(
                                                            "illegal_argument_exception", "bad")));
       })},
      {"error-breaker-7.17", frame([&](BytesStreamOutput& o) {
         const tr::CircuitBreakingError breaker(tr::inFlightBreakerMessage("a", 2048, 1024), 2048,
                                                1024,
                                                tr::CircuitBreakingError::Durability::kTransient);
         tr::writeErrorFrame(
             o, {14, TransportVersion::fromRelease(7, 17, 0), false},
             *tr::wrapInRemoteTransport("n", "127.0.0.1:9300", "a", breaker.remoteException()));
       })},
      {"handshake", frame([&](BytesStreamOutput& o) {
         tr::writeRequestFrame(o, {11, kSeedVersion, true}, tr::kHandshakeAction, {}, small,
                               tr::CompressionScheme::kNone);
       })},
      {"compressed-request", frame([&](BytesStreamOutput& o) {
         tr::writeRequestFrame(o, {12, kSeedVersion, false}, "b", {}, big,
                               tr::CompressionScheme::kLz4);
       })},
      {"compressed-deflate-request", frame([&](BytesStreamOutput& o) {
         tr::writeRequestFrame(o, {15, kSeedVersion, false}, "c", {}, big,
                               tr::CompressionScheme::kDeflate);
       })},
      {"handshake-es-8.7", frame([&](BytesStreamOutput& o) {
         const tr::TcpHandshakeRequest request{TransportVersion::V_8_7_0};
         tr::writeRequestFrame(o, {16, tr::kV7_17_0, true}, tr::kHandshakeAction, {},
                               tr::BodyOf(request), tr::CompressionScheme::kNone);
       })},
      {"compressed-response", frame([&](BytesStreamOutput& o) {
         tr::writeResponseFrame(o, {13, kSeedVersion, false}, {}, big, tr::CompressionScheme::kLz4);
       })},
      {"ping", Bytes(std::begin(tr::kPingFrame), std::end(tr::kPingFrame))},
  };
  std::vector<Seed> seeds;
  Bytes all{0x35};
  for (auto& [name, bytes] : frames) {
    Bytes b{0x00};
    b.insert(b.end(), bytes.begin(), bytes.end());
    all.insert(all.end(), bytes.begin(), bytes.end());
    seeds.push_back({name, std::move(b)});
  }
  seeds.push_back({"stream-of-all", std::move(all)});
  return seeds;
}

// TSM blocks: a kind byte (0 float, 1 integer, 2 unsigned, 3 timestamp,
// 4 boolean, 5 string), then the block; every encoding of every kind.
std::vector<Seed> tsmSeeds() {
  std::vector<Seed> seeds;
  auto add = [&](const std::string& name, uint8_t kind, const Bytes& block) {
    Bytes b{kind};
    b.insert(b.end(), block.begin(), block.end());
    seeds.push_back({name, std::move(b)});
  };
  Bytes block;
  using namespace wirestream::tsm;
  const std::vector<double> floats = {1.0, 1.0, 3.0, 2.0, -0.0, 5e-324, 1e308, -2.5, 0.1, 0.2};
  encodeFloatArray(floats, block);
  add("float", 0, block);
  encodeFloatArray(std::span<const double>(), block);
  add("float-empty", 0, block);
  std::vector<std::pair<std::string, std::vector<int64_t>>> ints = {
      {"one", {5}},
      {"rle", {0, 3, 6, 9, 12}},
      {"simple8b", {1, 1, 3, 2, 100, 5000, 1, 0, -7, 1 << 20}},
      {"uncompressed", {0, int64_t{1} << 62, -5}},
      {"seconds", {0, 1000000000, 2000000000, 4000000000, 5000000000}},
  };
  std::vector<int64_t> ones(300);
  for (size_t i = 0; i < ones.size(); ++i) ones[i] = int64_t(i / 2 + i % 7 / 6);
  ints.push_back({"runs", ones});
  for (const auto& [name, v] : ints) {
    encodeIntegerArray(v, block);
    add("integer-" + name, 1, block);
    std::vector<uint64_t> u(v.begin(), v.end());
    encodeUnsignedArray(u, block);
    add("unsigned-" + name, 2, block);
    encodeTimeArray(v, block);
    add("timestamp-" + name, 3, block);
  }
  std::vector<bool> bools = {true, false, true, true, false, false, true, false, true};
  encodeBooleanArray(bools, block);
  add("boolean", 4, block);
  std::vector<std::string> strings = {"", "a", "bc", "cpu,host=a", "cpu,host=a", "cpu,host=b"};
  encodeStringArray(strings, block);
  add("string", 5, block);
  return seeds;
}

// Version byte (% 3: 7.10.0, 7.17.0, 8.7.0), then a columnar list
// (aggregations/columnar.h): each of the four bucket types with metric
// sub-aggregations of one shape (a NaN among the doubles, counts equal to the
// doc counts and not), and a random list beside them in the ES encoding.
std::vector<Seed> columnarSeeds() {
  using namespace wirestream::aggregations;
  using aggregations::testing::RandomAggs;
  std::vector<Seed> seeds;
  auto subs = [](int64_t i) {
    std::vector<InternalAggregations::Ptr> s;
    s.push_back(std::make_unique<Avg>("avg", Metadata(), double(i) * 1.25, i + 1));
    s.push_back(std::make_unique<Max>(
        "max", Metadata(), i == 3 ? std::numeric_limits<double>::quiet_NaN() : double(i)));
    s.push_back(std::make_unique<ValueCount>("n", Metadata(), i % 3));
    s.push_back(std::make_unique<Stats>("s", Metadata(), i + 1, -1.0, double(i), 2.5));
    return InternalAggregations(std::move(s));
  };
  for (uint8_t vb = 0; vb < kVersionBytes; ++vb) {
    const TransportVersion v = versionFromByte(vb);
    InternalAggregations aggs;
    auto dh = std::make_unique<DateHistogram>("dh", Metadata());
    auto h = std::make_unique<Histogram>("h", Metadata());
    auto lt = std::make_unique<LongTerms>("lt", Metadata());
    auto dt = std::make_unique<DoubleTerms>("dt", Metadata());
    lt->setShowTermDocCountError(true);
    for (int64_t i = 0; i < 6; ++i) {
      dh->buckets().push_back({1793491200000 + i * 60000, i + 1, subs(i)});
      h->buckets().push_back({double(i) * 0.5, i + 1, subs(i)});
      lt->buckets().push_back({100 - i, i + 1, i % 2, subs(i)});
      dt->buckets().push_back({double(i) / 3, i + 1, 0, subs(i)});
    }
    aggs.add(std::move(dh));
    aggs.add(std::move(h));
    aggs.add(std::move(lt));
    aggs.add(std::move(dt));
    RandomAggs random(40 + vb, v);
    InternalAggregations others = random.aggs(1);
    for (const auto& a : others.list()) {
      auto c = a->clone();
      c->setName("other " + c->getName());
      aggs.add(std::move(c));
    }
    Bytes b{vb};
    Bytes e = encode([&](StreamOutput& out) { columnar::writeAggregations(out, aggs); }, v);
    b.insert(b.end(), e.begin(), e.end());
    if (b.size() > 16384) b.resize(16384);  // a cut input is a seed too
    seeds.push_back({std::string("four-types-") + versionNameFromByte(vb), std::move(b)});
  }
  return seeds;
}

void writeCorpus(const std::filesystem::path& dir, const std::vector<Seed>& seeds) {
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const Seed& s : seeds) {
    std::ofstream f(dir / (s.name + ".bin"), std::ios::binary);
    f.write(reinterpret_cast<const char*>(s.bytes.data()),
            static_cast<std::streamsize>(s.bytes.size()));
  }
  std::printf("%s: %zu seeds\n", dir.c_str(), seeds.size());
}

}  // namespace
}  // namespace wirestream::fuzz

int main(int argc, char** argv) {
  using namespace wirestream::fuzz;
  std::filesystem::path root;
  if (argc > 1) {
    root = argv[1];
  } else if (const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY")) {
    root = std::filesystem::path(ws) / "fuzz" / "corpus";
  } else {
    std::fprintf(stderr, "usage: make_seeds DIR (or bazel run //fuzz:make_seeds)\n");
    return 2;
  }
  writeCorpus(root / "stream_input", coreSeeds());
  writeCorpus(root / "paged_input", pagedSeeds());
  writeCorpus(root / "structured", structuredSeeds());
  writeCorpus(root / "generic_value", genericValueSeeds());
  writeCorpus(root / "aggregations", aggregationSeeds());
  writeCorpus(root / "transport", transportSeeds());
  writeCorpus(root / "tsm", tsmSeeds());
  writeCorpus(root / "columnar", columnarSeeds());
  writeCorpus(root / "wire_json", wireJsonSeeds());
  return 0;
}
