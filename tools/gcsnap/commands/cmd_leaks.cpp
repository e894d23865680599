// gcsnap leaks: groups of objects (type + retention-path shape) that accumulate across every
// heap walk of one recording, or of several recordings of one app (docs/cli.md "leaks").
#include <algorithm>
#include <climits>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "errors/cli_error.hpp"
#include "commands/commands.hpp"
#include "loading/heap_load.hpp"
#include "loading/gc_select.hpp"
#include "loading/leak_load.hpp"
#include "commands/leaks_bounded.hpp"
#include "commands/leaks_text.hpp"
#include "commands/path_text.hpp"
#include "commands/alloc_join_out.hpp"
#include "output/output.hpp"

namespace gcsnap::cli {

namespace {

struct LeaksOptions {
  std::vector<std::string> files;
  size_t top = 10;
  size_t min_walks = 3;
  bool include_weak = false;
  bool no_fold = false;
  bool no_cache = false;
  bool series = false;
  Format format = Format::Table;
};

// PATHS: one per suspect (or none, for the table form).
Table suspects_table(const LoadedLeaks& l, const std::vector<SuspectPath>& paths, Format format) {
  const auto& r = l.report;
  Table table("suspects", fmt::format("Leak suspects: {} of {} groups (type + path shape) accumulate over {} heap walks",
                                      r.suspects.size(), r.groups, r.walks.size()));
  table.add_column("rank", "#", ColumnKind::Count).add_column("type", "TYPE");
  table.add_column("count", "COUNT", ColumnKind::Count).add_column("count_growth", "GROWTH", ColumnKind::DeltaCount);
  table.add_column("accumulated", "NEW+ALIVE", ColumnKind::Count);
  table.add_column("bytes", "BYTES", ColumnKind::Bytes);
  table.add_column("retained_bytes", "RETAINED", ColumnKind::Bytes);
  table.add_column("retained_growth", "RETAINED GROWTH", ColumnKind::DeltaBytes);
  if (format == Format::Table) table.add_column("counts", "COUNT PER WALK");
  table.add_column("accumulation_point", "HELD BY").add_column("accumulation_address", "HELD BY ADDRESS", ColumnKind::Address);
  table.add_column("example", "EXAMPLE", ColumnKind::Address);
  table.add_column("holds", "ALSO ACCUMULATING (HELD BY ITS MEMBERS)");
  const bool named = format != Format::Table;  // the text form shows them in its blocks
  if (named) add_named_path_columns(table);
  for (size_t i = 0; i < r.suspects.size(); ++i) {
    const LeakSuspect& s = r.suspects[i];
    std::vector<Cell> row = {i + 1, s.type, s.series.back().count, s.count_growth, s.accumulated_count,
                             s.series.back().bytes, s.series.back().retained_bytes, s.retained_growth};
    if (format == Format::Table) row.emplace_back(describe_counts(s));
    row.emplace_back(describe_point(s.accumulation));
    row.push_back(s.accumulation.found ? Cell(s.accumulation.address) : Cell());
    row.push_back(s.example_address ? Cell(s.example_address) : Cell());
    std::string holds;
    for (const HeldGroup& h : s.holds) holds += fmt::format("{}{} x{}", holds.empty() ? "" : ", ", h.type, h.accumulated_count);
    row.push_back(holds.empty() ? Cell() : Cell(holds));
    if (named) add_named_path_cells(row, i < paths.size() ? &paths[i] : nullptr);
    table.add_row(std::move(row));
  }
  return table;
}

Table shapes_table(const LeakReport& r) {
  Table table("shapes", "Path shapes of the suspects (repeated hops collapsed)");
  table.add_column("rank", "#", ColumnKind::Count).add_column("count", "COUNT", ColumnKind::Count);
  table.add_column("min_hops", "MIN HOPS", ColumnKind::Count).add_column("max_hops", "MAX HOPS", ColumnKind::Count);
  table.add_column("shape", "SHAPE");
  for (size_t i = 0; i < r.suspects.size(); ++i)
    for (const PathShape& shape : r.suspects[i].shapes)
      table.add_row({i + 1, shape.count, shape.min_hops, shape.max_hops, describe_shape(shape)});
  return table;
}

Table series_table(const LoadedLeaks& l) {
  const auto& r = l.report;
  Table table("series", "The suspects at every heap walk");
  table.add_column("rank", "#", ColumnKind::Count).add_column("file", "FILE").add_column("gc", "GC", ColumnKind::Count);
  table.add_column("count", "COUNT", ColumnKind::Count).add_column("bytes", "BYTES", ColumnKind::Bytes);
  table.add_column("retained_bytes", "RETAINED", ColumnKind::Bytes);
  table.add_column("born", "BORN", ColumnKind::Count);
  for (size_t i = 0; i < r.suspects.size(); ++i)
    for (size_t w = 0; w < r.walks.size(); ++w) {
      const LeakPoint& p = r.suspects[i].series[w];
      table.add_row({i + 1, l.file_of(r.walks[w]), r.walks[w].gc_number, p.count, p.bytes, p.retained_bytes, p.born_here});
    }
  return table;
}

// Each suspect's newest member's path at the last walk, with field and static names and its
// chain folded (FOLD false: every hop), so that the holder and how it is reached read at once.
// One load of the last walk with field names and one shortest-path tree for all suspects: with
// USE_INDEX both from the walk's analysis index when it has a valid one (never built here), as
// `path` reads them; decoding the walk and a breadth-first search over it were ~4 % of `leaks`
// from the indexes at 10 x 10 M objects.
std::vector<SuspectPath> suspect_paths(const LoadedLeaks& l, bool fold, bool use_index) {
  const auto& r = l.report;
  std::vector<SuspectPath> paths(r.suspects.size());
  if (r.suspects.empty()) return paths;
  const LeakWalk& last = r.walks.back();
  const auto heap = load_heap(l.file_of(last), last.gc_number, kNeedGraph | kNeedFieldNames | kNeedPathTree,
                              IndexChoice{use_index, false, true});
  const ShortestPathTree* tree = value_or_fail(heap->find_path_tree(), heap->sel.file);
  for (size_t i = 0; i < r.suspects.size(); ++i) {
    const LeakSuspect& s = r.suspects[i];
    if (!s.example_address) continue;
    auto node = heap->graph.find_object(s.example_address);
    if (!node) continue;
    paths[i] = describe_suspect_path(*heap, *tree, *node, fold);
  }
  return paths;
}

// Whether every file is one `gcsnap snapshot` of a running process: one GC, walked on demand.
// Such files follow no object from one to the next.
bool only_attached_snapshots(const LoadedLeaks& l) {
  for (const auto& rec : l.recordings)
    if (rec->gcs().size() != 1 || rec->gcs()[0].info.trigger != SnapshotTrigger::OnDemand) return false;
  return !l.recordings.empty();
}

constexpr const char* kRecordEvery =
    "record the running process with 'gcsnap record --pid PID --every 30s' (a heap walk every 30 s, objects "
    "followed from walk to walk)";

void add_notes(const LoadedLeaks& l, Report& report, size_t min_walks) {
  const auto& r = l.report;
  if (r.too_few_walks) {
    if (only_attached_snapshots(l)) {
      report.notes.push_back(fmt::format(
          "only {} heap walk(s), from 'gcsnap snapshot': at least {} are needed to tell a leak from a cache that "
          "fills; {}",
          r.walks.size(), min_walks, kRecordEvery));
    } else {
      report.notes.push_back(fmt::format(
          "only {} heap walk(s): at least {} are needed to tell a leak from a cache that fills (record with --every "
          "30s for a heap walk every 30 s, or --policy all)",
          r.walks.size(), min_walks));
    }
    return;
  }
  const LeakWalk& first = r.walks.front();
  const LeakWalk& last = r.walks.back();
  report.notes.push_back(fmt::format("heap walks: GC {} of {} .. GC {} of {}", first.gc_number, l.file_of(first),
                                     last.gc_number, l.file_of(last)));
  if (r.suspects.empty()) {
    report.notes.push_back("no suspect: no group grows in most intervals and still at the end with new objects that stay");
    if (only_attached_snapshots(l))
      report.notes.push_back(fmt::format("'gcsnap snapshot' files follow no object from one to the next; {}",
                                         kRecordEvery));
    return;
  }
  if (r.suspects.front().by_identity)
    report.notes.push_back("new and alive = members born after the first heap walk and alive at the last (object "
                           "identity through the ranges of every GC)");
  report.notes.push_back("held by = the object that dominates most members, or (owner) when none does, the object "
                         "with an edge into the structure that most members reference back");
  if (!r.suspects.front().by_identity)
    report.notes.push_back(only_attached_snapshots(l)
                               ? fmt::format("'gcsnap snapshot' files follow no object from one to the next: the "
                                             "growth of the count is all they tell; {}", kRecordEvery)
                               : std::string("the last recording has one heap walk: the growth of the count is all "
                                             "it tells (no object identity)"));
  const LeakSuspect& top = r.suspects.front();
  if (top.example_address)
    report.notes.push_back(fmt::format("next: gcsnap path {}:{} {}", l.file_of(last), last.gc_number,
                                       format_address(top.example_address)));
}

void add_tables(const LoadedLeaks& l, Report& report, const LeaksOptions& opt, const std::vector<SuspectPath>& paths) {
  report.tables.push_back(suspects_table(l, paths, opt.format));
  report.tables.push_back(shapes_table(l.report));
  report.tables.push_back(series_table(l));
  report.tables.push_back(bounded_table(l, opt.format));
  report.tables.push_back(bounded_series_table(l));
  if (opt.series) report.tables.push_back(type_series_table(l, opt.format, opt.top));
}

constexpr size_t kAllocSitesPerSuspect = 3;

// Each walk of a series allocates and frees arrays of tens to hundreds of MB (decoded columns,
// graph, dominator tree, shapes). glibc maps those afresh and unmaps them at free, so every
// walk's arrays were new pages for the kernel to zero: 19-21 s of system time beside ~105 s of
// user time at 10 walks of 10 M objects. Served from the heap and never trimmed, a walk reuses
// the pages the one before freed (3 s of system time; peak RSS 2.68 -> 2.88 GB, the heap's
// fragmentation; docs/performance.md "Leaks over many heap walks").
void reuse_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
#endif
}

void run_leaks(const LeaksOptions& opt) {
  reuse_freed_memory();
  LeakOptions options;
  options.top = opt.top;
  options.min_walks = opt.min_walks;
  options.include_weak = opt.include_weak;
  const auto loaded = load_leaks(opt.files, options, !opt.no_cache);
  Report report;
  add_notes(*loaded, report, std::max<size_t>(opt.min_walks, 2));
  // Sampled allocation sites of each suspect's members: nothing when the recording has none.
  const auto sites = leak_alloc_sites(*loaded, kAllocSitesPerSuspect);
  if (!sites.empty()) report.notes.push_back(leak_alloc_sites_note());
  if (opt.format == Format::Table) {
    // Text: a block per suspect that fits the screen; --table still picks a table.
    if (output_table_requested()) {
      add_tables(*loaded, report, opt, {});
      if (!sites.empty()) report.tables.push_back(leak_alloc_sites_table(sites));
      print_report(report, opt.format);
      return;
    }
  }
  std::vector<SuspectPath> paths = loaded->report.too_few_walks ? std::vector<SuspectPath>{}
                                                                : suspect_paths(*loaded, !opt.no_fold, !opt.no_cache);
  for (size_t i = 0; i < sites.size() && i < paths.size(); ++i) paths[i].allocated_at = describe_alloc_sites(sites[i]);
  if (std::any_of(paths.begin(), paths.end(), [](const SuspectPath& p) { return p.match.pattern != HolderPattern::None; }))
    report.notes.push_back("held by FIELD (PATTERN) = the field that keeps a structure where services leak (an event, "
                           "a timer, a token registration, a cache...) and what it keeps: the delegate's method or "
                           "the objects' type");
  if (opt.format == Format::Table) {
    const std::string text = render_leaks_text(*loaded, paths, report.notes, text_width(stdout, 120));
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (opt.series) {
      Report series;
      series.tables.push_back(type_series_table(*loaded, opt.format, opt.top));
      std::fputc('\n', stdout);
      print_report(series, opt.format);
    }
    return;
  }
  add_tables(*loaded, report, opt, paths);
  if (!sites.empty()) report.tables.push_back(leak_alloc_sites_table(sites));
  print_report(report, opt.format);
}

}  // namespace

void add_leaks_command(CLI::App& app) {
  auto opt = std::make_shared<LeaksOptions>();
  auto* cmd = app.add_subcommand("leaks", "Find groups of objects that accumulate across every heap walk");
  cmd->add_option("files", opt->files, "recordings of one app (their heap walks are read in time order)")
      ->required();
  cmd->add_option("--top", opt->top, "show the first N suspects (0: all; default 10)");
  cmd->add_option("--min-walks", opt->min_walks, "judge nothing with fewer heap walks (default 3)")
      ->check(CLI::Range(2, 1000000));
  cmd->add_flag("--include-weak", opt->include_weak, "let weak roots retain objects");
  cmd->add_flag("--no-fold", opt->no_fold,
                "list every hop of each suspect's path (by default a chain of hops of the same type and field is "
                "one hop with a count)");
  cmd->add_flag("--series", opt->series,
                "also list the types whose count changed at every heap walk (the --top largest changes)");
  add_no_cache_option(*cmd, opt->no_cache);
  add_format_option(*cmd, opt->format);
  cmd->callback([opt] { run_leaks(*opt); });
}

}  // namespace gcsnap::cli
