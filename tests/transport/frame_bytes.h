// Frame bytes built by hand for the transport tests: a body written with no
// prefix, and a bare header whose fields a test chooses (valid or not).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "stream/stream_output.h"
#include "stream/writeable.h"
#include "transport/frame.h"

namespace wirestream::transport::testing {

// Writes raw bytes with no prefix (to build frames by hand).
struct RawBody final : Writeable {
  std::vector<uint8_t> bytes;
  explicit RawBody(std::vector<uint8_t> b) : bytes(std::move(b)) {}
  void writeTo(StreamOutput& out) const override { out.writeBytes(bytes); }
};

// A request header at the current version declaring `length` and
// `variable_size` as given, followed by `content` zero bytes.
inline std::vector<uint8_t> headerBytes(int32_t length, int32_t variable_size, size_t content = 0) {
  FrameHeader h;
  h.length = length;
  h.request_id = 1;
  h.version_id = TransportVersion::current().id();
  h.variable_header_size = variable_size;
  std::vector<uint8_t> b(kHeaderSize);
  encodeHeader(h, b.data());
  b.resize(kHeaderSize + content, 0);
  return b;
}

}  // namespace wirestream::transport::testing
