// gcsnap dominators: the objects (or types) that retain the most, from the dominator tree.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "commands/commands.hpp"
#include "gcsnap/dominators.hpp"
#include "gcsnap/retainer_chains.hpp"
#include "gcsnap/type_holder_cells.hpp"
#include "gcsnap/type_histogram.hpp"
#include "loading/gc_select.hpp"
#include "loading/heap_load.hpp"
#include "output/output.hpp"
#include "commands/type_filter.hpp"

namespace gcsnap::cli {

namespace {

struct DominatorsOptions {
  std::string file;
  std::optional<uint64_t> gc;
  size_t top = 20;
  std::string by = "object";
  bool include_weak = false;
  bool no_fold = false;
  std::string filter;
  bool no_cache = false;
  Format format = Format::Table;
};

Cell share(uint64_t part, uint64_t whole) {
  return whole == 0 ? Cell() : Cell::real(static_cast<double>(part) / static_cast<double>(whole));
}

// The types --filter keeps (sorted ids), or none when no filter is given.
std::vector<uint32_t> filtered_types(const LoadedHeap& heap, const std::string& filter) {
  if (filter.empty()) return {};
  return filter_type_ids(heap.names, type_ids_in(heap.graph), filter,
                         fmt::format("{}: no type in GC {} contains", heap.sel.file, heap.sel.number()));
}

// The table of `--by object` (its rows: object_row).
Table object_table(uint64_t gc_number) {
  Table table("dominators", fmt::format("Objects that retain the most in GC {}", gc_number));
  table.add_column("rank", "#", ColumnKind::Count).add_column("address", "OBJECT", ColumnKind::Address);
  table.add_column("type", "TYPE", ColumnKind::TypeName).add_column("chain", "CHAIN", ColumnKind::Count);
  // On a narrow terminal the depth, then the dominator's address, then the shallow size go
  // first: the type, what it retains and who holds it tell the culprit.
  table.add_column("size", "SIZE", ColumnKind::Bytes).drop_when_narrow(1);
  table.add_column("retained_bytes", "RETAINED", ColumnKind::Bytes).add_column("retained_share", "SHARE", ColumnKind::Share);
  table.add_column("depth", "DEPTH", ColumnKind::Count).drop_when_narrow(3);
  table.add_column("dominator", "DOMINATOR", ColumnKind::Address).drop_when_narrow(2);
  table.add_column("dominator_type", "DOMINATOR TYPE", ColumnKind::TypeName);
  return table;
}

// One object's row; DOMINATOR: its immediate dominator's address and type (none under the roots).
struct ObjectRow {
  uint64_t address = 0;
  std::string_view type;
  uint64_t chain = 1, size = 0, retained = 0;
  uint32_t depth = 0;
  std::optional<std::pair<uint64_t, std::string_view>> dominator;
};

std::vector<Cell> object_row(size_t rank, const ObjectRow& r, uint64_t reachable_bytes) {
  return {rank, r.address, r.type, r.chain, r.size, r.retained, share(r.retained, reachable_bytes), r.depth,
          r.dominator ? Cell(r.dominator->first) : Cell(), r.dominator ? Cell(r.dominator->second) : Cell("(roots)")};
}

const char* const kChainNote =
    "CHAIN: the objects a row stands for: it and the objects of its type it dominates through "
    "objects of that type (a linked list's nodes); --no-fold lists them one by one";

Table by_object(const LoadedHeap& heap, const DominatorTree& dom, const DominatorsOptions& opt,
                std::vector<std::string>& notes) {
  Table table = object_table(heap.sel.number());
  const std::vector<uint32_t> types = filtered_types(heap, opt.filter);
  std::vector<RetainerChain> rows;
  if (opt.no_fold) {
    // Every object its own row; a filter then looks past the first `top` of all objects.
    for (NodeIndex v : dom.top_retainers(types.empty() ? opt.top : 0)) {
      if (!types.empty() && !std::binary_search(types.begin(), types.end(), heap.graph.type_id(v))) continue;
      if (opt.top && rows.size() == opt.top) break;
      rows.push_back(RetainerChain{v, 1});
    }
  } else {
    rows = value_or_fail(top_retainer_chains(heap.graph, dom, opt.top, types), heap.sel.file);
  }
  if (std::any_of(rows.begin(), rows.end(), [](const RetainerChain& r) { return r.length > 1; }))
    notes.push_back(kChainNote);
  // Rows are made as they are printed: `--top 0` lists every object (millions), and a stored
  // row costs ~1 KB. HEAP and DOM outlive the printing (run_dominators).
  auto chains = std::make_shared<const std::vector<RetainerChain>>(std::move(rows));
  table.set_row_source(chains->size(), [&heap, &dom, chains](size_t i) -> std::vector<Cell> {
    const NodeIndex v = (*chains)[i].head;
    const NodeIndex d = dom.immediate_dominator(v);
    ObjectRow r{heap.graph.address(v), heap.type_name(v), (*chains)[i].length, heap.graph.object_size(v),
                dom.retained_size(v), dom.depth(v), std::nullopt};
    if (d != kVirtualRoot) r.dominator.emplace(heap.graph.address(d), heap.type_name(d));
    return object_row(i + 1, r, dom.reachable_bytes());
  });
  return table;
}

// The width of `dominators --by type`'s table on a pipe or file (as `leaks`' text): its two
// columns of full type names would make lines of some 200 columns.
constexpr size_t kPipeWidth = 120;

// The HELD BY cells of TYPES (describe_type_holders), computed from the loaded heap.
std::vector<std::pair<Cell, Cell>> type_holders(LoadedHeap& heap, const DominatorTree& dom,
                                                const std::vector<uint32_t>& types) {
  const EdgeNamer namer = heap.edge_namer();
  const TypeHolderInput input{heap.graph, dom, heap.names, heap.delegates, [&]() -> Result<HolderPathSources> {
                                auto tree = heap.find_path_tree();
                                if (!tree) return tree.error();
                                return HolderPathSources{*tree, &namer};
                              }};
  const auto holders = value_or_fail(describe_type_holders(input, types), heap.sel.file);
  std::vector<std::pair<Cell, Cell>> cells;
  for (const TypeHolderCell& h : holders)
    cells.emplace_back(h.text.empty() ? Cell() : Cell(h.text), h.has_address ? Cell(h.address) : Cell());
  return cells;
}

// The rows of `--by type`: HIST (sorted by retained bytes) without the types TYPES (sorted
// ids; empty: every type) leaves out, and only the first --top.
std::vector<TypeStats> shown_types(std::vector<TypeStats> hist, const std::vector<uint32_t>& types,
                                   const DominatorsOptions& opt) {
  std::erase_if(hist, [&](const TypeStats& t) {
    return !types.empty() && !std::binary_search(types.begin(), types.end(), t.type_id);
  });
  if (opt.top && hist.size() > opt.top) hist.resize(opt.top);
  return hist;
}

// The table of `--by type` over ROWS (shown_types); in the table format with HELD BY,
// the first kHeldByRows rows' cells.
Table types_table(uint64_t gc_number, const std::vector<TypeStats>& rows, const NameTable& names,
                  uint64_t reachable_bytes, const DominatorsOptions& opt, std::vector<std::pair<Cell, Cell>> held_by) {
  Table table("dominators", fmt::format("Types that retain the most in GC {}", gc_number));
  table.add_column("rank", "#", ColumnKind::Count).add_column("type", "TYPE", ColumnKind::TypeName);
  table.add_column("count", "COUNT", ColumnKind::Count).add_column("bytes", "BYTES", ColumnKind::Bytes);
  table.add_column("retained_bytes", "RETAINED", ColumnKind::Bytes).add_column("retained_share", "SHARE", ColumnKind::Share);
  const bool holders = opt.format == Format::Table;
  if (holders) {
    // Two name columns: on a narrow terminal (or a pipe, kPipeWidth) the holder's address
    // goes before names are cut below a readable width.
    table.add_column("holder", "HELD BY", ColumnKind::TypeName);
    table.add_column("holder_address", "HELD BY ADDRESS", ColumnKind::Address).drop_when_narrow(1);
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const TypeStats& t = rows[i];
    std::vector<Cell> row = {i + 1, names.type_name(t.type_id), t.count, t.shallow_bytes, t.retained_bytes,
                             share(t.retained_bytes, reachable_bytes)};
    if (holders) {
      auto [holder, address] = i < held_by.size() ? std::move(held_by[i]) : std::pair<Cell, Cell>{Cell(), Cell()};
      row.push_back(std::move(holder));
      row.push_back(std::move(address));
    }
    table.add_row(std::move(row));
  }
  return table;
}

// The ids of the first kHeldByRows of ROWS: the rows that get a HELD BY.
std::vector<uint32_t> held_by_types(const std::vector<TypeStats>& rows) {
  std::vector<uint32_t> first;
  for (size_t i = 0; i < rows.size() && i < kHeldByRows; ++i) first.push_back(rows[i].type_id);
  return first;
}

Table by_type(LoadedHeap& heap, const DominatorTree& dom, const DominatorsOptions& opt) {
  const std::vector<uint32_t> types = filtered_types(heap, opt.filter);
  const auto rows =
      shown_types(heap.type_histogram(opt.include_weak, TypeHistogramOptions{TypeOrder::RetainedBytes, 0}), types, opt);
  std::vector<std::pair<Cell, Cell>> held_by;
  if (opt.format == Format::Table) held_by = type_holders(heap, dom, held_by_types(rows));
  return types_table(heap.sel.number(), rows, heap.names, dom.reachable_bytes(), opt, std::move(held_by));
}

// The notes under the table: what is reachable, then OBJECT_NOTES, then the heap's.
void add_notes(Report& report, const DominatorsOptions& opt, uint64_t reachable, uint64_t reachable_bytes,
               uint64_t unreachable, uint64_t unreachable_bytes, std::vector<std::string> object_notes,
               std::vector<std::string> heap_notes) {
  report.notes.push_back(fmt::format("reachable from {}roots: {} objects, {}; not reachable: {} objects, {}",
                                     opt.include_weak ? "" : "strong ", reachable, format_bytes(reachable_bytes),
                                     unreachable, format_bytes(unreachable_bytes)));
  if (opt.by == "type" && opt.format == Format::Table)
    report.notes.push_back(fmt::format("HELD BY (first {} rows): the deepest object that dominates most of the type's "
                                       "objects, or (owner) when none does, the object with an edge into their "
                                       "structure that most of them reference back", kHeldByRows));
  if (opt.by == "object")
    report.notes.push_back("an object's retained size includes those it dominates, so nested entries overlap; "
                           "DEPTH counts the objects dominating it, DOMINATOR is the nearest one");
  for (auto& note : object_notes) report.notes.push_back(std::move(note));
  for (auto& note : heap_notes) report.notes.push_back(std::move(note));
}

// `--by object --top N` from a valid index (HeapPoints::top_retainers, format-spec.md §12.4
// item 7): the retained sizes a piece at a time, the type ids and dominators a piece at a time
// too (--no-fold) or decoded whole (folded: 8 B per object, as a chain's steps go anywhere),
// the rows' objects by point reads; the same rows as by_object over the index read whole.
// False when there is no valid index or a piece is damaged: the caller loads the heap (and
// rebuilds the index) as before.
// What strong roots reach, from POINTS' index, and HEAP given a graph of no objects with the
// index's build statistics, for the heap's notes; nullopt when a piece is damaged.
std::optional<ReachableCounts> take_index_notes(LoadedHeap& heap, HeapPoints& points) {
  auto empty = points.path_subgraph({});
  auto counts = points.reachable_counts();
  if (!empty || !counts) return std::nullopt;
  heap.graph = std::move(empty->graph);
  heap.has_dependent = value_or_fail(points.has_dependent_handles(), heap.sel.file);
  return counts;
}

bool run_objects_from_pieces(const DominatorsOptions& opt) {
  auto [heap, points] = open_indexed_points(opt.file, opt.gc);
  if (!points) return false;
  const SelectedGc& sel = heap->sel;
  std::vector<uint32_t> types;
  if (!opt.filter.empty()) {
    auto ids = points->type_ids();
    if (!ids) return false;
    types = filter_type_ids(heap->names, *ids, opt.filter,
                            fmt::format("{}: no type in GC {} contains", sel.file, sel.number()));
  }
  auto rows = points->top_retainers(opt.top, types, !opt.no_fold);
  if (!rows) return false;
  const auto counts = take_index_notes(*heap, *points);
  if (!counts) return false;
  Table table = object_table(sel.number());
  bool chained = false;
  for (size_t i = 0; i < rows->size(); ++i) {
    const IndexedRetainer& x = (*rows)[i];
    ObjectRow r{x.object.address, heap->names.type_name(x.object.type_id), x.chain, x.object.size, x.retained,
                x.depth, std::nullopt};
    if (x.dominator) r.dominator.emplace(x.dominator->address, heap->names.type_name(x.dominator->type_id));
    table.add_row(object_row(i + 1, r, counts->bytes));
    chained = chained || x.chain > 1;
  }
  Report report;
  report.tables.push_back(std::move(table));
  std::vector<std::string> object_notes;
  if (chained) object_notes.push_back(kChainNote);
  add_notes(report, opt, counts->objects, counts->bytes, counts->unreachable_objects, counts->unreachable_bytes,
            std::move(object_notes), heap->notes());
  print_report(report, opt.format);
  return true;
}

// `--by type` over strong roots from a valid index's header, histogram and holder table
// (format-spec.md §12.3 array 18): no array as long as the heap is decoded. False when there
// is no valid index, it has no holder table (minor 0) or not every row's holder, or a piece is
// damaged: the caller loads the heap (and rebuilds the index) as before.
bool run_types_from_index(const DominatorsOptions& opt) {
  auto [heap, points] = open_indexed_points(opt.file, opt.gc);
  if (!points) return false;
  const SelectedGc& sel = heap->sel;
  auto stats = points->type_stats();
  if (!stats) return false;
  std::vector<uint32_t> types;
  if (!opt.filter.empty()) {
    std::vector<uint32_t> ids;
    for (const TypeStats& t : *stats) ids.push_back(t.type_id);
    types = filter_type_ids(heap->names, ids, opt.filter,
                            fmt::format("{}: no type in GC {} contains", sel.file, sel.number()));
  }
  std::vector<TypeStats> hist = *stats;
  sort_type_stats(hist, TypeHistogramOptions{TypeOrder::RetainedBytes, 0});
  const auto rows = shown_types(std::move(hist), types, opt);
  std::vector<std::pair<Cell, Cell>> held_by;
  if (opt.format == Format::Table) {
    auto stored = points->type_holders(*stats);
    if (!stored) return false;
    for (const uint32_t type : held_by_types(rows)) {
      const auto row = std::find_if(stored->begin(), stored->end(),
                                    [&](const IndexedTypeHolder& h) { return h.type_id == type; });
      if (row == stored->end()) return false;  // a row the table does not keep (--filter)
      const TypeHolderCell& h = row->cell;
      held_by.emplace_back(h.text.empty() ? Cell() : Cell(h.text), h.has_address ? Cell(h.address) : Cell());
    }
  }
  const auto counts = take_index_notes(*heap, *points);
  if (!counts) return false;
  Report report;
  report.tables.push_back(types_table(sel.number(), rows, heap->names, counts->bytes, opt, std::move(held_by)));
  add_notes(report, opt, counts->objects, counts->bytes, counts->unreachable_objects, counts->unreachable_bytes, {},
            heap->notes());
  print_report(report, opt.format, stdout, kPipeWidth);
  return true;
}

void run_dominators(const DominatorsOptions& opt) {
  if (opt.by != "object" && opt.by != "type")
    throw CliError(fmt::format("dominators: unknown --by '{}' (use object or type)", opt.by), kExitUsage);
  if (opt.by == "object" && opt.top != 0 && !opt.include_weak && !opt.no_cache && run_objects_from_pieces(opt))
    return;
  if (opt.by == "type" && !opt.include_weak && !opt.no_cache && run_types_from_index(opt)) return;
  // Over strong roots: the node columns, the tree and the histogram; no edges are read.
  // --by type in the table also names each type's holder, which may need the forward edges,
  // the shortest-path tree and field names (the holder patterns of HELD BY); the holder table
  // is checked too, so that a damaged one (which run_types_from_index could not use) is rebuilt.
  const HeapNeeds holder_needs = opt.by == "type" && opt.format == Format::Table
                                     ? HeapNeeds{kNeedSuccessors | kNeedFieldNames | kNeedPathTree | kNeedTypeHolders}
                                     : 0;
  const auto heap = load_heap(opt.file, opt.gc,
                              kNeedObjects | kNeedDominators | kNeedHistogram | holder_needs |
                                  (opt.include_weak ? HeapNeeds{kNeedWeakRoots} : HeapNeeds{0}),
                              IndexChoice{true, opt.no_cache});
  const DominatorTree* dom = &heap->dominators(opt.include_weak);
  Report report;
  std::vector<std::string> chain_note;
  report.tables.push_back(opt.by == "object" ? by_object(*heap, *dom, opt, chain_note) : by_type(*heap, *dom, opt));
  add_notes(report, opt, dom->reachable_count(), dom->reachable_bytes(), dom->unreachable_count(),
            dom->unreachable_bytes(), std::move(chain_note), heap->notes());
  print_report(report, opt.format, stdout, opt.by == "type" ? kPipeWidth : 0);
}

}  // namespace

void add_dominators_command(CLI::App& app) {
  auto opt = std::make_shared<DominatorsOptions>();
  auto* cmd = app.add_subcommand("dominators", "Show the objects or types that retain the most memory");
  cmd->add_option("file", opt->file, "recording, as FILE or FILE:GC (default GC: the last with a heap walk)")->required();
  add_gc_option(*cmd, opt->gc);
  cmd->add_option("--top", opt->top, "show the first N (default 20; 0 = all)");
  cmd->add_option("--by", opt->by, "object (default) or type");
  cmd->add_flag("--include-weak", opt->include_weak, "let weak roots retain objects");
  cmd->add_option("--filter", opt->filter, "only objects (types) whose type name contains this text (any case)");
  cmd->add_flag("--no-fold", opt->no_fold,
                "--by object: one row per object, not one per chain of objects of one type");
  add_no_cache_option(*cmd, opt->no_cache);
  add_format_option(*cmd, opt->format);
  cmd->callback([opt] { run_dominators(*opt); });
}

}  // namespace gcsnap::cli
