#include "stream/page_recycler.h"

#include <new>
#include <stdexcept>

namespace wirestream {

namespace {
// Pages are cache-line aligned so that kernels over them start aligned.
constexpr std::align_val_t kPageAlign{64};
}  // namespace

PageRecycler::PageRecycler(size_t page_size, size_t budget_bytes)
    : page_size_(page_size), max_pooled_(budget_bytes / (page_size ? page_size : 1)) {
  if (page_size == 0) throw std::invalid_argument("page size must be positive");
}

PageRecycler::~PageRecycler() {
  for (uint8_t* p : pool_) ::operator delete(p, kPageAlign);
}

PageRecycler& PageRecycler::defaultRecycler() {
  static PageRecycler* recycler = new PageRecycler();
  return *recycler;
}

uint8_t* PageRecycler::obtain() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++outstanding_;
    if (!pool_.empty()) {
      uint8_t* p = pool_.back();
      pool_.pop_back();
      return p;
    }
  }
  try {
    return static_cast<uint8_t*>(::operator new(page_size_, kPageAlign));
  } catch (...) {
    std::lock_guard<std::mutex> lock(mu_);
    --outstanding_;
    throw;
  }
}

void PageRecycler::release(uint8_t* page) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    --outstanding_;
    if (pool_.size() < max_pooled_) {
      pool_.push_back(page);
      return;
    }
  }
  ::operator delete(page, kPageAlign);
}

size_t PageRecycler::pooledPages() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pool_.size();
}

size_t PageRecycler::outstandingPages() const {
  std::lock_guard<std::mutex> lock(mu_);
  return outstanding_;
}

}  // namespace wirestream
