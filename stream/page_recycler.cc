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
    // Trimming makes the next allocations fault their pages in again, so it
    // waits until a burst is over (what is out fits in the pool again) and
    // runs at most once a second.
    if (freed_since_trim_ >= kTrimBytes && outstanding_ <= max_pooled_) {
      const auto now = std::chrono::steady_clock::now();
      if (now - last_trim_ >= std::chrono::seconds(1)) {
        freed_since_trim_ = 0;
        last_trim_ = now;
        trim = true;
      }
    }
  }
  ::operator delete(page, kPageAlign);
#if defined(__GLIBC__)
  // Returns the free parts of every arena (not only the heap's top) with
  // madvise; costs a walk of the allocator's free lists.
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
