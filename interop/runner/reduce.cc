// The "reduce" requests of runner.h: the coordinator's final reduce of shard results.
//
//   request  {"shards": [HEX, ...], "max_buckets": N}
//            each HEX one shard's InternalAggregations as ES wrote it at "version"
//   answer   {"reduced_hex": HEX, "response_json": {...}}
//            or {"reduce_error": WHY, "too_many_buckets": true|false}
//            or {"decode_error": WHY} when a shard's bytes do not read
//
// reduced_hex is InternalAggregations::reduce(shards, ReduceContext::finalReduce(N)) written
// at "version"; response_json is toResponseJson of it, what ES writes inside a search
// response's "aggregations": {...}.
#include <memory>
#include <string>
#include <typeinfo>
#include <vector>

#include "aggregations/internal_aggregation.h"
#include "aggregations/json/aggregation_json.h"
#include "aggregations/registry.h"
#include "interop/runner/runner.h"
#include "stream/bytes_stream_output.h"
#include "stream/errors.h"
#include "stream/stream_input.h"
#include "stream/transport_version.h"

namespace wirestream::interop {
namespace {

std::string why(const std::exception& e) { return std::string(typeid(e).name()) + ": " + e.what(); }

aggregations::InternalAggregations readShard(const std::string& hex, TransportVersion version) {
  std::string bytes = fromHex(hex);
  ByteArrayStreamInput in({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
  in.setTransportVersion(version);
  auto aggs = aggregations::InternalAggregations::readFrom(in, aggregations::defaultRegistry());
  if (in.position() != bytes.size()) {
    throw std::runtime_error("read " + std::to_string(in.position()) + " of " +
                             std::to_string(bytes.size()) + " bytes");
  }
  return aggs;
}

}  // namespace

Json runReduce(const Json& request) {
  const TransportVersion version(request.at("version").get<int32_t>());
  const int32_t max_buckets = request.at("max_buckets").get<int32_t>();
  Json answer = Json::object();
  std::vector<aggregations::InternalAggregations> shards;
  try {
    for (const Json& hex : request.at("shards")) {
      shards.push_back(readShard(hex.get<std::string>(), version));
    }
  } catch (const std::exception& e) {
    answer["decode_error"] = why(e);
    return answer;
  }
  std::vector<const aggregations::InternalAggregations*> lists;
  for (const auto& s : shards) lists.push_back(&s);
  aggregations::InternalAggregations reduced;
  try {
    auto context = aggregations::ReduceContext::finalReduce(max_buckets);
    context.version = version;  // reduce as ES at that version does
    reduced = aggregations::InternalAggregations::reduce(lists, context);
  } catch (const TooManyBucketsError& e) {
    answer["reduce_error"] = why(e);
    answer["too_many_buckets"] = true;
    return answer;
  } catch (const std::exception& e) {
    answer["reduce_error"] = why(e);
    answer["too_many_buckets"] = false;
    return answer;
  }
  BytesStreamOutput out;
  out.setTransportVersion(version);
  reduced.writeTo(out);
  std::vector<uint8_t> b = out.bytes().toVector();
  answer["reduced_hex"] = toHex({reinterpret_cast<const char*>(b.data()), b.size()});
  answer["response_json"] = aggregations::toResponseJson(reduced);
  return answer;
}

}  // namespace wirestream::interop
