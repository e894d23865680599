// Encoding and decoding of the allocation-sample sections (format-spec.md §6.18-§6.21).

#include <new>

#include "format/alloc_sections.hpp"
#include "format/chunk_decoder.hpp"
#include "format/column_codec.hpp"
#include "format/format_constants.hpp"
#include "gcsnap/alloc_samples.hpp"
#include "gcsnap/reader.hpp"
#include "gcsnap/writer.hpp"

namespace gcsnap {
namespace {

using format::ColumnCursor;
using format::SectionType;

constexpr uint64_t kMaxFrames = 1u << 16;  // §6.19 column 2

Error invalid(const char* what) noexcept { return make_error(ErrorCode::InvalidArgument, what); }
Error corrupt_at(uint64_t offset, const char* what) noexcept {
  return make_error(ErrorCode::CorruptSection, what, offset);
}

template <typename T, typename Fn>
Result<T> guard_alloc(const char* what, Fn&& fn) noexcept {
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, what);
  }
}

Status emit(Writer& writer, SectionType type, uint64_t items, std::vector<uint8_t>&& payload) {
  return writer.add_encoded_section(static_cast<uint16_t>(type), items, std::move(payload));
}

void append_name(std::string_view name, std::vector<uint64_t>& lengths, std::vector<uint8_t>& bytes) {
  lengths.push_back(name.size());
  bytes.insert(bytes.end(), name.begin(), name.end());
}

// Read ITEMS names whose lengths are the next column, then their bytes column.
Status read_names(ColumnCursor& c, uint64_t items, uint64_t max_name, std::vector<uint64_t>& lengths,
                  std::vector<uint8_t>& bytes, uint64_t offset) {
  GCSNAP_RETURN_IF_ERROR(c.read_u64(items, lengths, max_name));
  uint64_t total = 0;
  for (uint64_t n : lengths) total += n;  // each ≤ 2^16, items ≤ payload size: no overflow
  (void)offset;
  return c.read_bytes(total, bytes);
}

}  // namespace

Status write_alloc_samples(Writer& writer, std::span<const AllocSample> samples) {
  if (samples.empty()) return {};
  return guard_alloc<bool>("write_alloc_samples", [&]() -> Result<bool> {
    const size_t n = samples.size();
    std::vector<uint64_t> addr(n), cls(n), size(n), amount(n), thread(n), stack(n), time(n), scale(n);
    std::vector<uint8_t> kind(n), heap(n);
    for (size_t i = 0; i < n; ++i) {
      const AllocSample& s = samples[i];
      if (s.address == 0 || s.size == 0 || s.scale == 0) return invalid("allocation sample with address, size or scale 0");
      if (static_cast<uint8_t>(s.kind) > 1 || static_cast<uint8_t>(s.heap) > 2) return invalid("allocation sample enum out of range");
      addr[i] = s.address, cls[i] = s.class_id, size[i] = s.size, amount[i] = s.amount;
      thread[i] = s.thread, stack[i] = s.stack_id, time[i] = s.time_ns, scale[i] = s.scale;
      kind[i] = static_cast<uint8_t>(s.kind), heap[i] = static_cast<uint8_t>(s.heap);
    }
    std::vector<uint8_t> p;
    format::encode_delta_column(addr, p);
    format::encode_varint_column(std::span<const uint64_t>(cls), p);
    format::encode_varint_column(std::span<const uint64_t>(size), p);
    format::encode_bytes_column(kind, p);
    format::encode_bytes_column(heap, p);
    format::encode_varint_column(std::span<const uint64_t>(amount), p);
    format::encode_varint_column(std::span<const uint64_t>(thread), p);
    format::encode_varint_column(std::span<const uint64_t>(stack), p);
    format::encode_delta_column(time, p);
    format::encode_varint_column(std::span<const uint64_t>(scale), p);
    GCSNAP_RETURN_IF_ERROR(emit(writer, SectionType::AllocSamples, n, std::move(p)));
    return true;
  }).status();
}

Status write_alloc_stacks(Writer& writer, std::span<const AllocStack> stacks) {
  if (stacks.empty()) return {};
  return guard_alloc<bool>("write_alloc_stacks", [&]() -> Result<bool> {
    std::vector<uint64_t> ids, counts, values;
    std::vector<uint8_t> kinds;
    for (const AllocStack& s : stacks) {
      if (s.id == 0 || s.frames.size() > kMaxFrames) return invalid("allocation stack id 0 or too deep");
      ids.push_back(s.id);
      counts.push_back(s.frames.size());
      for (size_t k = 0; k < s.frames.size(); ++k) {
        const StackFrame& f = s.frames[k];
        if (static_cast<uint8_t>(f.kind) > 2 || (f.kind == FrameKind::Truncated && k + 1 != s.frames.size()))
          return invalid("stack frame kind out of range, or a truncated frame not last");
        kinds.push_back(static_cast<uint8_t>(f.kind));
        values.push_back(f.value);
      }
    }
    std::vector<uint8_t> p;
    format::encode_delta_column(ids, p);
    format::encode_varint_column(std::span<const uint64_t>(counts), p);
    format::encode_bytes_column(kinds, p);
    format::encode_varint_column(std::span<const uint64_t>(values), p);
    GCSNAP_RETURN_IF_ERROR(emit(writer, SectionType::AllocStacks, stacks.size(), std::move(p)));
    return true;
  }).status();
}

