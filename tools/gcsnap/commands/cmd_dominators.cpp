// gcsnap dominators: the objects (or types) that retain the most, from the dominator tree.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "commands/commands.hpp"
#include "commands/leaks_holders.hpp"
#include "gcsnap/dominators.hpp"
#include "gcsnap/group_holder.hpp"
#include "gcsnap/retainer_chains.hpp"
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

// Rows of `dominators --by type` that get a HELD BY: the default --top's, so that every row
// shown by default has one.
constexpr size_t kHolderRows = 50;
// The width of `dominators --by type`'s table on a pipe or file (as `leaks`' text): its two
// columns of full type names would make lines of some 200 columns.
constexpr size_t kPipeWidth = 120;

// Type id -> 1 + its first position in TYPES among those WANTED(position) accepts; 0: none.
template <typename Wanted>
std::vector<uint32_t> rows_by_type(const std::vector<uint32_t>& types, Wanted wanted) {
  std::vector<uint32_t> position;
  for (size_t i = 0; i < types.size(); ++i) {
    if (!wanted(i)) continue;
    if (types[i] >= position.size()) position.resize(size_t{types[i]} + 1, 0);
    if (position[types[i]] == 0) position[types[i]] = static_cast<uint32_t>(i + 1);
  }
  return position;
}

// Per position in TYPES whose holder is an owner: how many of the type's objects reference
// that owner back (one pass over the nodes and their edges for all of them).
std::vector<std::pair<uint64_t, uint64_t>> owner_back_refs(const HeapGraph& graph, const std::vector<uint32_t>& types,
                                                           const std::vector<GroupHolder>& holders) {
  const auto position = rows_by_type(types, [&](size_t i) { return holders[i].found && holders[i].is_owner; });
  std::vector<std::pair<uint64_t, uint64_t>> counts(types.size());  // members, back references
  if (position.empty()) return counts;
  for (NodeIndex v = 0; v < graph.node_count(); ++v) {
    const uint32_t t = graph.type_id(v);
    if (t >= position.size() || position[t] == 0) continue;
    auto& [members, back] = counts[position[t] - 1];
    ++members;
    const NodeIndex owner = holders[position[t] - 1].node;
    for (const NodeIndex w : graph.successors(v))
      if (w == owner) {
        ++back;
        break;
      }
  }
  return counts;
}

// Rows of widest_referrers below this many objects are "small": only they may be held by an
// object of fewer than kSmallRow / 2 references, whose edges are then looked up in a bitset.
constexpr uint64_t kSmallRow = 256;

// A bit per node of GRAPH: set when its type's row (POSITION, as rows_by_type's) is marked in ROWS.
std::vector<uint64_t> objects_bitset(const HeapGraph& graph, const std::vector<uint32_t>& position,
                                     const std::vector<uint8_t>& rows) {
  std::vector<uint64_t> bits((graph.node_count() + 63) / 64, 0);
  for (NodeIndex v = 0; v < graph.node_count(); ++v) {
    const uint32_t t = graph.type_id(v);
    if (t < position.size() && position[t] != 0 && rows[position[t] - 1]) bits[v / 64] |= uint64_t{1} << (v % 64);
  }
  return bits;
}

// For each position of TYPES that WANTED marks: the object of another type with edges to more
// than half of the type's objects (BACK_REFS' member counts; the static array of the timer
// queues), or kNoNode. One pass over the nodes for all of them; an object with too few
// references to hold half of any wanted row is skipped, and one that can hold half of a small
// row only has its edges tested against a bitset of those rows' objects: reading every edge's
// type id, a cache miss each, was most of the time at 10 M objects.
std::vector<NodeIndex> widest_referrers(const HeapGraph& graph, const std::vector<uint32_t>& types,
                                        const std::vector<uint8_t>& wanted,
                                        const std::vector<std::pair<uint64_t, uint64_t>>& back_refs) {
  std::vector<NodeIndex> widest(types.size(), kNoNode);
  const auto position = rows_by_type(types, [&](size_t i) { return wanted[i] != 0; });
  if (position.empty()) return widest;
  // An object of D references makes at most D edges into a row: it can hold a row of N
  // objects only when 2 D > N. The rows' smallest N bounds which objects count at all.
  uint64_t fewest = UINT64_MAX;
  std::vector<uint8_t> small(types.size(), 0);
  for (size_t i = 0; i < types.size(); ++i) {
    if (!wanted[i] || position[types[i]] != i + 1) continue;
    fewest = std::min(fewest, back_refs[i].first);
    small[i] = back_refs[i].first < kSmallRow;
  }
  const auto small_objects = fewest < kSmallRow ? objects_bitset(graph, position, small) : std::vector<uint64_t>{};
  std::vector<uint64_t> most(types.size(), 0), into(types.size(), 0);
  std::vector<uint32_t> touched;  // the rows V has edges into
  for (NodeIndex v = 0; v < graph.node_count(); ++v) {
    const auto out = graph.successors(v);
    if (2 * uint64_t{out.size()} <= fewest) continue;
    const bool any_row = 2 * uint64_t{out.size()} > kSmallRow;  // else only small rows
    const uint32_t own = graph.type_id(v);
    for (const NodeIndex w : out) {
      if (!any_row && (small_objects[w / 64] >> (w % 64) & 1) == 0) continue;
      const uint32_t t = graph.type_id(w);
      if (t == own || t >= position.size() || position[t] == 0) continue;
      if (into[position[t] - 1]++ == 0) touched.push_back(position[t] - 1);
    }
    for (const uint32_t row : touched) {
      if (into[row] > most[row]) most[row] = into[row], widest[row] = v;
      into[row] = 0;
    }
    touched.clear();
  }
  for (size_t i = 0; i < types.size(); ++i)
    if (2 * most[i] <= back_refs[i].first) widest[i] = kNoNode;
  return widest;
}

