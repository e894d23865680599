#include "gc_batch.hpp"

#include <algorithm>
#include <cstdint>
#include <new>

#include "shim_os.hpp"

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

namespace {

size_t round_to_page(size_t bytes) noexcept {
  constexpr size_t kPage = 4096;
  return (bytes + kPage - 1) / kPage * kPage;
}

}  // namespace

size_t ObjectChunk::bytes_for(size_t object_capacity, size_t reference_capacity) noexcept {
  return round_to_page(object_capacity * sizeof(ObjectRecord) +
                       std::max<size_t>(reference_capacity, 1) * (sizeof(uint64_t) + sizeof(uint32_t)));
}

ObjectChunk::ObjectChunk(size_t object_capacity_, size_t reference_capacity_)
    : object_capacity(object_capacity_), reference_capacity(reference_capacity_) {
  mapped_bytes_ = bytes_for(object_capacity, reference_capacity);
  mapping_ = os::map_memory(mapped_bytes_);
  if (!mapping_) throw std::bad_alloc();
  records = static_cast<ObjectRecord*>(mapping_);
  references = reinterpret_cast<uint64_t*>(records + object_capacity);
  slots = reinterpret_cast<uint32_t*>(references + std::max<size_t>(reference_capacity, 1));
}

ObjectChunk::~ObjectChunk() { os::unmap_memory(mapping_, mapped_bytes_); }

void ObjectChunk::populate() noexcept {
  os::populate_memory(mapping_, mapped_bytes_);
  // Then write one byte per page: on the VMs measured (docs/performance.md) the first write to a page
  // still cost ~3.5 us after the kernel populated it (the hypervisor backs the page then),
  // 25 ns per stored object if the GC thread pays it. Whoever writes first pays.
  auto* base = static_cast<volatile unsigned char*>(mapping_);
  for (size_t i = 0; i < mapped_bytes_; i += 4096) base[i] = 0;
}

size_t GcBatch::object_count() const noexcept {
  size_t n = 0;
  for (const auto& c : objects) n += c->objects;
  return n;
}

size_t GcBatch::reference_count() const noexcept {
  size_t n = 0;
  for (const auto& c : objects) n += c->reference_count;
  return n;
}

GenerationClassifier::GenerationClassifier(std::span<const GenerationRange> bounds,
                                           std::span<const AddressRange> non_gc_ranges)
    : sorted_(bounds.begin(), bounds.end()), non_gc_ranges_(non_gc_ranges) {
  std::sort(sorted_.begin(), sorted_.end(),
            [](const GenerationRange& a, const GenerationRange& b) { return a.start < b.start; });
}

void GenerationClassifier::classify(std::span<const uint64_t> addresses, std::span<uint8_t> out) {
  // The walk reports the objects of one range one after the other: try the previous object's
  // range before searching (with regions there are hundreds of ranges).
  for (size_t i = 0; i < addresses.size(); ++i) {
    const uint64_t address = addresses[i];
    if (last_ && address >= last_->start && address - last_->start < last_->length) {
      out[i] = static_cast<uint8_t>(last_->generation);
      continue;
    }
    auto after = std::upper_bound(sorted_.begin(), sorted_.end(), address,
                                  [](uint64_t a, const GenerationRange& r) { return a < r.start; });
    last_ = after != sorted_.begin() && address - (after - 1)->start < (after - 1)->length ? &*(after - 1) : nullptr;
    Generation g = classify_address(address, sorted_, non_gc_ranges_);
    // format-spec.md §5.2 allows generations 0..5 only, although model.hpp names Unknown:
    // an object the heap walk reported outside every post-GC range is filed as Gen2.
    if (g == Generation::Unknown) g = Generation::Gen2;
    out[i] = static_cast<uint8_t>(g);
  }
}

}  // namespace gcsnap::shim
