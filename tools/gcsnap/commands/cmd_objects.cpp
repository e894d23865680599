// gcsnap objects FILE --type T: the instances of a type in one heap walk, with their size,
// generation, retained size and age in GCs (what `dumpheap -type` is to SOS).
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "commands/commands.hpp"
#include "gcsnap/dominators.hpp"
#include "gcsnap/enum_names.hpp"
#include "gcsnap/object_age.hpp"
#include "loading/heap_load.hpp"
#include "commands/alloc_join_out.hpp"
#include "output/output.hpp"
#include "commands/type_filter.hpp"

namespace gcsnap::cli {

namespace {

struct ObjectsOptions {
  std::string file;
  std::optional<uint64_t> gc;
  std::string type;
  size_t top = 50;
  std::string sort = "retained";
  bool no_retained = false;
  bool no_age = false;
  bool include_weak = false;
  Format format = Format::Table;
};

struct Row {
  NodeIndex node;
  uint64_t retained = 0;
  ObjectAge age;
};

void sort_rows(std::vector<Row>& rows, const LoadedHeap& heap, const std::string& by) {
  auto key = [&](const Row& r) -> uint64_t {
    if (by == "size") return heap.graph.object_size(r.node);
    if (by == "age") return r.age.gcs;
    if (by == "retained") return r.retained;
    return 0;  // address: node order is address order
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    const uint64_t ka = key(a), kb = key(b);
    return ka != kb ? ka > kb : a.node < b.node;
  });
}

// A --sort that names no order, or one whose figures --no-retained or --no-age skip: exit 2.
void check_sort(const ObjectsOptions& opt) {
  if (opt.sort != "retained" && opt.sort != "size" && opt.sort != "age" && opt.sort != "address")
    throw CliError(fmt::format("objects: unknown --sort '{}' (use retained, size, age or address)", opt.sort), kExitUsage);
  if (opt.sort == "retained" && opt.no_retained)
    throw CliError("objects: --sort retained needs the retained sizes (drop --no-retained, or --sort size)", kExitUsage);
  if (opt.sort == "age" && opt.no_age) throw CliError("objects: --sort age needs the ages (drop --no-age)", kExitUsage);
}

// The age of each of NODES, followed back through the GCs before HEAP's.
std::vector<ObjectAge> trace_ages(const LoadedHeap& heap, const std::vector<NodeIndex>& nodes) {
  std::vector<uint64_t> addresses;
  std::vector<Generation> generations;
  for (NodeIndex v : nodes) {
    addresses.push_back(heap.graph.address(v));
    generations.push_back(heap.objects.generations[v]);
  }
  return value_or_fail(trace_object_ages(*heap.sel.recording, heap.sel.index, addresses, generations), heap.sel.file);
}

void run_objects(const ObjectsOptions& opt) {
  check_sort(opt);
  const auto heap = load_heap(opt.file, opt.gc, kNeedGraph | (opt.no_retained ? HeapNeeds{0} : HeapNeeds{kNeedPredecessors}));
  const std::vector<NodeIndex> nodes = objects_of_type(
      heap->graph, heap->names, opt.type,
      fmt::format("{}: no object in GC {} has a type named or containing", heap->sel.file, heap->sel.number()));
  std::optional<DominatorTree> dom;
  if (!opt.no_retained) dom = value_or_fail(DominatorTree::compute(heap->graph, DominatorOptions{opt.include_weak}), heap->sel.file);
  std::vector<ObjectAge> ages;
  if (!opt.no_age) ages = trace_ages(*heap, nodes);
  std::vector<Row> rows;
  uint64_t bytes = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    rows.push_back(Row{nodes[i], dom ? dom->retained_size(nodes[i]) : 0, ages.empty() ? ObjectAge{} : ages[i]});
    bytes += heap->graph.object_size(nodes[i]);
  }
  sort_rows(rows, *heap, opt.sort);
  const size_t total = rows.size();
  if (opt.top && rows.size() > opt.top) rows.resize(opt.top);

