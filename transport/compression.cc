// Compressed body grammar:
//   'L' 'Z' '4' 00          ES's compression scheme marker
//   LZ4 frame               magic 04 22 4D 18, frame descriptor, blocks of at
//                           most 64 KiB, end mark 00 00 00 00 (lz4frame.h)
// Not version-gated: compression is negotiated per frame by status bit 0x04.
#include "transport/compression.h"

#include <lz4frame.h>

#include <algorithm>
#include <memory>
#include <string>

#include "stream/errors.h"

namespace wirestream::transport {

namespace {

struct CompressionContextDeleter {
  void operator()(LZ4F_cctx* c) const { LZ4F_freeCompressionContext(c); }
};
struct DecompressionContextDeleter {
  void operator()(LZ4F_dctx* d) const { LZ4F_freeDecompressionContext(d); }
};

LZ4F_preferences_t preferences() {
  LZ4F_preferences_t prefs{};
  prefs.frameInfo.blockSizeID = LZ4F_max64KB;
  prefs.frameInfo.blockMode = LZ4F_blockLinked;
  return prefs;
}

// liblz4 failing on our own, well-formed input is an invariant breach.
size_t checkCompress(size_t code) {
  if (LZ4F_isError(code)) {
    throw std::runtime_error(std::string("LZ4 compression failed: ") + LZ4F_getErrorName(code));
  }
  return code;
}

}  // namespace

void compressLz4(const BytesReference& plain, StreamOutput& out) {
  LZ4F_cctx* raw = nullptr;
  checkCompress(LZ4F_createCompressionContext(&raw, LZ4F_VERSION));
  std::unique_ptr<LZ4F_cctx, CompressionContextDeleter> ctx(raw);
  const LZ4F_preferences_t prefs = preferences();

  // Pieces are fed in slices of at most 64 KiB so one scratch buffer of the
  // bound for that size serves every update.
  constexpr size_t kSlice = 64 * 1024;
  std::vector<uint8_t> scratch(
      std::max<size_t>(LZ4F_compressBound(kSlice, &prefs), LZ4F_HEADER_SIZE_MAX));
  out.writeBytes(kLz4Marker);
  size_t n = checkCompress(LZ4F_compressBegin(ctx.get(), scratch.data(), scratch.size(), &prefs));
  out.writeBytes({scratch.data(), n});
  for (BytesReference::Piece piece : plain.pieces()) {
    for (size_t at = 0; at < piece.size(); at += kSlice) {
      size_t len = std::min(kSlice, piece.size() - at);
      n = checkCompress(LZ4F_compressUpdate(ctx.get(), scratch.data(), scratch.size(),
                                            piece.data() + at, len, nullptr));
      out.writeBytes({scratch.data(), n});
    }
  }
  n = checkCompress(LZ4F_compressEnd(ctx.get(), scratch.data(), scratch.size(), nullptr));
  out.writeBytes({scratch.data(), n});
}

std::vector<uint8_t> decompressLz4(std::span<const uint8_t> compressed, size_t max_size) {
  if (compressed.size() < kLz4Marker.size() ||
      !std::equal(kLz4Marker.begin(), kLz4Marker.end(), compressed.begin())) {
    internal::throwCorrupt("compressed frame body does not start with the LZ4 marker");
  }
  compressed = compressed.subspan(kLz4Marker.size());

  LZ4F_dctx* raw = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&raw, LZ4F_VERSION))) {
    throw std::bad_alloc();
  }
  std::unique_ptr<LZ4F_dctx, DecompressionContextDeleter> ctx(raw);

  // Grow with the output actually produced, never from a size the input claims.
  std::vector<uint8_t> out(std::min(max_size, std::max<size_t>(4 * compressed.size(), 4096)));
  size_t produced = 0;
  size_t consumed = 0;
  size_t hint = 1;
  while (hint != 0) {
    if (produced == out.size()) {
      if (out.size() >= max_size) {
        internal::throwLimitExceeded("decompressed frame body exceeds the limit of " +
                                     std::to_string(max_size) + " bytes");
      }
      out.resize(std::min(max_size, out.size() * 2));
    }
    size_t dst_size = out.size() - produced;
    size_t src_size = compressed.size() - consumed;
    hint = LZ4F_decompress(ctx.get(), out.data() + produced, &dst_size,
                           compressed.data() + consumed, &src_size, nullptr);
    if (LZ4F_isError(hint)) {
      internal::throwCorrupt(std::string("invalid LZ4 frame body: ") + LZ4F_getErrorName(hint));
    }
    produced += dst_size;
    consumed += src_size;
    if (hint != 0 && consumed == compressed.size() && dst_size == 0 && src_size == 0) {
      internal::throwCorrupt("truncated LZ4 frame body (" + std::to_string(compressed.size()) +
                             " bytes)");
    }
  }
  if (consumed != compressed.size()) {
    internal::throwCorrupt(std::to_string(compressed.size() - consumed) +
                           " bytes after the end of the LZ4 frame body");
  }
  out.resize(produced);
  return out;
}

}  // namespace wirestream::transport
