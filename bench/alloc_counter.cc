#include "bench/alloc_counter.h"

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace wirestream::bench {
namespace {

std::atomic<uint64_t> g_allocations{0};
std::atomic<uint64_t> g_live_bytes{0};
std::atomic<uint64_t> g_peak_bytes{0};

void noteAlloc(void* p) {
  uint64_t size = malloc_usable_size(p);
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  uint64_t live = g_live_bytes.fetch_add(size, std::memory_order_relaxed) + size;
  uint64_t peak = g_peak_bytes.load(std::memory_order_relaxed);
  while (live > peak &&
         !g_peak_bytes.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
  }
}

void noteFree(void* p) {
  g_live_bytes.fetch_sub(malloc_usable_size(p), std::memory_order_relaxed);
}

void* countedAlloc(size_t size, size_t align, bool nothrow) {
  if (size == 0) size = 1;
  for (;;) {
    void* p = nullptr;
    if (align <= alignof(std::max_align_t)) {
      p = std::malloc(size);
    } else if (posix_memalign(&p, align, size) != 0) {
      p = nullptr;
    }
    if (p != nullptr) {
      noteAlloc(p);
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
  noteFree(p);
  std::free(p);
}

}  // namespace

uint64_t AllocCounter::allocations() {
  return g_allocations.load(std::memory_order_relaxed);
}

uint64_t AllocCounter::liveBytes() {
  return g_live_bytes.load(std::memory_order_relaxed);
}

AllocCounter::Scope::Scope()
    : allocations_at_start_(allocations()), live_at_start_(liveBytes()) {
  g_peak_bytes.store(live_at_start_, std::memory_order_relaxed);
}

AllocCounter::Stats AllocCounter::Scope::stats() const {
  uint64_t peak = g_peak_bytes.load(std::memory_order_relaxed);
  return {allocations() - allocations_at_start_,
          peak > live_at_start_ ? peak - live_at_start_ : 0};
}

}  // namespace wirestream::bench

// ---- the replacements (every form, so no allocation escapes the count) ----

using wirestream::bench::countedAlloc;
using wirestream::bench::countedFree;
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
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  countedFree(p);
}
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  countedFree(p);
}
