// Write the one-GC recording the path/types/dominators CLI checks read.
//
// Cache@0x1000 -> Object[]@0x1100 -> {Node@0x1200, Node@0x1300, Node@0x1400};
// Node@0x1200 -> Node@0x1300 -> Node@0x1400 -> {Byte[]@0x1500, 0x9990 (no object)}.
// Roots: handle -> Cache; stack (App.Program.Main) -> Node@0x1300; weak handle ->
// WeakOnly@0x1600 -> String@0x1700; a null stack root; a root to 0x7770 (no object).
// String@0x1800 is garbage.
#include <cstdio>
#include <vector>

#include "gcsnap/writer.hpp"

using namespace gcsnap;

namespace {

bool check(const Status& s, const char* what) {
  if (!s.is_ok()) std::fprintf(stderr, "write_graph_fixture: %s failed: %s\n", what, s.error().detail);
  return s.is_ok();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  auto created = Writer::create(argv[1]);
  if (!created) return 1;
  Writer& w = **created;
  const std::vector<TypeRecord> types = {{1, 0xc1, "App.Cache", "App.dll"},
                                         {2, 0xc2, "System.Object[]", "System.Private.CoreLib.dll"},
                                         {3, 0xc3, "App.Node", "App.dll"},
                                         {4, 0xc4, "System.Byte[]", "System.Private.CoreLib.dll"},
                                         {5, 0xc5, "App.WeakOnly", "App.dll"},
                                         {6, 0xc6, "System.String", "System.Private.CoreLib.dll"}};
  const std::vector<MethodRecord> methods = {{0xf1, "App.Program.Main"}};
  const std::vector<GenerationRange> bounds = {{Generation::Gen0, 0x1000, 0x1000, 0x10000}};
  const std::vector<uint64_t> addresses = {0x1000, 0x1100, 0x1200, 0x1300, 0x1400, 0x1500, 0x1600, 0x1700, 0x1800};
  const std::vector<uint32_t> type_ids = {1, 2, 3, 3, 3, 4, 5, 6, 6};
  const std::vector<uint64_t> sizes = {64, 256, 32, 32, 32, 1000, 24, 40, 40};
  const std::vector<uint8_t> gens(addresses.size(), static_cast<uint8_t>(Generation::Gen0));
  const std::vector<uint32_t> counts = {1, 3, 1, 1, 2, 0, 1, 0, 0};
  const std::vector<uint64_t> refs = {0x1100, 0x1200, 0x1300, 0x1400, 0x1300, 0x1400, 0x1500, 0x9990, 0x1700};
  const std::vector<uint64_t> root_objects = {0x1000, 0x1300, 0x1600, 0, 0x7770};
  const std::vector<uint8_t> root_kinds = {static_cast<uint8_t>(RootKind::Handle), static_cast<uint8_t>(RootKind::Stack),
                                           static_cast<uint8_t>(RootKind::Handle), static_cast<uint8_t>(RootKind::Stack),
                                           static_cast<uint8_t>(RootKind::Other)};
  const std::vector<uint8_t> root_flag_bits = {0, 0, root_flags::kWeakRef, 0, 0};
  const std::vector<uint64_t> root_ids = {0x100, 0xf1, 0x101, 0xf1, 0};
  GcInfo info;
  info.gc_number = 1;
  info.generations_collected = 0x1;
  info.trigger = SnapshotTrigger::Policy;
  info.start_time_ns = 1'700'000'000'000'000'000ull;
  info.end_time_ns = info.start_time_ns + 500'000;
  const bool ok = check(w.begin_gc(info), "begin_gc") && check(w.add_types(types), "types") &&
                  check(w.add_methods(methods), "methods") && check(w.add_generation_bounds(bounds), "bounds") &&
                  check(w.add_roots(root_objects, root_kinds, root_flag_bits, root_ids), "roots") &&
                  check(w.add_objects(addresses, type_ids, sizes, gens, counts, refs), "objects") &&
                  check(w.end_gc(info), "end_gc") && check(w.close(), "close");
  return ok ? 0 : 1;
}
