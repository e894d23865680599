#pragma once
// Offsets of a CSR adjacency array while it is being built: 32-bit while the edge count fits
// (8 B per object less for forward + reverse, which the 100 B/object analysis budget needs),
// 64-bit beyond. Internal: HeapGraph exposes spans, not this layout.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "huge_pages.hpp"

namespace gcsnap::detail {

class CsrOffsets {
 public:
  /// Make n_plus_1 zero offsets wide enough for edges up to max_edges.
  void reset(size_t n_plus_1, uint64_t max_edges) {
    std::vector<uint32_t>().swap(narrow_);
    std::vector<uint64_t>().swap(wide_);
    if (max_edges <= UINT32_MAX) assign_huge(narrow_, n_plus_1, 0u);
    else assign_huge(wide_, n_plus_1, uint64_t{0});
  }
  bool empty() const noexcept { return narrow_.empty() && wide_.empty(); }
  uint64_t operator[](size_t i) const noexcept { return wide_.empty() ? narrow_[i] : wide_[i]; }
  void set(size_t i, uint64_t value) noexcept {
    if (wide_.empty()) narrow_[i] = static_cast<uint32_t>(value);
    else wide_[i] = value;
  }
  std::vector<uint32_t>& narrow() noexcept { return narrow_; }
  std::vector<uint64_t>& wide() noexcept { return wide_; }
  const std::vector<uint32_t>& narrow() const noexcept { return narrow_; }
  const std::vector<uint64_t>& wide() const noexcept { return wide_; }

 private:
  std::vector<uint32_t> narrow_;
  std::vector<uint64_t> wide_;
};

}  // namespace gcsnap::detail
