// Write the one-GC recording the dominators (chain folding), types (generation split), width
// and --filter CLI checks read.
//
// A handle holds App.Registry@0x10000 (gen2), which holds a linked list of 30 App.ListNode
// (0x1000 + 0x40 k, gen0, 48 B each), each with a System.Byte[] payload (0x8000 + 0x80 k,
// 100 B). Handles also hold a large System.Byte[] (LOH, 90000 B), a pinned one (POH, 4096 B),
// a frozen System.String (NonGcHeap, 64 B) and two dictionaries whose long names differ only
// in a namespace inside their generic arguments (gen1, 200 B and 300 B).
#include <cstdio>
#include <vector>

#include "gcsnap/writer.hpp"

using namespace gcsnap;

namespace {

bool check(const Status& s, const char* what) {
  if (!s.is_ok()) std::fprintf(stderr, "write_chain_fixture: %s failed: %s\n", what, s.error().detail);
  return s.is_ok();
}

struct Heap {
  std::vector<uint64_t> addresses, sizes, refs;
  std::vector<uint32_t> types, counts;
  std::vector<uint8_t> gens;
  void add(uint64_t address, uint32_t type, uint64_t size, Generation gen, std::vector<uint64_t> to) {
    addresses.push_back(address);
    types.push_back(type);
    sizes.push_back(size);
    gens.push_back(static_cast<uint8_t>(gen));
    counts.push_back(static_cast<uint32_t>(to.size()));
    refs.insert(refs.end(), to.begin(), to.end());
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_chain_fixture FILE\n");
    return 2;
  }
  auto created = Writer::create(argv[1]);
  if (!created) return 1;
  Writer& w = **created;
  using G = Generation;
  const std::vector<TypeRecord> types = {
      {1, 0xc1, "App.Registry", "App.dll"},
      {2, 0xc2, "App.ListNode", "App.dll"},
      {3, 0xc3, "System.Byte[]", "System.Private.CoreLib.dll"},
      {4, 0xc4, "System.String", "System.Private.CoreLib.dll"},
      {5, 0xc5, "System.Collections.Generic.Dictionary<System.String, System.Collections.Generic.List<Contoso.Inventory.Warehouse.StockItem>>", "System.Private.CoreLib.dll"},
      {6, 0xc6, "System.Collections.Generic.Dictionary<System.String, System.Collections.Generic.List<Contoso.Shipping.Warehouse.StockItem>>", "System.Private.CoreLib.dll"}};
  constexpr int kNodes = 30;
  Heap heap;
  // Address order: nodes, payloads, dictionaries, registry, LOH, POH, frozen.
  for (int k = 0; k < kNodes; ++k) {
    std::vector<uint64_t> to = {0x8000u + 0x80u * k};
    if (k + 1 < kNodes) to.push_back(0x1000u + 0x40u * (k + 1));
    heap.add(0x1000u + 0x40u * k, 2, 48, G::Gen0, to);
  }
  for (int k = 0; k < kNodes; ++k) heap.add(0x8000u + 0x80u * k, 3, 100, G::Gen0, {});
  heap.add(0x9000, 5, 200, G::Gen1, {});
  heap.add(0x9100, 6, 300, G::Gen1, {});
  heap.add(0x10000, 1, 64, G::Gen2, {0x1000});
  heap.add(0x100000, 3, 90000, G::LargeObjectHeap, {});
  heap.add(0x200000, 3, 4096, G::PinnedObjectHeap, {});
  heap.add(0x300000, 4, 64, G::NonGcHeap, {});
  const std::vector<uint64_t> roots = {0x10000, 0x100000, 0x200000, 0x300000, 0x9000, 0x9100};
  const std::vector<uint8_t> kinds(roots.size(), static_cast<uint8_t>(RootKind::Handle));
  const std::vector<uint8_t> flags = {0, 0, root_flags::kPinning, 0, 0, 0};
  const std::vector<uint64_t> ids = {0x100, 0x101, 0x102, 0x103, 0x104, 0x105};
  const std::vector<GenerationRange> bounds = {{G::Gen0, 0x1000, 0x8000, 0x10000},
                                               {G::Gen1, 0x9000, 0x400, 0x1000},
                                               {G::Gen2, 0x10000, 0x40, 0x10000},
                                               {G::LargeObjectHeap, 0x100000, 90000, 0x100000},
                                               {G::PinnedObjectHeap, 0x200000, 4096, 0x10000}};
  GcInfo info;
  info.gc_number = 1;
  info.generations_collected = 0x7;
  info.trigger = SnapshotTrigger::OnDemand;
  info.start_time_ns = 1'700'000'000'000'000'000ull;
  info.end_time_ns = info.start_time_ns + 1'250'000;
  const bool ok = check(w.begin_gc(info), "begin_gc") && check(w.add_types(types), "types") &&
                  check(w.add_generation_bounds(bounds), "bounds") &&
                  check(w.add_roots(roots, kinds, flags, ids), "roots") &&
                  check(w.add_objects(heap.addresses, heap.types, heap.sizes, heap.gens, heap.counts, heap.refs),
                        "objects") &&
                  check(w.end_gc(info), "end_gc") && check(w.close(), "close");
  return ok ? 0 : 1;
}
