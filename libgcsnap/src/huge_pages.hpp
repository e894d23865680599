#pragma once
// Large arrays backed by transparent huge pages where the kernel allows it.
//
// Why: a 10 M-object heap fills arrays of 40-300 MB. With 4 KiB pages, first touching them
// costs one page fault per 4 KiB (a quarter of decoding time was that, measured), and random
// access in the graph analyses misses the TLB on nearly every step. On kernels whose
// transparent_hugepage setting is "madvise" (Debian's default), the advice below turns that
// into one fault per 2 MiB. Where huge pages are off or unavailable it changes nothing.

#include <cstddef>
#include <vector>

namespace gcsnap::detail {

/// Advise the kernel to back [data, data + bytes) with huge pages (best effort, no error).
void advise_huge_pages(void* data, size_t bytes) noexcept;

/// Reserve room for n elements and advise huge pages for it; no element is touched.
template <typename T>
void reserve_huge(std::vector<T>& v, size_t n) {
  v.reserve(n);
  advise_huge_pages(v.data(), v.capacity() * sizeof(T));
}

/// Resize v to n value-initialised elements, in huge pages where possible.
template <typename T>
void resize_huge(std::vector<T>& v, size_t n) {
  if (v.capacity() < n) reserve_huge(v, n);
  v.resize(n);
}

/// Replace v's contents with n copies of value, in huge pages where possible.
template <typename T>
void assign_huge(std::vector<T>& v, size_t n, const T& value) {
  if (v.capacity() < n) {
    std::vector<T>().swap(v);
    reserve_huge(v, n);
  }
  v.assign(n, value);
}

}  // namespace gcsnap::detail
