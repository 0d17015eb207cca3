#include "search/query_search_result.h"

#include <limits>
#include <string>
#include <vector>

#include "stream/bytes_reference.h"
#include "stream/errors.h"
#include "transport/compression.h"

namespace wirestream::search {
namespace {

constexpr TransportVersion kV7_7_0 = TransportVersion::fromRelease(7, 7, 0);

// ES's batched query phase (its `supports`: every version from 9043000, 8.19's patch line
// from 8841019): the context id and the top docs become optional, and a `reduced` flag ends
// the result.
// Whether the aggregations travel as ES's DelayableWriteable writes them from 9.x: an int
// (compressed length), a VLong (uncompressed length), then "DFL\0" and raw DEFLATE.
bool compressedWithSize(TransportVersion v) {
  return v.onOrAfter(TransportVersion::DELAYABLE_WRITEABLE_UNCOMPRESSED_SIZE) ||
         v.isPatchFrom(TransportVersion::DELAYABLE_WRITEABLE_UNCOMPRESSED_SIZE_9_3) ||
         v.isPatchFrom(TransportVersion::DELAYABLE_WRITEABLE_UNCOMPRESSED_SIZE_9_2);
}

// The aggregations' own bytes, as the data node wrote them (DelayableWriteable).
std::vector<uint8_t> aggregationBytes(StreamInput& in) {
  const TransportVersion v = in.transportVersion();
  if (compressedWithSize(v)) {
    const int32_t compressed = in.readInt();
    const int64_t plain = in.readVLong();
    if (compressed < 0 || static_cast<size_t>(compressed) > in.available()) {
      internal::throwCorrupt("query result: aggregations of " + std::to_string(compressed) +
                             " compressed bytes");
    }
    if (plain < 0 || plain > std::numeric_limits<int32_t>::max()) {
      internal::throwCorrupt("query result: aggregations of " + std::to_string(plain) + " bytes");
    }
    std::vector<uint8_t> bytes(static_cast<size_t>(compressed));
    in.readBytes(bytes);
    transport::CompressionScheme scheme = transport::CompressionScheme::kNone;
    std::vector<uint8_t> out =
        transport::decompressBody(bytes, static_cast<size_t>(plain), &scheme);
    if (out.size() != static_cast<size_t>(plain)) {
      internal::throwCorrupt("query result: aggregations inflate to " + std::to_string(out.size()) +
                             " bytes, not " + std::to_string(plain));
    }
    return out;
  }
  if (v.onOrAfter(TransportVersion::COMPRESS_DELAYABLE_WRITEABLE)) {
    throw UnsupportedWireValueError(
        "query result: aggregations in 9.0 to 9.3's compressed form (before "
        "DELAYABLE_WRITEABLE_UNCOMPRESSED_SIZE)");
  }
  return in.readBytesReference().toVector();
}

bool batched(TransportVersion v) {
  return v.onOrAfter(TransportVersion::BATCHED_QUERY_PHASE_VERSION) ||
         v.isPatchFrom(TransportVersion::BATCHED_QUERY_PHASE_VERSION_8_19);
}

}  // namespace

QuerySearchResult QuerySearchResult::readFrom(StreamInput& in,
                                              const NamedWriteableRegistry& registry) {
  QuerySearchResult r;
  if (in.transportVersion().onOrAfter(kV7_7_0)) r.is_null = in.readBoolean();
  if (r.is_null) return r;
  const bool batched_version = batched(in.transportVersion());
  if (!batched_version || in.readBoolean()) r.context_id = ShardSearchContextId::readFrom(in);
  r.from = in.readVInt();
  r.size = in.readVInt();
  if (in.readVInt() != 0) throw UnsupportedWireValueError("query result: sort value formats");
  if (batched_version && !in.readBoolean()) {
    throw UnsupportedWireValueError("query result: no top docs");
  }
  const uint8_t top_docs_type = in.readByte();
  if (top_docs_type != 0) {
    throw UnsupportedWireValueError("query result: top docs of type " +
                                    std::to_string(top_docs_type) + " (sorted or collapsed)");
  }
  r.total_hits = in.readVLong();
  r.total_hits_relation = in.readVInt();
  if (r.total_hits_relation < 0 || r.total_hits_relation > 1) {
    internal::throwCorrupt("TotalHits.Relation ordinal " + std::to_string(r.total_hits_relation));
  }
  r.max_score = in.readFloat();
  const int32_t docs = in.readArraySize();
  for (int32_t i = 0; i < docs; ++i) {
    int32_t doc = in.readVInt();
    float score = in.readFloat();
    r.score_docs.emplace_back(doc, score);
  }
  if (in.readBoolean()) {
    // The aggregations travel as their own bytes (ES's DelayableWriteable).
    std::vector<uint8_t> v = aggregationBytes(in);
    ByteArrayStreamInput sub(v);
    sub.setTransportVersion(in.transportVersion());
    r.aggregations = aggregations::InternalAggregations::readFrom(sub, registry);
    if (sub.position() != v.size()) {
      internal::throwCorrupt("query result: aggregations read " + std::to_string(sub.position()) +
                             " of their " + std::to_string(v.size()) + " bytes");
    }
  }
  if (in.readBoolean()) throw UnsupportedWireValueError("query result: suggest");
  r.timed_out = in.readBoolean();
  r.terminated_early = in.readOptionalBoolean();
  if (in.readBoolean()) throw UnsupportedWireValueError("query result: profile");
  r.service_time_ewma = in.readZLong();
  r.node_queue_size = in.readInt();
  if (in.transportVersion().onOrAfter(TransportVersion::V_7_10_0)) {
    if (in.readBoolean()) {
      // The node's copy of the request, as a TransportRequest: its parent TaskId first.
      if (!in.readString().empty()) (void)in.readLong();
      r.shard_request = ShardSearchRequest::readFrom(in);
    }
    const int32_t n = in.readArraySize();
    for (int32_t i = 0; i < n; ++i) {
      int32_t key = in.readVInt();
      std::set<int32_t>& docs_of = r.rescore_doc_ids[key];
      const int32_t m = in.readArraySize();
      for (int32_t k = 0; k < m; ++k) docs_of.insert(in.readVInt());
    }
  }
  if (in.transportVersion().onOrAfter(TransportVersion::V_8_8_0) && in.readBoolean()) {
    throw UnsupportedWireValueError("query result: rank shard result");
  }
  if (batched_version) r.reduced = in.readBoolean();
  if (in.transportVersion().onOrAfter(TransportVersion::TIMESTAMP_RANGE_TELEMETRY)) {
    r.timestamp_range_telemetry = in.readOptionalLong();
  }
  if (in.transportVersion().onOrAfter(TransportVersion::SEARCH_PHASE_BYTES_READ) &&
      in.readVInt() != 0) {
    throw UnsupportedWireValueError("query result: directory metrics");
  }
  return r;
}

}  // namespace wirestream::search
