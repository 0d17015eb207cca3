#include "stream/errors.h"

namespace wirestream::internal {

void throwEndOfStream(uint64_t requested, uint64_t remaining) {
  throw EndOfStreamError("tried to read: " + std::to_string(requested) + " bytes but only " +
                         std::to_string(remaining) + " remaining");
}

void throwEndOfStream(const std::string& message) { throw EndOfStreamError(message); }

void throwCorrupt(const std::string& message) { throw CorruptStreamError(message); }

void throwLimitExceeded(const std::string& message) { throw LimitExceededError(message); }

void throwInvalidArgument(const std::string& message) { throw std::invalid_argument(message); }

}  // namespace wirestream::internal
