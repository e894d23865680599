// gcsnap diff: what changed between two heap walks. By type and by root for any two GCs
// (two files or one); object by object (new / dead / surviving, matched through the ranges
// of every GC in between) when both GCs are in the same recording.
#include <filesystem>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli_error.hpp"
#include "commands.hpp"
#include "diff_objects_report.hpp"
#include "gc_select.hpp"
#include "gcsnap/enum_names.hpp"
#include "gcsnap/heap_diff.hpp"
#include "gcsnap/root_summary.hpp"
#include "gcsnap/walk_diff.hpp"
#include "output.hpp"

namespace gcsnap::cli {

namespace {

struct DiffOptions {
  std::vector<std::string> inputs;
  std::optional<uint64_t> from, to;
  size_t top = 20;
  Format format = Format::Table;
};

bool same_file(const std::string& x, const std::string& y) {
  std::error_code ec;
  return x == y || std::filesystem::equivalent(x, y, ec);
}

// Resolve the arguments to two GCs: A B, FILE:N FILE:M, or FILE --from N --to M.
void select_sides(const DiffOptions& opt, DiffSide& a, DiffSide& b) {
  if (opt.inputs.size() == 1) {
    if (!opt.from || !opt.to)
      throw CliError("diff needs two recordings (A B), FILE:N FILE:M, or FILE --from N --to M", kExitUsage);
    a.selected = open_selected_gc(opt.inputs[0], opt.from, GcNeed::HeapWalk);
    b.selected.file = a.selected.file;
    b.selected.index = select_gc(*a.selected.recording, a.selected.file, opt.to, GcNeed::HeapWalk);
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

void load_side(DiffSide& side, const Recording& rec) {
  side.walk = value_or_fail(read_heap_walk(rec, side.selected.index), side.selected.file);
}

Table summary_table(const DiffSide& a, const DiffSide& b) {
  Table t("summary", "Compared heap walks");
  t.add_column("side", "SIDE").add_column("file", "FILE").add_column("gc", "GC", ColumnKind::Count);
  t.add_column("objects", "OBJECTS", ColumnKind::Count).add_column("bytes", "BYTES", ColumnKind::Bytes);
  t.add_column("roots", "ROOTS", ColumnKind::Count);
  for (const DiffSide* s : {&a, &b})
    t.add_row({s == &a ? "a" : "b", s->selected.file, s->walk.gc_number, s->walk.objects.size(), s->walk.total_bytes(),
               s->walk.roots.size()});
  return t;
}

Table type_table(const DiffSide& a, const DiffSide& b, size_t top) {
  const auto ta = value_or_fail(count_by_type(a.walk.objects, a.walk.names), a.selected.file);
  const auto tb = value_or_fail(count_by_type(b.walk.objects, b.walk.names), b.selected.file);
  auto deltas = value_or_fail(diff_by_type(ta, tb), a.selected.file);
  const size_t changed = deltas.size();
  if (top && deltas.size() > top) deltas.resize(top);
  Table t("types", changed == 0 ? std::string("By type: no type changed")
                                 : fmt::format("By type: {} of {} changed types, largest growth first",
                                               deltas.size(), changed));
  t.add_column("type", "TYPE").add_column("count_a", "COUNT A", ColumnKind::Count);
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

void run_diff(const DiffOptions& opt) {
  DiffSide a, b;
  select_sides(opt, a, b);
  const bool same_recording = !b.selected.recording;
  const Recording& rec_a = *a.selected.recording;
  const Recording& rec_b = same_recording ? rec_a : *b.selected.recording;
  load_side(a, rec_a);
  load_side(b, rec_b);

  Report report;
  // As path/types/dominators say: without the pairs, ConditionalWeakTable values look dead.
  if (!a.walk.has_dependent && !b.walk.has_dependent && same_recording) {
    report.notes.push_back("this recording has no dependent-handle section: objects kept alive only by a "
                           "ConditionalWeakTable look unreachable");
  } else {
    for (const DiffSide* side : {&a, &b})
      if (!side->walk.has_dependent)
        report.notes.push_back(fmt::format("GC {} of {} has no dependent-handle section: objects kept alive only by a "
                                           "ConditionalWeakTable look unreachable there",
                                           side->walk.gc_number, side->selected.file));
  }
  report.tables.push_back(summary_table(a, b));
  report.tables.push_back(type_table(a, b, opt.top));
  ObjectLevel objects;
  if (!same_recording) {
    report.notes.push_back("two recordings: roots are matched by kind, object type and (stack roots) method, "
                           "and there is no object-level diff (it needs two GCs of one recording)");
  } else {
    objects = diff_object_level(rec_a, a, b, opt.top, report.notes);
  }
  RootDiff roots;
  if (objects.roots) {
    roots = *objects.roots;
  } else if (!same_recording) {
    roots = value_or_fail(diff_roots_by_content(a.walk, b.walk), a.selected.file);
  } else {
    roots = value_or_fail(diff_roots(a.walk.roots, {}, b.walk.roots), a.selected.file);
  }
  report.tables.push_back(root_table(a, b, roots, same_recording));
  report.tables.push_back(std::move(objects.totals));
  report.tables.push_back(std::move(objects.groups));
  report.tables.push_back(std::move(objects.dead_groups));
  print_report(report, opt.format);
}

}  // namespace

void add_diff_command(CLI::App& app) {
  auto opt = std::make_shared<DiffOptions>();
  auto* cmd = app.add_subcommand("diff", "Compare two heap walks: by type, by root, and object by object");
  cmd->add_option("inputs", opt->inputs, "A B (two files, FILE:N FILE:M), or one FILE with --from/--to")
      ->required()
      ->expected(1, 2);
  cmd->add_option_function<uint64_t>("--from", [opt](const uint64_t& n) { opt->from = n; }, "GC A (with one FILE)");
  cmd->add_option_function<uint64_t>("--to", [opt](const uint64_t& n) { opt->to = n; }, "GC B (with one FILE)");
  cmd->add_option("--top", opt->top, "rows per table (types, groups of new objects); 0 = all (default 20)");
  add_format_option(*cmd, opt->format);
  cmd->callback([opt] { run_diff(*opt); });
}

}  // namespace gcsnap::cli
