#pragma once
// Prefetches for a breadth-first search over a HeapGraph's successors. Past a few million
// objects nearly every step of such a search is a cache miss: the next node's CSR offsets, its
// edge list, then each target's per-node record (visited or not). Those loads depend on one
// another, so the search waits for each in turn; started a few nodes ahead of the queue's head
// (offsets furthest, then the edges, then the targets) they overlap. Only hints: the search
// and its order are unchanged.

#include <cstddef>
#include <span>

#include "analysis_index/index_access.hpp"
#include "gcsnap/heap_graph.hpp"

namespace gcsnap::detail {

/// Start loading the cache line of P. GCC 12 drops a __builtin_prefetch whose address comes
/// from a load in some inlined code (BfsPrefetch::ahead lost all of its): an asm statement
/// it must keep.
inline void prefetch_line(const void* p) noexcept {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#elif defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(p);
#else
  (void)p;
#endif
}

class BfsPrefetch {
 public:
  explicit BfsPrefetch(const HeapGraph& graph) noexcept : csr_(AnalysisIndexAccess::forward(graph)) {}

  /// At the search's HEAD of QUEUE: start loading what the nodes a little further on will
  /// read. TOUCH(w) prefetches target w's records (the caller's arrays).
  template <class Touch>
  void ahead(std::span<const NodeIndex> queue, size_t head, Touch touch) const noexcept {
    const size_t size = queue.size();
    if (head + kOffsets < size) prefetch_offset(queue[head + kOffsets]);
    if (head + kEdges < size) prefetch_line(csr_.items.data() + offset(queue[head + kEdges]));
    if (head + kTargets < size) {
      const NodeIndex v = queue[head + kTargets];
      const uint64_t end = offset(v + 1);
      for (uint64_t e = offset(v); e < end; ++e) touch(csr_.items[e]);
    }
  }

 private:
  // In queue positions ahead of the head: each stage's loads have had the nodes between them
  // and the next stage to arrive (tuned on the synthetic series: one step is ~100 ns).
  static constexpr size_t kTargets = 4, kEdges = 10, kOffsets = 18;

  uint64_t offset(size_t i) const noexcept { return csr_.narrow.empty() ? csr_.wide[i] : csr_.narrow[i]; }
  void prefetch_offset(size_t i) const noexcept {
    if (csr_.narrow.empty()) prefetch_line(csr_.wide.data() + i);
    else prefetch_line(csr_.narrow.data() + i);
  }

  CsrArrays csr_;
};

}  // namespace gcsnap::detail
