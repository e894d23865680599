#include "commands/heap_load.hpp"

#include <algorithm>
#include <cstdio>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "output/cli_error.hpp"
#include "output/output.hpp"
#include "platform/console.hpp"
#include "commands/type_filter.hpp"

namespace gcsnap::cli {

void add_no_cache_option(CLI::App& cmd, bool& no_cache) {
  cmd.add_flag("--no-cache", no_cache,
               "answer from the recording alone: do not use or write the analysis index (FILE.N.gcidx)");
}

IndexProgress terminal_progress(const std::string& file) {
  if (!is_terminal(stderr)) return {};
  return [file](std::string_view stage) { fmt::print(stderr, "gcsnap: {}: {}...\n", file, stage); };
}

std::optional<GcIndex> existing_gc_index(const std::string& file, const Recording& rec, size_t gc_index,
                                         bool no_cache, IndexParts parts) {
  const GcEntry& entry = rec.gcs()[gc_index];
  if (no_cache || !entry.has_heap_walk()) return std::nullopt;
  auto id = identify_gc(file, rec, gc_index);
  if (!id) return std::nullopt;
  auto read = read_gc_index(gc_index_path(file, id->gc_number), *id, parts);
  if (!read) return std::nullopt;
  // Its root positions must refer to this GC's root table (a forged index is not used).
  if (read->root_entries != entry.root_count) return std::nullopt;
  return std::move(read).value();
}

std::optional<GcIndex> existing_gc_index(const SelectedGc& sel, bool no_cache, IndexParts parts) {
  return existing_gc_index(sel.file, *sel.recording, sel.index, no_cache, parts);
}

namespace {

// Read names, roots and the extras a command needs from the recording; the heavy parts from
// the analysis index. False when the index cannot serve this heap (then the caller decodes).
bool load_from_index(LoadedHeap& heap, bool fields, const IndexChoice& choice) {
  const Recording& rec = *heap.sel.recording;
  const std::string& file = heap.sel.file;
  auto opened = open_gc_index(file, rec, heap.sel.index, !choice.no_cache, terminal_progress(file), choice.parts);
  if (!opened) fail_on(file, opened.error());
  GcIndex& ix = opened->index;
  auto roots = rec.read_roots(heap.sel.index);
  if (!roots) fail_on(file, roots.error());
  heap.roots = std::move(roots).value();
  // The index's root positions refer to this root table: one that does not match it (a
  // forged index) is not used.
  if (heap.roots.size() != ix.root_entries) return false;
  auto names = rec.read_names(heap.sel.index);
  if (!names) fail_on(file, names.error());
  heap.names = std::move(names).value();
  heap.has_dependent = ix.has_dependent_handles;
  heap.graph = std::move(ix.graph);
  heap.generations = ix.generations;
  heap.parts = ix.parts;
  if (ix.parts & kIndexDominators) heap.indexed_dominators = std::move(ix.dominators);
  if (ix.parts & kIndexTypes) heap.indexed_types = std::move(ix.type_stats);
  if (ix.parts & kIndexPathTree) {
    // A tree whose root marks do not match the roots (forged) is not used: decode instead.
    auto tree = kept_path_tree(ix, heap.graph);
    if (!tree) return false;
    heap.indexed_paths = std::move(tree).value();
  }
  heap.indexed_unreachable = std::pair{ix.unreachable_objects, ix.unreachable_bytes};
  if (fields) {
    heap.edge_slots = std::move(ix.edge_slots);
    auto statics = rec.read_static_slots(heap.sel.index, heap.static_names);
    if (!statics) fail_on(file, statics.error());
    heap.statics = std::move(statics).value();
  }
  heap.index_storage = std::move(ix.storage);
  return true;
}

}  // namespace

std::unique_ptr<LoadedHeap> load_heap(const std::string& spec, std::optional<uint64_t> gc, bool reverse,
                                      bool fields, const IndexChoice& index) {
  auto heap = std::make_unique<LoadedHeap>();
  heap->sel = open_selected_gc(spec, gc, GcNeed::HeapWalk);
  if (index.supported && !index.no_cache && load_from_index(*heap, fields, index)) return heap;
  const Recording& rec = *heap->sel.recording;
  const std::string& file = heap->sel.file;
  auto objects = rec.read_objects(heap->sel.index, ObjectReadOptions{fields});
  if (!objects) fail_on(file, objects.error());
  heap->objects = std::move(objects).value();
  heap->generations = heap->objects.generations;
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
  if (reverse || index.supported) {
    auto status = heap->graph.build_reverse();
    if (!status) fail_on(file, status.error());
  }
  return heap;
}

const DominatorTree& LoadedHeap::dominators(bool include_weak) {
  if (!include_weak && indexed_dominators) return *indexed_dominators;
  if (computed_dominators_ && computed_include_weak_ == include_weak) return *computed_dominators_;
  // A graph mapped without its edges cannot give a tree: the command asked for too few parts.
  if ((parts & (kIndexObjects | kIndexForward)) != (kIndexObjects | kIndexForward))
    throw CliError(fmt::format("{}: internal error: dominators asked of an index read without its graph", sel.file),
                   kExitBadInput);
  computed_dominators_.reset();
  auto status = graph.build_reverse();
  if (!status) fail_on(sel.file, status.error());
  auto computed = DominatorTree::compute(graph, DominatorOptions{include_weak});
  if (!computed) fail_on(sel.file, computed.error());
  computed_dominators_ = std::move(computed).value();
  computed_include_weak_ = include_weak;
  return *computed_dominators_;
}

std::vector<TypeStats> LoadedHeap::type_histogram(bool include_weak, const TypeHistogramOptions& options) {
  if (!include_weak && indexed_types) {
    std::vector<TypeStats> stats = *indexed_types;
    sort_type_stats(stats, options);
    return stats;
  }
  auto hist = build_type_histogram(graph, &dominators(include_weak), options, generations);
  if (!hist) fail_on(sel.file, hist.error());
  return std::move(hist).value();
}

std::vector<uint32_t> LoadedHeap::type_ids() const {
  if (!indexed_types) return type_ids_in(graph);
  std::vector<uint32_t> ids;
  ids.reserve(indexed_types->size());
  for (const TypeStats& t : *indexed_types) ids.push_back(t.type_id);  // sorted by id in the index
  return ids;
}

std::pair<uint64_t, uint64_t> LoadedHeap::unreachable(bool include_weak) {
  if (!include_weak && indexed_unreachable) return *indexed_unreachable;
  const DominatorTree& dom = dominators(include_weak);
  return {dom.unreachable_count(), dom.unreachable_bytes()};
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
  if (auto node = heap.graph.find_containing(address)) {
    const uint64_t start = heap.graph.address(*node);
    hint = fmt::format(" (it is inside {} {} at offset +0x{:x})", format_address(start), heap.type_name(*node),
                       address - start);
  }
  throw CliError(fmt::format("{}: {} is not the address of an object in GC {}{}", heap.sel.file,
                             format_address(address), heap.sel.number(), hint),
                 kExitUsage);
}

}  // namespace gcsnap::cli
