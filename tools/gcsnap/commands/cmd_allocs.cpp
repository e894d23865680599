// gcsnap allocs: sampled allocation sites (format-spec.md §6.18), with the bytes and objects
// they stand for and the bytes of them still live at a GC (docs/cli.md "gcsnap allocs").
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands/commands.hpp"
#include "errors/cli_error.hpp"
#include "gcsnap/alloc_samples.hpp"
#include "loading/gc_select.hpp"
#include "output/output.hpp"

namespace gcsnap::cli {
namespace {

struct AllocsOptions {
  std::string file;
  std::optional<uint64_t> gc;
  std::optional<uint64_t> from;
  std::string by = "site";
  size_t top = 20;
  Format format = Format::Table;
};

/// One row of the answer: a site, a type or a stack, with the type allocated there.
struct Group {
  std::string function;
  std::string type;
  uint32_t stack_id = 0;  ///< the group's most sampled stack
  uint64_t samples = 0, ticks = 0;
  double est_bytes = 0, est_objects = 0, live_est_bytes = 0, live_est_objects = 0;
  std::unordered_map<uint32_t, uint64_t> stack_samples;
};

// Samples grouped by (stack, ClassID) first: integers, whatever the size of the recording.
struct Cell2 {
  uint64_t samples = 0, ticks = 0;
  double bytes = 0, objects = 0, live_bytes = 0, live_objects = 0;
};

std::string group_key(const AllocsOptions& opt, const std::string& function, const std::string& type,
                      uint32_t stack_id) {
  if (opt.by == "type") return type;
  if (opt.by == "stack") return fmt::format("{}\x1f{}", stack_id, type);
  return function + "\x1f" + type;
}

std::vector<Group> group_samples(const AllocsOptions& opt, const std::vector<FollowedSample>& followed,
                                 const AllocNames& names) {
  std::map<std::pair<uint32_t, uint64_t>, Cell2> cells;
  for (const FollowedSample& f : followed) {
    Cell2& c = cells[{f.sample.stack_id, f.sample.class_id}];
    const double b = estimated_bytes(f.sample), o = estimated_objects(f.sample);
    ++c.samples;
    if (f.sample.kind == AllocSampleKind::Tick) ++c.ticks;
    c.bytes += b, c.objects += o;
    if (f.alive) c.live_bytes += b, c.live_objects += o;
  }
  std::unordered_map<std::string, size_t> index;
  std::vector<Group> groups;
  for (const auto& [key, c] : cells) {
    const auto [stack_id, class_id] = key;
    const AllocStack* stack = names.find_stack(stack_id);
    const StackFrame* site = stack ? names.site_frame(*stack) : nullptr;
    std::string function = site ? names.frame_name(*site) : std::string("<unknown>");
    std::string type = names.type_name(class_id);
    auto [it, fresh] = index.try_emplace(group_key(opt, function, type, stack_id), groups.size());
    if (fresh) {
      groups.emplace_back();
      groups.back().function = opt.by == "type" ? std::string() : function;
      groups.back().type = type;
    }
    Group& g = groups[it->second];
    g.samples += c.samples, g.ticks += c.ticks;
    g.est_bytes += c.bytes, g.est_objects += c.objects;
    g.live_est_bytes += c.live_bytes, g.live_est_objects += c.live_objects;
    g.stack_samples[stack_id] += c.samples;
  }
  for (Group& g : groups) {
    uint64_t best = 0;
    for (const auto& [id, n] : g.stack_samples)
      if (n > best || (n == best && id < g.stack_id)) best = n, g.stack_id = id;
  }
  std::stable_sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) { return a.est_bytes > b.est_bytes; });
  return groups;
}

std::vector<std::string> stack_names(const AllocNames& names, uint32_t stack_id) {
  std::vector<std::string> out;
  if (const AllocStack* stack = names.find_stack(stack_id))
    for (const StackFrame& f : stack->frames) out.push_back(names.frame_name(f));
  return out;
}

uint64_t rounded(double v) { return v <= 0 ? 0 : static_cast<uint64_t>(v + 0.5); }

void print_json(const std::vector<Group>& groups, size_t shown, const AllocNames& names, uint64_t from_gc,
                uint64_t gc, uint64_t samples, bool ticks) {
  std::string out = fmt::format("{{\"gc\": {}, \"from_gc\": {}, \"samples\": {}, \"estimate\": \"{}\", \"sites\": [",
                                gc, from_gc, samples, ticks ? "ticks" : "sampled");
  for (size_t i = 0; i < shown; ++i) {
    const Group& g = groups[i];
    std::string stack;
    for (const std::string& frame : stack_names(names, g.stack_id))
      stack += fmt::format("{}\"{}\"", stack.empty() ? "" : ", ", json_escape(frame));
    out += fmt::format(
        "{}\n  {{\"function\": \"{}\", \"type\": \"{}\", \"stack\": [{}], \"samples\": {}, \"ticks\": {}, "
        "\"est_bytes\": {}, \"est_objects\": {}, \"live_est_bytes\": {}, \"live_est_objects\": {}}}",
        i ? "," : "", json_escape(g.function), json_escape(g.type), stack, g.samples, g.ticks, rounded(g.est_bytes),
        rounded(g.est_objects), rounded(g.live_est_bytes), rounded(g.live_est_objects));
  }
  out += "\n]}\n";
  std::fputs(out.c_str(), stdout);
}

