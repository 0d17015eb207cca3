// ES's QuerySearchResult: what a data node answers to the query phase
// (`indices:data/read/search[phase/query]`), read as ES 7.7 to 8.7, 8.19 and 9.5 read it. The
// aggregations arrive as their own bytes (ES's DelayableWriteable) and are read
// at once by //aggregations' readers; the node's copy of the request by
// search_request.h's. Used by query_phase.h; fuzzed by //fuzz:search_replay.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "aggregations/internal_aggregation.h"
#include "search/search_request.h"
#include "stream/stream_input.h"
#include "stream/structured/named_writeable_registry.h"

namespace wirestream::search {

// ES's QuerySearchResult as a data node sends it back (the delayed
// aggregations' form: their bytes, read here at once).
struct QuerySearchResult {
  bool is_null = false;  // the shard matched nothing and said so (7.7+)
  ShardSearchContextId context_id;
  int32_t from = 0;
  int32_t size = 0;
  int64_t total_hits = 0;
  int32_t total_hits_relation = 0;  // 0 EQUAL_TO, 1 GREATER_THAN_OR_EQUAL_TO
  float max_score = 0;
  std::vector<std::pair<int32_t, float>> score_docs;  // doc, score
  std::optional<aggregations::InternalAggregations> aggregations;
  bool timed_out = false;
  std::optional<bool> terminated_early;
  int64_t service_time_ewma = 0;
  int32_t node_queue_size = 0;
  std::optional<ShardSearchRequest> shard_request;  // the node's copy (7.10+)
  std::map<int32_t, std::set<int32_t>> rescore_doc_ids;
  // ES's batched query phase's flag (from BATCHED_QUERY_PHASE_VERSION; 8.19.x from 8841019).
  bool reduced = false;
  // 9.x (TIMESTAMP_RANGE_TELEMETRY): the optional long ES writes after it (null here).
  std::optional<int64_t> timestamp_range_telemetry;

  // What ES's hasSearchContext says: the node keeps the shard's reader for a
  // fetch phase (score docs, here never with size 0), to be freed.
  bool hasSearchContext() const { return !score_docs.empty(); }

  // Sorted (field) top docs, suggestions and profiles are
  // UnsupportedWireValueError; malformed bytes are StreamError.
  static QuerySearchResult readFrom(StreamInput& in, const NamedWriteableRegistry& registry);
};

}  // namespace wirestream::search
