// Helpers shared by the structured-value tests: write through a
// BytesStreamOutput with small pages, read back through the pages.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "stream/bytes_stream_output.h"

namespace wirestream::testing {

// Page sizes that make every value cross pages somewhere.
inline const std::vector<size_t> kPageSizes = {1, 2, 3, 5, 7, 13, 32, 1024, 16384};

inline std::vector<uint8_t> fromHex(const std::string& hex) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i < hex.size();) {
    if (hex[i] == ' ') {
      ++i;
      continue;
    }
    out.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    i += 2;
  }
  return out;
}

inline std::string toHex(const std::vector<uint8_t>& bytes) {
  return BytesReference(std::span<const uint8_t>(bytes)).toHex();
}

// Bytes written by `write` at `version` on pages of `page_size`.
inline std::vector<uint8_t> writeBytes(const std::function<void(StreamOutput&)>& write,
                                       TransportVersion version = TransportVersion::current(),
                                       size_t page_size = 16384) {
  PageRecycler recycler(page_size);
  BytesStreamOutput out(recycler);
  out.setTransportVersion(version);
  write(out);
  return out.bytes().toVector();
}

// Splits `bytes` into pieces of `piece_size` so reads cross chunk boundaries.
class PiecewiseInput {
 public:
  PiecewiseInput(const std::vector<uint8_t>& bytes, size_t piece_size) : bytes_(bytes) {
    std::vector<BytesReference::Piece> pieces;
    for (size_t at = 0; at < bytes_.size(); at += piece_size) {
      pieces.emplace_back(bytes_.data() + at, std::min(piece_size, bytes_.size() - at));
    }
    ref_ = BytesReference(std::move(pieces));
    in_ = std::make_unique<BytesReferenceStreamInput>(ref_);
  }
  StreamInput& in() { return *in_; }

 private:
  std::vector<uint8_t> bytes_;
  BytesReference ref_;
  std::unique_ptr<BytesReferenceStreamInput> in_;
};

}  // namespace wirestream::testing
