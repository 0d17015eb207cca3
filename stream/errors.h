// Errors raised by the readers and writers of wirestream.
//
// One hierarchy for untrusted input: everything a reader rejects is a
// StreamError subclass whose message names the offending value (wire format §4).
// Caller mistakes (a negative writeVLong, invalid UTF-8 handed to writeString)
// are std::invalid_argument instead, so they are never confused with bad input.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace wirestream {

class StreamError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The input ended before the value did.
class EndOfStreamError : public StreamError {
 public:
  using StreamError::StreamError;
};

// The bytes cannot be a valid encoding (bad varint, bad boolean, bad UTF-8...).
class CorruptStreamError : public StreamError {
 public:
  using StreamError::StreamError;
};

// A size, depth or capacity is above a configured or fixed maximum.
class LimitExceededError : public StreamError {
 public:
  using StreamError::StreamError;
};

// Elasticsearch's TooManyBucketsException (setting search.max_buckets): a final reduce
// would create more than max_buckets buckets (aggregations' ReduceContext throws it). The
// message is ES's, word for word; the transport sends it as ES's
// `too_many_buckets_exception` carrying maxBuckets(). It lives here, at the bottom of the
// error hierarchy, so the transport knows it without depending on the aggregations.
class TooManyBucketsError : public LimitExceededError {
 public:
  TooManyBucketsError(int32_t max_buckets, int64_t count);
  int32_t maxBuckets() const { return max_buckets_; }

 private:
  int32_t max_buckets_;
};

namespace internal {

// Out-of-line, cold throw helpers keep the throw sequence off the hot paths.
[[noreturn, gnu::cold]] void throwEndOfStream(uint64_t requested, uint64_t remaining);
[[noreturn, gnu::cold]] void throwEndOfStream(const std::string& message);
[[noreturn, gnu::cold]] void throwCorrupt(const std::string& message);
[[noreturn, gnu::cold]] void throwLimitExceeded(const std::string& message);
[[noreturn, gnu::cold]] void throwInvalidArgument(const std::string& message);

}  // namespace internal
}  // namespace wirestream
