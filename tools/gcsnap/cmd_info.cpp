// gcsnap info FILE: how the file ends, then one row per GC (docs/cli.md "gcsnap info").
#include <memory>
#include <string>
#include <utility>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli_error.hpp"
#include "commands.hpp"
#include "gc_select.hpp"
#include "gcsnap/enum_names.hpp"
#include "gcsnap/reader.hpp"
#include "output.hpp"

namespace gcsnap::cli {
namespace {

struct InfoOptions {
  std::string file;
  Format format = Format::Table;
};

std::string trigger_name(SnapshotTrigger t) {
  switch (t) {
    case SnapshotTrigger::None: return "none";
    case SnapshotTrigger::Policy: return "policy";
    case SnapshotTrigger::OnDemand: return "on-demand";
    case SnapshotTrigger::Always: return "always";
  }
  return "unknown";
}

std::string drops_text(const DropCounts& d) {
  if (!d.any()) return "";
  std::string s;
  auto add = [&](uint64_t n, const char* what) {
    if (n) s += fmt::format("{}{} {}", s.empty() ? "" : ", ", n, what);
  };
  add(d.roots, "roots");
  add(d.ranges, "ranges");
  add(d.objects, "objects");
  add(d.references, "references");
  if (d.reasons) s += fmt::format("{}reasons 0x{:x}", s.empty() ? "" : ", ", d.reasons);
  return s;
}

/// The SNAPSHOT cell: the trigger, or why the policy skipped the walk (format §6.15).
std::string snapshot_text(const Recording& r, size_t i) {
  const GcEntry& e = r.gcs()[i];
  if (e.info.trigger != SnapshotTrigger::None || e.info.condemned_generation() != 2) return trigger_name(e.info.trigger);
  auto skip = r.read_walk_skip(i);
  if (!skip || !*skip) return trigger_name(e.info.trigger);
  if ((*skip)->reason == walk_skip_reason::kWalkTimeBudget) {
    // The estimate says why: a walk this long did not fit the share of the time since the last.
    if ((*skip)->estimated_walk_ns == 0) return "skipped: budget";
    return fmt::format("skipped: budget, est. {} ms", ((*skip)->estimated_walk_ns + 500000) / 1000000);
  }
  return fmt::format("skipped: reason {}", (*skip)->reason);
}

/// How many gen2 GCs the policy did not walk, and the budget (per mille) the last of them names.
std::pair<uint64_t, uint32_t> skipped_walks(const Recording& r) {
  uint64_t n = 0;
  uint32_t budget = 0;
  for (size_t i = 0; i < r.gcs().size(); ++i) {
    const GcEntry& e = r.gcs()[i];
    if (e.info.trigger != SnapshotTrigger::None || e.info.condemned_generation() != 2) continue;
    auto skip = r.read_walk_skip(i);
    if (skip && *skip) {
      ++n;
      budget = (*skip)->budget_per_mille;
    }
  }
  return {n, budget};
}

Table file_table(const std::string& file, const Recording& r) {
  Table t("file", "");
  t.add_column("file", "FILE").add_column("bytes", "SIZE", ColumnKind::Bytes);
  t.add_column("version", "VERSION").add_column("end", "END").add_column("gcs", "GCS", ColumnKind::Count);
  t.add_column("snapshots", "SNAPSHOTS", ColumnKind::Count);
  uint64_t snapshots = 0;
  for (const auto& e : r.gcs()) snapshots += e.has_heap_walk() ? 1 : 0;
  t.add_row({file, r.file_size(), fmt::format("{}.{}", r.major_version(), r.minor_version()), std::string(file_end_name(r.end())),
             static_cast<uint64_t>(r.gcs().size()), snapshots});
  return t;
}

Table gc_table(const Recording& r) {
  Table t("gcs", "");
  t.add_column("gc", "GC", ColumnKind::Count).add_column("generation", "GEN").add_column("reason", "REASON");
  t.add_column("compacted", "COMPACTED").add_column("trigger", "SNAPSHOT");
  t.add_column("roots", "ROOTS", ColumnKind::Count).add_column("surviving_ranges", "SURVIVING", ColumnKind::Count);
  t.add_column("moved_ranges", "MOVED", ColumnKind::Count).add_column("objects", "OBJECTS", ColumnKind::Count);
  t.add_column("references", "REFS", ColumnKind::Count);
  t.add_column("dependent_handles", "DEP HANDLES", ColumnKind::Count);
  t.add_column("new_types", "NEW TYPES", ColumnKind::Count);
  t.add_column("bytes", "ON DISK", ColumnKind::Bytes).add_column("drops", "DROPS");
  for (size_t i = 0; i < r.gcs().size(); ++i) {
    const GcEntry& e = r.gcs()[i];
    std::string drops = drops_text(e.drops);
    // Pairs declared by the block's dependent-handle sections; empty when it has none (not
    // captured: a GC without a heap walk, or a 1.0 file).
    auto pairs = r.dependent_handle_count(i);
    Cell dependent = pairs && *pairs ? Cell(**pairs) : Cell::empty();
    t.add_row({e.info.gc_number, fmt::format("gen{}", e.info.condemned_generation()),
               e.info.reason == GcReason::Induced ? "induced" : "other", e.info.compacted ? "yes" : "no",
               snapshot_text(r, i), e.root_count, e.surviving_range_count, e.moved_range_count,
               e.object_count, e.reference_count, dependent, e.new_type_count, e.block_size,
               drops.empty() ? Cell::empty() : Cell(drops)});
  }
  return t;
}

void run_info(const InfoOptions& o) {
  auto recording = open_recording(o.file);
  const Recording& r = *recording;
  Report report;
  report.tables.push_back(file_table(o.file, r));
  report.tables.push_back(gc_table(r));
  if (r.end() == FileEnd::NoIndex)
    report.notes.push_back("the file has no index (the writer did not finish it); its GCs were found by scanning");
  else if (r.end() != FileEnd::Complete)
    report.notes.push_back(fmt::format("the file is {} after offset 0x{:x} ({}: {}); only the GCs before it are listed",
                                       file_end_name(r.end()), r.end_offset(), error_code_name(r.end_error().code),
                                       r.end_error().detail));
  uint64_t dropped = 0;
  for (const auto& e : r.gcs()) dropped += e.drops.any() ? 1 : 0;
  if (dropped) report.notes.push_back(fmt::format("{} GC(s) have data the recorder dropped (DROPS column)", dropped));
  if (auto [skipped, budget] = skipped_walks(r); skipped) {
    report.notes.push_back(fmt::format(
        "{} gen2 GC(s) without a heap walk: the default policy's walk-time budget (a walk, estimated from the last "
        "one and the heap's size, may take at most {}.{} % of the wall time since the last walk) skipped them "
        "(SNAPSHOT 'skipped: budget'); use --policy gen2 or all to walk every one",
        skipped, budget / 10, budget % 10));
  }
  print_report(report, o.format);
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto options = std::make_shared<InfoOptions>();
  auto* cmd = app.add_subcommand("info", "Show how a recording ends and list its GCs");
  cmd->add_option("FILE", options->file, "recording (.snap)")->required();
  add_format_option(*cmd, options->format);
  cmd->callback([options] { run_info(*options); });
}

}  // namespace gcsnap::cli
