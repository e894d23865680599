// Write the small three-GC recording the roots/where/diff golden tests read.
//
// GC 1 (gen0, heap walk): Cache -> Object[] -> {Order@0x1200, Order@0x1300}; a garbage
//   String@0x1400; a frozen String@0x5000. Roots of every kind, pinning/interior/weak flags.
// GC 2 (gen0, compacting, no walk): [0x1000, 0x1400) moved to 0x20000 (promoted to gen1);
//   the String@0x1400 died.
// GC 3 (gen1, sweeping, heap walk): [0x20000, 0x20300) survives (so Order@0x20300 died),
//   new objects at 0x30000 survive: three Orders (referenced from the Object[]) and a
//   String held by a stack root; a Dictionary<String, Order> died.
#include <cstdio>
#include <vector>

#include "gcsnap/reader.hpp"
#include "gcsnap/writer.hpp"

using namespace gcsnap;

namespace {

struct Obj {
  uint64_t address;
  uint32_t type;
  uint64_t size;
  Generation gen;
  std::vector<uint64_t> refs;
};

struct Root {
  uint64_t object;
  RootKind kind;
  uint8_t flags;
  uint64_t id;
};

bool check(const Status& s, const char* what) {
  if (!s.is_ok()) std::fprintf(stderr, "write_three_gc_fixture: %s failed: %s\n", what, s.error().detail);
  return s.is_ok();
}

bool write_gc(Writer& w, GcInfo info, const std::vector<Obj>& objects, const std::vector<Root>& roots,
              const std::vector<GenerationRange>& bounds, const RangeTable& ranges,
              const std::vector<TypeRecord>& types, const std::vector<MethodRecord>& methods) {
  bool ok = check(w.begin_gc(info), "begin_gc") && check(w.add_types(types), "types") &&
            check(w.add_methods(methods), "methods") && check(w.add_generation_bounds(bounds), "bounds");
  std::vector<uint64_t> ids, root_ids;
  std::vector<uint8_t> kinds, flags;
  for (const auto& r : roots) {
    ids.push_back(r.object);
    kinds.push_back(static_cast<uint8_t>(r.kind));
    flags.push_back(r.flags);
    root_ids.push_back(r.id);
  }
  ok = ok && check(w.add_roots(ids, kinds, flags, root_ids), "roots");
  ok = ok && check(w.add_surviving_ranges(ranges.surviving_starts, ranges.surviving_lengths), "surviving");
  ok = ok && check(w.add_moved_ranges(ranges.moved_old_starts, ranges.moved_new_starts, ranges.moved_lengths), "moved");
  if (info.trigger != SnapshotTrigger::None) {
    std::vector<uint64_t> addresses, sizes, refs;
    std::vector<uint32_t> type_ids, counts;
    std::vector<uint8_t> gens;
    for (const auto& o : objects) {
      addresses.push_back(o.address);
      type_ids.push_back(o.type);
      sizes.push_back(o.size);
      gens.push_back(static_cast<uint8_t>(o.gen));
      counts.push_back(static_cast<uint32_t>(o.refs.size()));
      refs.insert(refs.end(), o.refs.begin(), o.refs.end());
    }
    ok = ok && check(w.add_objects(addresses, type_ids, sizes, gens, counts, refs), "objects");
  }
  return ok && check(w.end_gc(info), "end_gc");
}

GcInfo gc_info(uint64_t n, uint8_t collected, bool compacted, SnapshotTrigger trigger) {
  GcInfo info;
  info.gc_number = n;
  info.generations_collected = collected;
  info.compacted = compacted;
  info.trigger = trigger;
  info.start_time_ns = 1'700'000'000'000'000'000ull + n * 1'000'000;
  info.end_time_ns = info.start_time_ns + 500'000;
  return info;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_three_gc_fixture FILE\n");
    return 2;
  }
  auto created = Writer::create(argv[1]);
  if (!created) return 1;
  Writer& w = **created;
  using G = Generation;
  const std::vector<TypeRecord> types1 = {{1, 0xc1, "App.Cache", "App.dll"},
                                          {2, 0xc2, "System.Object[]", "System.Private.CoreLib.dll"},
                                          {3, 0xc3, "App.Order", "App.dll"},
                                          {4, 0xc4, "System.String", "System.Private.CoreLib.dll"}};
  const std::vector<TypeRecord> types3 = {
      {5, 0xc5, "System.Collections.Generic.Dictionary<System.String, App.Order>", "System.Private.CoreLib.dll"}};
  const std::vector<MethodRecord> methods1 = {{0xf1, "App.Program.Main"}};
  const std::vector<MethodRecord> methods3 = {{0xf2, "App.Worker.Run"}};

