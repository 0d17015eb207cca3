// Shorthands of the structured-value tests over test_util.h.
#pragma once

#include <memory>

#include "stream/structured/structured_stream.h"
#include "tests/stream/test_util.h"

namespace wirestream::testing {

// Bytes of `write` on default 16 KiB pages.
inline std::vector<uint8_t> bytesOf(const Writer& write,
                                    TransportVersion version = TransportVersion::current()) {
  return writeAt(PageRecycler::kPageSize, write, version);
}

// An input over `bytes` split into pieces of `piece_size` (see paged()), so
// reads cross chunk boundaries; owns the bytes and the reference.
class PiecewiseInput {
 public:
  PiecewiseInput(std::vector<uint8_t> bytes, size_t piece_size)
      : bytes_(std::move(bytes)),
        ref_(paged(bytes_, piece_size)),
        in_(std::make_unique<BytesReferenceStreamInput>(ref_)) {}
  StreamInput& in() { return *in_; }

 private:
  std::vector<uint8_t> bytes_;
  BytesReference ref_;
  std::unique_ptr<BytesReferenceStreamInput> in_;
};

}  // namespace wirestream::testing
