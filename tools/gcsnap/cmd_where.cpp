// gcsnap where: follow one object through the later GCs of a recording: survived, moved
// from/to, generation, the GC it died at, or "still alive at the last GC".
#include <algorithm>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli_error.hpp"
#include "commands.hpp"
#include "gc_select.hpp"
#include "gcsnap/object_identity.hpp"
#include "output.hpp"

namespace gcsnap::cli {

namespace {

struct WhereOptions {
  std::string file;
  std::string address;
  std::optional<uint64_t> from_gc;
  Format format = Format::Table;
};

uint64_t parse_address(const std::string& text) {
  std::string digits = text;
  int base = 10;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    digits = digits.substr(2);
    base = 16;
  }
  const char* valid = base == 16 ? "0123456789abcdefABCDEF" : "0123456789";
  if (digits.empty() || digits.size() > 16 || digits.find_first_not_of(valid) != std::string::npos)
    throw CliError(fmt::format("'{}' is not an address (write it as 0x... or in decimal)", text), kExitUsage);
  return std::stoull(digits, nullptr, base);
}

// The object at `address` in the start GC's heap walk, if it has one: (type name, generation).
struct StartObject {
  std::string type;
  Generation generation = Generation::Unknown;
  bool exact = false;
};

std::optional<StartObject> find_start_object(const SelectedGc& sel, uint64_t address) {
  if (!sel.entry().has_heap_walk()) return std::nullopt;
  auto objects = sel.recording->read_objects(sel.index);
  if (!objects) fail_on(sel.file, objects.error());
  auto names = sel.recording->read_names(sel.index);
  if (!names) fail_on(sel.file, names.error());
  const auto& a = objects->addresses;
  auto it = std::upper_bound(a.begin(), a.end(), address);
  if (it == a.begin()) return std::nullopt;
  const auto row = static_cast<size_t>(it - a.begin()) - 1;
  if (address - a[row] >= std::max<uint64_t>(objects->sizes[row], 1)) return std::nullopt;
  return StartObject{std::string(names->type_name(objects->type_ids[row])), objects->generations[row], a[row] == address};
}

void run_where(const WhereOptions& opt) {
  const uint64_t address = parse_address(opt.address);
  SelectedGc sel = open_selected_gc(opt.file, opt.from_gc, GcNeed::Any);
  // Without a GC given, start at the last heap walk: the addresses other commands print.
  if (!opt.from_gc && !parse_gc_spec(opt.file).gc) {
    if (auto last = sel.recording->last_snapshot()) sel.index = *last;
    else sel.index = 0;
  }
  const auto start = find_start_object(sel, address);
  auto history = follow_address(*sel.recording, sel.index, address, start ? start->generation : Generation::Unknown);
  if (!history) fail_on(sel.file, history.error());
  const auto gcs = sel.recording->gcs();

  Report report;
  Table summary("summary", "");
  summary.add_column("address", "ADDRESS", ColumnKind::Address).add_column("start_gc", "FROM GC", ColumnKind::Count);
  summary.add_column("type", "TYPE").add_column("generation", "GEN").add_column("status", "STATUS");
  summary.add_column("died_at", "DIED AT GC", ColumnKind::Count).add_column("last_gc", "LAST GC", ColumnKind::Count);
  summary.add_column("last_address", "LAST ADDRESS", ColumnKind::Address);
  std::string status = "alive";
  uint64_t last_gc = history->start_gc, last_address = address;
  if (!history->steps.empty()) {
    last_gc = history->steps.back().gc_number;
    last_address = history->steps.back().to;
  }
  const bool uncertain = std::any_of(history->steps.begin(), history->steps.end(),
                                     [](const AddressStep& s) { return s.fate == Fate::Unknown; });
  if (history->died_at) status = "died";
  else if (history->gap_at || uncertain) status = "unknown";
  summary.add_row({address, history->start_gc, start ? Cell(start->type) : Cell(),
                   generation_name(history->generation_at_start), status,
                   history->died_at ? Cell(history->died_at) : Cell(), last_gc, last_address});

  Table steps("history", "");
  steps.add_column("gc", "GC", ColumnKind::Count).add_column("condemned", "COLLECTED");
  steps.add_column("fate", "FATE").add_column("from", "FROM", ColumnKind::Address);
  steps.add_column("to", "TO", ColumnKind::Address).add_column("generation", "GEN AFTER");
  for (const auto& s : history->steps) {
    const auto& info = gcs[*sel.recording->find_gc(s.gc_number)].info;
    const std::string gen = s.fate == Fate::Died ? "" : std::string(generation_name(s.generation_after)) + (s.generation_estimated ? "?" : "");
    steps.add_row({s.gc_number, fmt::format("gen{}{}", info.condemned_generation(), info.compacted ? " compacting" : ""),
                   fate_name(s.fate), s.from, s.fate == Fate::Died ? Cell() : Cell(s.to),
                   gen.empty() ? Cell() : Cell(gen)});
  }
  report.tables.push_back(std::move(summary));
  report.tables.push_back(std::move(steps));
  if (start && !start->exact)
    report.notes.push_back(fmt::format("0x{:x} is inside an object of GC {}, not at its start", address, history->start_gc));
  if (sel.entry().has_heap_walk() && !start)
    report.notes.push_back(fmt::format("GC {}'s heap walk has no object at 0x{:x}", history->start_gc, address));
  if (history->died_at) report.notes.push_back(fmt::format("died at GC {}", history->died_at));
  else if (history->gap_at)
    report.notes.push_back(fmt::format("alive at GC {}; GC {}'s ranges are missing, so it cannot be followed further",
                                       last_gc, history->gap_at));
  else if (uncertain)
    report.notes.push_back("'unknown': the address is in no range and its generation is unknown (no bounds cover it, "
                           "no heap walk has it), so survival cannot be told at a GC that did not collect gen2");
  else report.notes.push_back(fmt::format("still alive at the last GC ({}) at 0x{:x}", last_gc, last_address));
  if (std::any_of(history->steps.begin(), history->steps.end(), [](const auto& s) { return s.generation_estimated; }))
    report.notes.push_back("'?' marks generations estimated by promotion (no generation bounds covered the address)");
  print_report(report, opt.format);
}

}  // namespace

void add_where_command(CLI::App& app) {
  auto opt = std::make_shared<WhereOptions>();
  auto* cmd = app.add_subcommand("where", "Follow an object through later GCs: moved, promoted, died, or still alive");
  cmd->add_option("file", opt->file, "recording, as FILE or FILE:GC (the GC the address is from)")->required();
  cmd->add_option("address", opt->address, "object address at that GC (0x... or decimal)")->required();
  cmd->add_option_function<uint64_t>(
      "--from-gc,--gc", [opt](const uint64_t& n) { opt->from_gc = n; },
      "GC the address is from (default: the last GC with a heap walk, else the first GC)");
  add_format_option(*cmd, opt->format);
  cmd->callback([opt] { run_where(*opt); });
}

}  // namespace gcsnap::cli
