#pragma once
// Writer-side buffers: one struct per section type, holding the columns of one chunk.

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "format/byte_buffer.hpp"
#include "format/format_constants.hpp"

namespace gcsnap::format {

struct GenerationBoundsChunk {
  std::vector<uint8_t> generations;
  std::vector<uint64_t> starts, lengths, reserved;
  size_t size() const noexcept { return starts.size(); }
};
struct RootsChunk {
  std::vector<uint64_t> object_ids;
  std::vector<uint8_t> kinds, flags;
  std::vector<uint64_t> root_ids;
  size_t size() const noexcept { return object_ids.size(); }
  void reserve(size_t n) {
    object_ids.reserve(n);
    kinds.reserve(n);
    flags.reserve(n);
    root_ids.reserve(n);
  }
};
struct SurvivingChunk {
  std::vector<uint64_t> starts, lengths;
  size_t size() const noexcept { return starts.size(); }
};
struct MovedChunk {
  std::vector<uint64_t> old_starts, new_starts, lengths;
  size_t size() const noexcept { return old_starts.size(); }
};
struct ObjectsChunk {
  std::vector<uint64_t> addresses;
  std::vector<uint32_t> type_ids;
  std::vector<uint64_t> sizes;
  std::vector<uint8_t> generations;
  std::vector<uint32_t> reference_counts;
  std::vector<uint64_t> references;
  /// With has_slots, one slot per reference (kUnknownSlot when unknown), and a reference-slots
  /// section follows the objects section (§6.13).
  std::vector<uint32_t> slots;
  bool has_slots = false;
  size_t size() const noexcept { return addresses.size(); }
  void reserve(size_t n) {
    addresses.reserve(n);
    type_ids.reserve(n);
    sizes.reserve(n);
    generations.reserve(n);
    reference_counts.reserve(n);
  }
  /// Empty every column, keeping the capacity (for reuse by the next chunk).
  void clear() noexcept {
    addresses.clear();
    type_ids.clear();
    sizes.clear();
    generations.clear();
    reference_counts.clear();
    references.clear();
    slots.clear();
    has_slots = false;
  }
};
struct TypesChunk {
  std::vector<uint64_t> ids, class_ids, name_lengths, module_lengths;
  std::vector<uint8_t> names, modules;
  size_t size() const noexcept { return ids.size(); }
};
struct MethodsChunk {
  std::vector<uint64_t> function_ids, name_lengths;
  std::vector<uint8_t> names;
  size_t size() const noexcept { return function_ids.size(); }
};
struct DependentHandlesChunk {
  std::vector<uint64_t> primaries, secondaries;
  bool captured = false;  // add_dependent_handles was called in this GC, maybe with no pair
  size_t size() const noexcept { return primaries.size(); }
};
struct LayoutsChunk {
  std::vector<uint64_t> type_ids, data_offsets, element_sizes, field_counts;
  std::vector<uint8_t> kinds;
  std::vector<uint64_t> field_offsets, name_lengths;
  std::vector<uint8_t> field_flags, names;
  size_t size() const noexcept { return type_ids.size(); }
};
struct StaticSlotsChunk {
  std::vector<uint64_t> addresses, name_lengths;
  std::vector<uint8_t> names;
  size_t size() const noexcept { return addresses.size(); }
};
struct DelegateTargetsChunk {
  std::vector<uint64_t> addresses, function_ids;
  size_t size() const noexcept { return addresses.size(); }
};
/// A record whose payload the writer already built (block start, end, abort, index).
struct RawRecord {
  uint16_t type = 0;
  uint64_t item_count = 0;
  std::vector<uint8_t> payload;
  bool compress = false;  ///< a data section's columns encoded whole by the caller (Writer::add_encoded_section, §6.23-§6.25): zstd as the others
  size_t size() const noexcept { return payload.size(); }
};

using ChunkData = std::variant<GenerationBoundsChunk, RootsChunk, SurvivingChunk, MovedChunk, ObjectsChunk,
                               TypesChunk, MethodsChunk, DependentHandlesChunk, LayoutsChunk, StaticSlotsChunk,
                               DelegateTargetsChunk,
                               RawRecord>;

/// Encode one chunk as a whole section (header + maybe-compressed payload), appended to out.
/// Objects are sorted by address first (format-spec.md §6.6); an objects chunk with slots
/// becomes two sections, objects then reference slots (§6.13). Returns the sections written.
uint32_t encode_chunk_section(ChunkData& chunk, int level, ByteBuffer& out);

/// Raw column bytes the chunk holds, for WriterStats::raw_bytes and queue accounting.
uint64_t chunk_raw_bytes(const ChunkData& chunk) noexcept;

}  // namespace gcsnap::format
