// The wire JSON of the value types the aggregations carry (BucketOrder,
// DocValueFormat, HyperLogLogPlusPlus), and a DocValueFormat's rendering of a
// key as a JSON value. The model classes know no JSON; these are their JSON.
//
// Example (runs: model_json):
//   #include <cassert>
//   nlohmann::ordered_json o = bucketOrderToJson(BucketOrder::count(false));
//   assert(o.dump() == R"({"_count":"desc"})");
//   assert(bucketOrderFromJson(o) == BucketOrder::count(false));  // or CorruptStreamError
//   assert(formatLongJson(DocValueFormat::boolean(), 1) == true);
//
// Each *FromJson throws CorruptStreamError on anything its *ToJson does not
// write. Stateless functions; thread-safe.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "aggregations/bucket_order.h"
#include "aggregations/doc_value_format.h"
#include "aggregations/hyperloglog_plus_plus.h"

namespace wirestream::aggregations {

// {"_count":"desc"}, {"_key":"asc"}, {"path":"asc"}; compound: an array of those.
nlohmann::ordered_json bucketOrderToJson(const BucketOrder& order);
BucketOrder bucketOrderFromJson(const nlohmann::ordered_json& j);

// The name for the formats without a body, else {"name": ..., "pattern": ..., ...}.
// docValueFormatFromJson takes either.
nlohmann::ordered_json docValueFormatToJson(const DocValueFormat& format);
DocValueFormat docValueFormatFromJson(const nlohmann::ordered_json& j);

// What ES's format(long), format(double) and format(BytesRef) return, as JSON:
// a number, a boolean or a string (the "key" of a response bucket). A format
// that has no rendering for the value gives the raw rendering.
nlohmann::ordered_json formatLongJson(const DocValueFormat& format, int64_t v);
nlohmann::ordered_json formatDoubleJson(const DocValueFormat& format, double v);
nlohmann::ordered_json formatBytesJson(const DocValueFormat& format, std::string_view v);

// {"precision":p,"dense":false,"hashes":[...]} or
// {"precision":p,"dense":true,"registers":"<hex>"}; hllFromJson validates as
// HyperLogLogPlusPlus::readFrom does.
nlohmann::ordered_json hllToJson(const HyperLogLogPlusPlus& sketch);
HyperLogLogPlusPlus hllFromJson(const nlohmann::ordered_json& j);

}  // namespace wirestream::aggregations