  Table table("objects", fmt::format("Objects of type '{}' in GC {} ({} objects, {})", opt.type, heap->sel.number(),
                                     total, format_bytes(bytes)));
  table.add_column("address", "OBJECT", ColumnKind::Address).add_column("type", "TYPE", ColumnKind::TypeName);
  table.add_column("size", "SIZE", ColumnKind::Bytes).add_column("generation", "GEN");
  table.add_column("retained_bytes", "RETAINED", ColumnKind::Bytes);
  table.add_column("reachable", "", ColumnKind::Boolean, Shown::MachineOnly);
  // "≥12" for people; the count and whether it is a lower bound for scripts.
  table.add_column("age", "AGE (GCs)", ColumnKind::Count, Shown::TableOnly);
  table.add_column("age_gcs", "", ColumnKind::Count, Shown::MachineOnly);
  table.add_column("age_at_least", "", ColumnKind::Boolean, Shown::MachineOnly);
  // Only a recording with allocation samples gets the columns (and pays for following them).
  const auto allocs = load_alloc_join(heap->sel.file, *heap->sel.recording, heap->sel.index);
  if (allocs) add_allocated_at_columns(table);
  // Rows are made as they are printed (a common type has millions of instances); HEAP, DOM
  // and ROWS outlive the printing below.
  // A file of one GC (a `gcsnap snapshot`) has nothing before it: "≥0" would say nothing.
  const bool one_walk = heap->sel.recording->gcs().size() == 1;
  const auto age_cell = [one_walk](const ObjectAge& age) {
    if (age.at_least && age.gcs == 0) return Cell(one_walk ? "unknown (one walk)" : "unknown");
    return age.at_least ? Cell(fmt::format("\u2265{}", age.gcs)) : Cell(age.gcs);
  };
  table.set_row_source(rows.size(), [&heap, &dom, &rows, &opt, &age_cell, &allocs](size_t i) -> std::vector<Cell> {
    const Row& r = rows[i];
    const bool reachable = dom && dom->is_reachable(r.node);
    Cell age_text = opt.no_age ? Cell() : age_cell(r.age);
    std::vector<Cell> row = {heap->graph.address(r.node), heap->type_name(r.node), heap->graph.object_size(r.node),
                             generation_name(heap->objects.generations[r.node]), dom ? Cell(r.retained) : Cell(),
                             dom ? Cell::boolean(reachable) : Cell(), age_text, opt.no_age ? Cell() : Cell(r.age.gcs),
                             opt.no_age ? Cell() : Cell::boolean(r.age.at_least)};
    if (allocs)
      for (Cell& c : allocated_at_cells(*allocs, heap->graph.address(r.node))) row.push_back(std::move(c));
    return row;
  });
  Report report;
  report.tables.push_back(std::move(table));
  if (opt.top && total > opt.top)
    report.notes.push_back(fmt::format("{} of {} objects shown (--top; sorted by {})", opt.top, total, opt.sort));
  if (!opt.no_age && one_walk)
    report.notes.push_back("AGE unknown: the file holds one GC, and ages follow objects back through the GCs before "
                           "it; 'gcsnap record --pid PID --every 30s' records those");
  else if (!opt.no_age)
    report.notes.push_back("AGE: earlier GCs the object lived through, followed back through the recorded ranges "
                           "(0: allocated since the GC before); \u2265 when the recording (or its ranges) starts "
                           "before the object's allocation could be seen; unknown when no GC before it is recorded");
  if (dom && std::any_of(rows.begin(), rows.end(), [&](const Row& r) { return !dom->is_reachable(r.node); }))
    report.notes.push_back(fmt::format("RETAINED 0 B: not reachable from {}roots (garbage at this GC)",
                                       opt.include_weak ? "" : "strong "));
  for (auto& note : heap->notes()) report.notes.push_back(std::move(note));
  print_report(report, opt.format);
}

}  // namespace

void add_objects_command(CLI::App& app) {
  auto opt = std::make_shared<ObjectsOptions>();
  auto* cmd = app.add_subcommand("objects", "List the objects of a type: address, size, generation, retained size, age");
  cmd->add_option("file", opt->file, "recording, as FILE or FILE:GC (default GC: the last with a heap walk)")->required();
  add_gc_option(*cmd, opt->gc);
  cmd->add_option("--type", opt->type,
                  "the type: full name, else name without namespace, else names containing it (as path --type)")
      ->required();
  cmd->add_option("--top", opt->top, "show the first N after sorting (default 50; 0 = all)");
  cmd->add_option("--sort", opt->sort, "order: retained (default), size, age or address");
  cmd->add_flag("--no-retained", opt->no_retained, "skip the dominator tree (faster; no retained sizes)");
  cmd->add_flag("--no-age", opt->no_age, "skip following the objects back through earlier GCs");
  cmd->add_flag("--include-weak", opt->include_weak, "let weak roots retain objects");
  add_format_option(*cmd, opt->format);
  cmd->callback([opt] { run_objects(*opt); });
}

}  // namespace gcsnap::cli
