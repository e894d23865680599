// Recording::verify_gc: decode every section of one GC and check the invariants of
// format-spec.md §9.3.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <vector>

#include "format/xxh3_wide.hpp"

#include "format/alloc_sections.hpp"
#include "format/block_walk.hpp"
#include "format/chunk_decoder.hpp"
#include "format/reader_impl.hpp"
#include "format/section_table.hpp"
#include "platform/memory_map.hpp"

namespace gcsnap {
namespace {

// Whether objects' type ids are declared. A small direct-mapped cache of ids already found:
// objects of a few thousand types in any order cost one compare each, not a search of the type
// table each (verify of 10 M objects spent ~0.5 s there).
class TypeCheck {
 public:
  TypeCheck(const NameTable& names, uint64_t offset) : names_(names), offset_(offset), known_(kSlots, 0) {}
  Status check(std::span<const uint32_t> type_ids) {
    for (uint32_t id : type_ids) {
      uint32_t& slot = known_[(id ^ (id >> 12)) % kSlots];
      if (id == 0 || slot == id) continue;  // 0 is never cached: it is always allowed
      if (!names_.find_type(id)) return make_error(ErrorCode::InconsistentData, "object of an undeclared type", offset_);
      slot = id;
    }
    return {};
  }

 private:
  static constexpr size_t kSlots = 4096;
  const NameTable& names_;
  uint64_t offset_;
  std::vector<uint32_t> known_;
};

// Check every attested type id from NEXT_PIECE against TYPES, and their count against COUNT.
Status check_attested(const Recording::TypeIdPieces& next_piece, TypeCheck& types, uint64_t count) {
  uint64_t seen = 0;
  for (;;) {
    auto piece = next_piece();
    if (!piece) return piece.error();
    if (piece->empty()) break;
    seen += piece->size();
    if (seen > count) break;
    GCSNAP_RETURN_IF_ERROR(types.check(*piece));
  }
  if (seen != count) return make_error(ErrorCode::InvalidArgument, "attested objects do not match the GC's object count");
  return {};
}

// Check every attested type with objects against TYPES, and their count against COUNT.
Status check_counted(std::span<const Recording::AttestedTypeCount> counted, TypeCheck& types, uint64_t count) {
  uint64_t seen = 0;
  for (const Recording::AttestedTypeCount& t : counted) {
    if (t.count == 0) continue;
    if (t.count > count - seen) return make_error(ErrorCode::InvalidArgument, "attested objects do not match the GC's object count");
    seen += t.count;
    const uint32_t id = t.type_id;
    GCSNAP_RETURN_IF_ERROR(types.check(std::span<const uint32_t>(&id, 1)));
  }
  if (seen != count) return make_error(ErrorCode::InvalidArgument, "attested objects do not match the GC's object count");
  return {};
}

}  // namespace

// What vouches for a GC's objects in place of their decode: their type ids a piece at a time,
// or their counts per type with the hash of the block they were decoded from.
struct Recording::Attestation {
  const TypeIdPieces* pieces = nullptr;
  std::span<const AttestedTypeCount> counted;
  std::optional<uint64_t> block_hash;
};

Result<uint64_t> Recording::block_hash(size_t gc_pos) const {
  GCSNAP_RETURN_IF_ERROR(impl_->check_index(gc_pos));
  const GcEntry& e = impl_->gcs[gc_pos];
  if (e.block_offset > impl_->data.size() || e.block_size > impl_->data.size() - e.block_offset)
    return make_error(ErrorCode::Truncated, "block extends past the end of the file", e.block_offset);
  const uint8_t* block = impl_->data.data() + e.block_offset;
  const auto size = static_cast<size_t>(e.block_size);
  if (!impl_->map_address) return format::xxh3_64(block, size);
  // Mapped: hashed a slice at a time, each slice's whole pages given back once hashed, so that
  // checking a block against its index does not leave the block resident (hundreds of MB at
  // 50 M objects).
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> state(XXH3_createState(), &XXH3_freeState);
  if (!state || XXH3_64bits_reset(state.get()) != XXH_OK)
    return make_error(ErrorCode::OutOfMemory, "hashing a GC's block");
  constexpr size_t kSlice = size_t{8} << 20;
  const uintptr_t page = platform::page_size();
  for (size_t at = 0; at < size; at += kSlice) {
    const size_t n = std::min(kSlice, size - at);
    format::xxh3_update(state.get(), block + at, n);
    const uintptr_t begin = (reinterpret_cast<uintptr_t>(block + at) + page - 1) & ~(page - 1);
    const uintptr_t end = reinterpret_cast<uintptr_t>(block + at + n) & ~(page - 1);
    if (begin < end) platform::release_file_pages(reinterpret_cast<void*>(begin), end - begin);
  }
  return static_cast<uint64_t>(XXH3_64bits_digest(state.get()));
}

void Recording::release_block_pages(size_t gc_pos) const noexcept {
  if (!impl_->map_address || gc_pos >= impl_->gcs.size()) return;
  const GcEntry& e = impl_->gcs[gc_pos];
  if (e.block_offset >= impl_->map_length) return;
  // The whole pages the block touches, within the map (a neighbour's pages read again if used).
  const uintptr_t page = platform::page_size();
  const uintptr_t map = reinterpret_cast<uintptr_t>(impl_->map_address);
  const uintptr_t begin = (map + static_cast<uintptr_t>(e.block_offset)) / page * page;
  const uint64_t end_offset = std::min<uint64_t>(e.block_offset + e.block_size, impl_->map_length);
  const uintptr_t end = std::min<uintptr_t>((map + static_cast<uintptr_t>(end_offset) + page - 1) / page * page,
                                            (map + impl_->map_length + page - 1) / page * page);
  if (begin < end) platform::release_file_pages(reinterpret_cast<void*>(begin), end - begin);
}

Status Recording::verify_gc(size_t gc_pos, const std::span<const uint32_t>* attested_type_ids) const {
  if (!attested_type_ids) return verify_gc_attested(gc_pos, {});
  bool given = false;
  return verify_gc_attested(gc_pos, [&]() -> Result<std::span<const uint32_t>> {
    if (given) return std::span<const uint32_t>();
    given = true;
    return *attested_type_ids;
  });
}

Status Recording::verify_gc_attested(size_t gc_pos, const TypeIdPieces& next_piece) const {
  if (!next_piece) return verify_gc_with(gc_pos, nullptr);
  const Attestation a{&next_piece, {}, std::nullopt};
  return verify_gc_with(gc_pos, &a);
}

Status Recording::verify_gc_counted(size_t gc_pos, uint64_t block_hash, std::span<const AttestedTypeCount> types) const {
  const Attestation a{nullptr, types, block_hash};
  return verify_gc_with(gc_pos, &a);
}

Status Recording::verify_gc_with(size_t gc_pos, const Attestation* a) const {
  const bool attested = a != nullptr;
  const bool hashed = attested && a->block_hash.has_value();
  const auto objects_type = static_cast<uint16_t>(format::SectionType::Objects);
  try {
    GCSNAP_RETURN_IF_ERROR(impl_->check_index(gc_pos));
    const GcEntry& e = impl_->gcs[gc_pos];
    // Every section of the block, including ones this reader skips, must pass its checksum.
    auto walked = format::walk_block(impl_->data, impl_->summaries[gc_pos], impl_->limits);
    if (!walked) return walked.error();
    if (hashed) {
      // The object sections (the block's bulk) are checked in the pass that hashes the block.
      uint64_t hash = 0;
      GCSNAP_RETURN_IF_ERROR(format::hash_block_checking(impl_->data, e, *walked, objects_type, impl_->limits,
                                                         impl_->map_address != nullptr, hash));
      if (hash != *a->block_hash)
        return make_error(ErrorCode::InvalidArgument, "the block is not the one its objects were attested from", e.block_offset);
    }
    // §6.17: a dropped section's payload is not checked (its bytes were given back); it may
    // only stand where a walked GC kept a walk's section.
    std::vector<uint8_t> payload;
    bool dropped = false;
    for (const auto& ref : *walked) {
      const format::SectionFacts* facts = format::find_section_facts(ref.header.type);
      if (facts && facts->role == format::SectionRole::Dropped) {
        if (e.info.trigger == SnapshotTrigger::None)
          return make_error(ErrorCode::InconsistentData, "dropped walk section in a GC without a heap walk", ref.offset);
        dropped = true;
        continue;
      }
      // An attested objects section was decompressed whole when the index was built from these
      // very bytes: its checksum and frame are checked, its payload (the block's largest, ~20 B
      // an object) is not decompressed again, so verify's memory does not grow with the heap.
      if (hashed && ref.header.type == objects_type) continue;  // checked with the block's hash
      if (attested && ref.header.type == objects_type)
        GCSNAP_RETURN_IF_ERROR(format::check_section(impl_->data, ref, impl_->limits));
      else
        GCSNAP_RETURN_IF_ERROR(format::load_section(impl_->data, ref, impl_->limits, payload));
      // Checked: its pages go back, so that the block is never resident whole (the few
      // sections read again below come from the page cache).
      if (impl_->map_address) format::release_section_pages(impl_->data, ref);
    }

    GCSNAP_RETURN_IF_ERROR(read_generation_bounds(gc_pos).status());
    GCSNAP_RETURN_IF_ERROR(read_roots(gc_pos).status());
    GCSNAP_RETURN_IF_ERROR(read_ranges(gc_pos).status());
    // A dropped walk's sections (those the table marks `walk`) are not there to decode.
    if (!dropped) GCSNAP_RETURN_IF_ERROR(read_dependent_handles(gc_pos).status());
    GCSNAP_RETURN_IF_ERROR(alloc_detail::verify_alloc_block(*this, gc_pos));  // §6.18-§6.21
    if (dropped) {
      // The walk is gone; the block's own types and methods must still decode.
      auto names = read_block_names(gc_pos);
      if (!names) return names.error();
    } else if (e.has_heap_walk() || e.object_count > 0) {
      // The sections' checksums were checked above; the decode of the objects (the bulk of
      // the work) is what an attestation saves.
      std::optional<ObjectTable> objects;
      if (!attested) {
        auto read = read_objects(gc_pos, ObjectReadOptions{true});
        if (!read) return read.error();
        objects = std::move(read).value();
      }
      // Type names are cumulative, so only GCs with objects pay for reading all earlier blocks.
      auto names = read_names(gc_pos);
      if (!names) return names.error();
      TypeCheck types(*names, e.block_offset);
      if (objects) GCSNAP_RETURN_IF_ERROR(types.check(objects->type_ids));
      else if (a->pieces) GCSNAP_RETURN_IF_ERROR(check_attested(*a->pieces, types, e.object_count));
      else GCSNAP_RETURN_IF_ERROR(check_counted(a->counted, types, e.object_count));
    } else {
      // The block's own types and methods must still decode.
      auto names = read_block_names(gc_pos);
      if (!names) return names.error();
    }
    GCSNAP_RETURN_IF_ERROR(read_walk_skip(gc_pos).status());
    GCSNAP_RETURN_IF_ERROR(read_memory_accounting(gc_pos).status());
    std::string static_names;
    if (!dropped) GCSNAP_RETURN_IF_ERROR(read_static_slots(gc_pos, static_names).status());
    if (!dropped) GCSNAP_RETURN_IF_ERROR(read_delegate_targets(gc_pos).status());
    // §6.23-§6.26: the values decode, one row per address, at most one capture record.
    GCSNAP_RETURN_IF_ERROR(read_string_values(gc_pos).status());
    GCSNAP_RETURN_IF_ERROR(read_string_contents(gc_pos, static_names).status());
    GCSNAP_RETURN_IF_ERROR(read_collection_values(gc_pos).status());
    GCSNAP_RETURN_IF_ERROR(read_value_capture(gc_pos).status());
    if (gc_pos > 0 && impl_->gcs[gc_pos - 1].info.gc_number >= e.info.gc_number)
      return make_error(ErrorCode::InconsistentData, "GC numbers do not increase", e.block_offset);
    return {};
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "verifying a GC");
  }
}

}  // namespace gcsnap