// When a type's holder is part of a structure where services leak (an event's invocation
// list, a timer queue, a dictionary's tables: on an instance's path at or after a holder
// pattern's structure, holder_patterns.hpp), the pattern's holder names the field to change
// instead: "Ns.Watcher.Changed (static event)". Up to kPatternTries of each type's newest
// instances are tried; "" where no pattern holds. The shortest-path tree (the index's, or
// computed) is asked for at the first try.
constexpr size_t kPatternTries = 8;
std::vector<std::string> pattern_holders(LoadedHeap& heap, const std::vector<uint32_t>& types,
                                         const std::vector<GroupHolder>& holders) {
  std::vector<std::string> named(types.size());
  std::vector<std::vector<NodeIndex>> newest(types.size());  // up to kPatternTries, newest first
  const auto position = rows_by_type(types, [&](size_t i) { return holders[i].found; });
  const auto newer = [&](NodeIndex x, NodeIndex y) { return heap.graph.address(x) > heap.graph.address(y); };
  for (NodeIndex v = 0; v < heap.graph.node_count(); ++v) {
    const uint32_t t = heap.graph.type_id(v);
    if (t >= position.size() || position[t] == 0) continue;
    auto& kept = newest[position[t] - 1];  // a min-heap of the newest by address
    if (kept.size() < kPatternTries) {
      kept.push_back(v);
      std::push_heap(kept.begin(), kept.end(), newer);
    } else if (newer(v, kept.front())) {
      std::pop_heap(kept.begin(), kept.end(), newer);
      kept.back() = v;
      std::push_heap(kept.begin(), kept.end(), newer);
    }
  }
  const ShortestPathTree* paths = nullptr;
  for (size_t i = 0; i < types.size(); ++i) {
    auto& kept = newest[i];
    std::sort(kept.begin(), kept.end(), newer);
    for (const NodeIndex v : kept) {
      if (!paths) paths = value_or_fail(heap.find_path_tree(), heap.sel.file);
      const SuspectPath path = describe_suspect_path(heap, *paths, v, true);
      if (path.match.pattern == HolderPattern::None) continue;
      const auto from = path.nodes.begin() + static_cast<std::ptrdiff_t>(path.match.structure_hop);
      if (std::find(from, path.nodes.end(), holders[i].node) != path.nodes.end()) {
        named[i] = pattern_holder_text(path);
        break;
      }
    }
  }
  return named;
}

