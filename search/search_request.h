// The query phase's request as Elasticsearch's data nodes read it: the
// ShardSearchRequest of action `indices:data/read/search[phase/query]` (a
// query_then_fetch search with size 0), with its search source: a query
// (match_all, match_none, term, range) and aggregation builders (terms,
// histogram, date_histogram, avg, max, min, sum, stats, cardinality).
//
// Each piece is written as ES writes it (its writeTo, version gates included
// from 7.7 to 8.7) and read back as ES reads it; the query-phase result echoes
// the request, so the readers cover what a data node sends back (a range it
// rewrote to match_none or to open bounds). Search JSON (ES's request body)
// becomes a SearchSource with SearchSource::fromJson; what the builders do not
// model is UnsupportedSearchError naming it, never dropped.
//
// The harness compares the bytes with ES's own (interop/, coordinator check);
// docs/coordinator.md says what is supported. Value types.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "aggregations/bucket_order.h"
#include "stream/errors.h"
#include "stream/stream_input.h"
#include "stream/stream_output.h"
#include "stream/structured/generic_value.h"
#include "stream/transport_version.h"

namespace wirestream::search {

// Search JSON the builders do not model (a query, aggregation or option);
// the message names it.
class UnsupportedSearchError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A query builder on the wire (NamedWriteable: its name, then boost, _name,
// the kind's fields).
struct QueryBuilder {
  enum class Kind { kMatchAll, kMatchNone, kTerm, kRange };
  Kind kind = Kind::kMatchAll;
  float boost = 1.0f;
  std::optional<std::string> query_name;
  std::string field;              // term, range
  GenericValue value;             // term: a string travels as BytesRef, as ES converts it
  bool case_insensitive = false;  // term, from 7.10
  GenericValue from;              // range; null: open
  GenericValue to;
  bool include_lower = true;
  bool include_upper = true;
  std::optional<std::string> time_zone;  // a ZoneId's id
  std::optional<std::string> format;
  std::optional<std::string> relation;  // "intersects", "contains", "within"

  std::string writeableName() const;
  // writeNamedWriteable: the name, then the builder.
  void writeNamed(StreamOutput& out) const;
  // readNamedWriteable of a QueryBuilder; an unknown name is
  // CorruptStreamError naming it.
  static QueryBuilder readNamed(StreamInput& in);
  bool operator==(const QueryBuilder&) const = default;
};

// Bounds of histogram (double) and date_histogram (long, with their strings).
struct DoubleBounds {
  std::optional<double> min, max;
  bool operator==(const DoubleBounds&) const = default;
};
struct LongBounds {
  std::optional<int64_t> min, max;
  std::optional<std::string> min_as_str, max_as_str;
  bool operator==(const LongBounds&) const = default;
};

// An aggregation builder on the wire: name, sub-aggregations, metadata, the
// values source (field, script (never), value type hint, format, missing,
// time zone) and the type's own fields.
struct AggregationBuilder {
  std::string type;  // "terms", "histogram", "date_histogram", "avg", ...
  std::string name;
  std::vector<AggregationBuilder> subs;
  GenericValue metadata;  // null or a map
  std::optional<std::string> field;
  std::optional<std::string> format;
  GenericValue missing;
  std::optional<std::string> time_zone;
  // terms
  int32_t size = 10;
  int32_t shard_size = -1;
  int64_t min_doc_count = 1;  // histograms: 0
  int64_t shard_min_doc_count = 0;
  std::optional<std::string> execution_hint;
  bool show_term_doc_count_error = false;
  aggregations::BucketOrder order = aggregations::BucketOrder::key(true);
  // histogram / date_histogram
  bool keyed = false;
  double interval = 0;
  double offset = 0;                         // histogram
  int64_t date_offset = 0;                   // date_histogram, milliseconds
  std::optional<std::string> date_interval;  // its expression ("1d", "month")
  int32_t interval_type = 0;                 // DateIntervalWrapper: 0 none, 1 fixed, 2 calendar
  std::optional<DoubleBounds> extended_bounds, hard_bounds;
  std::optional<LongBounds> date_extended_bounds, date_hard_bounds;
  // cardinality
  std::optional<int64_t> precision_threshold;

  void writeNamed(StreamOutput& out) const;
  static AggregationBuilder readNamed(StreamInput& in);
  bool operator==(const AggregationBuilder&) const = default;
};

// SearchSourceBuilder for size-0 searches: a query and aggregations; every
// other field at ES's default (from -1, no sort, no highlight, ...).
struct SearchSource {
  std::optional<QueryBuilder> query;
  std::vector<AggregationBuilder> aggregations;  // absent when empty
  bool has_aggregations = false;
  int32_t size = 0;
  int32_t from = -1;
  std::optional<int32_t> track_total_hits_up_to;
  std::optional<int64_t> timeout_millis;
  int32_t terminate_after = 0;

  void writeTo(StreamOutput& out) const;
  // ES's reader; a field this model has no room for (a sort, a highlight, a
  // rescorer, ...) is UnsupportedWireValueError naming it.
  static SearchSource readFrom(StreamInput& in);
  // ES's search body (JSON); UnsupportedSearchError for what is not modelled,
  // std::invalid_argument for JSON ES refuses too (size above 0 is modelled
  // as unsupported: the coordinator runs no fetch phase).
  static SearchSource fromJson(const std::string& json);
  bool operator==(const SearchSource&) const = default;
};

// A field of a data node's answer this model cannot hold.
class UnsupportedWireValueError : public StreamError {
 public:
  using StreamError::StreamError;
};

struct ShardId {
  std::string index_name;
  std::string index_uuid;
  int32_t id = 0;
  void writeTo(StreamOutput& out) const;
  static ShardId readFrom(StreamInput& in);
  bool operator==(const ShardId&) const = default;
};

// IndicesOptions: the Option and WildcardStates enum sets, as ordinals.
struct IndicesOptions {
  // SearchRequest's default: ALLOW_NO_INDICES, FORBID_CLOSED_INDICES,
  // IGNORE_THROTTLED; expand OPEN.
  std::vector<int32_t> options{2, 4, 5};
  std::vector<int32_t> wildcard_states{0};
  // From 8.18 the Option set has ALLOW_SELECTORS (ordinal 7), which SearchRequest's
  // default has; written and read only at V_8_18_0 or later.
  bool allow_selectors = true;
  void writeTo(StreamOutput& out) const;
  static IndicesOptions readFrom(StreamInput& in);
  bool operator==(const IndicesOptions&) const = default;
};

struct OriginalIndices {
  std::vector<std::string> indices;
  IndicesOptions options;
  void writeTo(StreamOutput& out) const;
  static OriginalIndices readFrom(StreamInput& in);
  bool operator==(const OriginalIndices&) const = default;
};

// ShardSearchContextId: what the data node keeps for a search.
struct ShardSearchContextId {
  std::string session_id;
  int64_t id = 0;
  std::optional<std::string> searcher_id;  // from 7.12
  void writeTo(StreamOutput& out) const;
  static ShardSearchContextId readFrom(StreamInput& in);
  bool operator==(const ShardSearchContextId&) const = default;
};

// The request of `indices:data/read/search[phase/query]` (after the parent
// TaskId the transport writes).
struct ShardSearchRequest {
  ShardId shard_id;
  int8_t search_type = 1;  // QUERY_THEN_FETCH
  int32_t shard_request_index = 0;
  int32_t number_of_shards = 1;
  std::optional<SearchSource> source;
  std::vector<std::string> alias_filter_aliases;
  float index_boost = 1.0f;
  int64_t now_in_millis = 0;
  std::optional<bool> request_cache;
  std::optional<std::string> cluster_alias;
  bool allow_partial_search_results = true;
  bool can_return_null_response_if_match_no_docs = false;
  // From SHARD_RESULTS_SKIP_SHARD_SEARCH_REQUEST (9.x): the data node may leave its copy of
  // the request out of its result (ES's coordinator sets it).
  bool enable_shard_results_skip_request = true;
  std::optional<ShardSearchContextId> reader_id;
  // The version the coordinator speaks (min of its own and the channel's).
  int32_t channel_version = 0;
  int64_t wait_for_checkpoint = -2;  // UNASSIGNED_SEQ_NO
  // A TimeValue: duration and TimeUnit ordinal (30 s, SearchRequest's default).
  int64_t wait_for_checkpoints_timeout = 30;
  uint8_t wait_for_checkpoints_timeout_unit = 3;
  bool force_synthetic_source = false;
  OriginalIndices original_indices;

  static constexpr const char* kAction = "indices:data/read/search[phase/query]";
  void writeTo(StreamOutput& out) const;
  static ShardSearchRequest readFrom(StreamInput& in);
  bool operator==(const ShardSearchRequest&) const = default;
};

}  // namespace wirestream::search
