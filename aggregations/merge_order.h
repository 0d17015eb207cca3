// The order in which Elasticsearch's reduces take the buckets of several
// key-sorted lists (one a shard): a Lucene PriorityQueue of the lists'
// iterators, ordered by their current key, whose top is taken and advanced
// (updateTop) or popped until it is empty. The buckets of one key come out in
// the queue's order, not the lists' order. That order matters wherever
// merging does not commute: floating-point sums and the slot order of a
// sparse HyperLogLog++ sketch. Internal to //aggregations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace wirestream::aggregations {

// Calls f(list, index) for every bucket of lists of `sizes` buckets, in the
// order ES's queue yields them, holding nothing but the queue.
// `less(list_a, index_a, list_b, index_b)` is the queue's lessThan (key a
// before key b). Empty lists are not queued, as in ES.
template <class Less, class F>
void forEachInMergeOrder(std::span<const size_t> sizes, Less less, F&& f) {
  struct Cursor {
    uint32_t list;
    uint32_t index;
  };
  auto lt = [&](const Cursor& a, const Cursor& b) {
    return less(a.list, a.index, b.list, b.index);
  };
  std::vector<Cursor> heap(1);  // 1-based, as Lucene's
  auto up = [&](size_t i) {
    const Cursor node = heap[i];
    for (size_t j = i >> 1; j > 0 && lt(node, heap[j]); j >>= 1) {
      heap[i] = heap[j];
      i = j;
    }
    heap[i] = node;
  };
  auto down = [&](size_t i) {
    const size_t size = heap.size() - 1;
    const Cursor node = heap[i];
    auto smaller = [&](size_t j) { return j + 1 <= size && lt(heap[j + 1], heap[j]) ? j + 1 : j; };
    for (size_t j = smaller(i << 1); j <= size && lt(heap[j], node); j = smaller(i << 1)) {
      heap[i] = heap[j];
      i = j;
    }
    heap[i] = node;
  };
  for (uint32_t l = 0; l < sizes.size(); ++l) {
    if (sizes[l] == 0) continue;
    heap.push_back({l, 0});
    up(heap.size() - 1);
  }
  while (heap.size() > 1) {
    Cursor& top = heap[1];
    f(top.list, top.index);
    if (top.index + 1 < sizes[top.list]) {
      ++top.index;
    } else {
      heap[1] = heap.back();
      heap.pop_back();
    }
    if (heap.size() > 1) down(1);
  }
}

// (list, index) of every bucket, in forEachInMergeOrder's order.
template <class Less>
std::vector<std::pair<uint32_t, uint32_t>> luceneMergeOrder(std::span<const size_t> sizes,
                                                            Less less) {
  size_t total = 0;
  for (size_t n : sizes) total += n;
  std::vector<std::pair<uint32_t, uint32_t>> out;
  out.reserve(total);
  forEachInMergeOrder(sizes, less, [&](uint32_t l, uint32_t i) { out.emplace_back(l, i); });
  return out;
}

}  // namespace wirestream::aggregations
