// BytesStreamOutput: a StreamOutput into pages taken from a PageRecycler.
//
// Example (runs: bytes_stream_output):
//   BytesStreamOutput out;                   // 16 KiB pages, default recycler
//   out.writeVLong(1700000000000);           // or any Writeable's writeTo(out)
//   BytesReference bytes = out.bytes();      // zero-copy view of the pages
//   out.reset();                             // pages go back; `bytes` is now invalid
//
// Growing takes a new page and never copies a filled one. The output holds at
// most kMaxSize (2 GiB - 1) bytes; a write past that throws LimitExceededError
// before writing any of its bytes. Pages go back to the recycler on reset()
// and on destruction, so an output reused for many messages allocates nothing
// once warm. Not thread-safe.
//
// appendReference(ref) puts a byte range into the output by reference: bytes()
// lists ref's pieces at that point and nothing is copied (a large body handed
// to a gather write, as ES's composite references do). The output keeps a copy
// of `ref` (so its owner) until reset() or destruction; the bytes must not
// change meanwhile.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "stream/bytes_reference.h"
#include "stream/page_recycler.h"
#include "stream/stream_output.h"

namespace wirestream {

class BytesStreamOutput final : public StreamOutput {
 public:
  static constexpr size_t kMaxSize = std::numeric_limits<int32_t>::max();

  explicit BytesStreamOutput(PageRecycler& recycler = PageRecycler::defaultRecycler());
  // `max_size` below kMaxSize lets tests reach the limit with little memory.
  BytesStreamOutput(PageRecycler& recycler, size_t max_size);
  ~BytesStreamOutput() override;

  // Bytes written (the position; after seek() backwards, that position),
  // referenced ranges included.
  size_t size() const { return ownedSize() + referenced_before_; }

  // A view of [0, size()) over the pages: one piece per page, the last cut,
  // and the pieces of every reference appended in it, in place.
  BytesReference bytes() const;

  // Appends ref's bytes by reference (see above); LimitExceededError past the
  // maximum size. Only at the end of what was written (std::logic_error after
  // a seek() backwards). A later seek() may not land inside a referenced
  // range, nor may a write after a backward seek run into one
  // (std::logic_error).
  void appendReference(const BytesReference& ref);
  // Bytes appended by reference, in total.
  size_t referencedBytes() const { return referenced_total_; }

  // Returns every page to the recycler; size() becomes 0.
  void reset();

  // Moves the write position to `position`, taking pages as needed (the bytes
  // skipped over are unspecified until written). Used to fill in a header once
  // the body's length is known. LimitExceededError past kMaxSize (checked
  // before any page is taken). Writes below the furthest position written
  // keep the bytes after them, which makes them slower (they are exact, not
  // 8-byte stores): to reuse an output for a new message, reset().
  void seek(size_t position);
  void skip(size_t n) { seek(size() + n); }

  size_t pageCount() const { return pages_.size(); }
  size_t pageSize() const { return page_size_; }

 protected:
  void nextBuffer() override;
  void ensureCapacity(size_t n) override;

 private:
  [[noreturn, gnu::cold]] void throwFull(size_t requested) const;
  // Makes pages_[index] exist and the current page, positioned at `offset` in it.
  void moveTo(size_t index, size_t offset);
  // Bytes in the pages before the position.
  size_t ownedSize() const {
    return pages_.empty()
               ? 0
               : page_index_ * page_size_ + static_cast<size_t>(pos_ - pages_[page_index_]);
  }
  // The most the pages may hold: the maximum size less the referenced bytes.
  size_t ownedLimit() const { return max_size_ - referenced_total_; }
  // Appends the page pieces of the owned bytes [from, to).
  void addOwnedPieces(std::vector<BytesReference::Piece>& pieces, size_t from, size_t to) const;

  PageRecycler* recycler_;
  size_t page_size_;
  size_t max_size_;
  std::vector<uint8_t*> pages_;
  size_t page_index_ = 0;
  // The furthest position written, as of the last seek(). Below it the page
  // holds bytes to keep, so moveTo() hands out buffers of at most
  // kGuardedBufferBytes there: the 8-byte stores of the inline writers
  // (StreamOutput::pos_) then never happen, and every write is exact.
  size_t high_water_ = 0;
  static constexpr size_t kGuardedBufferBytes = 7;

  // A referenced range, inserted after `at` bytes of the pages.
  struct Splice {
    size_t at;
    BytesReference ref;
  };
  std::vector<Splice> splices_;  // in order of `at`
  size_t referenced_total_ = 0;
  // The splices before the position, and their bytes.
  size_t splices_before_ = 0;
  size_t referenced_before_ = 0;
};

}  // namespace wirestream
