#include "stream/bytes_stream_output.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace wirestream {

BytesStreamOutput::BytesStreamOutput(PageRecycler& recycler)
    : BytesStreamOutput(recycler, kMaxSize) {}

BytesStreamOutput::BytesStreamOutput(PageRecycler& recycler, size_t max_size)
    : recycler_(&recycler),
      page_size_(recycler.pageSize()),
      max_size_(max_size < kMaxSize ? max_size : kMaxSize) {}

BytesStreamOutput::~BytesStreamOutput() { reset(); }

void BytesStreamOutput::reset() {
  for (uint8_t* page : pages_) recycler_->release(page);
  pages_.clear();  // keeps its capacity: a reused output does not reallocate
  page_index_ = 0;
  high_water_ = 0;
  pos_ = end_ = nullptr;
  splices_.clear();
  referenced_total_ = splices_before_ = referenced_before_ = 0;
}

void BytesStreamOutput::throwFull(size_t requested) const {
  internal::throwLimitExceeded("BytesStreamOutput cannot hold more than 2GB of data (size " +
                               std::to_string(size()) + " + " + std::to_string(requested) +
                               " bytes is above the limit of " + std::to_string(max_size_) + ")");
}

void BytesStreamOutput::moveTo(size_t index, size_t offset) {
  while (pages_.size() <= index) pages_.push_back(recycler_->obtain());
  page_index_ = index;
  uint8_t* page = pages_[index];
  size_t page_start = index * page_size_;
  size_t room = std::min(page_size_, ownedLimit() - page_start);
  pos_ = page + offset;
  end_ = page + room;
  if (page_start + offset < high_water_) {
    end_ = pos_ + std::min(room - offset, kGuardedBufferBytes);
  }
  // After a backward seek, a write stops where a referenced range begins.
  if (splices_before_ < splices_.size()) {
    const size_t next = splices_[splices_before_].at;
    if (next < page_start + static_cast<size_t>(end_ - page)) end_ = page + (next - page_start);
  }
}

void BytesStreamOutput::nextBuffer() {
  if (splices_before_ < splices_.size() && ownedSize() == splices_[splices_before_].at) {
    throw std::logic_error("BytesStreamOutput: a write at " + std::to_string(size()) +
                           " would overwrite bytes appended by reference");
  }
  if (pages_.empty()) {
    if (ownedLimit() == 0) throwFull(1);
    moveTo(0, 0);
    return;
  }
  size_t offset = static_cast<size_t>(pos_ - pages_[page_index_]);
  if (offset < std::min(page_size_, ownedLimit() - page_index_ * page_size_)) {
    moveTo(page_index_, offset);  // a guarded buffer ran out inside the page
    return;
  }
  if ((page_index_ + 1) * page_size_ >= ownedLimit()) throwFull(1);
  moveTo(page_index_ + 1, 0);
}

void BytesStreamOutput::ensureCapacity(size_t n) {
  if (n > max_size_ - size()) throwFull(n);
}

void BytesStreamOutput::seek(size_t position) {
  if (position > max_size_) throwFull(position > size() ? position - size() : 0);
  // The referenced ranges wholly before `position` (one starting there is
  // after it: a write there would overwrite it).
  size_t before = 0;
  size_t referenced = 0;
  for (const Splice& s : splices_) {
    const size_t start = s.at + referenced;
    if (start >= position) break;
    if (position < start + s.ref.length()) {
      throw std::logic_error("BytesStreamOutput: cannot seek to " + std::to_string(position) +
                             ", inside bytes appended by reference");
    }
    ++before;
    referenced += s.ref.length();
  }
  const size_t owned = position - referenced;
  if (owned == 0 && pages_.empty()) {
    splices_before_ = before;
    referenced_before_ = referenced;
    return;
  }
  high_water_ = std::max(high_water_, ownedSize());
  splices_before_ = before;
  referenced_before_ = referenced;
  // A position on a page boundary stays at the end of the full page before
  // it, so that seeking never takes a page nothing is written to.
  size_t index = owned == 0 ? 0 : (owned - 1) / page_size_;
  moveTo(index, owned - index * page_size_);
}

void BytesStreamOutput::appendReference(const BytesReference& ref) {
  if (ref.empty()) return;
  if (splices_before_ != splices_.size() || ownedSize() < high_water_) {
    throw std::logic_error("BytesStreamOutput: appendReference below the end of the output");
  }
  if (ref.length() > max_size_ - size()) throwFull(ref.length());
  splices_.push_back({ownedSize(), ref});
  referenced_total_ += ref.length();
  splices_before_ = splices_.size();
  referenced_before_ = referenced_total_;
  // The pages may now hold less: recompute the current buffer's end.
  if (!pages_.empty()) moveTo(page_index_, static_cast<size_t>(pos_ - pages_[page_index_]));
}

void BytesStreamOutput::addOwnedPieces(std::vector<BytesReference::Piece>& pieces, size_t from,
                                       size_t to) const {
  while (from < to) {
    const size_t index = from / page_size_;
    const size_t offset = from - index * page_size_;
    const size_t len = std::min(page_size_ - offset, to - from);
    pieces.emplace_back(pages_[index] + offset, len);
    from += len;
  }
}

BytesReference BytesStreamOutput::bytes() const {
  if (!splices_.empty()) {
    std::vector<BytesReference::Piece> pieces;
    size_t owned = 0;
    for (size_t i = 0; i < splices_before_; ++i) {
      addOwnedPieces(pieces, owned, splices_[i].at);
      owned = splices_[i].at;
      for (BytesReference::Piece piece : splices_[i].ref.pieces()) pieces.push_back(piece);
    }
    addOwnedPieces(pieces, owned, ownedSize());
    return BytesReference(pieces);
  }
  size_t total = size();
  std::vector<BytesReference::Piece> pieces;
  if (total > 0) {
    size_t used_pages = (total + page_size_ - 1) / page_size_;
    pieces.reserve(used_pages);
    for (size_t i = 0; i < used_pages; ++i) {
      size_t len = std::min(page_size_, total - i * page_size_);
      pieces.emplace_back(pages_[i], len);
    }
  }
  return BytesReference(pieces);
}

}  // namespace wirestream
