// Helpers shared by the JSON renderers of the aggregations: lossless doubles
// (JSON has no NaN or infinities) and typed field access whose failures are
// CorruptStreamError naming the field, so hand-written input (wirestream
// encode) fails like corrupt bytes do. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "aggregations/text_util.h"

namespace wirestream::aggregations::json_util {

using json = nlohmann::ordered_json;

// A finite double as a number; NaN, Infinity, -Infinity as those strings.
// Both JSON forms use it: ES's responses go through Jackson, whose default
// QUOTE_NON_NUMERIC_NUMBERS writes non-finite doubles as these strings.
json fromDouble(double v);

// The member `key` of object `j`; CorruptStreamError when absent.
const json& field(const json& j, std::string_view key);
double getDouble(const json& j, std::string_view key);
int64_t getLong(const json& j, std::string_view key);
int32_t getInt(const json& j, std::string_view key);
bool getBool(const json& j, std::string_view key);
std::string getString(const json& j, std::string_view key);
double toDouble(const json& v, std::string_view what);

// The byte helpers the JSON forms use (text_util.h).
using text_util::fromHex;
using text_util::isValidUtf8;
using text_util::toHex;
using text_util::toUtf8Lossy;

}  // namespace wirestream::aggregations::json_util
