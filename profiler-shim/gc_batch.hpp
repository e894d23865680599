#pragma once
// Everything one GC produced, copied out of the runtime's callback arrays. The GC thread
// fills a GcBatch; the writer thread encodes it (docs/shim.md "Threading").

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gcsnap/model.hpp"

namespace gcsnap::shim {

struct AddressRange {
  uint64_t start = 0;
  uint64_t length = 0;
};

struct OwnedType {
  uint32_t id = 0;
  uint64_t class_id = 0;
  std::string name;
  std::string module;
};

struct OwnedMethod {
  uint64_t function_id = 0;
  std::string name;
};

struct GcBatch {
  GcInfo info;
  std::vector<GenerationRange> bounds;        ///< post-GC, from GarbageCollectionFinished
  std::vector<AddressRange> non_gc_ranges;    ///< frozen segments, for heap walks

  std::vector<uint64_t> root_objects, root_ids;
  std::vector<uint8_t> root_kinds, root_flags;

  std::vector<uint64_t> surviving_starts, surviving_lengths;
  std::vector<uint64_t> moved_old_starts, moved_new_starts, moved_lengths;

  std::vector<uint64_t> object_addresses, object_sizes;
  std::vector<uint32_t> object_types, object_ref_counts;
  std::vector<uint8_t> object_generations;    ///< filled by assign_generations
  std::vector<uint64_t> references;
  /// Dependent handles (heap-walk GCs only): primaries[i] keeps secondaries[i] alive.
  std::vector<uint64_t> dependent_primaries, dependent_secondaries;
  uint64_t dependent_handles_dropped = 0;

  std::vector<OwnedType> types;
  std::vector<OwnedMethod> methods;
  DropCounts drops;

  uint64_t accounted_bytes = 0;  ///< what the recorder charged to its memory budget

  bool has_heap_walk() const noexcept { return info.trigger != SnapshotTrigger::None; }
};

/// Classify ADDRESS: the generation of the bounds range holding it, NonGcHeap inside a
/// frozen range, else Unknown. SORTED_BOUNDS must be sorted by start.
Generation classify_address(uint64_t address, std::span<const GenerationRange> sorted_bounds,
                            std::span<const AddressRange> non_gc_ranges) noexcept;

/// Fill batch.object_generations from the post-GC bounds and the frozen ranges.
void assign_generations(GcBatch& batch);

}  // namespace gcsnap::shim
