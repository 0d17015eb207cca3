// The "aggs" requests of runner.h: aggregation results as a shard writes them.
//
//   request  {"es_hex": HEX, "spec": WIRE_JSON}
//            es_hex: ES's InternalAggregations.writeTo at "version"; spec: the wire JSON
//            (docs/cli.md) of the same ES object, built by the harness from ES's object
//   answer   {"rewrite_hex": HEX, "json": WIRE_JSON, "json_hex": HEX, "encode_hex": HEX}
//            or "decode_error" / "encode_error" / "spec_error": WHY
//
// rewrite_hex is what wirestream read, written again; json is its wire JSON (docs/cli.md,
// what `wirestream decode` prints); json_hex is that JSON parsed and written, the
// `wirestream encode` path; encode_hex is the request's spec parsed and written.
#include <sstream>
#include <string>
#include <typeinfo>

#include "aggregations/internal_aggregation.h"
#include "aggregations/json/aggregation_json.h"
#include "aggregations/registry.h"
#include "interop/runner/runner.h"
#include "stream/bytes_stream_output.h"
#include "stream/stream_input.h"
#include "stream/transport_version.h"
#include "tools/wire_json.h"

namespace wirestream::interop {
namespace {

std::string why(const std::exception& e) { return std::string(typeid(e).name()) + ": " + e.what(); }

std::string write(const aggregations::InternalAggregations& aggs, TransportVersion version) {
  BytesStreamOutput out;
  out.setTransportVersion(version);
  aggs.writeTo(out);
  std::vector<uint8_t> b = out.bytes().toVector();
  return toHex({reinterpret_cast<const char*>(b.data()), b.size()});
}

}  // namespace

Json runAggs(const Json& request) {
  const TransportVersion version(request.at("version").get<int32_t>());
  std::string es = fromHex(request.at("es_hex").get<std::string>());
  Json answer = Json::object();
  aggregations::InternalAggregations aggs;
  try {
    ByteArrayStreamInput in({reinterpret_cast<const uint8_t*>(es.data()), es.size()});
    in.setTransportVersion(version);
    aggs = aggregations::InternalAggregations::readFrom(in, aggregations::defaultRegistry());
    if (in.position() != es.size()) {
      throw std::runtime_error("read " + std::to_string(in.position()) + " of " +
                               std::to_string(es.size()) + " bytes");
    }
    answer["rewrite_hex"] = write(aggs, version);
  } catch (const std::exception& e) {
    answer["decode_error"] = why(e);
    return answer;
  }
  try {
    std::ostringstream text;
    cli::writeWireJson(text, aggs);
    answer["json"] = Json::parse(text.str());
    answer["json_hex"] = write(cli::aggregationsFromWireJsonText(text.str()), version);
  } catch (const std::exception& e) {
    answer["encode_error"] = why(e);
    return answer;
  }
  try {
    answer["encode_hex"] =
        write(cli::aggregationsFromWireJsonText(request.at("spec").dump()), version);
  } catch (const std::exception& e) {
    answer["spec_error"] = why(e);
  }
  return answer;
}

}  // namespace wirestream::interop