Status write_stack_functions(Writer& writer, std::span<const StackFunction> functions) {
  if (functions.empty()) return {};
  return guard_alloc<bool>("write_stack_functions", [&]() -> Result<bool> {
    std::vector<uint64_t> ids, ml, tl, nl;
    std::vector<uint8_t> modules, types, methods;
    for (const StackFunction& f : functions) {
      if (f.function_id == 0 || f.module.size() > kMaxNameBytes || f.type.size() > kMaxNameBytes ||
          f.method.size() > kMaxNameBytes)
        return invalid("stack function id 0 or name too long");
      ids.push_back(f.function_id);
      append_name(f.module, ml, modules);
      append_name(f.type, tl, types);
      append_name(f.method, nl, methods);
    }
    std::vector<uint8_t> p;
    format::encode_delta_column(ids, p);
    format::encode_varint_column(std::span<const uint64_t>(ml), p);
    format::encode_varint_column(std::span<const uint64_t>(tl), p);
    format::encode_varint_column(std::span<const uint64_t>(nl), p);
    format::encode_bytes_column(modules, p);
    format::encode_bytes_column(types, p);
    format::encode_bytes_column(methods, p);
    GCSNAP_RETURN_IF_ERROR(emit(writer, SectionType::StackFunctions, functions.size(), std::move(p)));
    return true;
  }).status();
}

Status write_sampled_types(Writer& writer, std::span<const SampledType> types) {
  if (types.empty()) return {};
  return guard_alloc<bool>("write_sampled_types", [&]() -> Result<bool> {
    std::vector<uint64_t> ids, lengths;
    std::vector<uint8_t> names;
    for (const SampledType& t : types) {
      if (t.class_id == 0 || t.name.size() > kMaxNameBytes) return invalid("sampled type ClassID 0 or name too long");
      ids.push_back(t.class_id);
      append_name(t.name, lengths, names);
    }
    std::vector<uint8_t> p;
    format::encode_delta_column(ids, p);
    format::encode_varint_column(std::span<const uint64_t>(lengths), p);
    format::encode_bytes_column(names, p);
    GCSNAP_RETURN_IF_ERROR(emit(writer, SectionType::SampledTypes, types.size(), std::move(p)));
    return true;
  }).status();
}

namespace alloc_detail {

/// §6.18: append one section's samples to OUT.
Status decode_samples(const Recording::SectionPayload& s, std::vector<AllocSample>& out) {
  ColumnCursor c(s.payload, s.offset);
  const uint64_t n = s.item_count;
  std::vector<uint64_t> addr, cls, size, amount, thread, stack, time, scale;
  std::vector<uint8_t> kind, heap;
  GCSNAP_RETURN_IF_ERROR(c.read_u64(n, addr));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(n, cls));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(n, size));
  GCSNAP_RETURN_IF_ERROR(c.read_bytes(n, kind));
  GCSNAP_RETURN_IF_ERROR(c.read_bytes(n, heap));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(n, amount));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(n, thread));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(n, stack, UINT32_MAX));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(n, time));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(n, scale, UINT32_MAX));
  GCSNAP_RETURN_IF_ERROR(c.finish());
  out.reserve(out.size() + n);
  for (size_t i = 0; i < n; ++i) {
    if (addr[i] == 0 || size[i] == 0 || scale[i] == 0) return corrupt_at(s.offset, "allocation sample with address, size or scale 0");
    if (kind[i] > 1 || heap[i] > 2) return corrupt_at(s.offset, "allocation sample kind or heap out of range");
    out.push_back(AllocSample{addr[i], cls[i], size[i], amount[i], thread[i], time[i], static_cast<uint32_t>(stack[i]),
                              static_cast<uint32_t>(scale[i]), static_cast<AllocSampleKind>(kind[i]),
                              static_cast<AllocHeap>(heap[i])});
  }
  return {};
}

/// §6.19: append one section's stacks to OUT (unsorted).
Status decode_stacks(const Recording::SectionPayload& s, std::vector<AllocStack>& out) {
  ColumnCursor c(s.payload, s.offset);
  const uint64_t n = s.item_count;
  std::vector<uint64_t> ids, counts, values;
  std::vector<uint8_t> kinds;
  GCSNAP_RETURN_IF_ERROR(c.read_u64(n, ids, UINT32_MAX));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(n, counts, kMaxFrames));
  uint64_t total = 0;
  for (uint64_t k : counts) total += k;  // each ≤ 2^16, n ≤ payload bytes: no overflow
  GCSNAP_RETURN_IF_ERROR(c.read_bytes(total, kinds));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(total, values));
  GCSNAP_RETURN_IF_ERROR(c.finish());
  size_t f = 0;
  for (size_t i = 0; i < n; ++i) {
    if (ids[i] == 0) return corrupt_at(s.offset, "allocation stack id 0");
    AllocStack stack{static_cast<uint32_t>(ids[i]), {}};
    stack.frames.resize(static_cast<size_t>(counts[i]));
    for (size_t k = 0; k < stack.frames.size(); ++k, ++f) {
      if (kinds[f] > 2 || (kinds[f] == 2 && k + 1 != stack.frames.size()))
        return corrupt_at(s.offset, "stack frame kind out of range, or a truncated frame not last");
      stack.frames[k] = StackFrame{values[f], static_cast<FrameKind>(kinds[f])};
    }
    out.push_back(std::move(stack));
  }
  return {};
}