// What holds the instances of each of TYPES (find_type_holders: the deepest object dominating
// most of them, or the owner of the structure they form): "List<T> (via T[])",
// "Registrations (owner)", and the holder's address. An owner that most of them do not
// reference back is one member's child (a TimerQueue's first TimerQueueTimer references its
// queue): the object with edges to most of them (the static array of the queues) holds them
// instead, or none is named. The check is made here, not in find_type_holders, so that the
// leaks' holders keep their rule.
std::vector<std::pair<Cell, Cell>> type_holders(LoadedHeap& heap, const DominatorTree& dom,
                                                const std::vector<uint32_t>& types) {
  const auto holders =
      value_or_fail(find_type_holders(heap.graph, dom, types, array_type_flags(heap.graph, heap.names)), heap.sel.file);
  const auto named = pattern_holders(heap, types, holders);
  const auto back_refs = owner_back_refs(heap.graph, types, holders);
  std::vector<uint8_t> unowned(holders.size(), 0);  // owners most of the objects do not reference back
  for (size_t i = 0; i < holders.size(); ++i)
    unowned[i] =
        holders[i].found && named[i].empty() && holders[i].is_owner && 2 * back_refs[i].second <= back_refs[i].first;
  const auto widest = widest_referrers(heap.graph, types, unowned, back_refs);
  std::vector<std::pair<Cell, Cell>> cells;
  for (size_t i = 0; i < holders.size(); ++i) {
    const GroupHolder& holder = holders[i];
    if (!holder.found) {
      cells.emplace_back(Cell(), Cell());
      continue;
    }
    if (!named[i].empty()) {
      cells.emplace_back(Cell(named[i]), Cell());
      continue;
    }
    if (unowned[i]) {
      if (widest[i] == kNoNode) cells.emplace_back(Cell(), Cell());
      else cells.emplace_back(Cell(std::string(heap.type_name(widest[i]))), Cell(heap.graph.address(widest[i])));
      continue;
    }
    std::string text(heap.type_name(holder.node));
    if (holder.is_owner) text += " (owner)";
    else if (holder.via_array != kNoNode) text += fmt::format(" (via {})", heap.type_name(holder.via_array));
    cells.emplace_back(Cell(text), Cell(heap.graph.address(holder.node)));
  }
  return cells;
}

Table by_type(LoadedHeap& heap, const DominatorTree& dom, const DominatorsOptions& opt) {
  const std::vector<uint32_t> types = filtered_types(heap, opt.filter);
  auto hist = heap.type_histogram(opt.include_weak, TypeHistogramOptions{TypeOrder::RetainedBytes, 0});
  Table table("dominators", fmt::format("Types that retain the most in GC {}", heap.sel.number()));
  table.add_column("rank", "#", ColumnKind::Count).add_column("type", "TYPE", ColumnKind::TypeName);
  table.add_column("count", "COUNT", ColumnKind::Count).add_column("bytes", "BYTES", ColumnKind::Bytes);
  table.add_column("retained_bytes", "RETAINED", ColumnKind::Bytes).add_column("retained_share", "SHARE", ColumnKind::Share);
  std::erase_if(hist, [&](const TypeStats& t) {
    return !types.empty() && !std::binary_search(types.begin(), types.end(), t.type_id);
  });
  if (opt.top && hist.size() > opt.top) hist.resize(opt.top);
  const bool holders = opt.format == Format::Table;
  std::vector<std::pair<Cell, Cell>> held_by;
  if (holders) {
    // Two name columns: on a narrow terminal (or a pipe, kPipeWidth) the holder's address
    // goes before names are cut below a readable width.
    table.add_column("holder", "HELD BY", ColumnKind::TypeName);
    table.add_column("holder_address", "HELD BY ADDRESS", ColumnKind::Address).drop_when_narrow(1);
    std::vector<uint32_t> first;
    for (size_t i = 0; i < hist.size() && i < kHolderRows; ++i) first.push_back(hist[i].type_id);
    held_by = type_holders(heap, dom, first);
  }
  for (size_t i = 0; i < hist.size(); ++i) {
    const TypeStats& t = hist[i];
    std::vector<Cell> row = {i + 1, heap.names.type_name(t.type_id), t.count, t.shallow_bytes, t.retained_bytes,
                             share(t.retained_bytes, dom.reachable_bytes())};
    if (holders) {
      auto [holder, address] = i < held_by.size() ? std::move(held_by[i]) : std::pair<Cell, Cell>{Cell(), Cell()};
      row.push_back(std::move(holder));
      row.push_back(std::move(address));
    }
    table.add_row(std::move(row));
  }
  return table;
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
                                       "structure that most of them reference back", kHolderRows));
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
  // A graph of no objects with the index's build statistics, for the heap's notes.
  auto empty = points->path_subgraph({});
  const auto counts = points->reachable_counts();
  if (!empty || !counts) return false;
  heap->graph = std::move(empty->graph);
  heap->has_dependent = value_or_fail(points->has_dependent_handles(), sel.file);
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

void run_dominators(const DominatorsOptions& opt) {
  if (opt.by != "object" && opt.by != "type")
    throw CliError(fmt::format("dominators: unknown --by '{}' (use object or type)", opt.by), kExitUsage);
  if (opt.by == "object" && opt.top != 0 && !opt.include_weak && !opt.no_cache && run_objects_from_pieces(opt))
    return;
  // Over strong roots: the node columns, the tree and the histogram; no edges are read.
  // --by type in the table also names each type's holder, which may need the forward edges,
  // the shortest-path tree and field names (the holder patterns of HELD BY).
  const HeapNeeds holder_needs =
      opt.by == "type" && opt.format == Format::Table ? HeapNeeds{kNeedSuccessors | kNeedFieldNames | kNeedPathTree} : 0;
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
