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
  // The walk reports the objects of one range one after the other: try the previous object's
  // range before searching (with regions there are hundreds of ranges).
  const GenerationRange* last = nullptr;
  for (size_t i = 0; i < batch.object_addresses.size(); ++i) {
    const uint64_t address = batch.object_addresses[i];
    if (last && address >= last->start && address - last->start < last->length) {
      batch.object_generations[i] = static_cast<uint8_t>(last->generation);
      continue;
    }
    auto after = std::upper_bound(sorted.begin(), sorted.end(), address,
                                  [](uint64_t a, const GenerationRange& r) { return a < r.start; });
    last = after != sorted.begin() && address - (after - 1)->start < (after - 1)->length ? &*(after - 1) : nullptr;
    Generation g = classify_address(address, sorted, batch.non_gc_ranges);
    // format-spec.md §5.2 allows generations 0..5 only, although model.hpp names Unknown:
    // an object the heap walk reported outside every post-GC range is filed as Gen2.
    if (g == Generation::Unknown) g = Generation::Gen2;
    batch.object_generations[i] = static_cast<uint8_t>(g);
  }
}

}  // namespace gcsnap::shim
