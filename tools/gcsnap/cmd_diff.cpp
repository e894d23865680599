// gcsnap diff: what changed between two heap walks. By type and by root for any two GCs
// (two files or one); object by object (new / dead / surviving, matched through the ranges
// of every GC in between) when both GCs are in the same recording.
#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli_error.hpp"
#include "commands.hpp"
#include "diff_objects_report.hpp"
#include "gc_select.hpp"
#include "gcsnap/heap_diff.hpp"
#include "gcsnap/root_summary.hpp"
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
  const std::string& file = side.selected.file;
  auto objects = rec.read_objects(side.selected.index);
  if (!objects) fail_on(file, objects.error());
  side.objects = std::move(objects).value();
  auto roots = rec.read_roots(side.selected.index);
  if (!roots) fail_on(file, roots.error());
  side.roots = std::move(roots).value();
  auto names = rec.read_names(side.selected.index);
  if (!names) fail_on(file, names.error());
  side.names = std::move(names).value();
  auto has_dependent = rec.has_dependent_handle_section(side.selected.index);
  if (!has_dependent) fail_on(file, has_dependent.error());
  side.has_dependent = *has_dependent;
  auto dependent = rec.read_dependent_handles(side.selected.index);
  if (!dependent) fail_on(file, dependent.error());
  side.dependent = std::move(dependent).value();
  side.gc_number = rec.gcs()[side.selected.index].info.gc_number;
}

Table summary_table(const DiffSide& a, const DiffSide& b) {
  Table t("summary", "Compared heap walks");
  t.add_column("side", "SIDE").add_column("file", "FILE").add_column("gc", "GC", ColumnKind::Count);
  t.add_column("objects", "OBJECTS", ColumnKind::Count).add_column("bytes", "BYTES", ColumnKind::Bytes);
  t.add_column("roots", "ROOTS", ColumnKind::Count);
  for (const DiffSide* s : {&a, &b}) {
    uint64_t bytes = 0;
    for (uint64_t size : s->objects.sizes) bytes += size;
    t.add_row({s == &a ? "a" : "b", s->selected.file, s->gc_number, s->objects.size(), bytes, s->roots.size()});
  }
  return t;
}

Table type_table(const DiffSide& a, const DiffSide& b, size_t top) {
  const auto ta = count_by_type(a.objects, a.names);
  const auto tb = count_by_type(b.objects, b.names);
  auto deltas = diff_by_type(ta, tb);
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
  for (const auto& d : summarize_root_diff(a.roots, b.roots, diff))
    t.add_row({root_kind_name(d.kind), d.count_a, d.count_b, d.added, d.removed});
  return t;
}

// Two processes share no addresses or ids: compare their roots by what they hold instead.
// Object ids become interned type names, stack root ids interned method names, other ids 0.
class RootRelabeler {
 public:
  RootTable relabel(const DiffSide& side) {
    RootTable out = side.roots;
    for (size_t i = 0; i < out.size(); ++i) {
      out.object_ids[i] = intern(type_of(side, side.roots.object_ids[i]));
      const MethodRecord* m = out.kinds[i] == RootKind::Stack ? side.names.find_method(out.root_ids[i]) : nullptr;
      out.root_ids[i] = m ? intern(m->name) : 0;
    }
    return out;
  }

 private:
  static std::string_view type_of(const DiffSide& side, uint64_t address) {
    const auto row = address == 0 ? std::nullopt : side.objects.find_containing(address);
    if (!row) return {};
    return side.names.type_name(side.objects.type_ids[*row]);
  }
  uint64_t intern(std::string_view text) {
    if (text.empty()) return 0;
    return ids_.try_emplace(std::string(text), ids_.size() + 1).first->second;
  }
  std::map<std::string, uint64_t> ids_;
};

void run_diff(const DiffOptions& opt) {
  DiffSide a, b;
  select_sides(opt, a, b);
  const bool same_recording = !b.selected.recording;
  const Recording& rec_a = *a.selected.recording;
  const Recording& rec_b = same_recording ? rec_a : *b.selected.recording;
  load_side(a, rec_a);
  load_side(b, rec_b);

  Report report;
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
    RootRelabeler labels;
    roots = diff_roots(labels.relabel(a), {}, labels.relabel(b));
  } else {
    roots = diff_roots(a.roots, {}, b.roots);
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
