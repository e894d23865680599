#include "format/chunk_decoder.hpp"

#include <algorithm>
#include <cstring>

#include "format/column_codec.hpp"
#include "format/format_constants.hpp"
#include "format/name_table_fill.hpp"
#include "platform/thread_cache.hpp"

namespace gcsnap::format {
namespace {

// Grow to n elements, at least doubling the capacity, so many chunks do not reallocate often.
template <typename T>
T* grow_by(std::vector<T>& v, uint64_t n) {
  const size_t old = v.size();
  if (old + n > v.capacity()) v.reserve(std::max<size_t>(static_cast<size_t>(old + n), 2 * v.capacity()));
  v.resize(old + static_cast<size_t>(n));
  return v.data() + old;
}

struct SmallIntsTag;
struct CountsTag;
std::vector<uint64_t>& t_small_ints() { return platform::thread_cached<std::vector<uint64_t>, SmallIntsTag>(); }
std::vector<uint64_t>& t_counts() { return platform::thread_cached<std::vector<uint64_t>, CountsTag>(); }
std::vector<uint8_t>& t_bytes() { return platform::thread_cached<std::vector<uint8_t>>(); }

// The COUNT rows of a section: each of its columns takes at least a byte a row, so a count its
// payload cannot hold is damage, not an allocation.
Status check_count(const DecodeContext& ctx, const char* what) {
  return ctx.items > ctx.payload.size() ? Status(corrupt(ctx, what)) : Status();
}

}  // namespace

Status decode_generation_bounds(const DecodeContext& ctx, std::vector<GenerationRange>& out) {
  ColumnCursor c(ctx.payload, ctx.offset);
  std::vector<uint8_t> gens;
  std::vector<uint64_t> starts, lengths, reserved;
  GCSNAP_RETURN_IF_ERROR(c.read_bytes(ctx.items, gens));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, starts));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, lengths));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, reserved));
  GCSNAP_RETURN_IF_ERROR(c.finish());
  for (size_t i = 0; i < gens.size(); ++i) {
    if (gens[i] > kMaxGeneration) return corrupt(ctx, "generation out of range");
    out.push_back({static_cast<Generation>(gens[i]), starts[i], lengths[i], reserved[i]});
  }
  return {};
}

// The tables grow in place (a recording of 100 M objects has a million roots in many sections):
// integer columns decode straight into them, byte columns through one per-thread buffer.
Status decode_roots(const DecodeContext& ctx, RootTable& out) {
  GCSNAP_RETURN_IF_ERROR(check_count(ctx, "root count larger than its data"));
  const uint64_t n = ctx.items;
  ColumnCursor c(ctx.payload, ctx.offset);
  GCSNAP_RETURN_IF_ERROR(c.read_u64_into(n, grow_by(out.object_ids, n)));
  std::vector<uint8_t>& bytes = t_bytes();
  GCSNAP_RETURN_IF_ERROR(c.read_bytes(n, bytes));
  for (uint8_t k : bytes)
    if (k > kMaxRootKind) return corrupt(ctx, "root kind out of range");
  RootKind* kinds = grow_by(out.kinds, n);
  for (size_t i = 0; i < bytes.size(); ++i) kinds[i] = static_cast<RootKind>(bytes[i]);
  GCSNAP_RETURN_IF_ERROR(c.read_bytes(n, bytes));
  std::copy(bytes.begin(), bytes.end(), grow_by(out.flags, n));  // not memcpy: an empty section has no data()
  GCSNAP_RETURN_IF_ERROR(c.read_u64_into(n, grow_by(out.root_ids, n)));
  return c.finish();
}

Status decode_surviving(const DecodeContext& ctx, RangeTable& out) {
  GCSNAP_RETURN_IF_ERROR(check_count(ctx, "range count larger than its data"));
  const uint64_t n = ctx.items;
  ColumnCursor c(ctx.payload, ctx.offset);
  uint64_t* starts = grow_by(out.surviving_starts, n);
  uint64_t* lengths = grow_by(out.surviving_lengths, n);
  GCSNAP_RETURN_IF_ERROR(c.read_u64_into(n, starts));
  GCSNAP_RETURN_IF_ERROR(c.read_u64_into(n, lengths));
  GCSNAP_RETURN_IF_ERROR(c.finish());
  for (uint64_t i = 0; i < n; ++i)
    if (lengths[i] > UINT64_MAX - starts[i]) return corrupt(ctx, "range end overflows");
  return {};
}

