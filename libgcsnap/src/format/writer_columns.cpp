// Writer: buffering the add_* batches into chunks of at most chunk_items values
// (format-spec.md §6: a long column is several chunk sections of the same type).
#include <algorithm>
#include <new>
#include <type_traits>
#include <utility>

#include "format/format_constants.hpp"
#include "format/writer_impl.hpp"

namespace gcsnap {
namespace {

template <typename T>
void append(std::vector<T>& to, std::span<const T> from, size_t begin, size_t count) {
  to.insert(to.end(), from.begin() + static_cast<ptrdiff_t>(begin),
            from.begin() + static_cast<ptrdiff_t>(begin + count));
}

// Feed n items in pieces that fill the chunk up to chunk_items, emitting full chunks.
template <typename Chunk, typename AppendFn>
Status feed(Writer::Impl& w, Chunk& chunk, size_t n, AppendFn&& append_piece) {
  try {
    const uint64_t cap = w.chunk_items();
    size_t done = 0;
    while (done < n) {
      size_t room = static_cast<size_t>(cap - std::min<uint64_t>(cap, chunk.size()));
      size_t take = std::min(room, n - done);
      // A fresh chunk gets its final capacity at once: no regrowth copies of big columns.
      if constexpr (std::is_same_v<Chunk, format::ObjectsChunk>)
        if (chunk.size() == 0 && w.spare_objects.addresses.capacity() >= take) chunk = std::exchange(w.spare_objects, {});
      if constexpr (requires { chunk.reserve(take); })
        if (chunk.size() == 0) chunk.reserve(take);
      append_piece(done, take);
      done += take;
      if (chunk.size() >= cap) GCSNAP_RETURN_IF_ERROR(w.emit(std::exchange(chunk, {})));
    }
    return {};
  } catch (const std::bad_alloc&) {
    return w.fail(make_error(ErrorCode::OutOfMemory, "buffering a batch"));
  }
}

// §6.13: slots parallel to the references, each inside its object; one mode per GC.
Status check_slots(Writer::Impl& w, std::span<const uint64_t> sizes, std::span<const uint32_t> counts,
                   std::span<const uint64_t> references, std::span<const uint32_t> slots, bool with_slots) {
  using Mode = Writer::Impl::SlotMode;
  const Mode mode = with_slots ? Mode::With : Mode::Without;
  if (w.slot_mode != Mode::Undecided && w.slot_mode != mode)
    return make_error(ErrorCode::InvalidArgument, "add_objects with and without slots in one GC");
  if (!with_slots) {
    w.slot_mode = mode;
    return {};
  }
  if (slots.size() != references.size())
    return make_error(ErrorCode::InvalidArgument, "reference_slots length differs from references");
  size_t r = 0;
  for (size_t i = 0; i < counts.size(); ++i)
    for (uint32_t k = 0; k < counts[i]; ++k, ++r)
      if (slots[r] != kUnknownSlot && (slots[r] > sizes[i] || sizes[i] - slots[r] < 8))
        return make_error(ErrorCode::InvalidArgument, "a reference slot lies outside its object");
  w.slot_mode = mode;
  return {};
}

// Both add_objects overloads; WITH_SLOTS: the caller passed a slot per reference (§6.13).
Status add_objects_impl(Writer::Impl& w, std::span<const uint64_t> addresses, std::span<const uint32_t> type_ids,
                        std::span<const uint64_t> sizes, std::span<const uint8_t> generations,
                        std::span<const uint32_t> reference_counts, std::span<const uint64_t> references,
                        std::span<const uint32_t> slots, bool with_slots) {
  GCSNAP_RETURN_IF_ERROR(w.check_in_gc());
  const size_t n = addresses.size();
  if (type_ids.size() != n || sizes.size() != n || generations.size() != n || reference_counts.size() != n)
    return make_error(ErrorCode::InvalidArgument, "object columns differ in length");
  uint64_t total = 0;
  uint8_t max_gen = 0;
  for (size_t i = 0; i < n; ++i) {
    total += reference_counts[i];
    max_gen = std::max(max_gen, generations[i]);
  }
  if (total != references.size())
    return make_error(ErrorCode::InvalidArgument, "references length differs from the sum of reference_counts");
  if (max_gen > format::kMaxGeneration) return make_error(ErrorCode::InvalidArgument, "generation out of range");
  GCSNAP_RETURN_IF_ERROR(check_slots(w, sizes, reference_counts, references, slots, with_slots));
  w.summary.entry.object_count += n;
  w.summary.entry.reference_count += total;
  size_t ref_pos = 0;
  auto& o = w.objects;
  return feed(w, o, n, [&](size_t b, size_t c) {
    append(o.addresses, addresses, b, c);
    append(o.type_ids, type_ids, b, c);
    append(o.sizes, sizes, b, c);
    append(o.generations, generations, b, c);
    append(o.reference_counts, reference_counts, b, c);
    size_t refs = 0;
    for (size_t i = b; i < b + c; ++i) refs += reference_counts[i];
    append(o.references, references, ref_pos, refs);
    if (with_slots) append(o.slots, slots, ref_pos, refs);
    o.has_slots = with_slots;
    ref_pos += refs;
  });
}

}  // namespace

Status Writer::add_generation_bounds(std::span<const GenerationRange> ranges) {
  Impl& w = *impl_;
  GCSNAP_RETURN_IF_ERROR(w.check_in_gc());
  for (const auto& r : ranges)
    if (static_cast<uint8_t>(r.generation) > format::kMaxGeneration) return make_error(ErrorCode::InvalidArgument, "generation out of range");
  w.summary.entry.generation_range_count += ranges.size();
  return feed(w, w.bounds, ranges.size(), [&](size_t b, size_t n) {
    for (size_t i = b; i < b + n; ++i) {
      w.bounds.generations.push_back(static_cast<uint8_t>(ranges[i].generation));
      w.bounds.starts.push_back(ranges[i].start);
      w.bounds.lengths.push_back(ranges[i].length);
      w.bounds.reserved.push_back(ranges[i].reserved_length);
    }
  });
}

Status Writer::add_roots(std::span<const uint64_t> object_ids, std::span<const uint8_t> kinds,
                         std::span<const uint8_t> flags, std::span<const uint64_t> root_ids) {
  Impl& w = *impl_;
  GCSNAP_RETURN_IF_ERROR(w.check_in_gc());
  const size_t n = object_ids.size();
  if (kinds.size() != n || flags.size() != n || root_ids.size() != n)
    return make_error(ErrorCode::InvalidArgument, "root columns differ in length");
  for (uint8_t k : kinds)
    if (k > format::kMaxRootKind) return make_error(ErrorCode::InvalidArgument, "root kind out of range");
  w.summary.entry.root_count += n;
  return feed(w, w.roots, n, [&](size_t b, size_t c) {
    append(w.roots.object_ids, object_ids, b, c);
    append(w.roots.kinds, kinds, b, c);
    append(w.roots.flags, flags, b, c);
    append(w.roots.root_ids, root_ids, b, c);
  });
}

Status Writer::add_surviving_ranges(std::span<const uint64_t> starts, std::span<const uint64_t> lengths) {
  Impl& w = *impl_;
  GCSNAP_RETURN_IF_ERROR(w.check_in_gc());
  if (starts.size() != lengths.size()) return make_error(ErrorCode::InvalidArgument, "range columns differ in length");
  for (size_t i = 0; i < starts.size(); ++i)
    if (lengths[i] > UINT64_MAX - starts[i]) return make_error(ErrorCode::InvalidArgument, "range end overflows");
  w.summary.entry.surviving_range_count += starts.size();
  return feed(w, w.surviving, starts.size(), [&](size_t b, size_t c) {
    append(w.surviving.starts, starts, b, c);
    append(w.surviving.lengths, lengths, b, c);
  });
}

Status Writer::add_moved_ranges(std::span<const uint64_t> old_starts, std::span<const uint64_t> new_starts,
                                std::span<const uint64_t> lengths) {
  Impl& w = *impl_;
  GCSNAP_RETURN_IF_ERROR(w.check_in_gc());
  const size_t n = old_starts.size();
  if (new_starts.size() != n || lengths.size() != n)
    return make_error(ErrorCode::InvalidArgument, "range columns differ in length");
  for (size_t i = 0; i < n; ++i)
    if (lengths[i] > UINT64_MAX - old_starts[i] || lengths[i] > UINT64_MAX - new_starts[i])
      return make_error(ErrorCode::InvalidArgument, "range end overflows");
  w.summary.entry.moved_range_count += n;
  return feed(w, w.moved, n, [&](size_t b, size_t c) {
    append(w.moved.old_starts, old_starts, b, c);
    append(w.moved.new_starts, new_starts, b, c);
    append(w.moved.lengths, lengths, b, c);
  });
}

Status Writer::add_objects(std::span<const uint64_t> addresses, std::span<const uint32_t> type_ids,
                           std::span<const uint64_t> sizes, std::span<const uint8_t> generations,
                           std::span<const uint32_t> reference_counts, std::span<const uint64_t> references) {
  return add_objects_impl(*impl_, addresses, type_ids, sizes, generations, reference_counts, references, {}, false);
}

Status Writer::add_objects(std::span<const uint64_t> addresses, std::span<const uint32_t> type_ids,
                           std::span<const uint64_t> sizes, std::span<const uint8_t> generations,
                           std::span<const uint32_t> reference_counts, std::span<const uint64_t> references,
                           std::span<const uint32_t> reference_slots) {
  return add_objects_impl(*impl_, addresses, type_ids, sizes, generations, reference_counts, references,
                          reference_slots, true);
}

Status Writer::add_dependent_handles(std::span<const uint64_t> primaries, std::span<const uint64_t> secondaries) {
  Impl& w = *impl_;
  GCSNAP_RETURN_IF_ERROR(w.check_in_gc());
  if (primaries.size() != secondaries.size())
    return make_error(ErrorCode::InvalidArgument, "dependent-handle columns differ in length");
  auto& c = w.dependent_handles;
  c.captured = true;
  return feed(w, c, primaries.size(), [&](size_t b, size_t n) {
    append(c.primaries, primaries, b, n);
    append(c.secondaries, secondaries, b, n);
  });
}

Status Writer::add_types(std::span<const TypeRecord> types) {
  Impl& w = *impl_;
  GCSNAP_RETURN_IF_ERROR(w.check_in_gc());
  try {
    for (const auto& t : types) {
      if (t.id == 0) return make_error(ErrorCode::InvalidArgument, "type id 0 is reserved for unknown");
      if (t.name.size() > kMaxNameBytes || t.module.size() > kMaxNameBytes)
        return make_error(ErrorCode::InvalidArgument, "type name longer than 65536 bytes");
    }
    for (size_t i = 0; i < types.size(); ++i) {
      if (!w.type_ids.insert(types[i].id).second) {
        for (size_t j = 0; j < i; ++j) w.type_ids.erase(types[j].id);  // the batch is all or nothing
        return make_error(ErrorCode::InvalidArgument, "type id declared twice");
      }
    }
    for (const auto& t : types) w.gc_type_ids.push_back(t.id);
  } catch (const std::bad_alloc&) {
    return w.fail(make_error(ErrorCode::OutOfMemory, "add_types"));
  }
  w.summary.entry.new_type_count += types.size();
  auto& c = w.types;
  return feed(w, c, types.size(), [&](size_t b, size_t n) {
    for (size_t i = b; i < b + n; ++i) {
      const auto& t = types[i];
      c.ids.push_back(t.id);
      c.class_ids.push_back(t.class_id);
      c.name_lengths.push_back(t.name.size());
      c.module_lengths.push_back(t.module.size());
      c.names.insert(c.names.end(), t.name.begin(), t.name.end());
      c.modules.insert(c.modules.end(), t.module.begin(), t.module.end());
    }
  });
}

Status Writer::add_methods(std::span<const MethodRecord> methods) {
  Impl& w = *impl_;
  GCSNAP_RETURN_IF_ERROR(w.check_in_gc());
  try {
    for (const auto& m : methods)
      if (m.name.size() > kMaxNameBytes) return make_error(ErrorCode::InvalidArgument, "method name longer than 65536 bytes");
    for (size_t i = 0; i < methods.size(); ++i) {
      if (!w.method_ids.insert(methods[i].function_id).second) {
        for (size_t j = 0; j < i; ++j) w.method_ids.erase(methods[j].function_id);
        return make_error(ErrorCode::InvalidArgument, "method declared twice");
      }
    }
    for (const auto& m : methods) w.gc_method_ids.push_back(m.function_id);
  } catch (const std::bad_alloc&) {
    return w.fail(make_error(ErrorCode::OutOfMemory, "add_methods"));
  }
  w.summary.entry.new_method_count += methods.size();
  auto& c = w.methods;
  return feed(w, c, methods.size(), [&](size_t b, size_t n) {
    for (size_t i = b; i < b + n; ++i) {
      c.function_ids.push_back(methods[i].function_id);
      c.name_lengths.push_back(methods[i].name.size());
      c.names.insert(c.names.end(), methods[i].name.begin(), methods[i].name.end());
    }
  });
}

Status Writer::add_type_layouts(std::span<const TypeLayout> layouts) {
  Impl& w = *impl_;
  GCSNAP_RETURN_IF_ERROR(w.check_in_gc());
  try {
    for (const auto& l : layouts) {
      if (l.type_id == 0 || !w.type_ids.count(l.type_id))
        return make_error(ErrorCode::InvalidArgument, "layout of an undeclared type");
      if (static_cast<uint8_t>(l.kind) > 2) return make_error(ErrorCode::InvalidArgument, "layout kind out of range");
      if (l.kind != LayoutKind::Object && l.element_size == 0)
        return make_error(ErrorCode::InvalidArgument, "array layout with element size 0");
      for (size_t k = 0; k < l.fields.size(); ++k) {
        if (l.fields[k].name.size() > kMaxNameBytes) return make_error(ErrorCode::InvalidArgument, "field name too long");
        if (l.fields[k].flags & ~field_flags::kAll) return make_error(ErrorCode::InvalidArgument, "unknown field flag");
        if (k > 0 && l.fields[k].offset < l.fields[k - 1].offset)
          return make_error(ErrorCode::InvalidArgument, "field offsets must not decrease");
      }
    }
    for (size_t i = 0; i < layouts.size(); ++i) {
      if (!w.layout_ids.insert(layouts[i].type_id).second) {
        for (size_t j = 0; j < i; ++j) w.layout_ids.erase(layouts[j].type_id);
        return make_error(ErrorCode::InvalidArgument, "layout declared twice");
      }
    }
    for (const auto& l : layouts) w.gc_layout_ids.push_back(l.type_id);
  } catch (const std::bad_alloc&) {
    return w.fail(make_error(ErrorCode::OutOfMemory, "add_type_layouts"));
  }
  auto& c = w.layouts;
  return feed(w, c, layouts.size(), [&](size_t b, size_t n) {
    for (size_t i = b; i < b + n; ++i) {
      const TypeLayout& l = layouts[i];
      c.type_ids.push_back(l.type_id);
      c.kinds.push_back(static_cast<uint8_t>(l.kind));
      c.data_offsets.push_back(l.data_offset);
      c.element_sizes.push_back(l.element_size);
      c.field_counts.push_back(l.fields.size());
      for (const FieldRecord& f : l.fields) {
        c.field_offsets.push_back(f.offset);
        c.field_flags.push_back(f.flags);
        c.name_lengths.push_back(f.name.size());
        c.names.insert(c.names.end(), f.name.begin(), f.name.end());
      }
    }
  });
}

Status Writer::add_delegate_targets(std::span<const DelegateTarget> delegates) {
  Impl& w = *impl_;
  GCSNAP_RETURN_IF_ERROR(w.check_in_gc());
  auto& c = w.delegates;
  return feed(w, c, delegates.size(), [&](size_t b, size_t n) {
    for (size_t i = b; i < b + n; ++i) {
      c.addresses.push_back(delegates[i].address);
      c.function_ids.push_back(delegates[i].function_id);
    }
  });
}

Status Writer::add_static_slots(std::span<const StaticSlot> statics) {
  Impl& w = *impl_;
  GCSNAP_RETURN_IF_ERROR(w.check_in_gc());
  for (const auto& s : statics)
    if (s.name.size() > kMaxNameBytes) return make_error(ErrorCode::InvalidArgument, "static name too long");
  auto& c = w.statics;
  return feed(w, c, statics.size(), [&](size_t b, size_t n) {
    for (size_t i = b; i < b + n; ++i) {
      c.addresses.push_back(statics[i].address);
      c.name_lengths.push_back(statics[i].name.size());
      c.names.insert(c.names.end(), statics[i].name.begin(), statics[i].name.end());
    }
  });
}

}  // namespace gcsnap
