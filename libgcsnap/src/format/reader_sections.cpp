// Recording: decoding a GC's sections on demand (format-spec.md §6).
#include <algorithm>
#include <iterator>
#include <new>
#include <numeric>

#include "format/byte_io.hpp"
#include "format/chunk_decoder.hpp"
#include "format/column_codec.hpp"
#include "format/field_sections.hpp"
#include "format/name_table_fill.hpp"
#include "format/object_sections.hpp"
#include "format/reader_impl.hpp"
#include "format/row_order.hpp"
#include "huge_pages.hpp"

namespace gcsnap {

using format::DecodeContext;
using format::SectionType;

namespace {

// Return the sections of TYPE in block I, after checking that their counts add up to
// EXPECTED (the block end's count), before anything is decoded.
Result<std::vector<format::SectionRef>> counted_sections(const Recording::Impl& impl, size_t i, SectionType type,
                                                         uint64_t expected) {
  auto refs = impl.sections_of(i, type);
  if (!refs) return refs.error();
  uint64_t total = 0;
  for (const auto& r : *refs) {
    if (r.header.item_count > UINT64_MAX - total)
      return make_error(ErrorCode::CorruptSection, "section counts overflow", r.offset);
    total += r.header.item_count;
  }
  if (total != expected)
    return make_error(ErrorCode::InconsistentData, "section counts disagree with the block end",
                      impl.summaries[i].entry.block_offset);
  return refs;
}

// Decode every section of TYPE in block I through FN, in file order.
template <typename Table, typename Fn>
Status decode_all(const Recording::Impl& impl, size_t i, SectionType type, uint64_t expected, Table& out, Fn&& fn) {
  auto refs = counted_sections(impl, i, type, expected);
  if (!refs) return refs.error();
  std::vector<uint8_t> payload;
  for (const auto& r : *refs) {
    GCSNAP_RETURN_IF_ERROR(format::load_section(impl.data, r, impl.limits, payload));
    DecodeContext ctx{payload, r.header.item_count, r.offset, impl.limits.max_name_bytes};
    GCSNAP_RETURN_IF_ERROR(fn(ctx, out));
  }
  return {};
}

// §6.6: chunks are each sorted, but the table must be in address order as a whole.
void sort_by_address(ObjectTable& t) {
  if (std::is_sorted(t.addresses.begin(), t.addresses.end())) return;
  const size_t n = t.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return t.addresses[a] < t.addresses[b]; });
  const std::span<const uint64_t> first(t.reference_offsets);
  ObjectTable s;
  s.addresses = format::gather_rows(t.addresses, order);
  s.type_ids = format::gather_rows(t.type_ids, order);
  s.sizes = format::gather_rows(t.sizes, order);
  s.generations = format::gather_rows(t.generations, order);
  s.reference_targets = format::gather_runs(t.reference_targets, first, order);
  if (!t.reference_slots.empty()) s.reference_slots = format::gather_runs(t.reference_slots, first, order);
  s.reference_offsets = format::gather_run_offsets(first, order);
  t = std::move(s);
}

// §6.17: what is left of a dropped walk is never returned as if it were the walk.
Status check_walk_kept(const Recording::Impl& impl, size_t i) {
  if (impl.gcs[i].walk_dropped())
    return make_error(ErrorCode::WalkDropped, "the heap walk of this GC was dropped to keep the recording under its size cap",
                      impl.gcs[i].block_offset);
  return {};
}

template <typename T, typename Fn>
Result<T> guarded(Fn&& fn) noexcept {
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "decoding a section");
  }
}

}  // namespace

Result<std::vector<GenerationRange>> Recording::read_generation_bounds(size_t gc_pos) const {
  return guarded<std::vector<GenerationRange>>([&]() -> Result<std::vector<GenerationRange>> {
    GCSNAP_RETURN_IF_ERROR(impl_->check_index(gc_pos));
    std::vector<GenerationRange> out;
    GCSNAP_RETURN_IF_ERROR(decode_all(*impl_, gc_pos, SectionType::GenerationBounds,
                                      impl_->gcs[gc_pos].generation_range_count, out,
                                      format::decode_generation_bounds));
    return out;
  });
}

