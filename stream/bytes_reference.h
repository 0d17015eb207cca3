// BytesReference: an immutable view of bytes that may lie in several pieces,
// such as the pages of a BytesStreamOutput.
//
// Example (runs: bytes_reference):
//   #include <sys/uio.h>
//   #include "stream/bytes_stream_output.h"
//   PageRecycler recycler(/*page_size=*/16);   // small pages: several pieces
//   BytesStreamOutput out(recycler);
//   out.writeString("a value longer than one page");
//   BytesReference ref = out.bytes();          // zero-copy over out's pages
//   std::vector<iovec> gather;                 // for one writev()
//   for (std::span<const uint8_t> piece : ref.pieces())
//     gather.push_back({const_cast<uint8_t*>(piece.data()), piece.size()});
//   BytesReferenceStreamInput in(ref);         // reads across piece boundaries
//   std::string s = in.readString();
//   BytesReference prefix = ref.slice(0, 1);   // the string's VInt length, shared
//
// Lifetime: a reference from BytesStreamOutput::bytes() is a view; it stays
// valid while the output lives and is not reset() (later writes never move
// written pages). A reference made with an `owner` (or by copyOf) keeps that
// owner alive and may outlive everything else. Copies share the view.
// Thread-safe for concurrent reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "stream/stream_input.h"

namespace wirestream {

class BytesReference {
 public:
  using Piece = std::span<const uint8_t>;

  BytesReference() = default;
  // One contiguous piece; `owner` (optional) is kept alive with the view.
  explicit BytesReference(Piece bytes, std::shared_ptr<const void> owner = nullptr);
  // Several pieces in order; empty pieces are dropped.
  explicit BytesReference(const std::vector<Piece>& pieces,
                          std::shared_ptr<const void> owner = nullptr);
  // A reference that owns a copy of `bytes`.
  [[nodiscard]] static BytesReference copyOf(std::span<const uint8_t> bytes);

  size_t length() const { return length_; }
  bool empty() const { return length_ == 0; }
  // The byte at `index` (std::out_of_range past the end).
  uint8_t operator[](size_t index) const;
  // The bytes [offset, offset + length), sharing the storage
  // (std::out_of_range if that range is not inside this reference).
  [[nodiscard]] BytesReference slice(size_t offset, size_t length) const;
  [[nodiscard]] std::vector<uint8_t> toVector() const;
  // The contiguous pieces, in order, e.g. for a gather write (iovec).
  const std::vector<Piece>& pieces() const { return pieces_; }

  // Lower-case hex, "0a ff ..." style: for test failures and debugging.
  std::string toHex() const;

  friend bool operator==(const BytesReference& a, const BytesReference& b);

 private:
  // Index of the piece holding byte `offset` (offset < length_).
  size_t pieceIndex(size_t offset) const;

  std::vector<Piece> pieces_;
  std::vector<size_t> starts_;  // starts_[i]: offset of pieces_[i]
  size_t length_ = 0;
  std::shared_ptr<const void> owner_;
};

// A StreamInput over a BytesReference; the reference's storage must outlive it.
class BytesReferenceStreamInput final : public StreamInput {
 public:
  explicit BytesReferenceStreamInput(const BytesReference& ref);

 protected:
  bool nextChunk() override;
  size_t availableAfterChunk() const override { return after_; }

 private:
  BytesReference ref_;
  size_t next_piece_ = 0;
  size_t after_ = 0;  // bytes in pieces after the current one
};

}  // namespace wirestream
