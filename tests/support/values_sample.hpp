#pragma once
// The one-GC recording with values (format-spec.md §6.23-§6.26) that the golden file
// values-valid.snap, the format test and the inspect/strip-strings CLI tests read.
//
// A handle holds App.Registry@0x10000, whose fields hold: `_orders`, an App.Order[10] whose
// orders each hold a `Status` string: 8 copies of one content (hash 0xA1, 7 chars, 40 B) and 2
// of another (hash 0xB2); `_names`, an empty List<string> (capacity 4, a String[4] of 56 B);
// `_lookup`, a Dictionary with 1 entry in 17 (entries array 432 B); `_cache`, a MemoryCache at
// its size limit (100 of 100) holding a Byte[] of 1000 B; `_empty`, an Int32[0]. The finalizer
// queue holds 3 App.NativeHandle (32 B each, one holding a Byte[] of 200 B).
#include <cstdint>
#include <string>
#include <vector>

#include "gcsnap/writer.hpp"

namespace gcsnap::test {

struct ValuesHeap {
  std::vector<uint64_t> addresses, sizes, refs;
  std::vector<uint32_t> types, counts, slots;
  std::vector<uint8_t> gens;
  void add(uint64_t address, uint32_t type, uint64_t size, std::vector<uint64_t> to, std::vector<uint32_t> at) {
    addresses.push_back(address);
    types.push_back(type);
    sizes.push_back(size);
    gens.push_back(static_cast<uint8_t>(Generation::Gen2));
    counts.push_back(static_cast<uint32_t>(to.size()));
    refs.insert(refs.end(), to.begin(), to.end());
    slots.insert(slots.end(), at.begin(), at.end());
  }
};

/// Write the sample to PATH; CAPTURE_CHARS > 0 records string contents too (--capture-strings).
inline bool write_values_sample(const std::string& path, uint32_t capture_chars) {
  WriterOptions options;
  options.background_compression = false;
  auto created = Writer::create(path, options);
  if (!created) return false;
  Writer& w = **created;
  const std::vector<TypeRecord> types = {
      {1, 0xc1, "App.Registry", "App.dll"},
      {2, 0xc2, "App.Order", "App.dll"},
      {3, 0xc3, "App.Order[]", "App.dll"},
      {4, 0xc4, "System.String", "System.Private.CoreLib.dll"},
      {5, 0xc5, "System.Collections.Generic.List<System.String>", "System.Private.CoreLib.dll"},
      {6, 0xc6, "System.String[]", "System.Private.CoreLib.dll"},
      {7, 0xc7, "System.Collections.Generic.Dictionary<System.String, System.String>", "System.Private.CoreLib.dll"},
      {8, 0xc8, "System.Collections.Generic.Dictionary+Entry<System.String, System.String>[]",
       "System.Private.CoreLib.dll"},
      {9, 0xc9, "Microsoft.Extensions.Caching.Memory.MemoryCache", "Microsoft.Extensions.Caching.Memory.dll"},
      {10, 0xca, "System.Byte[]", "System.Private.CoreLib.dll"},
      {11, 0xcb, "System.Int32[]", "System.Private.CoreLib.dll"},
      {12, 0xcc, "App.NativeHandle", "App.dll"}};
  static const FieldRecord registry[] = {{8, field_flags::kReference, "_orders"},
                                         {16, field_flags::kReference, "_names"},
                                         {24, field_flags::kReference, "_lookup"},
                                         {32, field_flags::kReference, "_cache"},
                                         {40, field_flags::kReference, "_empty"}};
  static const FieldRecord order[] = {{8, field_flags::kReference, "Status"}};
  static const FieldRecord list[] = {{8, field_flags::kReference, "_items"}};
  static const FieldRecord dictionary[] = {{16, field_flags::kReference, "_entries"}};
  static const FieldRecord cache[] = {{8, field_flags::kReference, "_entries"}};
  static const FieldRecord handle[] = {{8, field_flags::kReference, "_buffer"}};
  const std::vector<TypeLayout> layouts = {{1, LayoutKind::Object, 0, 0, registry},
                                           {2, LayoutKind::Object, 0, 0, order},
                                           {3, LayoutKind::ReferenceArray, 16, 8, {}},
                                           {5, LayoutKind::Object, 0, 0, list},
                                           {6, LayoutKind::ReferenceArray, 16, 8, {}},
                                           {7, LayoutKind::Object, 0, 0, dictionary},
                                           {9, LayoutKind::Object, 0, 0, cache},
                                           {12, LayoutKind::Object, 0, 0, handle}};
  ValuesHeap heap;
  std::vector<StringValue> strings;
  std::vector<uint64_t> order_refs;
  std::vector<uint32_t> order_slots;
  for (uint32_t k = 0; k < 10; ++k) {
    const uint64_t order_at = 0x1000 + 0x40 * k, string_at = 0x2000 + 0x40 * k;
    heap.add(order_at, 2, 32, {string_at}, {8});
    order_refs.push_back(order_at);
    order_slots.push_back(16 + 8 * k);
  }
  for (uint32_t k = 0; k < 10; ++k) {
    heap.add(0x2000 + 0x40 * k, 4, 40, {}, {});
    strings.push_back(StringValue{0x2000 + 0x40 * k, 7, k < 8 ? 0xA1A1A1A1A1A1A1A1ull : 0xB2B2B2B2B2B2B2B2ull});
  }
  heap.add(0x3000, 3, 104, order_refs, order_slots);
  heap.add(0x4000, 5, 32, {0x4100}, {8});
  heap.add(0x4100, 6, 56, {}, {});
  heap.add(0x5000, 7, 80, {0x5100}, {16});
  heap.add(0x5100, 8, 432, {}, {});
  heap.add(0x6000, 9, 64, {0x6100}, {8});
  heap.add(0x6100, 10, 1000, {}, {});
  heap.add(0x7000, 11, 24, {}, {});
  for (uint32_t k = 0; k < 3; ++k) {
    if (k == 0) heap.add(0x8000, 12, 32, {0x8100}, {8});
    else heap.add(0x8000 + 0x20 * k, 12, 32, {}, {});
  }
  heap.add(0x8100, 10, 200, {}, {});
  heap.add(0x10000, 1, 64, {0x3000, 0x4000, 0x5000, 0x6000, 0x7000}, {8, 16, 24, 32, 40});
  const std::vector<CollectionValue> collections = {{0x4000, CollectionKind::List, 0, 4, 0},
                                                    {0x5000, CollectionKind::Dictionary, 1, 17, 0},
                                                    {0x6000, CollectionKind::MemoryCache, 100, 100, 100},
                                                    {0x7000, CollectionKind::EmptyArray, 0, 0, 0}};
  const std::vector<uint64_t> roots = {0x10000, 0x8000, 0x8020, 0x8040};
  const std::vector<uint8_t> kinds = {static_cast<uint8_t>(RootKind::Handle), static_cast<uint8_t>(RootKind::Finalizer),
                                      static_cast<uint8_t>(RootKind::Finalizer), static_cast<uint8_t>(RootKind::Finalizer)};
  const std::vector<uint8_t> flags(roots.size(), 0);
  const std::vector<uint64_t> ids = {0x100, 0, 0, 0};
  const std::vector<GenerationRange> bounds = {{Generation::Gen2, 0x1000, 0xF100, 0x10000}};
  GcInfo info{1, 0x7, GcReason::Induced, true, SnapshotTrigger::OnDemand, 1700000000000000000ull,
              1700000000001250000ull, 1};
  bool ok = w.begin_gc(info).is_ok() && w.add_types(types).is_ok() && w.add_type_layouts(layouts).is_ok() &&
            w.add_generation_bounds(bounds).is_ok() && w.add_roots(roots, kinds, flags, ids).is_ok() &&
            w.add_objects(heap.addresses, heap.types, heap.sizes, heap.gens, heap.counts, heap.refs, heap.slots).is_ok() &&
            w.add_string_values(strings).is_ok() && w.add_collection_values(collections).is_ok();
  ValueCapture capture;
  if (capture_chars > 0) {
    capture.flags = value_flags::kContentsCaptured;
    capture.capture_chars = capture_chars;
    std::vector<StringContent> contents;
    for (uint32_t k = 0; k < 10; ++k) contents.push_back({0x2000 + 0x40 * k, 7, k < 8 ? "Pending" : "Shipped"});
    ok = ok && w.add_string_contents(contents).is_ok();
  }
  ok = ok && w.add_value_capture(capture).is_ok() && w.end_gc(info).is_ok();
  return ok && w.close().is_ok();
}

}  // namespace gcsnap::test