Result<RootTable> Recording::read_roots(size_t gc_pos) const {
  return guarded<RootTable>([&]() -> Result<RootTable> {
    GCSNAP_RETURN_IF_ERROR(impl_->check_index(gc_pos));
    RootTable out;
    GCSNAP_RETURN_IF_ERROR(decode_all(*impl_, gc_pos, SectionType::Roots, impl_->gcs[gc_pos].root_count, out,
                                      format::decode_roots));
    return out;
  });
}

Result<RangeTable> Recording::read_ranges(size_t gc_pos) const {
  return guarded<RangeTable>([&]() -> Result<RangeTable> {
    GCSNAP_RETURN_IF_ERROR(impl_->check_index(gc_pos));
    RangeTable out;
    const GcEntry& e = impl_->gcs[gc_pos];
    GCSNAP_RETURN_IF_ERROR(
        decode_all(*impl_, gc_pos, SectionType::SurvivingRanges, e.surviving_range_count, out, format::decode_surviving));
    GCSNAP_RETURN_IF_ERROR(
        decode_all(*impl_, gc_pos, SectionType::MovedRanges, e.moved_range_count, out, format::decode_moved));
    return out;
  });
}

namespace {

// §6.13: the k-th slots section pairs with the k-th objects section (file order, which is
// still the table's order before sort_by_address).
Status decode_reference_slots(const Recording::Impl& impl, size_t gc_pos,
                              const std::vector<format::SectionRef>& objects, ObjectTable& out) {
  auto slots = impl.sections_of(gc_pos, SectionType::ReferenceSlots);
  if (!slots) return slots.error();
  if (slots->empty()) return {};
  const uint64_t block = impl.summaries[gc_pos].entry.block_offset;
  if (slots->size() != objects.size())
    return make_error(ErrorCode::InconsistentData, "reference-slots sections do not pair with objects sections", block);
  detail::reserve_huge(out.reference_slots, out.reference_targets.size());
  out.reference_slots.resize(out.reference_targets.size());
  std::vector<uint8_t> payload;
  uint64_t first_object = 0;
  for (size_t k = 0; k < objects.size(); ++k) {
    const uint64_t n = objects[k].header.item_count;
    const uint64_t first_ref = out.reference_offsets[first_object];
    const auto& ref = (*slots)[k];
    if (ref.header.item_count != out.reference_offsets[first_object + n] - first_ref)
      return make_error(ErrorCode::InconsistentData, "reference-slots count differs from its objects section", ref.offset);
    GCSNAP_RETURN_IF_ERROR(format::load_section(impl.data, ref, impl.limits, payload));
    std::vector<uint64_t> local(n + 1);
    for (uint64_t i = 0; i <= n; ++i) local[i] = out.reference_offsets[first_object + i] - first_ref;
    format::DecodeContext ctx{payload, ref.header.item_count, ref.offset, impl.limits.max_name_bytes};
    GCSNAP_RETURN_IF_ERROR(format::decode_slots_into(
        ctx, local, {out.sizes.data() + first_object, static_cast<size_t>(n)}, out.reference_slots.data() + first_ref));
    first_object += n;
  }
  return {};
}

// §6.12: layouts carry no count in the block end; every section of the type is decoded.
Status decode_layout_sections(const Recording::Impl& impl, size_t i, NameTable& out) {
  auto refs = impl.sections_of(i, SectionType::TypeLayouts);
  if (!refs) return refs.error();
  std::vector<uint8_t> payload;
  for (const auto& r : *refs) {
    GCSNAP_RETURN_IF_ERROR(format::load_section(impl.data, r, impl.limits, payload));
    DecodeContext ctx{payload, r.header.item_count, r.offset, impl.limits.max_name_bytes};
    GCSNAP_RETURN_IF_ERROR(format::decode_layouts(ctx, out));
  }
  return {};
}

// Sort the layouts by type id; a type given two layouts, or (when the table holds every type
// up to this GC) a layout of an undeclared type, is InconsistentData.
Status check_layouts(NameTable& out, bool all_types) {
  auto& l = format::NameTableFill::layouts(out);
  std::sort(l.begin(), l.end(), [](const TypeLayout& a, const TypeLayout& b) { return a.type_id < b.type_id; });
  for (size_t i = 0; i < l.size(); ++i) {
    if (i > 0 && l[i].type_id == l[i - 1].type_id)
      return make_error(ErrorCode::InconsistentData, "a type has two field layouts");
    if (all_types && !out.find_type(l[i].type_id))
      return make_error(ErrorCode::InconsistentData, "a field layout names an undeclared type");
  }
  return {};
}

// Sort the types and methods by id and the layouts by type id; an id given twice is
// InconsistentData, and so is a layout of an undeclared type when ALL_TYPES.
Status sort_and_check_names(NameTable& out, bool all_types) {
  auto& types = format::NameTableFill::types(out);
  auto& methods = format::NameTableFill::methods(out);
  std::sort(types.begin(), types.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  std::sort(methods.begin(), methods.end(), [](const auto& a, const auto& b) { return a.function_id < b.function_id; });
  for (size_t i = 1; i < types.size(); ++i)
    if (types[i].id == types[i - 1].id) return make_error(ErrorCode::InconsistentData, "a type id is declared twice");
  for (size_t i = 1; i < methods.size(); ++i)
    if (methods[i].function_id == methods[i - 1].function_id)
      return make_error(ErrorCode::InconsistentData, "a method is declared twice");
  return check_layouts(out, all_types);
}

}  // namespace

Result<NameTable> NameTable::from_records(std::vector<TypeRecord> types, std::vector<MethodRecord> methods,
                                          std::vector<TypeLayout> layouts) {
  NameTable out;
  out.types_ = std::move(types);
  out.methods_ = std::move(methods);
  out.layouts_ = std::move(layouts);
  GCSNAP_RETURN_IF_ERROR(sort_and_check_names(out, true));
  return out;
}

Result<ObjectTable> Recording::read_objects(size_t gc_pos) const { return read_objects(gc_pos, {}); }

Result<ObjectTable> Recording::read_objects(size_t gc_pos, const ObjectReadOptions& options) const {
  return guarded<ObjectTable>([&]() -> Result<ObjectTable> {
    GCSNAP_RETURN_IF_ERROR(impl_->check_index(gc_pos));
    const GcEntry& e = impl_->gcs[gc_pos];
    GCSNAP_RETURN_IF_ERROR(check_walk_kept(*impl_, gc_pos));
    if (!e.has_heap_walk() && e.object_count == 0)
      return make_error(ErrorCode::NoHeapWalk, "this GC has no heap walk", e.block_offset);
    auto refs = counted_sections(*impl_, gc_pos, SectionType::Objects, e.object_count);
    if (!refs) return refs.error();
    ObjectTable out;
    GCSNAP_RETURN_IF_ERROR(
        format::decode_object_sections(impl_->data, *refs, impl_->limits, impl_->options.object_decode_threads,
                                       impl_->map_address != nullptr, out));
    if (out.reference_targets.size() != e.reference_count)
      return make_error(ErrorCode::InconsistentData, "reference count disagrees with the block end", e.block_offset);
    if (options.reference_slots) GCSNAP_RETURN_IF_ERROR(decode_reference_slots(*impl_, gc_pos, *refs, out));
    sort_by_address(out);
    for (size_t i = 1; i < out.size(); ++i)
      if (out.addresses[i] == out.addresses[i - 1])
        return make_error(ErrorCode::InconsistentData, "two objects at one address", e.block_offset);
    return out;
  });
}

// §6.11: the GC summary holds no count for dependent handles, so the sections' own counts are
// the only ones; each section's columns must still decode to exactly its item_count.
Result<DependentHandleTable> Recording::read_dependent_handles(size_t gc_pos) const {
  return guarded<DependentHandleTable>([&]() -> Result<DependentHandleTable> {
    GCSNAP_RETURN_IF_ERROR(impl_->check_index(gc_pos));
    GCSNAP_RETURN_IF_ERROR(check_walk_kept(*impl_, gc_pos));
    auto refs = impl_->sections_of(gc_pos, SectionType::DependentHandles);
    if (!refs) return refs.error();
    DependentHandleTable out;
    std::vector<uint8_t> payload;
    for (const auto& r : *refs) {
      GCSNAP_RETURN_IF_ERROR(format::load_section(impl_->data, r, impl_->limits, payload));
      DecodeContext ctx{payload, r.header.item_count, r.offset, impl_->limits.max_name_bytes};
      GCSNAP_RETURN_IF_ERROR(format::decode_dependent_handles(ctx, out));
    }
    return out;
  });
}

Result<bool> Recording::has_dependent_handle_section(size_t gc_pos) const {
  return guarded<bool>([&]() -> Result<bool> {
    GCSNAP_RETURN_IF_ERROR(impl_->check_index(gc_pos));
    if (impl_->gcs[gc_pos].walk_dropped()) return false;
    auto refs = impl_->sections_of(gc_pos, SectionType::DependentHandles);
    if (!refs) return refs.error();
    return !refs->empty();
  });
}

Result<std::optional<uint64_t>> Recording::dependent_handle_count(size_t gc_pos) const {
  return guarded<std::optional<uint64_t>>([&]() -> Result<std::optional<uint64_t>> {
    GCSNAP_RETURN_IF_ERROR(impl_->check_index(gc_pos));
    if (impl_->gcs[gc_pos].walk_dropped()) return std::optional<uint64_t>{};
    auto refs = impl_->sections_of(gc_pos, SectionType::DependentHandles);
    if (!refs) return refs.error();
    if (refs->empty()) return std::optional<uint64_t>{};
    uint64_t pairs = 0;
    for (const auto& r : *refs) pairs += r.header.item_count;
    return std::optional<uint64_t>{pairs};
  });
}

namespace {

// The one section of TYPE a block may hold (walk skipped, memory accounting: "at most one" in
// format-spec.md §4.2), checked and decompressed into PAYLOAD; false when the block has none.
// TWO_OF_THEM names the error of a block with two.
Result<bool> load_single_section(const Recording::Impl& impl, size_t gc_pos, SectionType type,
                                 const char* two_of_them, std::vector<uint8_t>& payload, format::SectionRef& ref) {
  auto refs = impl.sections_of(gc_pos, type);
  if (!refs) return refs.error();
  if (refs->empty()) return false;
  if (refs->size() > 1) return make_error(ErrorCode::CorruptSection, two_of_them, (*refs)[1].offset);
  ref = refs->front();
  GCSNAP_RETURN_IF_ERROR(format::load_section(impl.data, ref, impl.limits, payload));
  return true;
}

// §6.15.
Result<WalkSkip> decode_walk_skip(const std::vector<uint8_t>& payload, const format::SectionRef& r) {
  if (payload.size() != format::kWalkSkippedSize || r.header.item_count != 1)
    return make_error(ErrorCode::CorruptSection, "walk-skipped section of the wrong size", r.offset);
  WalkSkip skip;
  skip.reason = payload[0];
  skip.budget_per_mille = format::load_le32(payload.data() + 4);
  skip.last_walk_ns = format::load_le64(payload.data() + 8);
  skip.since_last_walk_ns = format::load_le64(payload.data() + 16);
  skip.estimated_walk_ns = format::load_le64(payload.data() + 24);
  return skip;
}

// §6.16: later minors may append fields; only a short or ragged payload is malformed.
Result<MemoryAccounting> decode_memory_accounting(const std::vector<uint8_t>& payload, const format::SectionRef& r) {
  if (payload.size() < format::kMemoryAccountingSize || payload.size() % 8 != 0 || r.header.item_count != 1)
    return make_error(ErrorCode::CorruptSection, "memory-accounting section of the wrong size", r.offset);
  const uint8_t* p = payload.data();
  MemoryAccounting m;
  m.present = format::load_le32(p);
  uint64_t* fields[] = {&m.sample_delay_ns,   &m.rss_bytes,       &m.pss_bytes,         &m.swap_bytes,
                        &m.gc_committed_bytes, &m.gc_resident_bytes, &m.gc_in_use_bytes, &m.live_object_bytes,
                        &m.code_bytes,        &m.mapped_file_bytes, &m.stack_bytes,     &m.anonymous_bytes,
                        &m.recorder_bytes,    &m.cgroup_usage_bytes, &m.cgroup_limit_bytes};
  for (size_t k = 0; k < std::size(fields); ++k) *fields[k] = format::load_le64(p + 8 + 8 * k);
  if (m.has(memory_present::kPrivate)) {
    if (payload.size() < format::kMemoryAccountingPrivateSize)
      return make_error(ErrorCode::CorruptSection, "memory-accounting section without its private bytes", r.offset);
    m.private_bytes = format::load_le64(p + format::kMemoryAccountingSize);
  }
  return m;
}

// A single section's value through DECODE, or nullopt when the block has none.
template <typename T, typename Decode>
Result<std::optional<T>> read_single_section(const Recording::Impl& impl, size_t gc_pos, SectionType type,
                                             const char* two_of_them, Decode&& decode) {
  GCSNAP_RETURN_IF_ERROR(impl.check_index(gc_pos));
  std::vector<uint8_t> payload;
  format::SectionRef ref{};
  auto found = load_single_section(impl, gc_pos, type, two_of_them, payload, ref);
  if (!found) return found.error();
  if (!*found) return std::optional<T>{};
  auto value = decode(payload, ref);
  if (!value) return value.error();
  return std::optional<T>(std::move(value).value());
}

}  // namespace

Result<std::optional<WalkSkip>> Recording::read_walk_skip(size_t gc_pos) const {
  return guarded<std::optional<WalkSkip>>([&]() -> Result<std::optional<WalkSkip>> {
    return read_single_section<WalkSkip>(*impl_, gc_pos, SectionType::WalkSkipped,
                                         "two walk-skipped sections in one block", decode_walk_skip);
  });
}

Result<std::optional<MemoryAccounting>> Recording::read_memory_accounting(size_t gc_pos) const {
  return guarded<std::optional<MemoryAccounting>>([&]() -> Result<std::optional<MemoryAccounting>> {
    return read_single_section<MemoryAccounting>(*impl_, gc_pos, SectionType::MemoryAccounting,
                                                 "two memory-accounting sections in one block",
                                                 decode_memory_accounting);
  });
}

Result<std::vector<std::vector<uint8_t>>> Recording::read_section_payloads(size_t gc_pos, uint16_t type) const {
  using Payloads = std::vector<std::vector<uint8_t>>;
  return guarded<Payloads>([&]() -> Result<Payloads> {
    GCSNAP_RETURN_IF_ERROR(impl_->check_index(gc_pos));
    auto refs = impl_->sections_of(gc_pos, static_cast<SectionType>(type));
    if (!refs) return refs.error();
    Payloads out(refs->size());
    for (size_t k = 0; k < refs->size(); ++k)
      GCSNAP_RETURN_IF_ERROR(format::load_section(impl_->data, (*refs)[k], impl_->limits, out[k]));
    return out;
  });
}

Result<std::vector<Recording::SectionPayload>> Recording::read_sections(size_t gc_pos, uint16_t type) const {
  using Payloads = std::vector<SectionPayload>;
  return guarded<Payloads>([&]() -> Result<Payloads> {
    GCSNAP_RETURN_IF_ERROR(impl_->check_index(gc_pos));
    auto refs = impl_->sections_of(gc_pos, static_cast<SectionType>(type));
    if (!refs) return refs.error();
    Payloads out(refs->size());
    for (size_t k = 0; k < refs->size(); ++k) {
      out[k].offset = (*refs)[k].offset;
      out[k].item_count = (*refs)[k].header.item_count;
      GCSNAP_RETURN_IF_ERROR(format::load_section(impl_->data, (*refs)[k], impl_->limits, out[k].payload));
    }
    return out;
  });
}

Result<NameTable> Recording::read_names(size_t gc_pos) const { return read_names_range(0, gc_pos); }

Result<NameTable> Recording::read_block_names(size_t gc_pos) const { return read_names_range(gc_pos, gc_pos); }

Result<NameTable> Recording::read_names_range(size_t first, size_t last) const {
  return guarded<NameTable>([&]() -> Result<NameTable> {
    GCSNAP_RETURN_IF_ERROR(impl_->check_index(last));
    NameTable out;
    for (size_t i = first; i <= last; ++i) {
      const GcEntry& e = impl_->gcs[i];
      GCSNAP_RETURN_IF_ERROR(decode_all(*impl_, i, SectionType::Types, e.new_type_count, out, format::decode_types));
      GCSNAP_RETURN_IF_ERROR(
          decode_all(*impl_, i, SectionType::Methods, e.new_method_count, out, format::decode_methods));
      GCSNAP_RETURN_IF_ERROR(decode_layout_sections(*impl_, i, out));
    }
    GCSNAP_RETURN_IF_ERROR(sort_and_check_names(out, first == 0));
    return out;
  });
}

const TypeRecord* NameTable::find_type(uint32_t id) const noexcept {
  auto it = std::lower_bound(types_.begin(), types_.end(), id, [](const TypeRecord& t, uint32_t v) { return t.id < v; });
  return it != types_.end() && it->id == id ? &*it : nullptr;
}

const TypeLayout* NameTable::find_layout(uint32_t type_id) const noexcept {
  auto it = std::lower_bound(layouts_.begin(), layouts_.end(), type_id,
                             [](const TypeLayout& t, uint32_t v) { return t.type_id < v; });
  return it != layouts_.end() && it->type_id == type_id ? &*it : nullptr;
}

Result<std::vector<StaticSlot>> Recording::read_static_slots(size_t gc_pos, std::string& storage) const {
  return guarded<std::vector<StaticSlot>>([&]() -> Result<std::vector<StaticSlot>> {
    GCSNAP_RETURN_IF_ERROR(impl_->check_index(gc_pos));
    GCSNAP_RETURN_IF_ERROR(check_walk_kept(*impl_, gc_pos));
    auto refs = impl_->sections_of(gc_pos, SectionType::StaticSlots);
    if (!refs) return refs.error();
    std::vector<uint64_t> addresses, lengths;
    storage.clear();
    std::vector<uint8_t> payload;
    for (const auto& r : *refs) {
      GCSNAP_RETURN_IF_ERROR(format::load_section(impl_->data, r, impl_->limits, payload));
      DecodeContext ctx{payload, r.header.item_count, r.offset, impl_->limits.max_name_bytes};
      GCSNAP_RETURN_IF_ERROR(format::decode_static_slots(ctx, addresses, lengths, storage));
    }
    std::vector<StaticSlot> out(addresses.size());
    size_t pos = 0;
    for (size_t i = 0; i < out.size(); ++i) {
      out[i] = StaticSlot{addresses[i], std::string_view(storage).substr(pos, static_cast<size_t>(lengths[i]))};
      pos += static_cast<size_t>(lengths[i]);
    }
    std::sort(out.begin(), out.end(), [](const StaticSlot& a, const StaticSlot& b) { return a.address < b.address; });
    for (size_t i = 1; i < out.size(); ++i)
      if (out[i].address == out[i - 1].address)
        return make_error(ErrorCode::InconsistentData, "two statics at one slot address",
                          impl_->summaries[gc_pos].entry.block_offset);
    return out;
  });
}

Result<std::vector<DelegateTarget>> Recording::read_delegate_targets(size_t gc_pos) const {
  return guarded<std::vector<DelegateTarget>>([&]() -> Result<std::vector<DelegateTarget>> {
    GCSNAP_RETURN_IF_ERROR(impl_->check_index(gc_pos));
    GCSNAP_RETURN_IF_ERROR(check_walk_kept(*impl_, gc_pos));
    auto refs = impl_->sections_of(gc_pos, SectionType::DelegateTargets);
    if (!refs) return refs.error();
    std::vector<DelegateTarget> out;
    std::vector<uint8_t> payload;
    for (const auto& r : *refs) {
      GCSNAP_RETURN_IF_ERROR(format::load_section(impl_->data, r, impl_->limits, payload));
      GCSNAP_RETURN_IF_ERROR(format::decode_delegate_targets({payload, r.header.item_count, r.offset}, out));
    }
    std::sort(out.begin(), out.end(), [](const DelegateTarget& a, const DelegateTarget& b) { return a.address < b.address; });
    for (size_t i = 1; i < out.size(); ++i)
      if (out[i].address == out[i - 1].address)
        return make_error(ErrorCode::InconsistentData, "two delegate targets for one object",
                          impl_->summaries[gc_pos].entry.block_offset);
    return out;
  });
}

const MethodRecord* NameTable::find_method(uint64_t function_id) const noexcept {
  auto it = std::lower_bound(methods_.begin(), methods_.end(), function_id,
                             [](const MethodRecord& m, uint64_t v) { return m.function_id < v; });
  return it != methods_.end() && it->function_id == function_id ? &*it : nullptr;
}

std::string_view NameTable::type_name(uint32_t id) const noexcept {
  if (const TypeRecord* t = find_type(id)) return t->name;
  return id == 0 ? std::string_view("<unknown type>") : std::string_view("<undeclared type>");
}

}  // namespace gcsnap
