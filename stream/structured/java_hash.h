// Java's hash order, for bytes that follow it: where ES writes a
// java.util.HashMap (a generic map, tag 10) or walks one, the order of its
// entries is that of the map's table, which these reproduce.
//
// Example (runs: java_hash):
//   std::vector<std::string_view> keys = {"alpha", "zeta"};
//   std::vector<size_t> order = javaHashMapPutOrder(keys);  // {1, 0}: "zeta" first
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace wirestream {

// java.lang.String#hashCode of UTF-8 text: 31 * h + c over its UTF-16 units
// (a supplementary character is two). A malformed byte counts as one unit of
// its own value, so any bytes give some order.
int32_t javaStringHash(std::string_view s);

// The iteration order of a `new HashMap<>()` into which `keys` (distinct) were
// put one by one in this order: by bin (the spread hash masked by the final
// table's capacity, 16 doubled whenever the size passes three quarters of it),
// then in insertion order within a bin (put appends; a resize keeps a bin's
// order). Indexes into `keys`. A bin of 8 or more keys in a table of 64 bins
// or more becomes a tree in Java, whose walk is not modelled.
std::vector<size_t> javaHashMapPutOrder(const std::vector<std::string_view>& keys);

}  // namespace wirestream