void print_table(const AllocsOptions& opt, const std::vector<Group>& groups, size_t shown, const AllocNames& names,
                 const std::string& title, std::vector<std::string> notes) {
  Table table("sites", title);
  if (opt.by != "type") table.add_column("function", "SITE", ColumnKind::TypeName);
  table.add_column("type", "TYPE", ColumnKind::TypeName);
  table.add_column("samples", "SAMPLES", ColumnKind::Count).add_column("est_bytes", "EST BYTES", ColumnKind::Bytes);
  table.add_column("est_objects", "EST OBJECTS", ColumnKind::Count);
  table.add_column("live_est_bytes", "LIVE EST", ColumnKind::Bytes);
  table.add_column("stack", "STACK", ColumnKind::Text, opt.by == "stack" ? Shown::Everywhere : Shown::MachineOnly);
  for (size_t i = 0; i < shown; ++i) {
    const Group& g = groups[i];
    std::string stack;
    for (const std::string& frame : stack_names(names, g.stack_id)) stack += (stack.empty() ? "" : " < ") + frame;
    std::vector<Cell> row;
    if (opt.by != "type") row.emplace_back(g.function);
    row.emplace_back(g.type);
    row.emplace_back(g.samples);
    row.emplace_back(rounded(g.est_bytes));
    row.emplace_back(rounded(g.est_objects));
    row.emplace_back(rounded(g.live_est_bytes));
    row.emplace_back(stack);
    table.add_row(std::move(row));
  }
  Report report;
  report.tables.push_back(std::move(table));
  report.notes = std::move(notes);
  print_report(report, opt.format);
}

void run_allocs(const AllocsOptions& opt) {
  if (opt.by != "site" && opt.by != "type" && opt.by != "stack")
    throw CliError(fmt::format("allocs: unknown --by '{}' (use site, type, stack)", opt.by), kExitUsage);
  SelectedGc sel = open_selected_gc(opt.file, opt.gc, GcNeed::Any);
  const Recording& rec = *sel.recording;
  size_t first = 0;
  if (opt.from) {
    const size_t from_pos = select_gc(rec, sel.file, opt.from, GcNeed::Any);
    if (from_pos >= sel.index)
      throw CliError(fmt::format("allocs: --from GC {} is not before GC {}", *opt.from, sel.number()), kExitUsage);
    first = from_pos + 1;
  }
  const auto followed = value_or_fail(follow_alloc_samples(rec, first, sel.index), sel.file);
  const auto names = value_or_fail(AllocNames::read(rec, sel.index), sel.file);
  if (followed.empty())
    throw CliError(fmt::format("{}: no allocation samples {}(recorded without them: record with gcsnap 1.5 or later, "
                               "without --no-alloc-sites)",
                               sel.file, opt.from ? fmt::format("between GC {} and GC {} ", *opt.from, sel.number()) : ""),
                   kExitProblems);
  const std::vector<Group> groups = group_samples(opt, followed, names);
  const size_t shown = opt.top == 0 ? groups.size() : std::min(opt.top, groups.size());
  uint64_t ticks = 0, lost = 0;
  for (const FollowedSample& f : followed) ticks += f.sample.kind == AllocSampleKind::Tick, lost += f.lost;
  const uint64_t from_gc = first == 0 ? 0 : rec.gcs()[first - 1].info.gc_number;
  if (opt.format == Format::Json) {
    print_json(groups, shown, names, from_gc, sel.number(), followed.size(), ticks != 0);
    return;
  }
  std::vector<std::string> notes;
  if (shown < groups.size()) notes.push_back(fmt::format("{} of {} rows shown (--top {})", shown, groups.size(), opt.top));
  notes.push_back(ticks ? std::string("allocation ticks (.NET 8, 9: one per ~100 KiB, biased): EST figures are tick "
                                      "amounts, not unbiased estimates")
                        : std::string("EST = estimated from AllocationSampled (each byte sampled with probability "
                                      "1/102400); LIVE EST = of those, still alive after the GC"));
  if (lost) notes.push_back(fmt::format("{} samples could not be followed past a gap in the recorded ranges", lost));
  print_table(opt, groups, shown, names,
              fmt::format("Allocation {}s {}up to GC {} ({} samples)", opt.by,
                          from_gc ? fmt::format("after GC {} ", from_gc) : std::string(), sel.number(), followed.size()),
              std::move(notes));
}

}  // namespace

void add_allocs_command(CLI::App& app) {
  auto opt = std::make_shared<AllocsOptions>();
  auto* cmd = app.add_subcommand("allocs", "Sampled allocation sites: estimated bytes allocated and still live");
  cmd->add_option("file", opt->file, "recording, as FILE or FILE:GC (default GC: the last)")->required();
  add_gc_option(*cmd, opt->gc);
  cmd->add_option("--from", opt->from, "only samples taken after this GC (between two GCs)");
  cmd->add_option("--by", opt->by, "group by site (default: the innermost frame of the app's code), type or stack");
  cmd->add_option("--top", opt->top, "show the first N rows by estimated bytes (default 20; 0: all)");
  add_format_option(*cmd, opt->format);
  cmd->callback([opt] { run_allocs(*opt); });
}

}  // namespace gcsnap::cli
