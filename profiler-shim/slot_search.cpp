#include "slot_search.hpp"

namespace gcsnap::shim {

size_t find_reference_slots(std::span<const uint64_t> words, std::span<const uint64_t> references, uint32_t* slots) {
  constexpr uint32_t kUnknown = 0xFFFFFFFFu;
  // Offsets must fit the format's 32-bit slots; words beyond are never searched.
  const size_t n = words.size() < (size_t{1} << 29) ? words.size() : (size_t{1} << 29);
  size_t cursor = 1;
  size_t found = 0;
  for (size_t r = 0; r < references.size(); ++r) {
    const uint64_t target = references[r];
    size_t at = n;
    for (size_t w = cursor; w < n; ++w)
      if (words[w] == target) {
        at = w;
        break;
      }
    if (at == n)
      for (size_t w = 1; w < cursor && w < n; ++w)
        if (words[w] == target) {
          at = w;
          break;
        }
    if (at == n) {
      slots[r] = kUnknown;
      continue;
    }
    slots[r] = static_cast<uint32_t>(at * 8);
    cursor = at + 1;
    ++found;
  }
  return found;
}

}  // namespace gcsnap::shim
