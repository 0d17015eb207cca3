// BytesStreamOutput: a StreamOutput into pages taken from a PageRecycler.
//
//   BytesStreamOutput out;                   // 16 KiB pages, default recycler
//   aggs.writeTo(out);
//   BytesReference bytes = out.bytes();      // zero-copy view of the pages
//   out.reset();                             // pages go back; `bytes` is now invalid
//
// Growing takes a new page and never copies a filled one. The output holds at
// most kMaxSize (2 GiB - 1) bytes; a write past that throws LimitExceededError
// before writing any of its bytes. Pages go back to the recycler on reset()
// and on destruction, so an output reused for many messages allocates nothing
// once warm. Not thread-safe.
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

  // Bytes written (the position; after seek() backwards, that position).
  size_t size() const {
    return pages_.empty()
               ? 0
               : page_index_ * page_size_ + static_cast<size_t>(pos_ - pages_[page_index_]);
  }

  // A view of [0, size()) over the pages: one piece per page, the last cut.
  BytesReference bytes() const;

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
  [[noreturn]] void throwFull(size_t requested) const;
  // Makes pages_[index] exist and the current page, positioned at `offset` in it.
  void moveTo(size_t index, size_t offset);

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
};

}  // namespace wirestream
