// gcsnap types: count, shallow bytes and retained bytes per type for one GC's heap walk.
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

struct TypesOptions {
  std::string file;
  std::optional<uint64_t> gc;
  size_t top = 0;
  std::string filter;
  std::string sort = "bytes";
  bool no_retained = false;
  bool include_weak = false;
  Format format = Format::Table;
};

TypeOrder parse_order(const std::string& name, bool no_retained) {
  if (name == "bytes") return TypeOrder::ShallowBytes;
  if (name == "count") return TypeOrder::Count;
  if (name == "retained") {
    if (no_retained) throw CliError("types: --sort retained needs the retained sizes (drop --no-retained)", kExitUsage);
    return TypeOrder::RetainedBytes;
  }
  throw CliError(fmt::format("types: unknown sort key '{}' (use bytes, count, retained)", name), kExitUsage);
}

void run_types(const TypesOptions& opt) {
  const TypeOrder order = parse_order(opt.sort, opt.no_retained);
  const auto heap = load_heap(opt.file, opt.gc, !opt.no_retained);
  std::optional<DominatorTree> dom;
  if (!opt.no_retained) {
    auto computed = DominatorTree::compute(heap->graph, DominatorOptions{opt.include_weak});
    if (!computed) fail_on(heap->sel.file, computed.error());
    dom = std::move(computed).value();
  }
  auto hist = build_type_histogram(heap->graph, dom ? &*dom : nullptr, TypeHistogramOptions{order, 0});
  if (!hist) fail_on(heap->sel.file, hist.error());

  uint64_t objects = 0, bytes = 0;
  for (const TypeStats& t : *hist) {
    objects += t.count;
    bytes += t.shallow_bytes;
  }
  Table table("types", fmt::format("Types in GC {} ({} objects, {} in {} types)", heap->sel.number(), objects,
                                   format_bytes(bytes), hist->size()));
  table.add_column("type", "TYPE").add_column("count", "COUNT", ColumnKind::Count);
  table.add_column("bytes", "BYTES", ColumnKind::Bytes).add_column("retained_bytes", "RETAINED", ColumnKind::Bytes);
  table.add_column("unreachable", "UNREACHABLE", ColumnKind::Count);
  size_t matched = 0;
  for (const TypeStats& t : *hist) {
    const std::string_view name = heap->names.type_name(t.type_id);
    if (!opt.filter.empty() && name.find(opt.filter) == std::string_view::npos) continue;
    if (++matched > opt.top && opt.top != 0) continue;
    table.add_row({name, t.count, t.shallow_bytes, dom ? Cell(t.retained_bytes) : Cell(),
                   dom ? Cell(t.unreachable_count) : Cell()});
  }
  Report report;
  report.tables.push_back(std::move(table));
  if (opt.top != 0 && matched > opt.top)
    report.notes.push_back(fmt::format("{} of {} types shown (--top {})", opt.top, matched, opt.top));
  if (dom)
    report.notes.push_back(fmt::format(
        "retained = bytes freed if all objects of the type went away (sum of the retained sizes of those not dominated "
        "by another object of the same type); {} objects ({}) are not reachable from {}roots",
        dom->unreachable_count(), format_bytes(dom->unreachable_bytes()), opt.include_weak ? "" : "strong "));
  for (auto& note : heap->notes()) report.notes.push_back(std::move(note));
  print_report(report, opt.format);
}

}  // namespace

void add_types_command(CLI::App& app) {
  auto opt = std::make_shared<TypesOptions>();
  auto* cmd = app.add_subcommand("types", "Count objects, bytes and retained bytes per type");
  cmd->add_option("file", opt->file, "recording, as FILE or FILE:GC (default GC: the last with a heap walk)")->required();
  add_gc_option(*cmd, opt->gc);
  cmd->add_option("--top", opt->top, "show the first N types after sorting and filtering");
  cmd->add_option("--filter", opt->filter, "only types whose name contains this text (case-sensitive)");
  cmd->add_option("--sort", opt->sort, "order: bytes (default), count or retained");
  cmd->add_flag("--no-retained", opt->no_retained, "skip the dominator tree (faster; no retained bytes)");
  cmd->add_flag("--include-weak", opt->include_weak, "let weak roots retain objects");
  add_format_option(*cmd, opt->format);
  cmd->callback([opt] { run_types(*opt); });
}

}  // namespace gcsnap::cli
