// Replaces the global operator new / delete, plain and aligned (PageRecycler
// takes its pages with aligned new). Each block carries its size in a header
// (16 bytes, or `align` bytes for aligned forms) so delete can count it.
#include "tests/hardening/counting_allocator.h"

#include <algorithm>
#include <cstdlib>
#include <new>

namespace wirestream::testing {

namespace {
constexpr size_t kHeader = 16;  // keeps max_align_t alignment

AllocationCounters counters;

void countAllocation(size_t n) {
  counters.live += n;
  counters.total += n;
  if (counters.live > counters.peak) counters.peak = counters.live;
}

void* countedAlloc(size_t n) {
  void* p = std::malloc(n + kHeader);
  if (p == nullptr) return nullptr;
  *static_cast<size_t*>(p) = n;
  countAllocation(n);
  return static_cast<char*>(p) + kHeader;
}

void countedFree(void* user) {
  if (user == nullptr) return;
  void* p = static_cast<char*>(user) - kHeader;
  counters.live -= *static_cast<size_t*>(p);
  std::free(p);
}

void* allocOrThrow(size_t n) {
  void* p = countedAlloc(n);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void* countedAlignedAlloc(size_t n, std::align_val_t al) {
  size_t align = std::max(static_cast<size_t>(al), kHeader);
  size_t total = (n + align + align - 1) / align * align;
  void* p = std::aligned_alloc(align, total);
  if (p == nullptr) return nullptr;
  *static_cast<size_t*>(p) = n;
  countAllocation(n);
  return static_cast<char*>(p) + align;
}

void countedAlignedFree(void* user, std::align_val_t al) {
  if (user == nullptr) return;
  size_t align = std::max(static_cast<size_t>(al), kHeader);
  void* p = static_cast<char*>(user) - align;
  counters.live -= *static_cast<size_t*>(p);
  std::free(p);
}

void* alignedAllocOrThrow(size_t n, std::align_val_t al) {
  void* p = countedAlignedAlloc(n, al);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace

AllocationCounters& allocationCounters() { return counters; }

AllocationScope::AllocationScope()
    : start_live_(counters.live), start_total_(counters.total), saved_peak_(counters.peak) {
  counters.peak = counters.live;
}

AllocationScope::~AllocationScope() {
  if (saved_peak_ > counters.peak) counters.peak = saved_peak_;
}

size_t AllocationScope::peakBytes() const {
  return counters.peak > start_live_ ? counters.peak - start_live_ : 0;
}

size_t AllocationScope::totalBytes() const { return counters.total - start_total_; }

}  // namespace wirestream::testing

using wirestream::testing::alignedAllocOrThrow;
using wirestream::testing::allocOrThrow;
using wirestream::testing::countedAlignedAlloc;
using wirestream::testing::countedAlignedFree;
using wirestream::testing::countedAlloc;
using wirestream::testing::countedFree;

void* operator new(size_t n) { return allocOrThrow(n); }
void* operator new[](size_t n) { return allocOrThrow(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept { return countedAlloc(n); }
void* operator new[](size_t n, const std::nothrow_t&) noexcept { return countedAlloc(n); }
void operator delete(void* p) noexcept { countedFree(p); }
void operator delete[](void* p) noexcept { countedFree(p); }
void operator delete(void* p, size_t) noexcept { countedFree(p); }
void operator delete[](void* p, size_t) noexcept { countedFree(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { countedFree(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { countedFree(p); }
void* operator new(size_t n, std::align_val_t al) { return alignedAllocOrThrow(n, al); }
void* operator new[](size_t n, std::align_val_t al) { return alignedAllocOrThrow(n, al); }
void* operator new(size_t n, std::align_val_t al, const std::nothrow_t&) noexcept {
  return countedAlignedAlloc(n, al);
}
void* operator new[](size_t n, std::align_val_t al, const std::nothrow_t&) noexcept {
  return countedAlignedAlloc(n, al);
}
void operator delete(void* p, std::align_val_t al) noexcept { countedAlignedFree(p, al); }
void operator delete[](void* p, std::align_val_t al) noexcept { countedAlignedFree(p, al); }
void operator delete(void* p, size_t, std::align_val_t al) noexcept { countedAlignedFree(p, al); }
void operator delete[](void* p, size_t, std::align_val_t al) noexcept { countedAlignedFree(p, al); }
void operator delete(void* p, std::align_val_t al, const std::nothrow_t&) noexcept {
  countedAlignedFree(p, al);
}
void operator delete[](void* p, std::align_val_t al, const std::nothrow_t&) noexcept {
  countedAlignedFree(p, al);
}
