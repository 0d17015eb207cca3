// WireEnumTraits: what writeEnum / readEnum need to know about an enum.
//
// Example (declares: wire_enum):
//   #include "stream/bytes_stream_output.h"
//   #include "stream/structured/structured_stream.h"
//   enum class Color { kRed, kGreen, kBlue };
//   template <>
//   struct WireEnumTraits<Color> {  // in namespace wirestream
//     static constexpr std::string_view kName = "Color";
//     static constexpr int32_t kCount = 3;
//   };
//   void sendColor(StreamOutput& out) { writeEnum(out, Color::kGreen); }  // 01
//   Color receiveColor(StreamInput& in) {
//     return readEnum<Color>(in);  // 03 -> CorruptStreamError "Unknown Color ordinal [3]"
//   }
//
// As in Elasticsearch, an enum travels as its ordinal (a VInt), so the
// enumerators must be 0 .. kCount-1 in declaration order, and appending is the
// only compatible change. kName is what errors call the enum. Stateless.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>

namespace wirestream {

template <typename E>
struct WireEnumTraits;  // specialize for each enum that goes on the wire

template <typename E>
concept WireEnum = std::is_enum_v<E> && requires {
  { WireEnumTraits<E>::kName } -> std::convertible_to<std::string_view>;
  { WireEnumTraits<E>::kCount } -> std::convertible_to<int32_t>;
};

namespace internal {

// CorruptStreamError "Unknown <name> ordinal [n]".
[[noreturn, gnu::cold]] void throwUnknownOrdinal(std::string_view enum_name, int64_t ordinal);

}  // namespace internal
}  // namespace wirestream
