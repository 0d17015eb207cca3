// LZ4 compression of transport frame bodies (status bit 0x04, wire format §9).
//
//   compressLz4(body.bytes(), out);                     // "LZ4\0" + LZ4 frame
//   std::vector<uint8_t> plain = decompressLz4(bytes, max_frame_size);
//
// As in Elasticsearch only the body is compressed; the variable header stays
// plain so a receiver can route the frame before inflating it. The body starts
// with ES's scheme marker 'L' 'Z' '4' '\0'; what follows is one standard LZ4
// frame (lz4frame.h, liblz4), which `lz4 -d` can read. Stateless functions,
// thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "stream/bytes_reference.h"
#include "stream/stream_output.h"

namespace wirestream::transport {

inline constexpr std::array<uint8_t, 4> kLz4Marker = {'L', 'Z', '4', '\0'};

// Appends the marker and the LZ4 frame of `plain` to `out`.
void compressLz4(const BytesReference& plain, StreamOutput& out);

// Inflates a marker + LZ4 frame. Untrusted input: a missing marker, a damaged
// or truncated frame, or trailing bytes -> CorruptStreamError; more than
// `max_size` bytes of output -> LimitExceededError (checked as output grows,
// so a small bomb cannot allocate more than max_size).
std::vector<uint8_t> decompressLz4(std::span<const uint8_t> compressed, size_t max_size);

}  // namespace wirestream::transport
