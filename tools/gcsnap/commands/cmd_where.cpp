// gcsnap where: follow one object through the later GCs of a recording: survived, moved
// from/to, generation, the GC it died at, or "still alive at the last GC".
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "commands/commands.hpp"
#include "loading/gc_select.hpp"
#include "gcsnap/enum_names.hpp"
#include "gcsnap/heap_points.hpp"
#include "gcsnap/object_identity.hpp"
#include "loading/heap_load.hpp"
#include "commands/alloc_join_out.hpp"
#include "output/output.hpp"

namespace gcsnap::cli {

namespace {

struct WhereOptions {
  std::string file;
  std::string address;
  std::optional<uint64_t> from_gc;
  bool no_cache = false;
  Format format = Format::Table;
};

// The object at `address` in the start GC's heap walk, if it has one: (type name, generation).
struct StartObject {
  std::string type;
  Generation generation = Generation::Unknown;
  bool exact = false;
  uint64_t object_start = 0;  ///< the object's start (differs from the address when not exact)
  bool unreachable_without_dependent = false;  ///< no root reaches it and the GC has no §6.11 section
};

std::optional<StartObject> find_start_object(const SelectedGc& sel, uint64_t address, bool no_cache) {
  if (!sel.entry().has_heap_walk()) return std::nullopt;
  // From the index when it has one, decoding only the pieces the search reads; else (or when a
  // piece is damaged) from the recording.
  const auto points = value_or_fail(
      HeapPoints::open(sel.file, *sel.recording, sel.index, no_cache ? IndexUse::Ignore : IndexUse::Existing),
      sel.file);
  const std::optional<IndexedObject> found = value_or_fail(points->find_object(address), sel.file);
  if (!found) return std::nullopt;
  auto names = sel.recording->read_names(sel.index);
  if (!names) fail_on(sel.file, names.error());
  StartObject start{std::string(names->type_name(found->type_id)), found->generation, found->address == address};
  start.object_start = found->address;
  // The case where a ConditionalWeakTable value looks like garbage although it survives: no
  // strong root reaches it in a GC whose block has no dependent-handles section.
  if (start.exact && !value_or_fail(points->has_dependent_handles(), sel.file))
    start.unreachable_without_dependent = !value_or_fail(points->is_reachable(found->node), sel.file);
  return start;
}

// How the story ends: where it was last seen and whether it is alive, dead or unknown.
struct Outcome {
  uint64_t last_gc = 0, last_address = 0;
  bool uncertain = false;  // some step could not tell survival
  std::string status;
};

Outcome outcome_of(const AddressHistory& h) {
  Outcome o{h.start_gc, h.address, false, "alive"};
  if (!h.steps.empty()) {
    o.last_gc = h.steps.back().gc_number;
    o.last_address = h.steps.back().to;
  }
  o.uncertain = std::any_of(h.steps.begin(), h.steps.end(), [](const AddressStep& s) { return s.fate == Fate::Unknown; });
  if (h.died_at) o.status = "died";
  else if (h.gap_at || o.uncertain) o.status = "unknown";
  return o;
}

Table summary_table(const AddressHistory& h, const std::optional<StartObject>& start, const Outcome& o) {
  Table summary("summary", "");
  summary.add_column("address", "ADDRESS", ColumnKind::Address).add_column("start_gc", "FROM GC", ColumnKind::Count);
  summary.add_column("type", "TYPE", ColumnKind::TypeName).add_column("generation", "GEN").add_column("status", "STATUS");
  summary.add_column("died_at", "DIED AT GC", ColumnKind::Count).add_column("last_gc", "LAST GC", ColumnKind::Count);
  summary.add_column("last_address", "LAST ADDRESS", ColumnKind::Address);
  summary.add_row({h.address, h.start_gc, start ? Cell(start->type) : Cell(), generation_name(h.generation_at_start),
                   o.status, h.died_at ? Cell(h.died_at) : Cell(), o.last_gc, o.last_address});
  return summary;
}

Table history_table(const AddressHistory& h, const Recording& rec) {
  // People read "gen1 compacting" and "gen2?"; scripts get the parts as separate values.
  Table steps("history", "");
  steps.add_column("gc", "GC", ColumnKind::Count).add_column("condemned", "COLLECTED", ColumnKind::Text, Shown::TableOnly);
  steps.add_column("condemned", "", ColumnKind::Text, Shown::MachineOnly);
  steps.add_column("compacted", "", ColumnKind::Boolean, Shown::MachineOnly);
  steps.add_column("fate", "FATE").add_column("from", "FROM", ColumnKind::Address);
  steps.add_column("to", "TO", ColumnKind::Address).add_column("generation", "GEN AFTER", ColumnKind::Text, Shown::TableOnly);
  steps.add_column("generation", "", ColumnKind::Text, Shown::MachineOnly);
  steps.add_column("generation_estimated", "", ColumnKind::Boolean, Shown::MachineOnly);
  for (const auto& s : h.steps) {
    const auto& info = rec.gcs()[*rec.find_gc(s.gc_number)].info;
    const bool died = s.fate == Fate::Died;
    const std::string gen(generation_name(s.generation_after));
    const std::string condemned = fmt::format("gen{}", info.condemned_generation());
    steps.add_row({s.gc_number, condemned + (info.compacted ? " compacting" : ""), condemned,
                   Cell::boolean(info.compacted), fate_name(s.fate), s.from, died ? Cell() : Cell(s.to),
                   died ? Cell() : Cell(gen + (s.generation_estimated ? "?" : "")), died ? Cell() : Cell(gen),
                   died ? Cell() : Cell::boolean(s.generation_estimated)});
  }
  return steps;
}

std::vector<std::string> notes_for(const AddressHistory& h, const std::optional<StartObject>& start,
                                   const Outcome& o) {
  std::vector<std::string> notes;
  // A GC with a heap walk and an address that is no object start never gets here (run_where).
  if (h.died_at) notes.push_back(fmt::format("died at GC {}", h.died_at));
  else if (h.gap_at)
    notes.push_back(fmt::format("alive at GC {}; GC {}'s ranges are missing, so it cannot be followed further",
                                o.last_gc, h.gap_at));
  else if (o.uncertain)
    notes.push_back("'unknown': the address is in no range and its generation is unknown (no bounds cover it, "
                    "no heap walk has it), so survival cannot be told at a GC that did not collect gen2");
  else notes.push_back(fmt::format("still alive at the last GC ({}) at 0x{:x}", o.last_gc, o.last_address));
  if (start && start->unreachable_without_dependent && !h.steps.empty() && h.steps.front().fate != Fate::Died)
    notes.push_back(fmt::format("no root reaches it in GC {}'s heap walk, yet it survives: this recording has no "
                                "dependent-handle section: objects kept alive only by a ConditionalWeakTable look "
                                "unreachable", h.start_gc));
  if (std::any_of(h.steps.begin(), h.steps.end(), [](const auto& s) { return s.generation_estimated; }))
    notes.push_back("'?' marks generations estimated by promotion (no generation bounds covered the address)");
  return notes;
}

void run_where(const WhereOptions& opt) {
  const uint64_t address = parse_address(opt.address);
  SelectedGc sel = open_selected_gc(opt.file, opt.from_gc, GcNeed::Any);
  // Without a GC given, start at the last heap walk: the addresses other commands print.
  if (!opt.from_gc && !parse_gc_spec(opt.file).gc) sel.index = sel.recording->last_snapshot().value_or(0);
  const auto start = find_start_object(sel, address, opt.no_cache);
  if (sel.entry().has_heap_walk() && !(start && start->exact)) {
    // Not an object of the heap walk: following it would be a story about nothing.
    const std::string what = start ? fmt::format("it is inside 0x{:x} {} at offset +0x{:x}", start->object_start,
                                                 start->type, address - start->object_start)
                                   : "no object of the heap walk contains it";
    Report report;
    AddressHistory none;
    none.address = address;
    none.start_gc = sel.number();
    const Outcome unknown{sel.number(), address, true, "unknown"};
    report.tables.push_back(summary_table(none, std::nullopt, unknown));
    report.tables.push_back(history_table(none, *sel.recording));
    report.notes.push_back(fmt::format("0x{:x} is not the address of an object in GC {} ({})", address, sel.number(), what));
    print_report(report, opt.format);
    throw CliError(fmt::format("{}: 0x{:x} is not the address of an object in GC {} ({})", sel.file, address,
                               sel.number(), what),
                   kExitUsage);
  }
  auto history = follow_address(*sel.recording, sel.index, address, start ? start->generation : Generation::Unknown);
  if (!history) fail_on(sel.file, history.error());
  const Outcome outcome = outcome_of(*history);
  Report report;
  report.tables.push_back(summary_table(*history, start, outcome));
  report.tables.push_back(history_table(*history, *sel.recording));
  report.notes = notes_for(*history, start, outcome);
  add_allocated_at(report, sel.file, *sel.recording, sel.index, address, opt.format);
  print_report(report, opt.format);
}

}  // namespace

void add_where_command(CLI::App& app) {
  auto opt = std::make_shared<WhereOptions>();
  auto* cmd = app.add_subcommand("where", "Follow an object through later GCs: moved, promoted, died, or still alive");
  cmd->add_option("file", opt->file, "recording, as FILE or FILE:GC (the GC the address is from)")->required();
  cmd->add_option("address", opt->address, "object address at that GC (hex, 0x optional)")->required();
  cmd->add_option_function<uint64_t>(
      "--from-gc,--gc", [opt](const uint64_t& n) { opt->from_gc = n; },
      "GC the address is from (default: the last GC with a heap walk, else the first GC)");
  add_no_cache_option(*cmd, opt->no_cache);
  add_format_option(*cmd, opt->format);
  cmd->callback([opt] { run_where(*opt); });
}

}  // namespace gcsnap::cli
