// gcsnap path from a valid index read a piece at a time: one path to an object, or the paths
// to the nearest instances of a type, reading only the pieces those paths touch.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "commands/path_command.hpp"
#include "commands/type_filter.hpp"
#include "gcsnap/heap_points.hpp"
#include "gcsnap/retention.hpp"
#include "loading/heap_load.hpp"
#include "output/output.hpp"

namespace gcsnap::cli {

namespace {

// HEAP takes the paths' objects as its graph (HeapPoints::path_subgraph), with the GC's statics.
void adopt_subgraph(LoadedHeap& heap, PathSubgraph& sub, HeapPoints& points) {
  const SelectedGc& sel = heap.sel;
  auto statics = sel.recording->read_static_slots(sel.index, heap.static_names);
  if (!statics) fail_on(sel.file, statics.error());
  heap.statics = std::move(statics).value();
  heap.graph = std::move(sub.graph);
  heap.edge_slots = std::move(sub.slots);
  heap.generations = sub.generations;
  heap.has_dependent = value_or_fail(points.has_dependent_handles(), sel.file);
}

// One path to one object from the pieces the search and the path's objects touch: the same
// answer as run_object on the index's graph, which has the reverse CSR. False when a piece is
// damaged.
bool object_from_pieces(LoadedHeap& heap, HeapPoints& points, const PathOptions& opt) {
  const SelectedGc& sel = heap.sel;
  const uint64_t address = parse_address(opt.object);
  auto found = points.find_object(address);
  if (!found) return false;
  if (!*found || (*found)->address != address) {
    std::string hint;
    if (*found)  // as find_object_or_fail: inside an object
      hint = fmt::format(" (it is inside {} {} at offset +0x{:x})", format_address((*found)->address),
                         heap.names.type_name((*found)->type_id), address - (*found)->address);
    throw CliError(fmt::format("{}: {} is not the address of an object in GC {}{}", sel.file,
                               format_address(address), sel.number(), hint),
                   kExitUsage);
  }
  auto result = points.find_retention_path((*found)->node, opt.include_weak);
  if (!result) return false;
  auto sub = points.path_subgraph(result->paths);
  if (!sub) return false;
  adopt_subgraph(heap, *sub, points);
  result->paths = std::move(sub->paths);
  const std::string what = fmt::format("{} ({})", format_address(address), heap.names.type_name((*found)->type_id));
  report_object(heap, *result, address, what, opt);
  return true;
}

// --type without groups from the index's nearest instances of each type (format-spec.md §12.3
// array 18, minor 2) and the histogram's counts: the N nearest of the matching types' kept
// rows merged by (hops, node), as run_type ranks them, without reading the type ids or the
// whole tree. nullopt when the index keeps fewer than N per type, or none (an older minor): the
// caller scans the type ids; false when a piece is damaged or a row is not of its type.
std::optional<bool> type_from_nearest(LoadedHeap& heap, HeapPoints& points, const PathOptions& opt) {
  const SelectedGc& sel = heap.sel;
  auto histogram = points.type_stats();
  if (!histogram) return false;
  auto nearest = points.nearest_instances(*histogram);
  if (!nearest || nearest->per_type < max_paths(opt)) return std::nullopt;
  std::vector<uint32_t> present;
  for (const TypeStats& t : *histogram) present.push_back(t.type_id);
  const std::vector<uint32_t> types =
      type_ids_of_type(heap.names, present, opt.type,
                       fmt::format("{}: no object in GC {} has a type named or containing", sel.file, sel.number()));
  auto wanted = [&](uint32_t id) { return std::binary_search(types.begin(), types.end(), id); };
  uint64_t instances = 0, reachable = 0;
  for (const TypeStats& t : *histogram)
    if (wanted(t.type_id)) {
      instances += t.count;
      reachable += t.count - t.unreachable_count;
    }
  std::vector<NearestInstance> chosen;
  for (const NearestInstance& r : nearest->rows)
    if (wanted(r.type_id)) chosen.push_back(r);
  std::sort(chosen.begin(), chosen.end(), [](const auto& a, const auto& b) {
    return std::pair{a.hops, a.node} < std::pair{b.hops, b.node};
  });
  if (chosen.size() > max_paths(opt)) chosen.resize(max_paths(opt));
  auto paths = points.tree_paths_of(chosen);
  if (!paths) return false;
  auto sub = points.path_subgraph(paths->paths);
  if (!sub) return false;
  for (const RetentionPath& p : sub->paths)  // a row's node of another type: damaged
    if (p.nodes.empty() || !wanted(sub->graph.type_id(p.nodes.back()))) return false;
  adopt_subgraph(heap, *sub, points);
  std::vector<FoundPath> found;
  for (RetentionPath& p : sub->paths) found.push_back({std::move(p), Reachability::Strong});
  report_type(heap, found, static_cast<size_t>(instances), static_cast<size_t>(reachable), opt);
  return true;
}

// --type without groups: the instances from one pass over the type ids, the nearest ones'
// paths from the shortest-path tree's parents, their objects as a graph of their own: the same
// answer as run_type on the index read whole. False when a piece is damaged, or the histogram
// names types the type ids do not have.
bool type_from_pieces(LoadedHeap& heap, HeapPoints& points, const PathOptions& opt) {
  if (auto answered = type_from_nearest(heap, points, opt)) return *answered;
  const SelectedGc& sel = heap.sel;
  auto present = points.type_ids();
  if (!present) return false;
  const std::vector<uint32_t> types = type_ids_of_type(
      heap.names, *present, opt.type,
      fmt::format("{}: no object in GC {} has a type named or containing", sel.file, sel.number()));
  auto instances = points.nodes_of_types(types);
  if (!instances || instances->empty()) return false;
  auto nearest = points.nearest_tree_paths(*instances, max_paths(opt));
  if (!nearest) return false;
  auto sub = points.path_subgraph(nearest->paths);
  if (!sub) return false;
  adopt_subgraph(heap, *sub, points);
  std::vector<FoundPath> found;
  for (RetentionPath& p : sub->paths) found.push_back({std::move(p), Reachability::Strong});
  report_type(heap, found, instances->size(), static_cast<size_t>(nearest->reached), opt);
  return true;
}

// The most paths type_from_pieces is asked for.
constexpr size_t kPiecesMaxPaths = 64;

// Whether the index's pieces can answer: one path to an object, or a few (each hop of a path
// shown reads a few pieces of the forward graph: a few dozen paths cost less than the whole
// index, thousands more) to instances of a type over strong roots, not grouped.
bool pieces_answer(const PathOptions& opt) {
  if (opt.no_cache) return false;
  if (!opt.object.empty()) return max_paths(opt) == 1;
  return !opt.include_weak && !group_paths(opt) && max_paths(opt) != 0 && max_paths(opt) <= kPiecesMaxPaths;
}

}  // namespace

bool run_from_pieces(const PathOptions& opt) {
  if (!pieces_answer(opt)) return false;
  auto [heap, points] = open_indexed_points(opt.file, opt.gc);
  if (!points) return false;
  return opt.object.empty() ? type_from_pieces(*heap, *points, opt) : object_from_pieces(*heap, *points, opt);
}

}  // namespace gcsnap::cli
