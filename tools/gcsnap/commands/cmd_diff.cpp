// gcsnap diff: what changed between two heap walks. By type and by root for any two GCs
// (two files or one); object by object (new / dead / surviving, matched through the ranges
// of every GC in between) when both GCs are in the same recording.
#include <algorithm>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "commands/commands.hpp"
#include "commands/diff_growth_paths.hpp"
#include "commands/diff_objects_report.hpp"
#include "loading/gc_select.hpp"
#include "gcsnap/enum_names.hpp"
#include "gcsnap/heap_diff.hpp"
#include "gcsnap/root_summary.hpp"
#include "gcsnap/walk_diff.hpp"
#include "loading/heap_load.hpp"
#include "output/output.hpp"
#include "commands/type_filter.hpp"

namespace gcsnap::cli {

namespace {

constexpr size_t kDiffPipeWidth = 120;

struct DiffOptions {
  std::vector<std::string> inputs;
  std::optional<uint64_t> from, to;
  size_t top = 20;
  size_t shapes = 3;
  std::string filter;
  bool no_cache = false;
  bool no_fold = false;
  Format format = Format::Table;
};

bool same_file(const std::string& x, const std::string& y) {
  std::error_code ec;
  return x == y || std::filesystem::equivalent(x, y, ec);
}

// The number of the first or last GC of the recording with a heap walk.
uint64_t walk_at_end(const Recording& rec, const std::string& file, bool last) {
  std::vector<uint64_t> walks;
  for (const GcEntry& e : rec.gcs())
    if (e.has_heap_walk()) walks.push_back(e.info.gc_number);
  if (walks.size() < 2)
    throw CliError(walks.empty() ? fmt::format("{}: no GC in the recording has a heap walk", file)
                                 : fmt::format("{}: diff needs two heap walks; the recording has one (GC {})", file,
                                               walks.front()),
                   walks.empty() ? kExitBadInput : kExitUsage);
  return last ? walks.back() : walks.front();
}

// Resolve the arguments to two GCs: A B, FILE:N FILE:M, or FILE [--from N] [--to M] (the
// first and the last heap walk by default).
void select_sides(const DiffOptions& opt, DiffSide& a, DiffSide& b) {
  if (opt.inputs.size() == 1) {
    const GcSpec spec = parse_gc_spec(opt.inputs[0]);
    if (spec.gc && opt.from && *spec.gc != *opt.from)
      throw CliError(fmt::format("{} and --from {} name different GCs", opt.inputs[0], *opt.from), kExitUsage);
    auto rec = open_recording(spec.file);
    const uint64_t from = spec.gc ? *spec.gc : opt.from ? *opt.from : walk_at_end(*rec, spec.file, false);
    const uint64_t to = opt.to ? *opt.to : walk_at_end(*rec, spec.file, true);
    a.selected.file = spec.file;
    a.selected.index = select_gc(*rec, spec.file, from, GcNeed::HeapWalk);
    a.selected.recording = std::move(rec);
    b.selected.file = a.selected.file;
    b.selected.index = select_gc(*a.selected.recording, a.selected.file, to, GcNeed::HeapWalk);
    return;
  }
  if (opt.from || opt.to) throw CliError("--from/--to go with a single FILE", kExitUsage);
  a.selected = open_selected_gc(opt.inputs[0], std::nullopt, GcNeed::HeapWalk);
  const GcSpec spec_b = parse_gc_spec(opt.inputs[1]);
  if (same_file(spec_b.file, a.selected.file)) {
    b.selected.file = spec_b.file;
    b.selected.index = select_gc(*a.selected.recording, spec_b.file, spec_b.gc, GcNeed::HeapWalk);
  } else {
    b.selected = open_selected_gc(opt.inputs[1], std::nullopt, GcNeed::HeapWalk);
  }
}

// Run LOAD_A on a thread of its own while this one runs LOAD_B (both on this one when no thread
// can be had); then rethrow A's exception, else B's.
template <typename LoadA, typename LoadB>
void load_both_sides(LoadA&& load_a, LoadB&& load_b) {
  std::exception_ptr failed_a, failed_b;
  auto run_a = [&]() noexcept {
    try {
      load_a();
    } catch (...) {
      failed_a = std::current_exception();
    }
  };
  std::thread helper;
  try {
    helper = std::thread(run_a);
  } catch (const std::system_error&) {
    run_a();
  }
  try {
    load_b();
  } catch (...) {
    failed_b = std::current_exception();
  }
  if (helper.joinable()) helper.join();
  if (failed_a) std::rethrow_exception(failed_a);
  if (failed_b) std::rethrow_exception(failed_b);
}

Table summary_table(const DiffSide& a, const DiffSide& b) {
  Table t("summary", "Compared heap walks");
  t.add_column("side", "SIDE").add_column("file", "FILE").add_column("gc", "GC", ColumnKind::Count);
  t.add_column("objects", "OBJECTS", ColumnKind::Count).add_column("bytes", "BYTES", ColumnKind::Bytes);
  t.add_column("roots", "ROOTS", ColumnKind::Count);
  for (const DiffSide* s : {&a, &b})
    t.add_row({s == &a ? "a" : "b", s->selected.file, s->walk.gc_number, s->object_count(), s->total_bytes(),
               s->walk.roots.size()});
  return t;
}

// --filter: fail, with the closest names, when no type of either walk matches.
void check_filter(const DiffSide& a, const DiffSide& b, const std::string& filter) {
  if (filter.empty()) return;
  std::vector<std::string_view> names;
  for (const DiffSide* side : {&a, &b})
    for (const TypeRecord& t : side->walk.names.types()) {
      if (contains_ignore_case(t.name, filter)) return;
      names.push_back(t.name);
    }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  fail_no_match(fmt::format("{}: no type in GC {} or GC {} contains", a.selected.file, a.walk.gc_number,
                            b.walk.gc_number),
                filter, names);
}

Table type_table(const DiffSide& a, const DiffSide& b, const DiffOptions& opt) {
  const auto ta = a.type_totals();
  const auto tb = b.type_totals();
  auto deltas = value_or_fail(diff_by_type(ta, tb), a.selected.file);
  if (!opt.filter.empty())
    std::erase_if(deltas, [&](const TypeDelta& d) { return !contains_ignore_case(d.name, opt.filter); });
  const size_t changed = deltas.size();
  if (opt.top && deltas.size() > opt.top) deltas.resize(opt.top);
  Table t("types", changed == 0 ? std::string("By type: no type changed")
                                 : fmt::format("By type: {} of {} changed types, largest change (growth or shrinkage) first",
                                               deltas.size(), changed));
  t.add_column("type", "TYPE", ColumnKind::TypeName).add_column("count_a", "COUNT A", ColumnKind::Count);
  t.add_column("count_b", "COUNT B", ColumnKind::Count).add_column("delta_count", "ΔCOUNT", ColumnKind::DeltaCount);
  t.add_column("bytes_a", "BYTES A", ColumnKind::Bytes).add_column("bytes_b", "BYTES B", ColumnKind::Bytes);
  t.add_column("delta_bytes", "ΔBYTES", ColumnKind::DeltaBytes);
  for (const auto& d : deltas)
    t.add_row({d.name, d.count_a, d.count_b, d.delta_count(), d.bytes_a, d.bytes_b, d.delta_bytes()});
  return t;
}

Table root_table(const DiffSide& a, const DiffSide& b, const RootDiff& diff, bool same_recording) {
  Table t("roots", same_recording ? "Roots by kind (matched by kind, root id and object)"
                                  : "Roots by kind (matched by kind, object type and method)");
  t.add_column("kind", "KIND").add_column("count_a", "ROOTS A", ColumnKind::Count);
  t.add_column("count_b", "ROOTS B", ColumnKind::Count).add_column("added", "ADDED", ColumnKind::Count);
  t.add_column("removed", "REMOVED", ColumnKind::Count);
  for (const auto& d : value_or_fail(summarize_root_diff(a.walk.roots, b.walk.roots, diff), a.selected.file))
    t.add_row({root_kind_name(d.kind), d.count_a, d.count_b, d.added, d.removed});
  return t;
}

// As path/types/dominators say: without the pairs, ConditionalWeakTable values look dead.
void note_missing_dependent(const DiffSide& a, const DiffSide& b, bool same_recording, Report& report) {
  if (!a.walk.has_dependent && !b.walk.has_dependent && same_recording) {
    report.notes.push_back("this recording has no dependent-handle section: objects kept alive only by a "
                           "ConditionalWeakTable look unreachable");
    return;
  }
  for (const DiffSide* side : {&a, &b})
    if (!side->walk.has_dependent)
      report.notes.push_back(fmt::format("GC {} of {} has no dependent-handle section: objects kept alive only by a "
                                         "ConditionalWeakTable look unreachable there",
                                         side->walk.gc_number, side->selected.file));
}

void run_diff(const DiffOptions& opt) {
  DiffSide a, b;
  select_sides(opt, a, b);
  const bool same_recording = !b.selected.recording;
  const Recording& rec_a = *a.selected.recording;
  const Recording& rec_b = same_recording ? rec_a : *b.selected.recording;
  // Each GC answers from its index when it has one (a diff never builds one: without them it
  // decodes in less time than building would take). B's graph and shortest-path tree give the
  // paths of its new objects (one recording) or of its grown types (two).
  const bool use_index = !opt.no_cache;
  // Two recordings: A's shortest-path tree too (its objects' shapes are compared with B's).
  const HeapNeeds a_paths = same_recording ? HeapNeeds{0} : HeapNeeds{kNeedPathTree};
  // One recording, A the earlier GC: its addresses and generations go to the diff's object
  // mapper rather than being copied there; its sizes and type ids are read at the dead and
  // missing objects alone (ColumnLookup).
  const bool a_movable = same_recording && a.selected.index < b.selected.index;
  // B the GC right after A: A's four columns are read once in blocks, each object followed
  // through that GC and matched with B as it comes, none held whole.
  const DiffLoad a_load =
      a_movable && b.selected.index == a.selected.index + 1 ? DiffLoad::Streamed : DiffLoad::Movable;
  // One recording: B's tree without its forward graph (the paths of a few new objects read
  // the successors of the hops that hold dependent handles, not 14 B per object).
  // Two recordings: B's forward graph with its slots, for the paths' field names (one recording
  // reads a hop's slot from the index's pieces, IndexedPathTree::hop_slot).
  const HeapNeeds b_paths = same_recording ? HeapNeeds{0} : HeapNeeds{kNeedPathTree | kNeedFieldNames};
  // One recording, B not the earlier GC: the diff reads B's addresses and sizes once, in blocks
  // of the index's pieces, rather than holding them (16 B per object).
  const DiffLoad b_load = !same_recording                              ? DiffLoad::Parts
                          : a.selected.index <= b.selected.index ? DiffLoad::PathTreeBlocks
                                                                 : DiffLoad::PathTree;
  // The two sides load at once (each reads only its own GC and the recording); A's failure is
  // reported first, as if they had loaded one after the other.
  load_both_sides(
      [&] {
        if (a_movable) load_diff_side(a, rec_a, use_index, kNeedHistogram, a_load);
        else load_diff_side(a, rec_a, use_index, kNeedObjects | kNeedHistogram | a_paths);
      },
      [&] {
        load_diff_side(b, rec_b, use_index, kNeedObjects | kNeedHistogram | b_paths, b_load, /*field_names=*/true);
      });

  Report report;
  note_missing_dependent(a, b, same_recording, report);
  check_filter(a, b, opt.filter);
  report.tables.push_back(summary_table(a, b));
  report.tables.push_back(type_table(a, b, opt));
  ObjectLevel objects;
  if (!same_recording) {
    report.notes.push_back("two recordings: roots are matched by kind, object type and (stack roots) method, "
                           "and no object is followed from A to B (that needs two GCs of one recording): the "
                           "groups are the types that grew, COUNT and BYTES their growth, each with the retention "
                           "path shape (repeated hops folded) whose count grew most from A to B, shown on its "
                           "farthest member at B; SHARE: members at B with that shape / all members at B");
    objects.groups.set_title("Largest growths by type (two recordings: no object identity), with the retention path "
                             "shape of the type's objects that grew most");
    diff_growth_paths(a, b, opt.top, opt.shapes, opt.filter, !opt.no_fold, objects);
  } else {
    WalkDiffOptions options{opt.top, std::max<size_t>(1, opt.shapes), {}};
    if (!opt.filter.empty())
      options.keep_type = [&opt](std::string_view name) { return contains_ignore_case(name, opt.filter); };
    auto level = diff_object_level(rec_a, a, b, options, !opt.no_fold, report.notes);
    if (!level) {
      // B's index failed its checks as the diff read it: both sides from the recording, as
      // with no index (the tables so far, from the indexes' checked parts, stand).
      a.unload();
      b.unload();
      load_both_sides([&] { load_diff_side(a, rec_a, false, kNeedObjects | kNeedHistogram); },
                      [&] { load_diff_side(b, rec_b, false, kNeedObjects | kNeedHistogram, DiffLoad::Parts, true); });
      level = diff_object_level(rec_a, a, b, options, !opt.no_fold, report.notes);
      if (!level) throw CliError(fmt::format("{}: the object-level diff failed", a.selected.file), kExitBadInput);
    }
    objects = std::move(*level);
  }
  RootDiff roots;
  if (objects.roots) {
    roots = *objects.roots;
  } else if (!same_recording) {
    roots = value_or_fail(diff_roots_by_content(a.view, b.view), a.selected.file);
  } else {
    roots = value_or_fail(diff_roots(a.walk.roots, {}, b.walk.roots), a.selected.file);
  }
  report.tables.push_back(root_table(a, b, roots, same_recording));
  report.tables.push_back(std::move(objects.totals));
  report.tables.push_back(std::move(objects.groups));
  report.tables.push_back(std::move(objects.dead_groups));
  // People see the extra shapes only when there are some; scripts always get the table.
  if (opt.format != Format::Table || !objects.more_paths.empty()) report.tables.push_back(std::move(objects.more_paths));
  // Tools get every hop of every path (the text shows the folded one, or every hop with --no-fold).
  if (opt.format != Format::Table) report.tables.push_back(std::move(objects.path_hops));
  // Its retention paths make lines of a thousand columns: fitted to 120 on a pipe or file too
  // (--wide: whole), each path cut in its middle so that its root stays.
  print_report(report, opt.format, stdout, kDiffPipeWidth);
}

}  // namespace

void add_diff_command(CLI::App& app) {
  auto opt = std::make_shared<DiffOptions>();
  auto* cmd = app.add_subcommand("diff", "Compare two heap walks: by type, by root, and object by object");
  cmd->add_option("inputs", opt->inputs,
                  "A B (two files, FILE:N FILE:M), or one FILE (first and last heap walk, or --from/--to)")
      ->required()
      ->expected(1, 2);
  cmd->add_option_function<uint64_t>("--from", [opt](const uint64_t& n) { opt->from = n; },
                                     "GC A (with one FILE; default: its first heap walk)");
  cmd->add_option_function<uint64_t>("--to", [opt](const uint64_t& n) { opt->to = n; },
                                     "GC B (with one FILE; default: its last heap walk)");
  cmd->add_option("--top", opt->top,
                  "rows per table (types by largest change, groups of new/dead objects); 0 = all (default 20)");
  cmd->add_option("--shapes", opt->shapes, "retention path shapes per group of new objects (default 3)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--filter", opt->filter, "only types whose name contains this text (any case)");
  cmd->add_flag("--no-fold", opt->no_fold,
                "list every hop of the groups' paths (by default hops of one type in a row are one hop with a count)");
  add_no_cache_option(*cmd, opt->no_cache);
  add_format_option(*cmd, opt->format);
  cmd->callback([opt] { run_diff(*opt); });
}

}  // namespace gcsnap::cli
