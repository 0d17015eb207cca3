#include "stream/structured/instant.h"

#include <cstdio>

namespace wirestream {

std::string Instant::toString() const {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%lld.%09ds", static_cast<long long>(epoch_seconds), nanos);
  return buf;
}

}  // namespace wirestream
