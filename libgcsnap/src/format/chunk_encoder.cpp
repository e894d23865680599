// Encoding of each section type's columns (format-spec.md §6).
#include <algorithm>
#include <numeric>

#include "format/chunk_data.hpp"
#include "format/column_codec.hpp"
#include "format/row_order.hpp"
#include "format/field_sections.hpp"
#include "format/section.hpp"
#include "platform/thread_cache.hpp"

namespace gcsnap::format {
namespace {

ByteBuffer& t_payload() { return platform::thread_cached<ByteBuffer>(); }

uint16_t type_of(SectionType t) { return static_cast<uint16_t>(t); }

// Return the permutation that puts addresses in order, ties in arrival order. A heap walk
// visits the heap range by range, each in address order, so the chunk is a few hundred
// sorted runs over disjoint intervals: ordering the runs is enough. A run is also cut where
// the address jumps by more than kRunGap, so that an object from elsewhere (a frozen string
// the walk reports when it is referenced) does not stretch a run over others. The general
// sort is kept for runs that interleave (a stable merge sort of 64 Ki objects was 4 % of an
// every-GC recording's CPU, perf on gc_heavy_app).
std::vector<uint32_t> address_order(const std::vector<uint64_t>& addresses) {
  constexpr uint64_t kRunGap = uint64_t{1} << 20;
  const size_t n = addresses.size();
  std::vector<uint32_t> order(n);
  struct Run {
    uint32_t begin, end;
  };
  std::vector<Run> runs;
  for (uint32_t i = 0; i < n;) {
    uint32_t j = i + 1;
    while (j < n && addresses[j - 1] <= addresses[j] && addresses[j] - addresses[j - 1] <= kRunGap) ++j;
    runs.push_back({i, j});
    i = j;
  }
  std::stable_sort(runs.begin(), runs.end(),
                   [&](const Run& a, const Run& b) { return addresses[a.begin] < addresses[b.begin]; });
  bool disjoint = true;
  for (size_t k = 1; k < runs.size() && disjoint; ++k)
    disjoint = addresses[runs[k - 1].end - 1] < addresses[runs[k].begin];
  if (disjoint) {
    uint32_t* o = order.data();
    for (const Run& r : runs)
      for (uint32_t i = r.begin; i < r.end; ++i) *o++ = i;
    return order;
  }
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return addresses[a] < addresses[b]; });
  return order;
}

// §6.6: objects go to disk in address order within a chunk; ties keep arrival order.
void sort_objects(ObjectsChunk& c) {
  if (std::is_sorted(c.addresses.begin(), c.addresses.end())) return;
  const size_t n = c.size();
  const std::vector<uint32_t> order = address_order(c.addresses);
  std::vector<uint64_t> first(n + 1, 0);
  for (size_t i = 0; i < n; ++i) first[i + 1] = first[i] + c.reference_counts[i];
  ObjectsChunk s;
  s.addresses = gather_rows(c.addresses, order);
  s.type_ids = gather_rows(c.type_ids, order);
  s.sizes = gather_rows(c.sizes, order);
  s.generations = gather_rows(c.generations, order);
  s.reference_counts = gather_rows(c.reference_counts, order);
  s.references = gather_runs(c.references, first, order);
  if (!c.slots.empty()) s.slots = gather_runs(c.slots, first, order);
  s.has_slots = c.has_slots;
  c = std::move(s);
}

