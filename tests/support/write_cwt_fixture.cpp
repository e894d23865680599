// Write the one-GC recording with ConditionalWeakTable entries (format-spec.md §6.11) that the
// path/types/dominators/where CLI checks read.
//
// Handle -> Zoo.Registry@0x1000 -> Zoo.Customer@0x1100. Dependent handles: Customer@0x1100 keeps
// Zoo.CustomerExtras@0x1200 alive (-> System.String@0x1300); a dead Customer@0x1400 keeps
// CustomerExtras@0x1500 (both garbage). GC 2 (gen2, sweeping, no walk) keeps [0x1000, 0x1400).
// With --no-dependent the dependent handles are left out, as a 1.0 writer would.
//
// With --diff, a recording for diff: GC 1 walks the Registry alone; GC 2 (sweeping, keeping
// [0x1000, 0x1400)) walks it with new objects: Customer@0x1040 references Extras@0x1080 and
// holds it by a dependent handle too (the hop is a reference), Customer@0x1100 holds
// Extras@0x1200 by a dependent handle only (-> System.String@0x1300).
#include <cstdio>
#include <cstring>
#include <vector>

#include "gcsnap/writer.hpp"

using namespace gcsnap;

namespace {

bool write_diff(Writer& w, const std::vector<TypeRecord>& types, const std::vector<GenerationRange>& bounds) {
  const std::vector<uint8_t> root_kinds = {static_cast<uint8_t>(RootKind::Handle)};
  const std::vector<uint8_t> root_flag_bits = {0};
  const std::vector<uint64_t> root_objects = {0x1000}, root_ids = {0x100};
  GcInfo first;
  first.gc_number = 1;
  first.generations_collected = 0x7;
  first.trigger = SnapshotTrigger::Policy;
  const std::vector<uint64_t> a_addresses = {0x1000}, a_sizes = {32}, no_refs;
  const std::vector<uint32_t> a_types = {1}, a_counts = {0};
  const std::vector<uint8_t> a_gens = {static_cast<uint8_t>(Generation::Gen0)};
  bool ok = w.begin_gc(first).is_ok() && w.add_types(types).is_ok() && w.add_generation_bounds(bounds).is_ok() &&
            w.add_roots(root_objects, root_kinds, root_flag_bits, root_ids).is_ok() &&
            w.add_objects(a_addresses, a_types, a_sizes, a_gens, a_counts, no_refs).is_ok() &&
            w.add_dependent_handles({}, {}).is_ok() && w.end_gc(first).is_ok();
  GcInfo second;
  second.gc_number = 2;
  second.generations_collected = 0x7;
  second.trigger = SnapshotTrigger::Policy;
  const std::vector<uint64_t> addresses = {0x1000, 0x1040, 0x1080, 0x1100, 0x1200, 0x1300};
  const std::vector<uint32_t> type_ids = {1, 2, 3, 2, 3, 4};
  const std::vector<uint64_t> sizes = {32, 40, 48, 40, 48, 56};
  const std::vector<uint8_t> gens(addresses.size(), static_cast<uint8_t>(Generation::Gen0));
  const std::vector<uint32_t> counts = {2, 1, 0, 0, 1, 0};
  const std::vector<uint64_t> refs = {0x1040, 0x1100, 0x1080, 0x1300};
  const std::vector<uint64_t> primaries = {0x1040, 0x1100}, secondaries = {0x1080, 0x1200};
  const std::vector<uint64_t> starts = {0x1000}, lengths = {0x400};
  return ok && w.begin_gc(second).is_ok() && w.add_generation_bounds(bounds).is_ok() &&
         w.add_surviving_ranges(starts, lengths).is_ok() &&
         w.add_roots(root_objects, root_kinds, root_flag_bits, root_ids).is_ok() &&
         w.add_objects(addresses, type_ids, sizes, gens, counts, refs).is_ok() &&
         w.add_dependent_handles(primaries, secondaries).is_ok() && w.end_gc(second).is_ok() && w.close().is_ok();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) return 2;
  const bool with_dependent = argc == 2;
  const bool diff = argc == 3 && std::strcmp(argv[2], "--diff") == 0;
  auto created = Writer::create(argv[1]);
  if (!created) return 1;
  Writer& w = **created;
  const std::vector<TypeRecord> types = {{1, 0xc1, "Zoo.Registry", "Zoo.dll"},
                                         {2, 0xc2, "Zoo.Customer", "Zoo.dll"},
                                         {3, 0xc3, "Zoo.CustomerExtras", "Zoo.dll"},
                                         {4, 0xc4, "System.String", "System.Private.CoreLib.dll"}};
  const std::vector<GenerationRange> bounds = {{Generation::Gen0, 0x1000, 0x1000, 0x10000}};
  if (diff) {
    const bool ok = write_diff(w, types, bounds);
    if (!ok) std::fprintf(stderr, "write_cwt_fixture: writing failed\n");
    return ok ? 0 : 1;
  }
  const std::vector<uint64_t> addresses = {0x1000, 0x1100, 0x1200, 0x1300, 0x1400, 0x1500};
  const std::vector<uint32_t> type_ids = {1, 2, 3, 4, 2, 3};
  const std::vector<uint64_t> sizes = {32, 40, 48, 56, 40, 48};
  const std::vector<uint8_t> gens(addresses.size(), static_cast<uint8_t>(Generation::Gen0));
  const std::vector<uint32_t> counts = {1, 0, 1, 0, 0, 0};
  const std::vector<uint64_t> refs = {0x1100, 0x1300};
  const std::vector<uint64_t> root_objects = {0x1000};
  const std::vector<uint8_t> root_kinds = {static_cast<uint8_t>(RootKind::Handle)};
  const std::vector<uint8_t> root_flag_bits = {0};
  const std::vector<uint64_t> root_ids = {0x100};
  const std::vector<uint64_t> primaries = {0x1100, 0x1400}, secondaries = {0x1200, 0x1500};
  GcInfo info;
  info.gc_number = 1;
  info.generations_collected = 0x7;
  info.trigger = SnapshotTrigger::Policy;
  bool ok = w.begin_gc(info).is_ok() && w.add_types(types).is_ok() && w.add_generation_bounds(bounds).is_ok() &&
            w.add_roots(root_objects, root_kinds, root_flag_bits, root_ids).is_ok() &&
            w.add_objects(addresses, type_ids, sizes, gens, counts, refs).is_ok() &&
            (!with_dependent || w.add_dependent_handles(primaries, secondaries).is_ok()) && w.end_gc(info).is_ok();
  GcInfo sweep;
  sweep.gc_number = 2;
  sweep.generations_collected = 0x7;
  const std::vector<uint64_t> starts = {0x1000}, lengths = {0x400};
  ok = ok && w.begin_gc(sweep).is_ok() && w.add_generation_bounds(bounds).is_ok() &&
       w.add_surviving_ranges(starts, lengths).is_ok() && w.end_gc(sweep).is_ok() && w.close().is_ok();
  if (!ok) std::fprintf(stderr, "write_cwt_fixture: writing failed\n");
  return ok ? 0 : 1;
}