  const std::vector<Obj> walk1 = {{0x1000, 1, 64, G::Gen0, {0x1100}},
                                  {0x1100, 2, 256, G::Gen0, {0x1200, 0x1300}},
                                  {0x1200, 3, 48, G::Gen0, {}},
                                  {0x1300, 3, 48, G::Gen0, {}},
                                  {0x1400, 4, 40, G::Gen0, {}},
                                  {0x5000, 4, 32, G::NonGcHeap, {}}};
  const std::vector<Root> roots1 = {{0x1000, RootKind::Handle, 0, 0x100},
                                    {0x1300, RootKind::Stack, 0, 0xf1},
                                    {0x1200, RootKind::Finalizer, 0, 0},
                                    {0x1308, RootKind::Stack, root_flags::kPinning | root_flags::kInterior, 0xf1},
                                    {0x5000, RootKind::Other, 0, 0},
                                    {0x1400, RootKind::Handle, root_flags::kWeakRef, 0x101}};
  const std::vector<GenerationRange> bounds1 = {{G::Gen0, 0x1000, 0x1000, 0x10000}, {G::Gen2, 0x10000, 0x100, 0x10000}};
  if (!write_gc(w, gc_info(1, 0x1, true, SnapshotTrigger::Policy), walk1, roots1, bounds1, {}, types1, methods1))
    return 1;

  RangeTable moved2;
  moved2.moved_old_starts = {0x1000};
  moved2.moved_new_starts = {0x20000};
  moved2.moved_lengths = {0x400};
  const std::vector<Root> roots2 = {{0x20000, RootKind::Handle, 0, 0x100},
                                    {0x20300, RootKind::Stack, 0, 0xf1},
                                    {0x20200, RootKind::Finalizer, 0, 0},
                                    {0x5000, RootKind::Other, 0, 0}};
  const std::vector<GenerationRange> bounds2 = {{G::Gen1, 0x20000, 0x400, 0x10000},
                                                {G::Gen0, 0x30000, 0x100, 0x10000},
                                                {G::Gen2, 0x10000, 0x100, 0x10000}};
  if (!write_gc(w, gc_info(2, 0x1, true, SnapshotTrigger::None), {}, roots2, bounds2, moved2, {}, {})) return 1;

  RangeTable surviving3;
  surviving3.surviving_starts = {0x30000, 0x20000};
  surviving3.surviving_lengths = {0xe8, 0x300};
  const std::vector<Obj> walk3 = {{0x5000, 4, 32, G::NonGcHeap, {}},
                                  {0x20000, 1, 64, G::Gen2, {0x20100}},
                                  {0x20100, 2, 256, G::Gen2, {0x20200, 0x30000, 0x30040, 0x30080}},
                                  {0x20200, 3, 48, G::Gen2, {}},
                                  {0x30000, 3, 48, G::Gen1, {}},
                                  {0x30040, 3, 48, G::Gen1, {}},
                                  {0x30080, 3, 48, G::Gen1, {}},
                                  {0x300c0, 4, 40, G::Gen1, {}}};
  const std::vector<Root> roots3 = {{0x20000, RootKind::Handle, 0, 0x100},
                                    {0x20200, RootKind::Finalizer, 0, 0},
                                    {0x5000, RootKind::Other, 0, 0},
                                    {0x300c0, RootKind::Stack, 0, 0xf2},
                                    {0x30040, RootKind::Handle, 0, 0x102}};
  const std::vector<GenerationRange> bounds3 = {{G::Gen2, 0x20000, 0x300, 0x10000},
                                                {G::Gen1, 0x30000, 0xe8, 0x10000},
                                                {G::Gen2, 0x10000, 0x100, 0x10000}};
  if (!write_gc(w, gc_info(3, 0x3, false, SnapshotTrigger::OnDemand), walk3, roots3, bounds3, surviving3, types3,
                methods3))
    return 1;
  return check(w.close(), "close") ? 0 : 1;
}
