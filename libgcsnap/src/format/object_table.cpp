#include <algorithm>

#include "gcsnap/reader.hpp"

namespace gcsnap {

std::optional<size_t> ObjectTable::find_containing(uint64_t address) const noexcept {
  return gcsnap::find_containing(addresses, sizes, address);
}

std::optional<size_t> find_containing(std::span<const uint64_t> addresses, std::span<const uint64_t> sizes,
                                      uint64_t address) noexcept {
  auto it = std::upper_bound(addresses.begin(), addresses.end(), address);
  if (it == addresses.begin()) return std::nullopt;
  const auto row = static_cast<size_t>(it - addresses.begin()) - 1;
  // The subtraction cannot wrap (address >= start); max(size, 1) gives a zero-size object its
  // own start, and an object whose end passes 2^64 still covers every address above its start.
  if (address - addresses[row] >= std::max<uint64_t>(sizes[row], 1)) return std::nullopt;
  return row;
}

}  // namespace gcsnap
