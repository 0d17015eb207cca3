// Internal to //aggregations/json: each file's codecs, added to a registry by
// registerAggregationJson (aggregation_json.cc).
#pragma once

#include "aggregations/json/aggregation_json.h"

namespace wirestream::aggregations {

void registerTermsJson(AggregationJsonRegistry& registry);      // sterms, lterms, dterms
void registerHistogramJson(AggregationJsonRegistry& registry);  // histogram, date_histogram
void registerMetricsJson(AggregationJsonRegistry& registry);    // the metrics, cardinality

}  // namespace wirestream::aggregations
