#include "bench/alloc_counter.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

namespace wirestream::bench {
namespace {

std::atomic<uint64_t> g_allocations{0};
std::atomic<uint64_t> g_live_bytes{0};
std::atomic<uint64_t> g_peak_bytes{0};

// Every block carries a 16-byte header just before the pointer handed out:
// the offset back to what malloc returned, and the size asked for. Bytes are
// counted as asked, not as malloc rounded them, so the figures do not move
// with the heap's state.
struct Header {
  uint64_t offset;
  uint64_t size;
};
static_assert(sizeof(Header) == 16);

void noteAlloc(uint64_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  uint64_t live = g_live_bytes.fetch_add(size, std::memory_order_relaxed) + size;
  uint64_t peak = g_peak_bytes.load(std::memory_order_relaxed);
  while (live > peak &&
         !g_peak_bytes.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
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
  g_live_bytes.fetch_sub(h.size, std::memory_order_relaxed);
  std::free(static_cast<char*>(p) - h.offset);
}

}  // namespace

uint64_t AllocCounter::allocations() { return g_allocations.load(std::memory_order_relaxed); }

uint64_t AllocCounter::liveBytes() { return g_live_bytes.load(std::memory_order_relaxed); }

AllocCounter::Scope::Scope() : allocations_at_start_(allocations()), live_at_start_(liveBytes()) {
  g_peak_bytes.store(live_at_start_, std::memory_order_relaxed);
}

AllocCounter::Stats AllocCounter::Scope::stats() const {
  uint64_t peak = g_peak_bytes.load(std::memory_order_relaxed);
  return {allocations() - allocations_at_start_, peak > live_at_start_ ? peak - live_at_start_ : 0};
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
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { countedFree(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  countedFree(p);
}
