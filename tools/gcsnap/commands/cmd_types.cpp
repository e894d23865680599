// gcsnap types: count, shallow bytes and retained bytes per type for one GC's heap walk.
#include <algorithm>
#include <memory>
#include <utility>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "commands/commands.hpp"
#include "gcsnap/dominators.hpp"
#include "gcsnap/type_histogram.hpp"
#include "loading/heap_load.hpp"
#include "output/output.hpp"
#include "commands/type_filter.hpp"

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
  bool no_cache = false;
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

// "loh 93%, gen0 7%": the places holding the type's bytes, largest share first.
template <size_t N>
std::string where_text(const TypeStats& t, const std::pair<const char*, const char*> (&names)[N]) {
  std::vector<std::pair<uint64_t, size_t>> parts;
  for (size_t g = 0; g < N; ++g)
    if (t.generation_bytes[g]) parts.emplace_back(t.generation_bytes[g], g);
  std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string s;
  for (const auto& [bytes, g] : parts) {
    const double share = t.shallow_bytes ? 100.0 * static_cast<double>(bytes) / static_cast<double>(t.shallow_bytes) : 0;
    s += fmt::format("{}{} {}", s.empty() ? "" : ", ", names[g].second,
                     share >= 99.95 ? std::string("100%")
                     : share < 0.5  ? std::string("<1%")
                                    : fmt::format("{:.0f}%", std::min(share, 99.0)));
  }
  return s;
}

void run_types(const TypesOptions& opt) {
  const TypeOrder order = parse_order(opt.sort, opt.no_retained);
  // Over strong roots the index's histogram answers alone (its generation bytes too).
  // --include-weak computes a tree from the graph.
  const auto heap = load_heap(opt.file, opt.gc, kNeedHistogram | (opt.include_weak ? HeapNeeds{kNeedWeakRoots} : HeapNeeds{0}),
                              IndexChoice{true, opt.no_cache});
  const bool dom = !opt.no_retained;
  // Counts and bytes do not depend on the dominator tree: --no-retained asks for them alone.
  const std::vector<TypeStats> hist =
      dom ? heap->type_histogram(opt.include_weak, TypeHistogramOptions{order, 0})
          : value_or_fail(heap->find_type_counts(TypeHistogramOptions{order, 0}), heap->sel.file);
  std::vector<uint32_t> selected;
  if (!opt.filter.empty())
    selected = filter_type_ids(heap->names, heap->type_ids(), opt.filter,
                               fmt::format("{}: no type in GC {} contains", heap->sel.file, heap->sel.number()));

  uint64_t objects = 0, bytes = 0;
  for (const TypeStats& t : hist) {
    objects += t.count;
    bytes += t.shallow_bytes;
  }
  Table table("types", fmt::format("Types in GC {} ({} objects, {} in {} types)", heap->sel.number(), objects,
                                   format_bytes(bytes), hist.size()));
  table.add_column("type", "TYPE", ColumnKind::TypeName).add_column("count", "COUNT", ColumnKind::Count);
  table.add_column("bytes", "BYTES", ColumnKind::Bytes).add_column("retained_bytes", "RETAINED", ColumnKind::Bytes);
  table.add_column("unreachable", "UNREACHABLE", ColumnKind::Count).drop_when_narrow(1);
  // Where the bytes live (generation_slot order): one column each for scripts, one short
  // text for people ("loh 93%, gen0 7%"), so the table stays narrow.
  static constexpr std::pair<const char*, const char*> kWhere[] = {{"gen0_bytes", "gen0"}, {"gen1_bytes", "gen1"},
                                                                   {"gen2_bytes", "gen2"}, {"loh_bytes", "loh"},
                                                                   {"poh_bytes", "poh"},   {"frozen_bytes", "frozen"}};
  for (const auto& [key, name] : kWhere) table.add_column(key, "", ColumnKind::Bytes, Shown::MachineOnly);
  table.add_column("where", "WHERE (share of BYTES)", ColumnKind::Text, Shown::TableOnly);
  size_t matched = 0;
  uint64_t unknown_generation = 0;
  for (const TypeStats& t : hist) {
    if (!selected.empty() && !std::binary_search(selected.begin(), selected.end(), t.type_id)) continue;
    unknown_generation += t.generation_bytes[kGenerationSlots - 1];
    if (++matched > opt.top && opt.top != 0) continue;
    std::vector<Cell> row{heap->names.type_name(t.type_id), t.count, t.shallow_bytes,
                          dom ? Cell(t.retained_bytes) : Cell(), dom ? Cell(t.unreachable_count) : Cell()};
    for (size_t g = 0; g + 1 < kGenerationSlots; ++g) row.emplace_back(t.generation_bytes[g]);
    row.emplace_back(where_text(t, kWhere));
    table.add_row(std::move(row));
  }
  Report report;
  report.tables.push_back(std::move(table));
  if (opt.top != 0 && matched > opt.top)
    report.notes.push_back(fmt::format("{} of {} types shown (--top {})", opt.top, matched, opt.top));
  if (unknown_generation)
    report.notes.push_back(fmt::format("{} are in no range the runtime reported (generation unknown), so the "
                                       "generation columns add up to less than BYTES",
                                       format_bytes(unknown_generation)));
  if (dom) {
    const auto [unreachable_count, unreachable_bytes] = heap->unreachable(opt.include_weak);
    report.notes.push_back(fmt::format(
        "retained = bytes freed if all objects of the type went away (sum of the retained sizes of those not dominated "
        "by another object of the same type); {} objects ({}) are not reachable from {}roots",
        unreachable_count, format_bytes(unreachable_bytes), opt.include_weak ? "" : "strong "));
  }
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
  cmd->add_option("--filter", opt->filter, "only types whose name contains this text (any case)");
  cmd->add_option("--sort", opt->sort, "order: bytes (default), count or retained");
  cmd->add_flag("--no-retained", opt->no_retained, "skip the dominator tree (faster; no retained bytes)");
  cmd->add_flag("--include-weak", opt->include_weak, "let weak roots retain objects");
  add_no_cache_option(*cmd, opt->no_cache);
  add_format_option(*cmd, opt->format);
  cmd->callback([opt] { run_types(*opt); });
}

}  // namespace gcsnap::cli
