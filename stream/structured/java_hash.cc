#include "stream/structured/java_hash.h"

#include <algorithm>
#include <numeric>

namespace wirestream {

int32_t javaStringHash(std::string_view s) {
  uint32_t h = 0;
  auto unit = [&h](uint32_t u) { h = 31 * h + u; };
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<uint8_t>(s[i]);
    const size_t len = b < 0x80         ? 1
                       : (b >> 5) == 6  ? 2
                       : (b >> 4) == 14 ? 3
                       : (b >> 3) == 30 ? 4
                                        : 0;
    if (len == 0 || i + len > s.size()) {
      unit(b);
      ++i;
      continue;
    }
    uint32_t cp = len == 1 ? b : b & (0x7F >> len);
    for (size_t k = 1; k < len; ++k) cp = cp << 6 | (static_cast<uint8_t>(s[i + k]) & 0x3F);
    if (cp >= 0x10000) {
      unit(0xD800 + ((cp - 0x10000) >> 10));
      unit(0xDC00 + ((cp - 0x10000) & 0x3FF));
    } else {
      unit(cp);
    }
    i += len;
  }
  return static_cast<int32_t>(h);
}

std::vector<size_t> javaHashMapPutOrder(const std::vector<std::string_view>& keys) {
  uint64_t capacity = 16;
  while (keys.size() > capacity * 3 / 4) capacity *= 2;
  std::vector<size_t> order(keys.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::vector<uint32_t> bin(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    const auto h = static_cast<uint32_t>(javaStringHash(keys[i]));
    bin[i] = (h ^ (h >> 16)) & static_cast<uint32_t>(capacity - 1);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return bin[a] < bin[b]; });
  return order;
}

}  // namespace wirestream