struct Encode {
  ByteBuffer& p;
  uint16_t operator()(const GenerationBoundsChunk& c) {
    encode_bytes_column(c.generations, p);
    encode_delta_column(c.starts, p);
    encode_varint_column(std::span<const uint64_t>(c.lengths), p);
    encode_varint_column(std::span<const uint64_t>(c.reserved), p);
    return type_of(SectionType::GenerationBounds);
  }
  uint16_t operator()(const RootsChunk& c) {
    encode_delta_column(c.object_ids, p);
    encode_bytes_column(c.kinds, p);
    encode_bytes_column(c.flags, p);
    encode_delta_column(c.root_ids, p);
    return type_of(SectionType::Roots);
  }
  uint16_t operator()(const SurvivingChunk& c) {
    encode_delta_column(c.starts, p);
    encode_varint_column(std::span<const uint64_t>(c.lengths), p);
    return type_of(SectionType::SurvivingRanges);
  }
  uint16_t operator()(const MovedChunk& c) {
    encode_delta_column(c.old_starts, p);
    encode_delta_column(c.new_starts, p);
    encode_varint_column(std::span<const uint64_t>(c.lengths), p);
    return type_of(SectionType::MovedRanges);
  }
  uint16_t operator()(const ObjectsChunk& c) {
    encode_delta_column(c.addresses, p);
    encode_varint_column(std::span<const uint32_t>(c.type_ids), p);
    encode_varint_column(std::span<const uint64_t>(c.sizes), p);
    encode_bytes_column(c.generations, p);
    encode_varint_column(std::span<const uint32_t>(c.reference_counts), p);
    encode_edge_column(c.addresses, c.reference_counts, c.references, p);
    return type_of(SectionType::Objects);
  }
  uint16_t operator()(const TypesChunk& c) {
    encode_delta_column(c.ids, p);
    encode_varint_column(std::span<const uint64_t>(c.class_ids), p);
    encode_varint_column(std::span<const uint64_t>(c.name_lengths), p);
    encode_varint_column(std::span<const uint64_t>(c.module_lengths), p);
    encode_bytes_column(c.names, p);
    encode_bytes_column(c.modules, p);
    return type_of(SectionType::Types);
  }
  uint16_t operator()(const MethodsChunk& c) {
    encode_delta_column(c.function_ids, p);
    encode_varint_column(std::span<const uint64_t>(c.name_lengths), p);
    encode_bytes_column(c.names, p);
    return type_of(SectionType::Methods);
  }
  uint16_t operator()(const DependentHandlesChunk& c) {
    encode_delta_column(c.primaries, p);
    encode_delta_column(c.secondaries, p);
    return type_of(SectionType::DependentHandles);
  }
  uint16_t operator()(const LayoutsChunk& c) {
    encode_layouts(c, p);
    return type_of(SectionType::TypeLayouts);
  }
  uint16_t operator()(const StaticSlotsChunk& c) {
    encode_static_slots(c, p);
    return type_of(SectionType::StaticSlots);
  }
  uint16_t operator()(const RawRecord& c) {
    p.append(c.payload.data(), c.payload.size());
    return c.type;
  }
};

}  // namespace

uint32_t encode_chunk_section(ChunkData& chunk, int level, ByteBuffer& out) {
  if (auto* objects = std::get_if<ObjectsChunk>(&chunk)) sort_objects(*objects);
  auto& payload = t_payload();
  payload.clear();
  uint16_t type = std::visit(Encode{payload}, chunk);
  uint64_t items = std::visit([](const auto& c) -> uint64_t { return c.size(); }, chunk);
  if (auto* raw = std::get_if<RawRecord>(&chunk)) {
    items = raw->item_count;
    level = raw->type == static_cast<uint16_t>(SectionType::Index) || raw->compress ? level : kNoCompression;  // §6.1: small records stay raw
  }
  build_section(type, items, {payload.data(), payload.size()}, level, out);
  const auto* objects = std::get_if<ObjectsChunk>(&chunk);
  if (!objects || !objects->has_slots) return 1;
  // §6.13: the slots section follows its objects section at once, so the pairing holds.
  payload.clear();
  encode_slot_column(objects->reference_counts, objects->slots, payload);
  build_section(type_of(SectionType::ReferenceSlots), objects->slots.size(), {payload.data(), payload.size()}, level,
                out);
  return 2;
}

uint64_t chunk_raw_bytes(const ChunkData& chunk) noexcept {
  struct Bytes {
    uint64_t operator()(const GenerationBoundsChunk& c) const { return c.size() * 25; }
    uint64_t operator()(const RootsChunk& c) const { return c.size() * 18; }
    uint64_t operator()(const SurvivingChunk& c) const { return c.size() * 16; }
    uint64_t operator()(const MovedChunk& c) const { return c.size() * 24; }
    uint64_t operator()(const ObjectsChunk& c) const {
      return c.size() * 25 + c.references.size() * 8 + c.slots.size() * 4;
    }
    uint64_t operator()(const LayoutsChunk& c) const {
      return c.size() * 32 + c.field_offsets.size() * 16 + c.names.size();
    }
    uint64_t operator()(const StaticSlotsChunk& c) const { return c.size() * 16 + c.names.size(); }
    uint64_t operator()(const TypesChunk& c) const { return c.size() * 32 + c.names.size() + c.modules.size(); }
    uint64_t operator()(const MethodsChunk& c) const { return c.size() * 16 + c.names.size(); }
    uint64_t operator()(const DependentHandlesChunk& c) const { return c.size() * 16; }
    uint64_t operator()(const RawRecord& c) const { return c.payload.size(); }
  };
  return std::visit(Bytes{}, chunk);
}

}  // namespace gcsnap::format
