// Compressed body grammar (not version-gated: compression is per frame, status 0x04):
//   'D' 'F' 'L' 00   raw DEFLATE stream (RFC 1951), level 3 when we write it
//   'L' 'Z' '4' 00   blocks, each:
//                      "LZ4Block"           8 bytes
//                      byte token           method | level: method 0x20 LZ4, 0x10 stored;
//                                           level = log2(block size) - 10 (6 for 64 KiB)
//                      int32 LE compressed length, int32 LE decompressed length,
//                      int32 LE checksum    ES writes 0 and does not check it
//                      compressed bytes     one raw LZ4 block, or the bytes stored
//                    ending with a block of lengths 0 and checksum 0.
#include "transport/compression.h"

#include <lz4.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "stream/errors.h"

namespace wirestream::transport {

namespace {

constexpr uint8_t kLz4BlockMagic[8] = {'L', 'Z', '4', 'B', 'l', 'o', 'c', 'k'};
constexpr size_t kLz4BlockHeader = 8 + 1 + 4 + 4 + 4;
constexpr uint8_t kMethodStored = 0x10;
constexpr uint8_t kMethodLz4 = 0x20;
constexpr uint8_t kLevelBase = 10;
// ES's block size, 64 KiB: level 16 - 10.
constexpr uint8_t kLevel64K = 6;
constexpr int kDeflateLevel = 3;
// LZ4 cannot expand one compressed byte into more than 255 bytes; a block
// that claims more is damaged (and would make us allocate for nothing).
constexpr size_t kMaxLz4Ratio = 255;

void storeLittle32(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
  p[2] = static_cast<uint8_t>(v >> 16);
  p[3] = static_cast<uint8_t>(v >> 24);
}
uint32_t loadLittle32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

void writeLz4Block(StreamOutput& out, const uint8_t* data, size_t n,
                   std::vector<uint8_t>& scratch) {
  const int bound = LZ4_compressBound(static_cast<int>(n));
  scratch.resize(kLz4BlockHeader + static_cast<size_t>(bound));
  int compressed = LZ4_compress_default(reinterpret_cast<const char*>(data),
                                        reinterpret_cast<char*>(scratch.data() + kLz4BlockHeader),
                                        static_cast<int>(n), bound);
  uint8_t method = kMethodLz4;
  if (compressed <= 0 || static_cast<size_t>(compressed) >= n) {
    // As lz4-java: a block that does not shrink is stored.
    method = kMethodStored;
    compressed = static_cast<int>(n);
    std::memcpy(scratch.data() + kLz4BlockHeader, data, n);
  }
  std::memcpy(scratch.data(), kLz4BlockMagic, 8);
  scratch[8] = method | kLevel64K;
  storeLittle32(scratch.data() + 9, static_cast<uint32_t>(compressed));
  storeLittle32(scratch.data() + 13, static_cast<uint32_t>(n));
  storeLittle32(scratch.data() + 17, 0);
  out.writeBytes({scratch.data(), kLz4BlockHeader + static_cast<size_t>(compressed)});
}

void compressLz4(const BytesReference& plain, StreamOutput& out) {
  std::vector<uint8_t> block;
  block.reserve(std::min(plain.length(), kLz4BlockSize));
  std::vector<uint8_t> scratch;
  for (BytesReference::Piece piece : plain.pieces()) {
    size_t at = 0;
    while (at < piece.size()) {
      const size_t take = std::min(kLz4BlockSize - block.size(), piece.size() - at);
      block.insert(block.end(), piece.data() + at, piece.data() + at + take);
      at += take;
      if (block.size() == kLz4BlockSize) {
        writeLz4Block(out, block.data(), block.size(), scratch);
        block.clear();
      }
    }
  }
  if (!block.empty()) writeLz4Block(out, block.data(), block.size(), scratch);
  uint8_t end[kLz4BlockHeader] = {};
  std::memcpy(end, kLz4BlockMagic, 8);
  end[8] = kMethodStored | kLevel64K;
  out.writeBytes(end);
}

struct DeflateStream {
  z_stream z{};
  bool inflating;
  explicit DeflateStream(bool inflate) : inflating(inflate) {
    const int rc = inflate
                       ? inflateInit2(&z, -15)
                       : deflateInit2(&z, kDeflateLevel, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
    if (rc == Z_MEM_ERROR) throw std::bad_alloc();
    if (rc != Z_OK) throw std::runtime_error("zlib initialisation failed: " + std::to_string(rc));
  }
  ~DeflateStream() { inflating ? inflateEnd(&z) : deflateEnd(&z); }
  DeflateStream(const DeflateStream&) = delete;
  DeflateStream& operator=(const DeflateStream&) = delete;
};

void compressDeflate(const BytesReference& plain, StreamOutput& out) {
  DeflateStream d(false);
  std::vector<uint8_t> scratch(64 * 1024);
  auto drain = [&](int flush) {
    int rc;
    do {
      d.z.next_out = scratch.data();
      d.z.avail_out = static_cast<uInt>(scratch.size());
      rc = deflate(&d.z, flush);
      if (rc == Z_STREAM_ERROR) throw std::runtime_error("zlib deflate failed");
      out.writeBytes({scratch.data(), scratch.size() - d.z.avail_out});
    } while (d.z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
  };
  for (BytesReference::Piece piece : plain.pieces()) {
    d.z.next_in = const_cast<Bytef*>(piece.data());
    d.z.avail_in = static_cast<uInt>(piece.size());
    drain(Z_NO_FLUSH);
  }
  d.z.next_in = nullptr;
  d.z.avail_in = 0;
  drain(Z_FINISH);
}

[[noreturn, gnu::cold]] void throwTooLarge(size_t max_size) {
  internal::throwLimitExceeded("decompressed frame body exceeds the limit of " +
                               std::to_string(max_size) + " bytes");
}

std::vector<uint8_t> decompressDeflate(std::span<const uint8_t> in, size_t max_size) {
  DeflateStream d(true);
  // Grow with the output actually produced, never from a size the input claims.
  std::vector<uint8_t> out(std::min(max_size, std::max<size_t>(4 * in.size(), 4096)));
  size_t produced = 0;
  d.z.next_in = const_cast<Bytef*>(in.data());
  d.z.avail_in = static_cast<uInt>(in.size());
  while (true) {
    if (produced == out.size()) {
      if (out.size() >= max_size) throwTooLarge(max_size);
      out.resize(std::min(max_size, out.size() * 2));
    }
    d.z.next_out = out.data() + produced;
    d.z.avail_out = static_cast<uInt>(out.size() - produced);
    const int rc = inflate(&d.z, Z_NO_FLUSH);
    produced = out.size() - d.z.avail_out;
    if (rc == Z_STREAM_END) break;
    if (rc == Z_MEM_ERROR) throw std::bad_alloc();
    if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT || rc == Z_STREAM_ERROR) {
      internal::throwCorrupt(std::string("invalid DEFLATE frame body: ") +
                             (d.z.msg ? d.z.msg : "data error"));
    }
    if (rc == Z_BUF_ERROR && d.z.avail_in == 0) {
      internal::throwCorrupt("truncated DEFLATE frame body (" + std::to_string(in.size()) +
                             " bytes)");
    }
  }
  if (d.z.avail_in != 0) {
    internal::throwCorrupt(std::to_string(d.z.avail_in) +
                           " bytes after the end of the DEFLATE frame body");
  }
  out.resize(produced);
  return out;
}

std::vector<uint8_t> decompressLz4(std::span<const uint8_t> in, size_t max_size) {
  std::vector<uint8_t> out;
  size_t at = 0;
  while (true) {
    if (in.size() - at < kLz4BlockHeader) {
      internal::throwCorrupt("truncated LZ4 frame body: " + std::to_string(in.size() - at) +
                             " bytes where a block header of 21 was expected");
    }
    const uint8_t* h = in.data() + at;
    if (std::memcmp(h, kLz4BlockMagic, 8) != 0) {
      internal::throwCorrupt("LZ4 block at offset " + std::to_string(at) +
                             " does not start with LZ4Block");
    }
    const uint8_t method = h[8] & 0xF0;
    const uint32_t level = kLevelBase + (h[8] & 0x0F);
    const int32_t compressed = static_cast<int32_t>(loadLittle32(h + 9));
    const int32_t original = static_cast<int32_t>(loadLittle32(h + 13));
    const uint32_t checksum = loadLittle32(h + 17);
    at += kLz4BlockHeader;
    if ((method != kMethodLz4 && method != kMethodStored) || compressed < 0 || original < 0 ||
        static_cast<uint32_t>(original) > (uint32_t{1} << level) ||
        (original == 0) != (compressed == 0) ||
        (method == kMethodStored && original != compressed)) {
      internal::throwCorrupt("damaged LZ4 block header (token " + std::to_string(h[8]) +
                             ", lengths " + std::to_string(compressed) + "/" +
                             std::to_string(original) + ")");
    }
    if (original == 0) {
      if (checksum != 0) internal::throwCorrupt("LZ4 end block with a non-zero checksum");
      break;
    }
    if (static_cast<size_t>(compressed) > in.size() - at) {
      internal::throwCorrupt("truncated LZ4 block: " + std::to_string(compressed) +
                             " bytes claimed, " + std::to_string(in.size() - at) + " left");
    }
    if (static_cast<size_t>(original) > kMaxLz4Ratio * static_cast<size_t>(compressed) + 255) {
      internal::throwCorrupt("LZ4 block claims " + std::to_string(original) + " bytes from " +
                             std::to_string(compressed));
    }
    if (static_cast<size_t>(original) > max_size - out.size()) throwTooLarge(max_size);
    const size_t produced = out.size();
    out.resize(produced + static_cast<size_t>(original));
    if (method == kMethodStored) {
      std::memcpy(out.data() + produced, in.data() + at, static_cast<size_t>(original));
    } else {
      const int n =
          LZ4_decompress_safe(reinterpret_cast<const char*>(in.data() + at),
                              reinterpret_cast<char*>(out.data() + produced), compressed, original);
      if (n != original) {
        internal::throwCorrupt("invalid LZ4 block at offset " +
                               std::to_string(at - kLz4BlockHeader));
      }
    }
    at += static_cast<size_t>(compressed);
  }
  if (at != in.size()) {
    internal::throwCorrupt(std::to_string(in.size() - at) +
                           " bytes after the end of the LZ4 frame body");
  }
  return out;
}

}  // namespace

std::string_view schemeName(CompressionScheme scheme) {
  switch (scheme) {
    case CompressionScheme::kDeflate:
      return "deflate";
    case CompressionScheme::kLz4:
      return "lz4";
    case CompressionScheme::kNone:
      break;
  }
  return "none";
}

void compressBody(CompressionScheme scheme, const BytesReference& plain, StreamOutput& out) {
  switch (scheme) {
    case CompressionScheme::kDeflate:
      out.writeBytes(kDeflateMarker);
      compressDeflate(plain, out);
      return;
    case CompressionScheme::kLz4:
      out.writeBytes(kLz4Marker);
      compressLz4(plain, out);
      return;
    case CompressionScheme::kNone:
      break;
  }
  throw std::invalid_argument("compressBody needs a compression scheme");
}

std::vector<uint8_t> decompressBody(std::span<const uint8_t> compressed, size_t max_size,
                                    CompressionScheme* scheme) {
  auto starts = [&](const std::array<uint8_t, 4>& marker) {
    return compressed.size() >= marker.size() &&
           std::equal(marker.begin(), marker.end(), compressed.begin());
  };
  if (starts(kDeflateMarker)) {
    if (scheme) *scheme = CompressionScheme::kDeflate;
    return decompressDeflate(compressed.subspan(4), max_size);
  }
  if (starts(kLz4Marker)) {
    if (scheme) *scheme = CompressionScheme::kLz4;
    return decompressLz4(compressed.subspan(4), max_size);
  }
  internal::throwCorrupt("compressed frame body starts with neither DFL\\0 nor LZ4\\0");
}

}  // namespace wirestream::transport
