#include "stream/page_recycler.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

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
  bool trim = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    --outstanding_;
    if (pool_.size() < max_pooled_) {
      pool_.push_back(page);
      return;
    }
    ++freed_;
    freed_since_trim_ += page_size_;
    if (freed_since_trim_ >= kTrimBytes) {
      freed_since_trim_ = 0;
      trim = true;
    }
  }
  ::operator delete(page, kPageAlign);
#if defined(__GLIBC__)
  // Returns the free parts of every arena (not only the heap's top) with
  // madvise; costs a walk of the free lists, once per kTrimBytes freed.
  if (trim) malloc_trim(0);
#else
  (void)trim;
#endif
}

uint64_t PageRecycler::freedPages() const {
  std::lock_guard<std::mutex> lock(mu_);
  return freed_;
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