Status decode_moved(const DecodeContext& ctx, RangeTable& out) {
  GCSNAP_RETURN_IF_ERROR(check_count(ctx, "range count larger than its data"));
  const uint64_t n = ctx.items;
  ColumnCursor c(ctx.payload, ctx.offset);
  uint64_t* old_starts = grow_by(out.moved_old_starts, n);
  uint64_t* new_starts = grow_by(out.moved_new_starts, n);
  uint64_t* lengths = grow_by(out.moved_lengths, n);
  GCSNAP_RETURN_IF_ERROR(c.read_u64_into(n, old_starts));
  GCSNAP_RETURN_IF_ERROR(c.read_u64_into(n, new_starts));
  GCSNAP_RETURN_IF_ERROR(c.read_u64_into(n, lengths));
  GCSNAP_RETURN_IF_ERROR(c.finish());
  for (uint64_t i = 0; i < n; ++i)
    if (lengths[i] > UINT64_MAX - old_starts[i] || lengths[i] > UINT64_MAX - new_starts[i])
      return corrupt(ctx, "range end overflows");
  return {};
}

Result<uint64_t> reference_total(const DecodeContext& ctx) {
  ColumnCursor c(ctx.payload, ctx.offset);
  const uint64_t n = ctx.items;
  if (n > ctx.payload.size()) return corrupt(ctx, "object count larger than its data");
  for (int column = 0; column < 4; ++column) GCSNAP_RETURN_IF_ERROR(c.skip());  // address .. generation
  auto& counts = t_counts();
  GCSNAP_RETURN_IF_ERROR(c.read_u64(n, counts, UINT32_MAX));
  uint64_t total = 0;
  for (uint64_t k : counts) total += k;  // at most 2^32 items of < 2^32 each: no overflow
  if (total > ctx.payload.size()) return corrupt(ctx, "reference counts larger than the section's data");
  return total;
}

Status decode_objects_into(const DecodeContext& ctx, const ObjectSlots& slots, std::span<uint64_t> targets) {
  ColumnCursor c(ctx.payload, ctx.offset);
  const uint64_t n = ctx.items;
  if (n > ctx.payload.size()) return corrupt(ctx, "object count larger than its data");
  GCSNAP_RETURN_IF_ERROR(c.read_u64_into(n, slots.addresses));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(n, t_small_ints(), UINT32_MAX));
  for (uint64_t i = 0; i < n; ++i) slots.type_ids[i] = static_cast<uint32_t>(t_small_ints()[i]);
  GCSNAP_RETURN_IF_ERROR(c.read_u64_into(n, slots.sizes));
  std::vector<uint8_t>& gens = t_bytes();
  GCSNAP_RETURN_IF_ERROR(c.read_bytes(n, gens));
  for (uint8_t g : gens)
    if (g > kMaxGeneration) return corrupt(ctx, "generation out of range");
  if (n) std::memcpy(slots.generations, gens.data(), gens.size());
  auto& counts = t_counts();
  GCSNAP_RETURN_IF_ERROR(c.read_u64(n, counts, UINT32_MAX));
  uint64_t total = 0;
  for (uint64_t i = 0; i < n; ++i) {  // at most 2^32 items of < 2^32 each: no overflow
    total += counts[i];
    slots.end_offsets[i] = total;
  }
  if (total != targets.size()) return corrupt(ctx, "reference counts disagree with the references expected");
  GCSNAP_RETURN_IF_ERROR(
      c.read_edges(slots.addresses, counts.data(), static_cast<size_t>(n), total, targets.data()));
  return c.finish();
}

// Decodes straight into the table; on error the caller discards the whole table.
Status decode_objects(const DecodeContext& ctx, ObjectTable& out) {
  auto refs = reference_total(ctx);
  if (!refs) return refs.error();
  const uint64_t n = ctx.items;
  const uint64_t base = out.reference_offsets.back();
  ObjectSlots slots{grow_by(out.addresses, n), grow_by(out.type_ids, n), grow_by(out.sizes, n),
                    grow_by(out.generations, n), grow_by(out.reference_offsets, n)};
  uint64_t* targets = grow_by(out.reference_targets, *refs);
  GCSNAP_RETURN_IF_ERROR(decode_objects_into(ctx, slots, {targets, static_cast<size_t>(*refs)}));
  for (uint64_t i = 0; i < n; ++i) slots.end_offsets[i] += base;
  return {};
}

