// Helpers shared by the JSON renderers of the aggregations: lossless doubles
// (JSON has no NaN or infinities) and typed field access whose failures are
// CorruptStreamError naming the field, so hand-written input (wirestream
// encode) fails like corrupt bytes do. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

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

// Strings that are valid UTF-8 go to JSON as they are; other bytes as hex.
bool isValidUtf8(std::string_view s);
// `s` with every byte that does not start a valid UTF-8 sequence replaced by
// U+FFFD, as ES's BytesRef.utf8ToString renders a non-UTF-8 sterms key: JSON
// strings must be UTF-8 (nlohmann's dump() throws otherwise).
std::string toUtf8Lossy(std::string_view s);
std::string toHex(std::string_view bytes);
std::string fromHex(std::string_view hex);  // CorruptStreamError on bad hex

}  // namespace wirestream::aggregations::json_util
