#include "format/chunk_decoder.hpp"

#include <cstring>

#include "format/column_codec.hpp"

namespace gcsnap::format {
namespace {

Error corrupt(const DecodeContext& ctx, const char* what) {
  return make_error(ErrorCode::CorruptSection, what, ctx.offset);
}

template <typename T>
void append_all(std::vector<T>& to, const std::vector<T>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

// Sum of lengths, each at most max_each, checked for overflow.
bool sum_lengths(const std::vector<uint64_t>& lengths, uint64_t max_each, uint64_t& total) {
  total = 0;
  for (uint64_t n : lengths) {
    if (n > max_each || n > UINT64_MAX - total) return false;
    total += n;
  }
  return true;
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
    if (gens[i] > 5) return corrupt(ctx, "generation out of range");
    out.push_back({static_cast<Generation>(gens[i]), starts[i], lengths[i], reserved[i]});
  }
  return {};
}

Status decode_roots(const DecodeContext& ctx, RootTable& out) {
  ColumnCursor c(ctx.payload, ctx.offset);
  std::vector<uint64_t> ids, root_ids;
  std::vector<uint8_t> kinds, flags;
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, ids));
  GCSNAP_RETURN_IF_ERROR(c.read_bytes(ctx.items, kinds));
  GCSNAP_RETURN_IF_ERROR(c.read_bytes(ctx.items, flags));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, root_ids));
  GCSNAP_RETURN_IF_ERROR(c.finish());
  for (uint8_t k : kinds)
    if (k > 3) return corrupt(ctx, "root kind out of range");
  append_all(out.object_ids, ids);
  for (uint8_t k : kinds) out.kinds.push_back(static_cast<RootKind>(k));
  append_all(out.flags, flags);
  append_all(out.root_ids, root_ids);
  return {};
}

Status decode_surviving(const DecodeContext& ctx, RangeTable& out) {
  ColumnCursor c(ctx.payload, ctx.offset);
  std::vector<uint64_t> starts, lengths;
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, starts));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, lengths));
  GCSNAP_RETURN_IF_ERROR(c.finish());
  for (size_t i = 0; i < starts.size(); ++i)
    if (lengths[i] > UINT64_MAX - starts[i]) return corrupt(ctx, "range end overflows");
  append_all(out.surviving_starts, starts);
  append_all(out.surviving_lengths, lengths);
  return {};
}

Status decode_moved(const DecodeContext& ctx, RangeTable& out) {
  ColumnCursor c(ctx.payload, ctx.offset);
  std::vector<uint64_t> old_starts, new_starts, lengths;
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, old_starts));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, new_starts));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, lengths));
  GCSNAP_RETURN_IF_ERROR(c.finish());
  for (size_t i = 0; i < old_starts.size(); ++i)
    if (lengths[i] > UINT64_MAX - old_starts[i] || lengths[i] > UINT64_MAX - new_starts[i])
      return corrupt(ctx, "range end overflows");
  append_all(out.moved_old_starts, old_starts);
  append_all(out.moved_new_starts, new_starts);
  append_all(out.moved_lengths, lengths);
  return {};
}

Status decode_objects(const DecodeContext& ctx, ObjectTable& out) {
  ColumnCursor c(ctx.payload, ctx.offset);
  std::vector<uint64_t> addresses, type_ids, sizes, counts, targets;
  std::vector<uint8_t> gens;
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, addresses));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, type_ids, UINT32_MAX));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, sizes));
  GCSNAP_RETURN_IF_ERROR(c.read_bytes(ctx.items, gens));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, counts, UINT32_MAX));
  uint64_t total = 0;
  for (uint64_t n : counts) total += n;  // at most 2^32 items of < 2^32 each: no overflow
  GCSNAP_RETURN_IF_ERROR(c.read_edges(addresses, counts, total, targets));
  GCSNAP_RETURN_IF_ERROR(c.finish());
  for (uint8_t g : gens)
    if (g > 5) return corrupt(ctx, "generation out of range");
  append_all(out.addresses, addresses);
  for (uint64_t t : type_ids) out.type_ids.push_back(static_cast<uint32_t>(t));
  append_all(out.sizes, sizes);
  for (uint8_t g : gens) out.generations.push_back(static_cast<Generation>(g));
  uint64_t base = out.reference_offsets.back();
  for (uint64_t n : counts) out.reference_offsets.push_back(base += n);
  append_all(out.reference_targets, targets);
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
  if (!sum_lengths(name_lengths, ctx.max_name_bytes, name_total) ||
      !sum_lengths(module_lengths, ctx.max_name_bytes, module_total))
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
    out.types_.push_back(t);
  }
  out.storage_.push_back(std::move(storage));
  return {};
}

Status decode_methods(const DecodeContext& ctx, NameTable& out) {
  ColumnCursor c(ctx.payload, ctx.offset);
  std::vector<uint64_t> ids, name_lengths;
  std::vector<uint8_t> names;
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, ids));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, name_lengths));
  uint64_t total = 0;
  if (!sum_lengths(name_lengths, ctx.max_name_bytes, total))
    return make_error(ErrorCode::LimitExceeded, "method name longer than the name limit", ctx.offset);
  GCSNAP_RETURN_IF_ERROR(c.read_bytes(total, names));
  GCSNAP_RETURN_IF_ERROR(c.finish());
  auto storage = std::make_unique<char[]>(names.size() + 1);
  if (!names.empty()) std::memcpy(storage.get(), names.data(), names.size());
  size_t np = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    MethodRecord m;
    m.function_id = ids[i];
    m.name = {storage.get() + np, static_cast<size_t>(name_lengths[i])};
    np += static_cast<size_t>(name_lengths[i]);
    out.methods_.push_back(m);
  }
  out.storage_.push_back(std::move(storage));
  return {};
}

}  // namespace gcsnap::format