namespace {
std::string take(const std::vector<uint8_t>& bytes, size_t& pos, uint64_t n) {
  std::string s(reinterpret_cast<const char*>(bytes.data()) + pos, static_cast<size_t>(n));
  pos += static_cast<size_t>(n);
  return s;
}
}  // namespace

/// §6.20: append one section's functions to OUT (unsorted).
Status decode_functions(const Recording::SectionPayload& s, uint64_t max_name, std::vector<StackFunction>& out) {
  ColumnCursor c(s.payload, s.offset);
  const uint64_t n = s.item_count;
  std::vector<uint64_t> ids, ml, tl, nl;
  std::vector<uint8_t> modules, types, methods;
  GCSNAP_RETURN_IF_ERROR(c.read_u64(n, ids));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(n, ml, max_name));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(n, tl, max_name));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(n, nl, max_name));
  uint64_t sm = 0, st = 0, sn = 0;
  for (size_t i = 0; i < n; ++i) sm += ml[i], st += tl[i], sn += nl[i];
  GCSNAP_RETURN_IF_ERROR(c.read_bytes(sm, modules));
  GCSNAP_RETURN_IF_ERROR(c.read_bytes(st, types));
  GCSNAP_RETURN_IF_ERROR(c.read_bytes(sn, methods));
  GCSNAP_RETURN_IF_ERROR(c.finish());
  size_t pm = 0, pt = 0, pn = 0;
  for (size_t i = 0; i < n; ++i) {
    if (ids[i] == 0) return corrupt_at(s.offset, "stack function id 0");
    out.push_back(StackFunction{ids[i], take(modules, pm, ml[i]), take(types, pt, tl[i]), take(methods, pn, nl[i])});
  }
  return {};
}

/// §6.21: append one section's types to OUT (unsorted).
Status decode_sampled_types(const Recording::SectionPayload& s, uint64_t max_name, std::vector<SampledType>& out) {
  ColumnCursor c(s.payload, s.offset);
  const uint64_t n = s.item_count;
  std::vector<uint64_t> ids, lengths;
  std::vector<uint8_t> names;
  GCSNAP_RETURN_IF_ERROR(c.read_u64(n, ids));
  GCSNAP_RETURN_IF_ERROR(read_names(c, n, max_name, lengths, names, s.offset));
  GCSNAP_RETURN_IF_ERROR(c.finish());
  size_t pos = 0;
  for (size_t i = 0; i < n; ++i) {
    if (ids[i] == 0) return corrupt_at(s.offset, "sampled type ClassID 0");
    out.push_back(SampledType{ids[i], take(names, pos, lengths[i])});
  }
  return {};
}

Status verify_alloc_block(const Recording& recording, size_t gc_pos) try {
  auto samples = read_alloc_samples(recording, gc_pos);
  if (!samples) return samples.status();
  std::vector<AllocStack> stacks;
  std::vector<StackFunction> functions;
  std::vector<SampledType> types;
  auto s = recording.read_sections(gc_pos, static_cast<uint16_t>(SectionType::AllocStacks));
  if (!s) return s.status();
  for (const auto& p : *s) GCSNAP_RETURN_IF_ERROR(decode_stacks(p, stacks));
  auto f = recording.read_sections(gc_pos, static_cast<uint16_t>(SectionType::StackFunctions));
  if (!f) return f.status();
  for (const auto& p : *f) GCSNAP_RETURN_IF_ERROR(decode_functions(p, kMaxNameBytes, functions));
  auto t = recording.read_sections(gc_pos, static_cast<uint16_t>(SectionType::SampledTypes));
  if (!t) return t.status();
  for (const auto& p : *t) GCSNAP_RETURN_IF_ERROR(decode_sampled_types(p, kMaxNameBytes, types));
  return {};
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "verifying allocation samples");
}

}  // namespace alloc_detail

Result<std::vector<AllocSample>> read_alloc_samples(const Recording& recording, size_t gc_pos) {
  return guard_alloc<std::vector<AllocSample>>("read_alloc_samples", [&]() -> Result<std::vector<AllocSample>> {
    auto sections = recording.read_sections(gc_pos, static_cast<uint16_t>(SectionType::AllocSamples));
    if (!sections) return sections.status();
    std::vector<AllocSample> out;
    for (const auto& s : *sections) GCSNAP_RETURN_IF_ERROR(alloc_detail::decode_samples(s, out));
    return out;
  });
}

}  // namespace gcsnap
