#pragma once
// Reordering a table's parallel columns: the one way the writer sorts a chunk's objects and the
// reader sorts a GC's table by address (format-spec.md §6.6), and the analyses sort ranges.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace gcsnap::format {

/// Return COLUMN's rows in ORDER (a permutation of its row indices).
template <typename T, typename Index>
std::vector<T> gather_rows(const std::vector<T>& column, const std::vector<Index>& order) {
  std::vector<T> out(order.size());
  for (size_t i = 0; i < order.size(); ++i) out[i] = column[static_cast<size_t>(order[i])];
  return out;
}

/// Return the per-row runs of VALUES in ORDER: row k owns VALUES[FIRST[k], FIRST[k + 1]).
template <typename T, typename Index>
std::vector<T> gather_runs(const std::vector<T>& values, std::span<const uint64_t> first,
                           const std::vector<Index>& order) {
  std::vector<T> out;
  out.reserve(values.size());
  for (Index k : order) {
    const auto row = static_cast<size_t>(k);
    out.insert(out.end(), values.begin() + static_cast<ptrdiff_t>(first[row]),
               values.begin() + static_cast<ptrdiff_t>(first[row + 1]));
  }
  return out;
}

/// Return the run offsets (size + 1 entries from 0) of rows whose runs FIRST gave, in ORDER.
template <typename Index>
std::vector<uint64_t> gather_run_offsets(std::span<const uint64_t> first, const std::vector<Index>& order) {
  std::vector<uint64_t> out(order.size() + 1, 0);
  for (size_t i = 0; i < order.size(); ++i) {
    const auto row = static_cast<size_t>(order[i]);
    out[i + 1] = out[i] + (first[row + 1] - first[row]);
  }
  return out;
}

}  // namespace gcsnap::format
