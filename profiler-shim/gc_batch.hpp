#pragma once
// Everything one GC produced, copied out of the runtime's callback arrays. The GC thread
// fills a GcBatch; the writer thread encodes it (docs/shim.md "Threading").

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gcsnap/field_layout.hpp"
#include "gcsnap/model.hpp"
#include "gcsnap/values.hpp"

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

/// Where a type keeps its references (format-spec.md §6.12); offsets from the object's start.
struct OwnedField {
  uint32_t offset = 0;
  uint8_t flags = 0;  ///< field_flags bits
  std::string name;
};
struct OwnedLayout {
  uint32_t type_id = 0;
  LayoutKind kind = LayoutKind::Object;
  uint32_t data_offset = 0;
  uint32_t element_size = 0;
  std::vector<OwnedField> fields;  ///< sorted by offset
};

struct OwnedMethod {
  uint64_t function_id = 0;
  std::string name;
};

/// A run of the heap walk's objects and their references, allocated once at its full size and
/// filled by the GC thread without growing (no copy, no reallocation during the pause). The
/// writer thread encodes chunk after chunk (Writer::add_objects appends), so chunk boundaries
/// do not show in the file.
/// One object of the heap walk as the GC thread stores it: one record, one write stream (the
/// writer thread splits the records into columns).
struct ObjectRecord {
  uint64_t address;
  uint64_t size;
  uint32_t type_id;
  uint32_t reference_count;
};
static_assert(sizeof(ObjectRecord) == 24);

struct ObjectChunk {
  /// A full chunk: 128Ki objects, 6 MiB with the references and slots, so that a full chunk is
  /// whole 2 MiB huge pages (see the constructor).
  static constexpr size_t kObjects = size_t{128} * 1024;
  /// Reference room per object slot: a chunk is closed when either part is full (heaps
  /// measured: 1.5-2.7 references per object). Room that stays empty was populated for nothing.
  static constexpr size_t kReferencesPerObject = 2;

  /// Map a chunk of these capacities (one anonymous mapping; 2 MiB aligned and backed by
  /// transparent huge pages where the system allows, when at least 2 MiB). Throws std::bad_alloc.
  ObjectChunk(size_t object_capacity, size_t reference_capacity);
  ~ObjectChunk();
  ObjectChunk(const ObjectChunk&) = delete;
  ObjectChunk& operator=(const ObjectChunk&) = delete;

  /// Bytes a chunk of these capacities maps (what the memory budget is charged).
  static size_t bytes_for(size_t object_capacity, size_t reference_capacity) noexcept;
  /// Fault every page in now (MADV_POPULATE_WRITE), so that filling it later takes no page
  /// fault: the chunk pool's thread does this ahead of the GC thread.
  void populate() noexcept;
  bool fits(size_t reference_total) const noexcept {
    return objects < object_capacity && reference_capacity - reference_count >= reference_total;
  }
  bool is_full_size() const noexcept {
    return object_capacity == kObjects && reference_capacity == kObjects * kReferencesPerObject;
  }
  void clear() noexcept { objects = reference_count = 0; }

  size_t object_capacity, reference_capacity;
  size_t objects = 0, reference_count = 0;
  ObjectRecord* records;
  uint64_t* references;
  /// Byte offset of each reference in its object (kUnknownSlot: not found), parallel to
  /// references; written only when the recorder captures slots (format-spec.md §6.13).
  uint32_t* slots;

 private:
  void* mapping_;
  size_t mapped_bytes_;
};

struct GcBatch {
  GcInfo info;
  std::vector<GenerationRange> bounds;        ///< post-GC, from GarbageCollectionFinished
  std::vector<AddressRange> non_gc_ranges;    ///< frozen segments, for heap walks

  std::vector<uint64_t> root_objects, root_ids;
  std::vector<uint8_t> root_kinds, root_flags;

  std::vector<uint64_t> surviving_starts, surviving_lengths;
  std::vector<uint64_t> moved_old_starts, moved_new_starts, moved_lengths;

  std::vector<std::unique_ptr<ObjectChunk>> objects;  ///< the heap walk, in walk order
  /// Dependent handles (heap-walk GCs only): primaries[i] keeps secondaries[i] alive.
  std::vector<uint64_t> dependent_primaries, dependent_secondaries;
  uint64_t dependent_handles_dropped = 0;
  bool has_reference_slots = false;  ///< the chunks' slots were filled for this GC's walk
  bool dependent_handles_captured = false;  ///< a heap walk with Callback5 answered

  /// Values of the walk (format-spec.md §6.23-§6.26; value_reader.hpp), when captured.
  bool values_captured = false;
  uint32_t capture_chars = 0;  ///< --capture-strings N; 0: no contents
  std::vector<StringValue> string_values;
  std::vector<uint64_t> content_addresses;
  std::vector<uint32_t> content_chars, content_lengths;
  std::string content_text;  ///< the contents' UTF-8, concatenated
  std::vector<CollectionValue> collection_values;

  std::vector<OwnedType> types;
  std::vector<OwnedMethod> methods;
  /// The heap walk's delegates: their code pointers as read during the walk (address,
  /// _methodPtr, _methodPtrAux), resolved into delegate_targets when the GC finishes.
  std::vector<std::array<uint64_t, 3>> delegate_codes;
  std::vector<DelegateTarget> delegate_targets;  ///< format-spec.md §6.22
  std::vector<OwnedLayout> layouts;  ///< field layouts of types first seen in this GC
  DropCounts drops;
  std::optional<WalkSkip> walk_skip;  ///< the policy skipped this GC's heap walk (format §6.15)

  uint64_t accounted_bytes = 0;  ///< what the recorder charged to its memory budget

  bool has_heap_walk() const noexcept { return info.trigger != SnapshotTrigger::None; }
  size_t object_count() const noexcept;
  size_t reference_count() const noexcept;
};

/// Classify ADDRESS: the generation of the bounds range holding it, NonGcHeap inside a
/// frozen range, else Unknown. SORTED_BOUNDS must be sorted by start.
Generation classify_address(uint64_t address, std::span<const GenerationRange> sorted_bounds,
                            std::span<const AddressRange> non_gc_ranges) noexcept;

/// Generations of the heap walk's objects from the post-GC bounds and the frozen ranges.
/// Made once per GC on the writer thread; classify() is called chunk after chunk.
class GenerationClassifier {
 public:
  GenerationClassifier(std::span<const GenerationRange> bounds, std::span<const AddressRange> non_gc_ranges);
  /// Fill OUT[i] with the generation of ADDRESSES[i] (sizes must match).
  void classify(std::span<const uint64_t> addresses, std::span<uint8_t> out);

 private:
  std::vector<GenerationRange> sorted_;
  std::span<const AddressRange> non_gc_ranges_;
  const GenerationRange* last_ = nullptr;
};

}  // namespace gcsnap::shim
