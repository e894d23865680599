// gcsnap dominators: the objects (or types) that retain the most, from the dominator tree.
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli_error.hpp"
#include "commands.hpp"
#include "gcsnap/dominators.hpp"
#include "gcsnap/type_histogram.hpp"
#include "heap_load.hpp"
#include "output.hpp"

namespace gcsnap::cli {

namespace {

struct DominatorsOptions {
  std::string file;
  std::optional<uint64_t> gc;
  size_t top = 20;
  std::string by = "object";
  bool include_weak = false;
  Format format = Format::Table;
};

std::string percent(uint64_t part, uint64_t whole) {
  return whole == 0 ? "-" : fmt::format("{:.1f}%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

Table by_object(const LoadedHeap& heap, const DominatorTree& dom, size_t top) {
  Table table("dominators", fmt::format("Objects that retain the most in GC {}", heap.sel.number()));
  table.add_column("rank", "#", ColumnKind::Count).add_column("address", "OBJECT", ColumnKind::Address);
  table.add_column("type", "TYPE").add_column("size", "SIZE", ColumnKind::Bytes);
  table.add_column("retained_bytes", "RETAINED", ColumnKind::Bytes).add_column("retained_share", "SHARE");
  table.add_column("depth", "DEPTH", ColumnKind::Count).add_column("dominator", "DOMINATOR", ColumnKind::Address);
  table.add_column("dominator_type", "DOMINATOR TYPE");
  const auto nodes = dom.top_retainers(top);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeIndex v = nodes[i];
    const NodeIndex d = dom.immediate_dominator(v);
    const bool under_root = d == kVirtualRoot;
    table.add_row({i + 1, heap.graph.address(v), heap.type_name(v), heap.graph.object_size(v), dom.retained_size(v),
                   percent(dom.retained_size(v), dom.reachable_bytes()), dom.depth(v),
                   under_root ? Cell() : Cell(heap.graph.address(d)),
                   under_root ? Cell("(roots)") : Cell(heap.type_name(d))});
  }
  return table;
}

Table by_type(const LoadedHeap& heap, const DominatorTree& dom, size_t top) {
  auto hist = build_type_histogram(heap.graph, &dom, TypeHistogramOptions{TypeOrder::RetainedBytes, top});
  if (!hist) fail_on(heap.sel.file, hist.error());
  Table table("dominators", fmt::format("Types that retain the most in GC {}", heap.sel.number()));
  table.add_column("rank", "#", ColumnKind::Count).add_column("type", "TYPE");
  table.add_column("count", "COUNT", ColumnKind::Count).add_column("bytes", "BYTES", ColumnKind::Bytes);
  table.add_column("retained_bytes", "RETAINED", ColumnKind::Bytes).add_column("retained_share", "SHARE");
  for (size_t i = 0; i < hist->size(); ++i) {
    const TypeStats& t = (*hist)[i];
    table.add_row({i + 1, heap.names.type_name(t.type_id), t.count, t.shallow_bytes, t.retained_bytes,
                   percent(t.retained_bytes, dom.reachable_bytes())});
  }
  return table;
}

void run_dominators(const DominatorsOptions& opt) {
  if (opt.by != "object" && opt.by != "type")
    throw CliError(fmt::format("dominators: unknown --by '{}' (use object or type)", opt.by), kExitUsage);
  const auto heap = load_heap(opt.file, opt.gc, true);
  auto dom = DominatorTree::compute(heap->graph, DominatorOptions{opt.include_weak});
  if (!dom) fail_on(heap->sel.file, dom.error());
  Report report;
  report.tables.push_back(opt.by == "object" ? by_object(*heap, *dom, opt.top) : by_type(*heap, *dom, opt.top));
  report.notes.push_back(fmt::format("reachable from {}roots: {} objects, {}; not reachable: {} objects, {}",
                                     opt.include_weak ? "" : "strong ", dom->reachable_count(),
                                     format_bytes(dom->reachable_bytes()), dom->unreachable_count(),
                                     format_bytes(dom->unreachable_bytes())));
  if (opt.by == "object")
    report.notes.push_back("an object's retained size includes those it dominates, so nested entries overlap; "
                           "DEPTH counts the objects dominating it, DOMINATOR is the nearest one");
  for (auto& note : heap->notes()) report.notes.push_back(std::move(note));
  print_report(report, opt.format);
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
  add_format_option(*cmd, opt->format);
  cmd->callback([opt] { run_dominators(*opt); });
}

}  // namespace gcsnap::cli
