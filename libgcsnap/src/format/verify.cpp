// Recording::verify_gc: decode every section of one GC and check the invariants of
// format-spec.md §9.3.
#include <cstdint>
#include <new>
#include <optional>
#include <span>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "format/chunk_decoder.hpp"
#include "format/reader_impl.hpp"
#include "platform/memory_map.hpp"

namespace gcsnap {
namespace {

Status check_types_known(std::span<const uint32_t> type_ids, const NameTable& names, uint64_t offset) {
  // A small direct-mapped cache of ids already found: objects of a few thousand types in any
  // order cost one compare each, not a search of the type table each (verify of 10 M objects
  // spent ~0.5 s here).
  constexpr size_t kSlots = 4096;
  std::vector<uint32_t> known(kSlots, 0);  // 0 is never cached: it is always allowed
  for (uint32_t id : type_ids) {
    uint32_t& slot = known[(id ^ (id >> 12)) % kSlots];
    if (id == 0 || slot == id) continue;
    if (!names.find_type(id)) return make_error(ErrorCode::InconsistentData, "object of an undeclared type", offset);
    slot = id;
  }
  return {};
}

}  // namespace

Result<uint64_t> Recording::block_hash(size_t gc_pos) const {
  GCSNAP_RETURN_IF_ERROR(impl_->check_index(gc_pos));
  const GcEntry& e = impl_->gcs[gc_pos];
  if (e.block_offset > impl_->data.size() || e.block_size > impl_->data.size() - e.block_offset)
    return make_error(ErrorCode::Truncated, "block extends past the end of the file", e.block_offset);
  return static_cast<uint64_t>(XXH3_64bits(impl_->data.data() + e.block_offset, static_cast<size_t>(e.block_size)));
}

void Recording::release_block_pages(size_t gc_pos) const noexcept {
  if (impl_->map_address == nullptr || gc_pos >= impl_->gcs.size()) return;
  const GcEntry& e = impl_->gcs[gc_pos];
  if (e.block_offset > impl_->data.size() || e.block_size > impl_->data.size() - e.block_offset) return;
  // Only the pages wholly inside the block: its neighbours' bytes stay where they are.
  const uintptr_t page = platform::page_size();
  const auto start = reinterpret_cast<uintptr_t>(impl_->data.data() + e.block_offset);
  const uintptr_t begin = (start + page - 1) & ~(page - 1);
  const uintptr_t end = (start + static_cast<uintptr_t>(e.block_size)) & ~(page - 1);
  if (begin < end) platform::release_file_pages(reinterpret_cast<void*>(begin), end - begin);
}

Status Recording::verify_gc(size_t gc_pos, const std::span<const uint32_t>* attested_type_ids) const {
  try {
    GCSNAP_RETURN_IF_ERROR(impl_->check_index(gc_pos));
    const GcEntry& e = impl_->gcs[gc_pos];
    // Every section of the block, including ones this reader skips, must pass its checksum.
    auto walked = format::walk_block(impl_->data, impl_->summaries[gc_pos], impl_->limits);
    if (!walked) return walked.error();
    // §6.17: a dropped section's payload is not checked (its bytes were given back); it may
    // only stand where a walked GC kept a walk's section.
    std::vector<uint8_t> payload;
    bool dropped = false;
    for (const auto& ref : *walked) {
      if (ref.header.type == static_cast<uint16_t>(format::SectionType::Dropped)) {
        if (e.info.trigger == SnapshotTrigger::None)
          return make_error(ErrorCode::InconsistentData, "dropped walk section in a GC without a heap walk", ref.offset);
        dropped = true;
        continue;
      }
      // An attested objects section was decompressed whole when the index was built from these
      // very bytes: its checksum and frame are checked, its payload (the block's largest, ~20 B
      // an object) is not decompressed again, so verify's memory does not grow with the heap.
      if (attested_type_ids && ref.header.type == static_cast<uint16_t>(format::SectionType::Objects))
        GCSNAP_RETURN_IF_ERROR(format::check_section(impl_->data, ref, impl_->limits));
      else
        GCSNAP_RETURN_IF_ERROR(format::load_section(impl_->data, ref, impl_->limits, payload));
    }

    GCSNAP_RETURN_IF_ERROR(read_generation_bounds(gc_pos).status());
    GCSNAP_RETURN_IF_ERROR(read_roots(gc_pos).status());
    GCSNAP_RETURN_IF_ERROR(read_ranges(gc_pos).status());
    if (!dropped) GCSNAP_RETURN_IF_ERROR(read_dependent_handles(gc_pos).status());
    if (dropped) {
      // The walk is gone; the block's own types and methods must still decode.
      auto names = read_block_names(gc_pos);
      if (!names) return names.error();
    } else if (e.has_heap_walk() || e.object_count > 0) {
      // The sections' checksums were checked above; the decode of the objects (the bulk of
      // the work) is what an attestation saves.
      std::optional<ObjectTable> objects;
      if (!attested_type_ids) {
        auto read = read_objects(gc_pos, ObjectReadOptions{true});
        if (!read) return read.error();
        objects = std::move(read).value();
      } else if (attested_type_ids->size() != e.object_count) {
        return make_error(ErrorCode::InvalidArgument, "attested objects do not match the GC's object count");
      }
      // Type names are cumulative, so only GCs with objects pay for reading all earlier blocks.
      auto names = read_names(gc_pos);
      if (!names) return names.error();
      GCSNAP_RETURN_IF_ERROR(check_types_known(objects ? std::span<const uint32_t>(objects->type_ids) : *attested_type_ids,
                                               *names, e.block_offset));
    } else {
      // The block's own types and methods must still decode.
      auto names = read_block_names(gc_pos);
      if (!names) return names.error();
    }
    GCSNAP_RETURN_IF_ERROR(read_walk_skip(gc_pos).status());
    GCSNAP_RETURN_IF_ERROR(read_memory_accounting(gc_pos).status());
    std::string static_names;
    if (!dropped) GCSNAP_RETURN_IF_ERROR(read_static_slots(gc_pos, static_names).status());
    if (gc_pos > 0 && impl_->gcs[gc_pos - 1].info.gc_number >= e.info.gc_number)
      return make_error(ErrorCode::InconsistentData, "GC numbers do not increase", e.block_offset);
    return {};
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "verifying a GC");
  }
}

}  // namespace gcsnap
