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

namespace wirestream {

TooManyBucketsError::TooManyBucketsError(int32_t max_buckets, int64_t count)
    : LimitExceededError("Trying to create too many buckets. Must be less than or equal to: [" +
                         std::to_string(max_buckets) + "] but was [" + std::to_string(count) +
                         "]. This limit can be set by changing the [search.max_buckets] cluster "
                         "level setting."),
      max_buckets_(max_buckets) {}

}  // namespace wirestream
