// Fuzz target: the CLI's JSON -> wire path (tools/wire_json.h), what
// `wirestream encode` runs on a file: parseJsonLimited (SAX, nesting bounded
// while parsing, duplicate keys refused), aggregationsFromWireJson, then writeTo. Input:
// one version byte (% 3: 7.10.0, 8.0.0, 8.7.0), then the JSON text.
//
// Only StreamError may end an input early. What parses is checked:
//   - its bytes are a fixed point: encode(decode(encode(x))) == encode(x);
//   - the streamed JSON of `decode` (writeWireJson) is byte for byte
//     toWireJson(aggs).dump(2), and reading it back gives an == list: the wire
//     JSON is lossless;
//   - the streamed response JSON of `reduce` (writeResponseJson) is byte for
//     byte toResponseJson(aggs).dump(2).
#include <cstdint>
#include <span>
#include <sstream>
#include <string>
#include <string_view>

#include "aggregations/internal_aggregation.h"
#include "aggregations/json/aggregation_json.h"
#include "aggregations/registry.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/program.h"
#include "stream/bytes_stream_output.h"
#include "stream/errors.h"
#include "tools/wire_json.h"

namespace {

using namespace wirestream;
using aggregations::InternalAggregations;
using json = nlohmann::ordered_json;

std::vector<uint8_t> write(const InternalAggregations& aggs, TransportVersion v) {
  BytesStreamOutput out;
  out.setTransportVersion(v);
  aggs.writeTo(out);
  return out.bytes().toVector();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const TransportVersion version = fuzz::versionFromByte(data[0]);
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);

  InternalAggregations aggs;
  std::vector<uint8_t> bytes;
  try {
    aggs = cli::aggregationsFromWireJsonText(text);
    bytes = write(aggs, version);
  } catch (const StreamError&) {
    return 0;
  } catch (const std::invalid_argument&) {
    // What the writers refuse of a list built in code (a value out of the
    // wire's range at this version): `encode` reports it as "cannot encode".
    return 0;
  }

  ByteArrayStreamInput in(bytes);
  in.setTransportVersion(version);
  InternalAggregations back = InternalAggregations::readFrom(in, aggregations::defaultRegistry());
  FUZZ_CHECK(in.available() == 0, "encoding has %zu bytes left", in.available());
  FUZZ_CHECK(write(back, version) == bytes, "encode(decode(encode(x))) != encode(x): %s",
             fuzz::hexPrefix(bytes).c_str());

  std::string whole = toWireJson(aggs).dump(2, ' ', false, json::error_handler_t::replace);
  // Batches of 1 and 2 buckets stream what small inputs hold; the default
  // renders them whole.
  for (size_t batch : {size_t{1}, size_t{2}, cli::kBucketBatch}) {
    std::ostringstream streamed;
    cli::writeWireJson(streamed, aggs, batch);
    FUZZ_CHECK(streamed.str() == whole,
               "streamed JSON (batch %zu) differs from dump(2):\n%s\n---\n%s", batch,
               streamed.str().substr(0, 2000).c_str(), whole.substr(0, 2000).c_str());
  }
  // So is the streamed response JSON of `reduce` (writeResponseJson).
  std::string response = toResponseJson(aggs).dump(2, ' ', false, json::error_handler_t::replace);
  for (size_t batch : {size_t{1}, size_t{2}, cli::kBucketBatch}) {
    std::ostringstream streamed;
    cli::writeResponseJson(streamed, aggs, batch);
    FUZZ_CHECK(streamed.str() == response,
               "streamed response (batch %zu) differs from dump(2):\n%s\n---\n%s", batch,
               streamed.str().substr(0, 2000).c_str(), response.substr(0, 2000).c_str());
  }
  InternalAggregations again = cli::aggregationsFromWireJsonText(whole);
  FUZZ_CHECK(again == aggs, "the wire JSON does not read back: %s", whole.substr(0, 2000).c_str());
  return 0;
}
