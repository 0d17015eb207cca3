// The registry of every aggregation type of wire format §7, and the reader of
// the wire JSON that `wirestream decode` prints.
//
//   const NamedWriteableRegistry& r = defaultRegistry();
//   InternalAggregations aggs = InternalAggregations::readFrom(in, r);
//
//   NamedWriteableRegistry mine;                // or add them to your own
//   registerAggregations(mine);                 // `mine` must outlive its readers' use
//
// Registered: InternalAggregation readers for sterms, lterms, dterms,
// histogram, date_histogram, max, min, sum, avg, value_count, stats, cardinality, and every
// DocValueFormat (raw, bool, date_time, decimal, geo_hash, geo_tile, ip,
// binary, unsigned_long_shift, tsid). The readers read sub-aggregations through the
// registry they were registered in. defaultRegistry() is built once and is
// thread-safe to share.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>

#include "aggregations/internal_aggregation.h"
#include "stream/named_writeable_registry.h"

namespace wirestream::aggregations {

// Adds every aggregation type and every DocValueFormat to `registry`.
void registerAggregations(NamedWriteableRegistry& registry);

const NamedWriteableRegistry& defaultRegistry();

// One {"type": ..., "name": ...} object of the wire JSON; an unknown type is
// CorruptStreamError "Unknown NamedWriteable [InternalAggregation][type]".
std::unique_ptr<InternalAggregation> aggregationFromWireJson(const nlohmann::ordered_json& j);

}  // namespace wirestream::aggregations
