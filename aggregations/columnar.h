// The columnar encoding of aggregation results (wire format §10, "Columnar
// aggregations"): a wirestream extension that sends the buckets of a
// histogram, date_histogram, lterms or dterms aggregation as TSM blocks, one
// block a column (keys, doc counts, each metric sub-aggregation's values),
// instead of bucket after bucket. An Elasticsearch node cannot read it: send
// it only to a peer that negotiated it (transport/features.h).
//
// Example (runs: columnar):
//   #include <cassert>
//   #include "aggregations/registry.h"
//   #include "aggregations/terms.h"
//   #include "stream/bytes_stream_output.h"
//   auto years = std::make_unique<LongTerms>("years", Metadata());
//   years->buckets().push_back({2024, /*doc_count=*/7, /*doc_count_error=*/0, {}});
//   InternalAggregations aggs;
//   aggs.add(std::move(years));
//   BytesStreamOutput out;
//   columnar::writeAggregations(out, aggs);       // instead of aggs.writeTo(out)
//   BytesReferenceStreamInput in(out.bytes());
//   InternalAggregations back = columnar::readAggregations(in, defaultRegistry());
//   assert(back == aggs);  // the objects InternalAggregations::readFrom gives for ES bytes
//
// Which aggregations go in columns: those of the four types above with at
// least one bucket whose buckets all carry the same list of sub-aggregations
// (same types, names, metadata and formats in the same order), each a max,
// min, sum, avg, value_count or stats. Every other aggregation in the list,
// and every sub-aggregation list of any other shape, travels in its ES
// encoding inside the columnar list, so any InternalAggregations can be
// written. A histogram's or date_histogram's metric columns are written from
// and read into its bucket columns (histogram_buckets.h) as they are: reading
// one builds no object per bucket. Writing throws what writeTo throws for the same objects
// (std::invalid_argument for a negative count, a minDocCount 0 histogram
// without its empty bucket info).
//
// Reading takes untrusted input. Besides the errors of the ES readers (the
// aggregation's own fields are read by them) and of the TSM block readers
// (tsm/tsm_stream.h), a column whose value count is not the bucket count,
// an unknown column encoding or sub-aggregation type, a negative count, a
// name twice in one list (the top level or a bucket's sub-aggregations, as the
// ES reader refuses it), or a shell that already holds buckets is
// CorruptStreamError. TSM blocks can hold many values in a few bytes (RLE),
// so the bytes cannot bound what a read builds: one budget,
// Limits::max_objects, covers the whole list (a response), charged as each
// count is read and before what it counts is allocated: the buckets, then one
// object a sub-aggregation a bucket, then each sub-aggregation's extra weight
// as its header is read. Past it, or with a bucket count above
// in.maxArraySize(), the read throws LimitExceededError naming the count and
// the limit. Aggregations in the ES encoding inside the list are bounded by
// their bytes, as InternalAggregations::readFrom, and do not count. A read
// that throws hands back nothing.
//
// Thread-safe functions. Each thread keeps its column buffers between calls
// (a fresh 8 MB vector a column costs more in page faults than decoding it);
// buffers above 2^20 values are freed at the end of each call.
#pragma once

#include <cstdint>

#include "aggregations/internal_aggregation.h"
#include "stream/stream_input.h"
#include "stream/stream_output.h"
#include "stream/structured/named_writeable_registry.h"
#include "stream/structured/structured_stream.h"

namespace wirestream::aggregations::columnar {

struct Limits {
  // Buckets and sub-aggregation objects one response (one readAggregations)
  // may create, summed over its columnar aggregations: n x (1 + sub-
  // aggregations per bucket) each, where a bucket's copy of a sub-aggregation
  // counts one more a 64 bytes of memory it takes beyond that: its copy of
  // the name and format (a byte a wire byte; the metadata is shared among
  // the copies) and, in terms buckets, the metric object itself (a histogram
  // keeps the values in columns). An object is so at most ~64 bytes: 2^20
  // hold at most ~64 MB (16 MB as histogram columns), no column above 8 MiB,
  // and decode in well under a second (16 x search.max_buckets' default of
  // 65,536). Was 2^23 an aggregation.
  int64_t max_objects = int64_t{1} << 20;
};

// VInt count, then each aggregation tagged 00 (ES encoding) or 01 (columns).
void writeAggregations(StreamOutput& out, const InternalAggregations& aggs);
InternalAggregations readAggregations(StreamInput& in, const NamedWriteableRegistry& registry,
                                      const Limits& limits = {});

// Whether writeAggregations puts `agg` in columns.
bool isColumnar(const InternalAggregation& agg);

}  // namespace wirestream::aggregations::columnar
