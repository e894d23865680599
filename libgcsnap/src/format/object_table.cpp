#include <algorithm>
#include <vector>

#include "gcsnap/reader.hpp"

namespace gcsnap {

std::optional<size_t> ObjectTable::find_containing(uint64_t address) const noexcept {
  return gcsnap::find_containing(addresses, sizes, address);
}

namespace {

// The row whose object covers ADDRESS, given the first row that starts above it (AFTER).
std::optional<size_t> covering(std::span<const uint64_t> addresses, std::span<const uint64_t> sizes, size_t after,
                               uint64_t address) noexcept {
  if (after == 0) return std::nullopt;
  const size_t row = after - 1;
  // The subtraction cannot wrap (address >= start); max(size, 1) gives a zero-size object its
  // own start, and an object whose end passes 2^64 still covers every address above its start.
  if (address - addresses[row] >= std::max<uint64_t>(sizes[row], 1)) return std::nullopt;
  return row;
}

}  // namespace

std::optional<size_t> find_containing(std::span<const uint64_t> addresses, std::span<const uint64_t> sizes,
                                      uint64_t address) noexcept {
  const auto it = std::upper_bound(addresses.begin(), addresses.end(), address);
  return covering(addresses, sizes, static_cast<size_t>(it - addresses.begin()), address);
}

std::vector<std::optional<size_t>> find_containing_each(std::span<const uint64_t> addresses,
                                                        std::span<const uint64_t> sizes,
                                                        std::span<const uint64_t> queries) {
  std::vector<std::optional<size_t>> out;
  out.reserve(queries.size());
  const size_t n = addresses.size();
  size_t from = 0;  // the first row above the previous query
  uint64_t previous = 0;
  for (const uint64_t q : queries) {
    size_t lo = 0, hi = from;
    if (q >= previous) {
      // Gallop forward from the previous answer: rows before LO start at or below Q, row HI
      // (if any) above it, so a sorted list of queries reads the addresses nearly in order.
      lo = from;
      hi = from;
      for (size_t step = 1; hi < n && addresses[hi] <= q; step <<= 1) {
        lo = hi + 1;
        hi = from + step;
      }
      hi = std::min(hi, n);
    }
    const auto it = std::upper_bound(addresses.begin() + static_cast<std::ptrdiff_t>(lo),
                                     addresses.begin() + static_cast<std::ptrdiff_t>(hi), q);
    from = static_cast<size_t>(it - addresses.begin());
    previous = q;
    out.push_back(covering(addresses, sizes, from, q));
  }
  return out;
}

}  // namespace gcsnap
