// gcsnap path: why is this object alive? The shortest chain of references from a root (or
// one per distinct direct retainer with --all/--limit), for one object or for instances of a type.
#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "commands/commands.hpp"
#include "gcsnap/edge_names.hpp"
#include "gcsnap/enum_names.hpp"
#include "gcsnap/group_paths.hpp"
#include "gcsnap/heap_points.hpp"
#include "gcsnap/object_identity.hpp"
#include "gcsnap/path_fold.hpp"
#include "gcsnap/retention.hpp"
#include "gcsnap/root_summary.hpp"
#include "loading/gc_select.hpp"
#include "loading/heap_load.hpp"
#include "commands/path_text.hpp"
#include "commands/alloc_join_out.hpp"
#include "output/output.hpp"
#include "commands/type_filter.hpp"

namespace gcsnap::cli {

namespace {

struct PathOptions {
  std::string file;
  std::string object;
  std::optional<uint64_t> gc;
  std::string type;
  bool all = false;
  size_t limit = 0;  // 0: not given
  bool include_weak = false;
  bool no_cache = false;
  bool no_fold = false;
  bool group = false;
  bool no_group = false;
  Format format = Format::Table;
};

// One path to print, with what it leads to.
struct FoundPath {
  RetentionPath path;
  Reachability reachability;
};

// How hop H of PATH is held by hop H-1: "root" for the first, "reference" (a field or array
// element), or "ConditionalWeakTable" (a dependent handle: the key keeps the value alive).
Cell held_via(const RetentionPath& path, size_t h) {
  if (h == 0) return Cell("root");
  if (h - 1 >= path.edges.size()) return Cell();
  return Cell(path.edges[h - 1].kind == EdgeKind::DependentHandle ? "ConditionalWeakTable" : "reference");
}

const char* field_kind_name(const HopField& f) {
  if (f.is_static) return "static";
  switch (f.kind) {
    case EdgeNameKind::Field: return "field";
    case EdgeNameKind::Element: return "element";
    case EdgeNameKind::Unknown: break;
  }
  return "unknown";
}

Report make_report(const LoadedHeap& heap, const std::vector<FoundPath>& found, const std::string& what,
                   bool fold_hops) {
  bool dependent_hop = false;
  Table paths("paths", fmt::format("Retention paths to {} in GC {}", what, heap.sel.number()));
  paths.add_column("path", "PATH", ColumnKind::Count).add_column("target", "TARGET", ColumnKind::Address);
  paths.add_column("target_type", "TARGET TYPE", ColumnKind::TypeName).add_column("hops", "HOPS", ColumnKind::Count);
  paths.add_column("held", "HELD").add_column("root_kind", "ROOT KIND").add_column("root_flags", "FLAGS");
  paths.add_column("root_id", "ROOT ID", ColumnKind::Address).add_column("method", "METHOD");
  paths.add_column("static", "STATIC");
  Table hops("hops", "Hops (0 = the object the root points at; FIELD: how the previous hop holds this one)");
  hops.add_column("path", "PATH", ColumnKind::Count).add_column("hop", "HOP", ColumnKind::Count);
  hops.add_column("address", "OBJECT", ColumnKind::Address).add_column("type", "TYPE", ColumnKind::TypeName);
  hops.add_column("size", "SIZE", ColumnKind::Bytes).add_column("generation", "GEN");
  hops.add_column("via", "HELD VIA");
  if (fold_hops) hops.add_column("repeats", "REPEATS", ColumnKind::Count);
  hops.add_column("field", "FIELD").add_column("field_kind", "FIELD KIND").add_column("field_note", "WHY UNNAMED");
  const EdgeNamer namer = heap.edge_namer();
  std::vector<std::string> chains;
  uint64_t unnamed = 0;
  bool folded_any = false;
  UnnamedReason last_reason = UnnamedReason::None;
  for (size_t p = 0; p < found.size(); ++p) {
    const RetentionPath& path = found[p].path;
    const GraphRoot& root = heap.graph.roots()[path.root];
    const NodeIndex target = path.nodes.back();
    const std::vector<HopField> fields = namer.name_path(path.nodes);
    const FoldedHops folded = fold_path(heap, path, fields, fold_hops);
    Cell method;
    if (root.kind == RootKind::Stack)
      if (const MethodRecord* m = heap.names.find_method(root.root_id)) method = Cell(m->name);
    const char* held = root.is_weak() ? "weak" : "strong";
    Cell root_static = fields.size() > 1 && fields[1].is_static ? Cell(fields[1].text) : Cell();
    paths.add_row({p + 1, heap.graph.address(target), heap.type_name(target), path.hops(), held,
                   root_kind_name(root.kind), root_flags_text(root.flags),
                   root.root_id, method, root_static});
    for (size_t k = 0; k < folded.size(); ++k) {
      const size_t h = folded.first[k];
      const NodeIndex v = path.nodes[h];
      Cell field, kind, note;
      if (h > 0 && !is_dependent(path, h)) {  // a dependent handle is no field: HELD VIA says it
        kind = Cell(field_kind_name(fields[h]));
        if (fields[h].kind == EdgeNameKind::Unknown) {
          note = Cell(unnamed_reason_text(fields[h].reason));
          ++unnamed;
          last_reason = fields[h].reason;
        } else {
          field = Cell(fields[h].text);
        }
      }
      std::vector<Cell> row = {p + 1, h, heap.graph.address(v), heap.type_name(v), heap.graph.object_size(v),
                               generation_name(heap.generation(v)), held_via(path, h)};
      if (fold_hops) row.emplace_back(folded.counts[k]);
      row.insert(row.end(), {field, kind, note});
      hops.add_row(std::move(row));
    }
    if (folded.size() < path.nodes.size()) folded_any = true;
    if (std::any_of(path.edges.begin(), path.edges.end(),
                    [](const PathHop& e) { return e.kind == EdgeKind::DependentHandle; }))
      dependent_hop = true;
    chains.push_back(fmt::format("path {}: {}", p + 1, chain_text(heap, path, fields, folded)));
  }
  Report report;
  report.tables.push_back(std::move(paths));
  report.tables.push_back(std::move(hops));
  report.notes = std::move(chains);
  if (dependent_hop)
    report.notes.push_back("'ConditionalWeakTable' hops are dependent handles: a ConditionalWeakTable key keeps its "
                           "value alive without referencing it");
  if (folded_any)
    report.notes.push_back("repeated hops of the same type and field are folded into one (REPEATS, ×N); "
                           "--no-fold lists every hop");
  if (unnamed)
    report.notes.push_back(fmt::format("{} hops are not named: {}", unnamed, unnamed_reason_text(last_reason)));
  for (auto& n : heap.notes()) report.notes.push_back(std::move(n));
  return report;
}

// The table format folds repeated hops; CSV and JSON list every hop for tools (or --no-fold).
bool fold_hops(const PathOptions& opt) { return opt.format == Format::Table && !opt.no_fold; }

// --group, or by default in the table when no count of paths is asked for (and the instances
// turn out to be held in more than one way).
bool group_paths(const PathOptions& opt) {
  return opt.group || (opt.format == Format::Table && !opt.all && !opt.limit && !opt.no_group);
}

size_t max_paths(const PathOptions& opt) {
  if (opt.all) return 0;
  return opt.limit ? opt.limit : 1;
}

// Print RESULT, the paths to the object at ADDRESS (WHAT names it) and where it was allocated
// if it was sampled, and fail as the reachability says.
void report_object(const LoadedHeap& heap, const RetentionResult& result, uint64_t address, const std::string& what,
                   const PathOptions& opt) {
  std::vector<FoundPath> found;
  for (const auto& p : result.paths) found.push_back({p, result.reachability});
  Report report = make_report(heap, found, what, fold_hops(opt));
  add_allocated_at(report, heap.sel.file, *heap.sel.recording, heap.sel.index, address, opt.format);
  if (max_paths(opt) != 1 && result.reachability == Reachability::Strong)
    report.notes.push_back(fmt::format("{} distinct direct retainers (roots or objects) hold it; {} shown",
                                       result.retainer_count, found.size()));
  print_report(report, opt.format);
  if (result.reachability == Reachability::WeakOnly)
    throw CliError(fmt::format("{}: {} is only weakly reachable in GC {}: weak roots do not keep it alive "
                               "(the paths shown start at weak roots)", heap.sel.file, what, heap.sel.number()),
                   kExitProblems);
  if (result.reachability == Reachability::Unreachable)
    throw CliError(fmt::format("{}: {} is not reachable from any root in GC {}: it was garbage at this GC "
                               "(or its roots were not recorded)", heap.sel.file, what, heap.sel.number()),
                   kExitProblems);
}

void run_object(const LoadedHeap& heap, const PathOptions& opt) {
  const NodeIndex target = find_object_or_fail(heap, parse_address(opt.object));
  auto result = find_retention_paths(heap.graph, target, RetentionOptions{opt.include_weak, max_paths(opt)});
  if (!result) fail_on(heap.sel.file, result.error());
  const std::string what = fmt::format("{} ({})", format_address(heap.graph.address(target)), heap.type_name(target));
  report_object(heap, *result, heap.graph.address(target), what, opt);
}

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

// The instances of a type grouped by the folded shape of their shortest path (hop key: the
// object's type and the field that holds it), largest bytes first, each with its nearest
// member's folded path. Empty when the instances have fewer than two shapes and GROUP is false.
std::optional<Report> group_report(const LoadedHeap& heap, const ShortestPathTree& tree,
                                   const std::vector<NodeIndex>& instances, const PathOptions& opt, bool group) {
  std::map<uint64_t, uint32_t> keys;
  // Every element of an array is one key: the 1st and the 64th entry of a cache share a shape.
  std::vector<int8_t> is_array(heap.names.types().size() + 1, -1);
  auto array_type = [&](NodeIndex v) {
    const uint32_t t = heap.graph.type_id(v);
    if (t >= is_array.size()) return false;
    if (is_array[t] < 0) {
      const std::string_view name = heap.type_name(v);
      is_array[t] = !name.empty() && name.back() == ']';
    }
    return is_array[t] == 1;
  };
  const HopKeyFn hop_key = [&](NodeIndex node, NodeIndex parent) {
    const uint32_t slot = parent == kNoNode     ? 0xFFFFFFFEu
                          : array_type(parent) ? 0xFFFFFFFDu
                                               : heap.edge_slots.slot_of(heap.graph, parent, node);
    const uint64_t key = uint64_t{heap.graph.type_id(node)} << 32 | slot;
    return keys.try_emplace(key, static_cast<uint32_t>(keys.size())).first->second;
  };
  auto groups = group_by_folded_shape(heap.graph, tree, instances, hop_key);
  if (!groups) fail_on(heap.sel.file, groups.error());
  if (!group && groups->size() < 2) return std::nullopt;
  Table table("shapes", fmt::format("Objects of type '{}' in GC {} by retention path (repeated hops folded), "
                                    "largest first", opt.type, heap.sel.number()));
  table.add_column("shape", "#", ColumnKind::Count).add_column("count", "COUNT", ColumnKind::Count);
  table.add_column("bytes", "BYTES", ColumnKind::Bytes);
  table.add_column("min_hops", "MIN HOPS", ColumnKind::Count).add_column("max_hops", "MAX HOPS", ColumnKind::Count);
  table.add_column("nearest", "NEAREST", ColumnKind::Address).add_column("farthest", "FARTHEST", ColumnKind::Address);
  table.add_column("path", "PATH (of the farthest, folded)");
  const EdgeNamer namer = heap.edge_namer();
  uint64_t reachable = 0;
  for (const ShapeGroup& g : *groups) reachable += g.count;
  const size_t shown = std::min(groups->size(), opt.limit ? opt.limit : opt.all ? groups->size() : size_t{10});
  for (size_t i = 0; i < shown; ++i) {
    const ShapeGroup& g = (*groups)[i];
    // The farthest member's path shows how long the folded chain gets.
    const RetentionPath path = tree.path_to(g.farthest);
    const std::vector<HopField> fields = namer.name_path(path.nodes);
    const std::string chain = chain_text(heap, path, fields, fold_path(heap, path, fields, true));
    table.add_row({i + 1, g.count, g.bytes, g.min_hops, g.max_hops, heap.graph.address(g.example),
                   heap.graph.address(g.farthest), chain});
  }
  Report report;
  report.tables.push_back(std::move(table));
  if (shown < groups->size())
    report.notes.push_back(fmt::format("{} of {} shapes shown, largest first (--limit N or --all for more)", shown,
                                       groups->size()));
  report.notes.push_back(fmt::format("{} objects match '{}'; {} reachable from {}roots, in {} shapes; gcsnap path "
                                     "{} ADDRESS for one object, --no-group for the nearest instances",
                                     instances.size(), opt.type, reachable, opt.include_weak ? "" : "strong ",
                                     groups->size(), heap.sel.file));
  return report;
}

// Print FOUND, the paths to the nearest of INSTANCES objects of --type (REACHABLE of them
// reachable), and fail when none is reachable.
void report_type(const LoadedHeap& heap, const std::vector<FoundPath>& found, size_t instances, size_t reachable,
                 const PathOptions& opt) {
  Report report = make_report(heap, found, fmt::format("objects of type '{}'", opt.type), fold_hops(opt));
  report.notes.push_back(fmt::format("{} objects match '{}'; {} reachable from {}roots; {} shown, nearest first",
                                     instances, opt.type, reachable, opt.include_weak ? "" : "strong ",
                                     found.size()));
  print_report(report, opt.format);
  if (reachable == 0)
    throw CliError(fmt::format("{}: none of the {} objects matching '{}' is reachable from a {}root in GC {}",
                               heap.sel.file, instances, opt.type, opt.include_weak ? "" : "strong ",
                               heap.sel.number()), kExitProblems);
}

// The shortest-path tree over strong roots (the heap's: the index's, or computed once), or over
// every root with --include-weak (computed into COMPUTED).
const ShortestPathTree& path_tree(LoadedHeap& heap, const PathOptions& opt, std::optional<ShortestPathTree>& computed) {
  if (!opt.include_weak) return *value_or_fail(heap.find_path_tree(), heap.sel.file);
  computed = value_or_fail(ShortestPathTree::compute(heap.graph, RetentionOptions{true, 1}), heap.sel.file);
  return *computed;
}

void run_type(LoadedHeap& heap, const PathOptions& opt) {
  const std::vector<NodeIndex> instances = objects_of_type(
      heap.graph, heap.names, opt.type,
      fmt::format("{}: no object in GC {} has a type named or containing", heap.sel.file, heap.sel.number()));
  std::optional<ShortestPathTree> computed;
  const ShortestPathTree& tree = path_tree(heap, opt, computed);
  if (group_paths(opt)) {
    if (auto report = group_report(heap, tree, instances, opt, opt.group)) {
      print_report(*report, opt.format);
      if (report->tables.front().row_count() == 0)
        throw CliError(fmt::format("{}: none of the {} objects matching '{}' is reachable from a {}root in GC {}",
                                   heap.sel.file, instances.size(), opt.type, opt.include_weak ? "" : "strong ",
                                   heap.sel.number()), kExitProblems);
      return;
    }
  }
  // Rank the reachable instances by their hops (instance order among equals) and build only
  // the paths shown.
  std::vector<std::pair<size_t, NodeIndex>> ranked;
  for (NodeIndex v : instances)
    if (const size_t hops = tree.hops_to(v); hops != SIZE_MAX) ranked.emplace_back(hops, v);
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  const size_t reachable = ranked.size();
  if (max_paths(opt) != 0 && ranked.size() > max_paths(opt)) ranked.resize(max_paths(opt));
  std::vector<FoundPath> found;
  for (const auto& [hops, v] : ranked) found.push_back({tree.path_to(v), Reachability::Strong});
  report_type(heap, found, instances.size(), reachable, opt);
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

// The answer from a valid index read a piece at a time (format-spec.md §12.4 item 7), so that
// its cost follows the paths shown, not the heap. False when there is no valid index or its
// pieces cannot answer: the caller loads the whole heap (and builds the index), which answers
// everything else: --all, --limit, --group and --include-weak need every object's paths.
bool run_from_pieces(const PathOptions& opt) {
  if (!pieces_answer(opt)) return false;
  auto [heap, points] = open_indexed_points(opt.file, opt.gc);
  if (!points) return false;
  return opt.object.empty() ? type_from_pieces(*heap, *points, opt) : object_from_pieces(*heap, *points, opt);
}

void run_path(const PathOptions& opt) {
  if (opt.object.empty() == opt.type.empty())
    throw CliError("path: give either an OBJECT address or --type TYPE", kExitUsage);
  if (opt.all && opt.limit)
    throw CliError("path: --all and --limit cannot be used together", kExitUsage);
  if (run_from_pieces(opt)) return;
  // Reverse CSR either way: with it a single-path query searches backward from the target,
  // and the answer must not depend on whether an index was used (retention.hpp).
  // --type also maps the shortest-path tree: the paths to every instance, already searched.
  const HeapNeeds needs = kNeedGraph | kNeedPredecessors | kNeedFieldNames | (opt.type.empty() ? HeapNeeds{0} : HeapNeeds{kNeedPathTree});
  const auto heap = load_heap(opt.file, opt.gc, needs, IndexChoice{true, opt.no_cache});
  if (!opt.object.empty()) run_object(*heap, opt);
  else run_type(*heap, opt);
}

}  // namespace

void add_path_command(CLI::App& app) {
  auto opt = std::make_shared<PathOptions>();
  auto* cmd = app.add_subcommand("path", "Show why an object is alive: its shortest retention path from a root");
  cmd->add_option("file", opt->file, "recording, as FILE or FILE:GC (default GC: the last with a heap walk)")->required();
  cmd->add_option("object", opt->object, "object address (hex)");
  add_gc_option(*cmd, opt->gc);
  cmd->add_option("--type", opt->type,
                  "paths to objects of this type (full name, else name without namespace, else names containing it), "
                  "nearest first");
  cmd->add_flag("--all", opt->all, "every distinct path: one per direct retainer (--type: every instance)");
  cmd->add_option("--limit", opt->limit, "at most N distinct paths (--type: N instances)")->check(CLI::PositiveNumber);
  cmd->add_flag("--include-weak", opt->include_weak, "let weak roots (weak handles) retain objects");
  auto* group = cmd->add_flag("--group", opt->group,
                              "--type: group the instances by folded retention path, counts and bytes per path "
                              "(the default in the table when they are held in more than one way)");
  cmd->add_flag("--no-group", opt->no_group, "--type: list the nearest instances' paths, not groups")->excludes(group);
  cmd->add_flag("--no-fold", opt->no_fold,
                "list every hop (by default a chain of hops of the same type and field is one row with a count)");
  add_no_cache_option(*cmd, opt->no_cache);
  add_format_option(*cmd, opt->format);
  cmd->callback([opt] { run_path(*opt); });
}

}  // namespace gcsnap::cli