Status decode_dependent_handles(const DecodeContext& ctx, DependentHandleTable& out) {
  GCSNAP_RETURN_IF_ERROR(check_count(ctx, "dependent handle count larger than its data"));
  ColumnCursor c(ctx.payload, ctx.offset);
  GCSNAP_RETURN_IF_ERROR(c.read_u64_into(ctx.items, grow_by(out.primaries, ctx.items)));
  GCSNAP_RETURN_IF_ERROR(c.read_u64_into(ctx.items, grow_by(out.secondaries, ctx.items)));
  return c.finish();
}

Status decode_delegate_targets(const DecodeContext& ctx, std::vector<DelegateTarget>& out) {
  ColumnCursor c(ctx.payload, ctx.offset);
  std::vector<uint64_t> addresses, functions;
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, addresses));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, functions));
  GCSNAP_RETURN_IF_ERROR(c.finish());
  out.reserve(out.size() + addresses.size());
  for (size_t i = 0; i < addresses.size(); ++i) out.push_back(DelegateTarget{addresses[i], functions[i]});
  return {};
}

Status decode_types(const DecodeContext& ctx, NameTable& out) {
  ColumnCursor c(ctx.payload, ctx.offset);
  std::vector<uint64_t> ids, class_ids, name_lengths, module_lengths;
  std::vector<uint8_t> names, modules;
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, ids, UINT32_MAX));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, class_ids));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, name_lengths));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, module_lengths));
  uint64_t name_total = 0, module_total = 0;
  if (!sum_checked(name_lengths, ctx.max_name_bytes, name_total) ||
      !sum_checked(module_lengths, ctx.max_name_bytes, module_total))
    return make_error(ErrorCode::LimitExceeded, "type name longer than the name limit", ctx.offset);
  GCSNAP_RETURN_IF_ERROR(c.read_bytes(name_total, names));
  GCSNAP_RETURN_IF_ERROR(c.read_bytes(module_total, modules));
  GCSNAP_RETURN_IF_ERROR(c.finish());
  auto storage = std::make_unique<char[]>(names.size() + modules.size() + 1);
  char* text = storage.get();
  if (!names.empty()) std::memcpy(text, names.data(), names.size());
  if (!modules.empty()) std::memcpy(text + names.size(), modules.data(), modules.size());
  size_t np = 0, mp = names.size();
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] == 0) return corrupt(ctx, "type id 0");
    TypeRecord t;
    t.id = static_cast<uint32_t>(ids[i]);
    t.class_id = class_ids[i];
    t.name = {text + np, static_cast<size_t>(name_lengths[i])};
    t.module = {text + mp, static_cast<size_t>(module_lengths[i])};
    np += static_cast<size_t>(name_lengths[i]);
    mp += static_cast<size_t>(module_lengths[i]);
    NameTableFill::types(out).push_back(t);
  }
  NameTableFill::keep(out, std::move(storage));
  return {};
}

Status decode_methods(const DecodeContext& ctx, NameTable& out) {
  ColumnCursor c(ctx.payload, ctx.offset);
  std::vector<uint64_t> ids, name_lengths;
  std::vector<uint8_t> names;
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, ids));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, name_lengths));
  GCSNAP_RETURN_IF_ERROR(read_names(c, ctx, name_lengths, "method name longer than the name limit", names));
  GCSNAP_RETURN_IF_ERROR(c.finish());
  auto storage = std::make_unique<char[]>(names.size() + 1);
  if (!names.empty()) std::memcpy(storage.get(), names.data(), names.size());
  size_t np = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    MethodRecord m;
    m.function_id = ids[i];
    m.name = {storage.get() + np, static_cast<size_t>(name_lengths[i])};
    np += static_cast<size_t>(name_lengths[i]);
    NameTableFill::methods(out).push_back(m);
  }
  NameTableFill::keep(out, std::move(storage));
  return {};
}

}  // namespace gcsnap::format
