#include "gc_batch.hpp"

#include <algorithm>

namespace gcsnap::shim {

Generation classify_address(uint64_t address, std::span<const GenerationRange> sorted_bounds,
                            std::span<const AddressRange> non_gc_ranges) noexcept {
  auto after = std::upper_bound(sorted_bounds.begin(), sorted_bounds.end(), address,
                                [](uint64_t a, const GenerationRange& r) { return a < r.start; });
  if (after != sorted_bounds.begin()) {
    const GenerationRange& r = *(after - 1);
    // Objects live in [start, start + length): length is the part of the range in use.
    if (address - r.start < r.length) return r.generation;
  }
  for (const AddressRange& r : non_gc_ranges) {
    if (address >= r.start && address - r.start < r.length) return Generation::NonGcHeap;
  }
  return Generation::Unknown;
}

void assign_generations(GcBatch& batch) {
  std::vector<GenerationRange> sorted(batch.bounds);
  std::sort(sorted.begin(), sorted.end(),
            [](const GenerationRange& a, const GenerationRange& b) { return a.start < b.start; });
  batch.object_generations.resize(batch.object_addresses.size());
  for (size_t i = 0; i < batch.object_addresses.size(); ++i) {
    batch.object_generations[i] =
        static_cast<uint8_t>(classify_address(batch.object_addresses[i], sorted, batch.non_gc_ranges));
  }
}

}  // namespace gcsnap::shim
