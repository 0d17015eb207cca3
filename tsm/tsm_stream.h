// TSM blocks on a stream (wire format §10, "TSM blocks"): a VInt byte length,
// then one block of tsm/tsm.h. A wirestream extension: an Elasticsearch
// peer has no reader for it, so send it only to a peer that asked for it.
//
// Example (runs: tsm_stream):
//   #include "stream/bytes_stream_output.h"
//   std::vector<int64_t> timestamps = {1700000000000, 1700000010000, 1700000020000};
//   BytesStreamOutput out;
//   wirestream::tsm::writeTimeBlock(out, timestamps);          // 1C ... after its length
//   BytesReferenceStreamInput in(out.bytes());
//   std::vector<int64_t> back = wirestream::tsm::readTimeBlock(in, /*max_values=*/3);
//
// Readers take untrusted input: a negative length is CorruptStreamError
// "negative TSM block length [n]", a length above the bytes left is
// EndOfStreamError (checked before anything is read or allocated), a block
// that does not decode throws what the tsm.h decoder throws (its message names
// the block kind), and a block of more than min(max_values,
// in.maxArraySize()) values is LimitExceededError. A block inside one chunk of
// the input is decoded where it lies; one that crosses chunks is copied to a
// per-thread buffer first (at most the length, which the bytes left justify).
// Writers throw what the encoders throw (a NaN float: std::invalid_argument)
// and std::invalid_argument for a block above INT32_MAX bytes, writing
// nothing then.
//
// Thread-safety: free functions over the caller's stream; they may run
// concurrently on different streams (the scratch buffers are per thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "stream/stream_input.h"
#include "stream/stream_output.h"
#include "tsm/tsm.h"

namespace wirestream::tsm {

void writeFloatBlock(StreamOutput& out, std::span<const double> values);
void writeIntegerBlock(StreamOutput& out, std::span<const int64_t> values);
void writeUnsignedBlock(StreamOutput& out, std::span<const uint64_t> values);
void writeTimeBlock(StreamOutput& out, std::span<const int64_t> timestamps);
void writeBooleanBlock(StreamOutput& out, const std::vector<bool>& values);
void writeStringBlock(StreamOutput& out, std::span<const std::string> values);

[[nodiscard]] std::vector<double> readFloatBlock(StreamInput& in,
                                                 size_t max_values = kDefaultMaxValues);
[[nodiscard]] std::vector<int64_t> readIntegerBlock(StreamInput& in,
                                                    size_t max_values = kDefaultMaxValues);
[[nodiscard]] std::vector<uint64_t> readUnsignedBlock(StreamInput& in,
                                                      size_t max_values = kDefaultMaxValues);
[[nodiscard]] std::vector<int64_t> readTimeBlock(StreamInput& in,
                                                 size_t max_values = kDefaultMaxValues);
[[nodiscard]] std::vector<bool> readBooleanBlock(StreamInput& in,
                                                 size_t max_values = kDefaultMaxValues);
[[nodiscard]] std::vector<std::string> readStringBlock(StreamInput& in,
                                                       size_t max_values = kDefaultMaxValues);

// The same into `out` (replaced; its capacity is reused), for readers that
// keep buffers across messages.
void readFloatBlock(StreamInput& in, std::vector<double>& out, size_t max_values);
void readIntegerBlock(StreamInput& in, std::vector<int64_t>& out, size_t max_values);
void readTimeBlock(StreamInput& in, std::vector<int64_t>& out, size_t max_values);

// The block's bytes without decoding them (length checked as above); valid
// until the next read from `in` or the next call on this thread.
[[nodiscard]] std::span<const uint8_t> readBlockBytes(StreamInput& in);

}  // namespace wirestream::tsm
