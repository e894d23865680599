#pragma once
// Ask for transparent huge pages on the large per-object arrays of the analysis (decode, graph,
// dominators). Their accesses are random over tens of MB, so with 4 KiB pages the build spends
// much of its time in page faults and TLB misses; Debian's default THP mode is "madvise", so an
// array gets 2 MiB pages only when asked. On the 10 M-object recording, page-fault kernel time
// in `gcsnap index` fell from 12.5% to 6-7% of the samples (docs/performance.md, "The analysis
// index"). A hint only: any failure (no THP, another kernel) leaves the arrays as they are.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "platform/memory_map.hpp"

namespace gcsnap::detail {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;

// Advise the whole 2 MiB pages inside [data, data + bytes). Call it before the memory is first
// written: pages already faulted in stay small until khugepaged gets to them.
inline void advise_huge_pages(const void* data, size_t bytes) noexcept {
  if (bytes < 2 * kHugePageBytes) return;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kHugePageBytes - 1);
  if (begin < end) platform::advise_huge_pages(reinterpret_cast<void*>(begin), end - begin);
}

// Give back the whole pages of [data, data + bytes): memory that will not be read again (a
// build consuming its input as it goes).
inline void discard_whole_pages(const void* data, size_t bytes) noexcept {
  const size_t page = platform::page_size();
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + page - 1) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(page - 1);
  if (begin < end) platform::discard_pages(reinterpret_cast<void*>(begin), end - begin);
}

// v.reserve(n), then advise the new storage (a fresh allocation: nothing written yet).
template <typename T, typename A>
void reserve_huge(std::vector<T, A>& v, size_t n) {
  if (n <= v.capacity()) return;
  v.reserve(n);
  advise_huge_pages(v.data(), v.capacity() * sizeof(T));
}

// v.assign(n, value) with the storage advised first.
template <typename T, typename A>
void assign_huge(std::vector<T, A>& v, size_t n, const T& value) {
  if (n > v.capacity()) {
    std::vector<T, A>().swap(v);
    reserve_huge(v, n);
  }
  v.assign(n, value);
}

}  // namespace gcsnap::detail
