// The registry of every aggregation type of wire format §7 (their JSON:
// aggregations/json/aggregation_json.h).
//
// Example (runs: registry):
//   #include "aggregations/metrics.h"
//   #include "stream/bytes_stream_output.h"
//   InternalAggregations sent;
//   sent.add(std::make_unique<Sum>("total", Metadata(), 3.0));
//   BytesStreamOutput out;
//   sent.writeTo(out);
//   BytesReferenceStreamInput in(out.bytes());
//   const NamedWriteableRegistry& r = defaultRegistry();
//   InternalAggregations aggs = InternalAggregations::readFrom(in, r);
//   NamedWriteableRegistry mine;                // or add them to your own
//   registerAggregations(mine);                 // `mine` must outlive its readers' use
//
// Registered: InternalAggregation readers for sterms, lterms, dterms,
// histogram, date_histogram, max, min, sum, avg, value_count, stats, cardinality, and every
// DocValueFormat (raw, bool, date_time, decimal, geo_hash, geo_tile, ip,
// binary, unsigned_long_shifted, tsid). The readers read sub-aggregations through the
// registry they were registered in. defaultRegistry() is built once and is
// thread-safe to share.
#pragma once

#include <memory>

#include "aggregations/internal_aggregation.h"
#include "stream/structured/named_writeable_registry.h"

namespace wirestream::aggregations {

// Adds every aggregation type and every DocValueFormat to `registry`.
void registerAggregations(NamedWriteableRegistry& registry);

const NamedWriteableRegistry& defaultRegistry();

}  // namespace wirestream::aggregations
