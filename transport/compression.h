// Compression of transport frame bodies (status bit 0x04, wire format §9), in
// Elasticsearch's two schemes.
//
// Example (runs: compression):
//   #include "stream/bytes_stream_output.h"
//   BytesStreamOutput body;
//   body.writeString("a body worth compressing");
//   BytesStreamOutput out;
//   compressBody(CompressionScheme::kLz4, body.bytes(), out);   // "LZ4\0" + blocks
//   std::vector<uint8_t> bytes = out.bytes().toVector();
//   CompressionScheme s = CompressionScheme::kNone;
//   std::vector<uint8_t> plain = decompressBody(bytes, /*max_size=*/1 << 20, &s);  // kLz4
//
// As in ES only the body is compressed; the variable header stays plain so a
// receiver can route the frame before inflating it. The body starts with the
// scheme's marker:
//   DEFLATE  'D' 'F' 'L' 00, then raw DEFLATE (no zlib header) at level 3, as
//            ES's DeflateCompressor (java.util.zip.Deflater(3, nowrap)) writes it;
//   LZ4      'L' 'Z' '4' 00, then lz4-java's LZ4BlockOutputStream framing as ES's
//            ReuseBuffersLZ4BlockOutputStream writes it: per block of at most
//            64 KiB, "LZ4Block", a token (0x20 | 6 compressed, 0x10 | 6 stored),
//            little-endian int compressed length, decompressed length and
//            checksum (ES writes 0 and never checks it), the block; then an end
//            block: "LZ4Block", 0x16, twelve 00 bytes.
// Stateless functions, thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "stream/bytes_reference.h"
#include "stream/stream_output.h"

namespace wirestream::transport {

enum class CompressionScheme : uint8_t { kNone = 0, kDeflate = 1, kLz4 = 2 };

inline constexpr std::array<uint8_t, 4> kDeflateMarker = {'D', 'F', 'L', '\0'};
inline constexpr std::array<uint8_t, 4> kLz4Marker = {'L', 'Z', '4', '\0'};
// ES's LZ4 block size (Compression.Scheme.LZ4_BLOCK_SIZE).
inline constexpr size_t kLz4BlockSize = 64 * 1024;

// "deflate", "lz4", "none".
std::string_view schemeName(CompressionScheme scheme);

// Appends the marker and the compressed `plain` to `out`; `scheme` must not
// be kNone (std::invalid_argument).
void compressBody(CompressionScheme scheme, const BytesReference& plain, StreamOutput& out);

// Inflates a marker + compressed body and reports its scheme in `scheme`
// (when not null). Untrusted input: an unknown marker, a damaged or truncated
// stream, or bytes after its end -> CorruptStreamError; more than `max_size`
// bytes of output -> LimitExceededError, checked as the output grows (a
// block's claimed length is checked before it is inflated), so a small bomb
// cannot allocate more than max_size.
[[nodiscard]] std::vector<uint8_t> decompressBody(std::span<const uint8_t> compressed,
                                                  size_t max_size,
                                                  CompressionScheme* scheme = nullptr);

}  // namespace wirestream::transport
