// gcsnap path: why is this object alive? The shortest chain of references from a root (or
// one per distinct direct retainer with --all/--limit), for one object or for instances of a type.
#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "commands/commands.hpp"
#include "commands/path_command.hpp"
#include "commands/path_text.hpp"
#include "commands/type_filter.hpp"
#include "gcsnap/edge_names.hpp"
#include "gcsnap/group_paths.hpp"
#include "gcsnap/retention.hpp"
#include "loading/gc_select.hpp"
#include "loading/heap_load.hpp"
#include "output/output.hpp"

namespace gcsnap::cli {

namespace {

void run_object(const LoadedHeap& heap, const PathOptions& opt) {
  const NodeIndex target = find_object_or_fail(heap, parse_address(opt.object));
  auto result = find_retention_paths(heap.graph, target, RetentionOptions{opt.include_weak, max_paths(opt)});
  if (!result) fail_on(heap.sel.file, result.error());
  const std::string what = fmt::format("{} ({})", format_address(heap.graph.address(target)), heap.type_name(target));
  report_object(heap, *result, heap.graph.address(target), what, opt);
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
