// Every block carries a 16-byte header just before the pointer handed out:
// the offset back to what malloc returned (16, or the alignment for the
// over-aligned forms PageRecycler uses) and the size asked for.
#include "tests/support/counting_allocator.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

namespace wirestream::testing {

namespace {

std::atomic<size_t> g_live{0};
std::atomic<size_t> g_peak{0};
std::atomic<size_t> g_total{0};
std::atomic<uint64_t> g_allocations{0};

struct Header {
  size_t offset;
  size_t size;
};
static_assert(sizeof(Header) == 16);

void noteAlloc(size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  g_total.fetch_add(size, std::memory_order_relaxed);
  size_t live = g_live.fetch_add(size, std::memory_order_relaxed) + size;
  size_t peak = g_peak.load(std::memory_order_relaxed);
  while (live > peak && !g_peak.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
  }
}

void* countedAlloc(size_t size, size_t align, bool nothrow) {
  size_t offset = align > sizeof(Header) ? align : sizeof(Header);
  for (;;) {
    void* base = nullptr;
    if (size <= SIZE_MAX - offset) {
      if (align <= alignof(std::max_align_t)) {
        base = std::malloc(size + offset);
      } else if (posix_memalign(&base, align, size + offset) != 0) {
        base = nullptr;
      }
    }
    if (base != nullptr) {
      auto* p = static_cast<char*>(base) + offset;
      Header h{offset, size};
      std::memcpy(p - sizeof(Header), &h, sizeof h);
      noteAlloc(size);
      return p;
    }
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) {
      if (nothrow) return nullptr;
      throw std::bad_alloc();
    }
    handler();
  }
}

void countedFree(void* p) {
  if (p == nullptr) return;
  Header h;
  std::memcpy(&h, static_cast<char*>(p) - sizeof(Header), sizeof h);
  g_live.fetch_sub(h.size, std::memory_order_relaxed);
  std::free(static_cast<char*>(p) - h.offset);
}

}  // namespace

AllocationCounters allocationCounters() {
  return {g_live.load(std::memory_order_relaxed), g_peak.load(std::memory_order_relaxed),
          g_total.load(std::memory_order_relaxed), g_allocations.load(std::memory_order_relaxed)};
}

AllocationScope::AllocationScope()
    : start_live_(g_live.load(std::memory_order_relaxed)),
      start_total_(g_total.load(std::memory_order_relaxed)),
      start_allocations_(g_allocations.load(std::memory_order_relaxed)),
      saved_peak_(g_peak.load(std::memory_order_relaxed)) {
  g_peak.store(start_live_, std::memory_order_relaxed);
}

AllocationScope::~AllocationScope() {
  if (saved_peak_ > g_peak.load(std::memory_order_relaxed)) {
    g_peak.store(saved_peak_, std::memory_order_relaxed);
  }
}

size_t AllocationScope::peakBytes() const {
  size_t peak = g_peak.load(std::memory_order_relaxed);
  return peak > start_live_ ? peak - start_live_ : 0;
}

size_t AllocationScope::totalBytes() const {
  return g_total.load(std::memory_order_relaxed) - start_total_;
}

uint64_t AllocationScope::allocations() const {
  return g_allocations.load(std::memory_order_relaxed) - start_allocations_;
}

}  // namespace wirestream::testing

// ---- the replacements (every form, so no allocation escapes the count) ----

using wirestream::testing::countedAlloc;
using wirestream::testing::countedFree;
constexpr size_t kDefaultAlign = alignof(std::max_align_t);

void* operator new(size_t n) { return countedAlloc(n, kDefaultAlign, false); }
void* operator new[](size_t n) { return countedAlloc(n, kDefaultAlign, false); }
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  return countedAlloc(n, kDefaultAlign, true);
}
void* operator new[](size_t n, const std::nothrow_t&) noexcept {
  return countedAlloc(n, kDefaultAlign, true);
}
void* operator new(size_t n, std::align_val_t a) {
  return countedAlloc(n, static_cast<size_t>(a), false);
}
void* operator new[](size_t n, std::align_val_t a) {
  return countedAlloc(n, static_cast<size_t>(a), false);
}
void* operator new(size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return countedAlloc(n, static_cast<size_t>(a), true);
}
void* operator new[](size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return countedAlloc(n, static_cast<size_t>(a), true);
}

void operator delete(void* p) noexcept { countedFree(p); }
void operator delete[](void* p) noexcept { countedFree(p); }
void operator delete(void* p, size_t) noexcept { countedFree(p); }
void operator delete[](void* p, size_t) noexcept { countedFree(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { countedFree(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { countedFree(p); }
void operator delete(void* p, std::align_val_t) noexcept { countedFree(p); }
void operator delete[](void* p, std::align_val_t) noexcept { countedFree(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { countedFree(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { countedFree(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { countedFree(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  countedFree(p);
}
