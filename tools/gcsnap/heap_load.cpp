#include "heap_load.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "cli_error.hpp"
#include "output.hpp"

namespace gcsnap::cli {

std::unique_ptr<LoadedHeap> load_heap(const std::string& spec, std::optional<uint64_t> gc, bool reverse,
                                      bool fields) {
  auto heap = std::make_unique<LoadedHeap>();
  heap->sel = open_selected_gc(spec, gc, GcNeed::HeapWalk);
  const Recording& rec = *heap->sel.recording;
  const std::string& file = heap->sel.file;
  auto objects = rec.read_objects(heap->sel.index, ObjectReadOptions{fields});
  if (!objects) fail_on(file, objects.error());
  heap->objects = std::move(objects).value();
  auto roots = rec.read_roots(heap->sel.index);
  if (!roots) fail_on(file, roots.error());
  heap->roots = std::move(roots).value();
  auto names = rec.read_names(heap->sel.index);
  if (!names) fail_on(file, names.error());
  heap->names = std::move(names).value();
  // §6.11: ConditionalWeakTable values are held by their keys; without the section (1.0
  // recordings) the graph has no such edges and notes() says so.
  auto has_dependent = rec.has_dependent_handle_section(heap->sel.index);
  if (!has_dependent) fail_on(file, has_dependent.error());
  heap->has_dependent = *has_dependent;
  auto dependent = rec.read_dependent_handles(heap->sel.index);
  if (!dependent) fail_on(file, dependent.error());
  heap->dependent = std::move(dependent).value();
  auto graph = HeapGraph::build(heap->objects, heap->roots, heap->has_dependent ? &heap->dependent : nullptr);
  if (!graph) fail_on(file, graph.error());
  heap->graph = std::move(graph).value();
  if (fields) {
    auto slots = EdgeSlots::build(heap->objects, heap->graph);
    if (!slots) fail_on(file, slots.error());
    heap->edge_slots = std::move(slots).value();
    auto statics = rec.read_static_slots(heap->sel.index, heap->static_names);
    if (!statics) fail_on(file, statics.error());
    heap->statics = std::move(statics).value();
  }
  // The graph holds its own edges now: give the address-form ones back (8 B per edge).
  heap->objects.release_references();
  if (reverse) {
    auto status = heap->graph.build_reverse();
    if (!status) fail_on(file, status.error());
  }
  return heap;
}

std::vector<std::string> LoadedHeap::notes() const {
  std::vector<std::string> out;
  const GraphBuildStats& s = graph.stats();
  if (s.unresolved_references)
    out.push_back(fmt::format("{} of {} references point at no recorded object and were ignored",
                              s.unresolved_references, s.references));
  if (s.unresolved_roots)
    out.push_back(fmt::format("{} roots point at no recorded object and were ignored", s.unresolved_roots));
  if (!has_dependent)
    out.push_back("this recording has no dependent-handle section: objects kept alive only by a "
                  "ConditionalWeakTable look unreachable");
  else if (s.dependent_edges < s.dependent_handles)
    out.push_back(fmt::format("{} of {} dependent handles point at no recorded object and were ignored",
                              s.dependent_handles - s.dependent_edges, s.dependent_handles));
  const DropCounts& d = sel.entry().drops;
  if (d.any())
    out.push_back(fmt::format("the recorder dropped data at this GC (roots {}, objects {}, references {}): "
                              "answers may be incomplete", d.roots, d.objects, d.references));
  return out;
}

NodeIndex find_object_or_fail(const LoadedHeap& heap, uint64_t address) {
  auto found = heap.graph.find_object(address);
  if (found) return *found;
  std::string hint;
  // Not an object's start, so a zero-size object is never the one found here.
  if (auto row = heap.objects.find_containing(address)) {
    const uint64_t start = heap.objects.addresses[*row];
    hint = fmt::format(" (it is inside {} {} at offset +0x{:x})", format_address(start),
                       heap.type_name(static_cast<NodeIndex>(*row)), address - start);
  }
  throw CliError(fmt::format("{}: {} is not the address of an object in GC {}{}", heap.sel.file,
                             format_address(address), heap.sel.number(), hint),
                 kExitUsage);
}

}  // namespace gcsnap::cli
