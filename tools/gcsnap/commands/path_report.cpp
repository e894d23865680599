// gcsnap path: the paths it found as tables (paths, hops) and notes, for one object or for
// the instances of a type.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "commands/alloc_join_out.hpp"
#include "commands/path_command.hpp"
#include "commands/path_text.hpp"
#include "gcsnap/edge_names.hpp"
#include "gcsnap/enum_names.hpp"
#include "gcsnap/path_fold.hpp"
#include "gcsnap/retention.hpp"
#include "gcsnap/root_summary.hpp"
#include "loading/heap_load.hpp"
#include "output/output.hpp"

namespace gcsnap::cli {

namespace {

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

}  // namespace

bool fold_hops(const PathOptions& opt) { return opt.format == Format::Table && !opt.no_fold; }

bool group_paths(const PathOptions& opt) {
  return opt.group || (opt.format == Format::Table && !opt.all && !opt.limit && !opt.no_group);
}

size_t max_paths(const PathOptions& opt) {
  if (opt.all) return 0;
  return opt.limit ? opt.limit : 1;
}

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

}  // namespace gcsnap::cli
