// Throw helpers and the encoders' scratch buffer, shared by the units of
// //tsm.
#include <string>
#include <vector>

#include "tsm/internal.h"

namespace wirestream::tsm::internal {

void throwTruncated(const char* kind, const std::string& what) {
  throw EndOfStreamError(std::string(kind) + " block " + what);
}

void throwCorruptBlock(const char* kind, const std::string& what) {
  throw CorruptStreamError(std::string(kind) + " block " + what);
}

void throwTooManyValues(const char* kind, uint64_t count, size_t max_values) {
  throw LimitExceededError(std::string(kind) + " block of " + std::to_string(count) +
                           " values is above the limit of " + std::to_string(max_values));
}

std::vector<uint64_t>& scratch(size_t n) {
  thread_local std::vector<uint64_t> buffer;
  if (buffer.size() < n) buffer.resize(n);
  return buffer;
}

}  // namespace wirestream::tsm::internal
