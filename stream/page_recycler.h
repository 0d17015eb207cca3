// PageRecycler: hands out fixed-size pages and takes them back for reuse.
//
// Example (runs: page_recycler):
//   PageRecycler& recycler = PageRecycler::defaultRecycler();  // 16 KiB pages
//   PageRecycler small(/*page_size=*/7, /*budget_bytes=*/1 << 20);  // tests
//
// A BytesStreamOutput takes its pages from a recycler and gives every one back
// on reset() or destruction, so a reused output serializes with no heap
// allocation once warm. Released pages are kept up to `budget_bytes` (the
// retained cap); pages beyond it are freed. When a burst is over (once
// kTrimBytes were freed and the pages out fit in the pool again; at most once
// a second) the allocator is asked to hand its free memory back to the system:
// glibc keeps freed 16 KiB blocks in its heap otherwise, so a burst of
// received frames would leave the process's RSS at its peak. The recycler
// must outlive every output that uses it. Thread-safe: outputs on many
// threads may share one recycler.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace wirestream {

class PageRecycler {
 public:
  static constexpr size_t kPageSize = 16 * 1024;
  static constexpr size_t kDefaultBudgetBytes = 64 * 1024 * 1024;
  // Bytes freed past the retained cap between two returns to the system.
  static constexpr size_t kTrimBytes = 16 * 1024 * 1024;

  explicit PageRecycler(size_t page_size = kPageSize, size_t budget_bytes = kDefaultBudgetBytes);
  ~PageRecycler();
  PageRecycler(const PageRecycler&) = delete;
  PageRecycler& operator=(const PageRecycler&) = delete;

  // The process-wide recycler of 16 KiB pages (never destroyed).
  static PageRecycler& defaultRecycler();

  size_t pageSize() const { return page_size_; }

  // A page of pageSize() bytes; its contents are unspecified.
  uint8_t* obtain();
  // Gives back a page obtained from this recycler.
  void release(uint8_t* page);

  // Pages kept for reuse, and pages handed out and not yet released.
  size_t pooledPages() const;
  size_t outstandingPages() const;
  // Bytes of the pooled pages; never more than retainedCapBytes().
  size_t retainedBytes() const { return pooledPages() * page_size_; }
  size_t retainedCapBytes() const { return max_pooled_ * page_size_; }
  // Pages freed because the pool was full, since construction.
  uint64_t freedPages() const;

 private:
  const size_t page_size_;
  const size_t max_pooled_;
  mutable std::mutex mu_;
  std::vector<uint8_t*> pool_;
  size_t outstanding_ = 0;
  uint64_t freed_ = 0;
  size_t freed_since_trim_ = 0;
  std::chrono::steady_clock::time_point last_trim_{};
};

}  // namespace wirestream
