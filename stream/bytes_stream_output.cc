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
  size_t room = std::min(page_size_, max_size_ - page_start);
  pos_ = page + offset;
  end_ = page + room;
  if (page_start + offset < high_water_) {
    end_ = pos_ + std::min(room - offset, kGuardedBufferBytes);
  }
}

void BytesStreamOutput::nextBuffer() {
  if (pages_.empty()) {
    if (max_size_ == 0) throwFull(1);
    moveTo(0, 0);
    return;
  }
  size_t offset = static_cast<size_t>(pos_ - pages_[page_index_]);
  if (offset < std::min(page_size_, max_size_ - page_index_ * page_size_)) {
    moveTo(page_index_, offset);  // a guarded buffer ran out inside the page
    return;
  }
  if ((page_index_ + 1) * page_size_ >= max_size_) throwFull(1);
  moveTo(page_index_ + 1, 0);
}

void BytesStreamOutput::ensureCapacity(size_t n) {
  if (n > max_size_ - size()) throwFull(n);
}

void BytesStreamOutput::seek(size_t position) {
  if (position > max_size_) throwFull(position > size() ? position - size() : 0);
  if (position == 0 && pages_.empty()) return;
  high_water_ = std::max(high_water_, size());
  // A position on a page boundary stays at the end of the full page before
  // it, so that seeking never takes a page nothing is written to.
  size_t index = position == 0 ? 0 : (position - 1) / page_size_;
  moveTo(index, position - index * page_size_);
}

BytesReference BytesStreamOutput::bytes() const {
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
