// gcsnap info FILE: how the file ends, then one row per GC (docs/cli.md "gcsnap info").
#include <memory>
#include <optional>
#include <vector>
#include <string>
#include <utility>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "errors/cli_error.hpp"
#include "commands/commands.hpp"
#include "loading/gc_select.hpp"
#include "commands/walk_skip_text.hpp"
#include "output/memory_text.hpp"
#include "gcsnap/enum_names.hpp"
#include "gcsnap/reader.hpp"
#include "output/output.hpp"

namespace gcsnap::cli {
namespace {

struct InfoOptions {
  std::string file;
  bool snapshots = false;
  Format format = Format::Table;
};

// The GCs to list: all, or those with a heap walk, kept or dropped (--snapshots).
std::vector<size_t> listed_gcs(const Recording& r, bool snapshots) {
  std::vector<size_t> out;
  for (size_t i = 0; i < r.gcs().size(); ++i)
    if (!snapshots || r.gcs()[i].has_heap_walk() || r.gcs()[i].walk_dropped()) out.push_back(i);
  return out;
}

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

/// The walk skipped (or abandoned) at GC i (format §6.15), if one was: the budget's at gen2 GCs
/// only (as it was written), the OOM guard's and the memory cap's at any GC.
std::optional<WalkSkip> skipped_walk(const Recording& r, size_t i) {
  const GcEntry& e = r.gcs()[i];
  if (e.info.trigger != SnapshotTrigger::None) return std::nullopt;
  auto skip = r.read_walk_skip(i);
  if (!skip || !*skip) return std::nullopt;
  if ((*skip)->reason == walk_skip_reason::kWalkTimeBudget && e.info.condemned_generation() != 2) return std::nullopt;
  return **skip;
}

/// The SNAPSHOT cell: the trigger, or why the walk was skipped (§6.15) or dropped (§6.17).
/// The machine formats get the parts: trigger_key and walk_estimate_ns.
std::string snapshot_text(const Recording& r, size_t i) {
  if (r.gcs()[i].walk_dropped()) return trigger_name(r.gcs()[i].info.trigger) + ", dropped: size cap";
  const auto skip = skipped_walk(r, i);
  return skip ? walk_skip_cell(*skip) : trigger_name(r.gcs()[i].info.trigger);
}

/// How many gen2 GCs the policy did not walk, and the budget (per mille) the last of them names.
std::pair<uint64_t, uint32_t> skipped_walks(const Recording& r) {
  uint64_t n = 0;
  uint32_t budget = 0;
  for (size_t i = 0; i < r.gcs().size(); ++i) {
    const GcEntry& e = r.gcs()[i];
    if (e.info.trigger != SnapshotTrigger::None || e.info.condemned_generation() != 2) continue;
    auto skip = r.read_walk_skip(i);
    if (skip && *skip && (*skip)->reason == walk_skip_reason::kWalkTimeBudget) {
      ++n;
      budget = (*skip)->budget_per_mille;
    }
  }
  return {n, budget};
}

// §6.17: which walks the size cap took, and which it did not let happen.
void add_dropped_walk_notes(const Recording& r, std::vector<std::string>& notes) {
  std::string gcs;
  uint64_t dropped = 0, freed = 0, capped = 0;
  for (size_t i = 0; i < r.gcs().size(); ++i) {
    const GcEntry& e = r.gcs()[i];
    if (e.walk_dropped()) {
      gcs += fmt::format("{}{}", dropped ? ", " : "", e.info.gc_number);
      ++dropped;
      freed += e.dropped_bytes;
    } else if (auto skip = skipped_walk(r, i); skip && skip->reason == walk_skip_reason::kSizeCap) {
      ++capped;
    }
  }
  if (dropped)
    notes.push_back(fmt::format("{} heap walk(s) dropped to keep the recording under its size cap (--max-size): GC {}; "
                                "{} bytes of objects freed; their roots, ranges and types remain",
                                dropped, gcs, freed));
  if (capped)
    notes.push_back(fmt::format("{} heap walk(s) not taken: one as large as the last would not fit under the size cap "
                                "(SNAPSHOT 'skipped: size cap')",
                                capped));
}

/// What a recording of the events source (format-spec.md §3) lacks, said once.
void add_source_note(const Recording& r, std::vector<std::string>& notes) {
  if ((r.required_features() & kFeatureEventsSource) == 0) return;
  uint64_t background = 0;
  for (const auto& e : r.gcs()) background += e.info.background() ? 1 : 0;
  notes.push_back(fmt::format("recorded from the runtime's events (record --source events): background GC stays on "
                              "({} background GC(s), GEN 'bg'); roots, objects and dependent handles only at heap "
                              "walks, each at a full GC gcsnap forced (on demand, or by policy after the GC the "
                              "policy picked)",
                              background));
}

Table file_table(const std::string& file, const Recording& r) {
  Table t("file", "");
  t.add_column("file", "FILE").add_column("bytes", "SIZE", ColumnKind::Bytes);
  t.add_column("version", "VERSION").add_column("end", "END").add_column("gcs", "GCS", ColumnKind::Count);
  t.add_column("snapshots", "SNAPSHOTS", ColumnKind::Count);
  // The table's readers get a note instead (add_dropped_walk_notes).
  t.add_column("dropped_walks", "", ColumnKind::Count, Shown::MachineOnly);
  t.add_column("dropped_bytes", "", ColumnKind::Bytes, Shown::MachineOnly);
  uint64_t snapshots = 0, dropped = 0, freed = 0;
  for (const auto& e : r.gcs()) {
    snapshots += e.has_heap_walk() ? 1 : 0;
    dropped += e.walk_dropped() ? 1 : 0;
    freed += e.dropped_bytes;
  }
  t.add_row({file, r.file_size(), fmt::format("{}.{}", r.major_version(), r.minor_version()), std::string(file_end_name(r.end())),
             static_cast<uint64_t>(r.gcs().size()), snapshots, dropped, freed});
  return t;
}

Table gc_table(const Recording& r, const std::vector<size_t>& listed) {
  Table t("gcs", "");
  t.add_column("gc", "GC", ColumnKind::Count).add_column("generation", "GEN").add_column("reason", "REASON");
  t.add_column("compacted", "COMPACTED", ColumnKind::Boolean);
  // People read "skipped: budget, est. 12 ms"; scripts get the trigger and the estimate apart.
  t.add_column("trigger", "SNAPSHOT", ColumnKind::Text, Shown::TableOnly);
  t.add_column("trigger", "", ColumnKind::Text, Shown::MachineOnly);
  t.add_column("walk_estimate_ns", "", ColumnKind::Count, Shown::MachineOnly);
  t.add_column("skip_reason", "", ColumnKind::Text, Shown::MachineOnly);
  t.add_column("skip_need_bytes", "", ColumnKind::Count, Shown::MachineOnly);
  t.add_column("skip_available_bytes", "", ColumnKind::Count, Shown::MachineOnly);
  t.add_column("roots", "ROOTS", ColumnKind::Count).add_column("surviving_ranges", "SURVIVING", ColumnKind::Count);
  t.add_column("moved_ranges", "MOVED", ColumnKind::Count).add_column("objects", "OBJECTS", ColumnKind::Count);
  t.add_column("references", "REFS", ColumnKind::Count);
  t.add_column("dependent_handles", "DEP HANDLES", ColumnKind::Count);
  t.add_column("new_types", "NEW TYPES", ColumnKind::Count);
  t.add_column("bytes", "ON DISK", ColumnKind::Bytes).add_column("drops", "DROPS", ColumnKind::Text, Shown::TableOnly);
  for (const char* key : {"dropped_roots", "dropped_ranges", "dropped_objects", "dropped_references", "drop_reasons"})
    t.add_column(key, "", ColumnKind::Count, Shown::MachineOnly);
  t.add_column("walk_dropped", "", ColumnKind::Boolean, Shown::MachineOnly);
  t.add_column("walk_dropped_bytes", "", ColumnKind::Bytes, Shown::MachineOnly);
  for (size_t i : listed) {
    const GcEntry& e = r.gcs()[i];
    std::string drops = drops_text(e.drops);
    // Pairs declared by the block's dependent-handle sections; empty when it has none (not
    // captured: a GC without a heap walk, or a 1.0 file).
    auto pairs = r.dependent_handle_count(i);
    Cell dependent = pairs && *pairs ? Cell(**pairs) : Cell::empty();
    const auto skip = skipped_walk(r, i);
    const bool budget = skip && skip->reason == walk_skip_reason::kWalkTimeBudget;
    const Cell estimate = budget && skip->estimated_walk_ns ? Cell(skip->estimated_walk_ns) : Cell();
    const auto [need, available] = skip ? walk_skip_bytes(*skip) : std::pair<uint64_t, uint64_t>{};
    const bool bytes = skip && !budget;
    t.add_row({e.info.gc_number, fmt::format("gen{}{}", e.info.condemned_generation(), e.info.background() ? " bg" : ""),
               e.info.reason == GcReason::Induced ? "induced" : "other", Cell::boolean(e.info.compacted),
               snapshot_text(r, i), skip ? std::string("skipped") : trigger_name(e.info.trigger), estimate,
               skip ? Cell(std::string(walk_skip_key(skip->reason))) : Cell(), bytes ? Cell(need) : Cell(),
               bytes ? Cell(available) : Cell(),
               e.root_count, e.surviving_range_count, e.moved_range_count, e.object_count, e.reference_count,
               dependent, e.new_type_count, e.block_size, drops.empty() ? Cell::empty() : Cell(drops),
               e.drops.roots, e.drops.ranges, e.drops.objects, e.drops.references, uint64_t{e.drops.reasons},
               Cell::boolean(e.walk_dropped()), e.dropped_bytes});
  }
  return t;
}

// TIME: when the GC started, "12.345 s" after the first GC started; PAUSE: until it finished.
// "-" when the recorder gave no end time.
Table heap_table(const Recording& r, const std::vector<size_t>& listed, std::vector<std::string>& notes) {
  Table t("heap", "Heap after each GC (bytes in use per generation, from the runtime's generation bounds)");
  t.add_column("gc", "GC", ColumnKind::Count);
  t.add_column("time", "TIME", ColumnKind::Count, Shown::TableOnly).add_column("time_ns", "", ColumnKind::Count, Shown::MachineOnly);
  t.add_column("pause", "PAUSE", ColumnKind::Count, Shown::TableOnly).add_column("pause_ns", "", ColumnKind::Count, Shown::MachineOnly);
  static constexpr std::pair<const char*, const char*> kGenerations[] = {
      {"gen0_bytes", "GEN0"}, {"gen1_bytes", "GEN1"}, {"gen2_bytes", "GEN2"}, {"loh_bytes", "LOH"}, {"poh_bytes", "POH"}};
  for (const auto& [key, title] : kGenerations) t.add_column(key, title, ColumnKind::Bytes);
  t.add_column("total_bytes", "TOTAL", ColumnKind::Bytes);
  const uint64_t origin = r.gcs().empty() ? 0 : r.gcs().front().info.start_time_ns;
  uint64_t unreadable = 0;
  for (size_t i : listed) {
    const GcInfo& info = r.gcs()[i].info;
    const bool timed = info.end_time_ns >= info.start_time_ns && info.end_time_ns != 0 && info.start_time_ns >= origin;
    const uint64_t since = timed ? info.start_time_ns - origin : 0, pause = timed ? info.end_time_ns - info.start_time_ns : 0;
    std::vector<Cell> row{info.gc_number, timed ? Cell(fmt::format("{:.3f} s", static_cast<double>(since) / 1e9)) : Cell(),
                          timed ? Cell(since) : Cell(),
                          timed ? Cell(fmt::format("{:.2f} ms", static_cast<double>(pause) / 1e6)) : Cell(),
                          timed ? Cell(pause) : Cell()};
    auto bounds = r.read_generation_bounds(i);
    if (!bounds) ++unreadable;
    // No bounds recorded (a hand-made file): unknown, not an empty heap.
    const bool known = bounds && !bounds->empty();
    uint64_t in_use[5] = {}, total = 0;
    if (known)
      for (const GenerationRange& g : *bounds) {
        const auto k = static_cast<size_t>(g.generation);
        if (k < 5) in_use[k] += g.length;
        total += g.length;
      }
    for (uint64_t bytes : in_use) row.push_back(known ? Cell(bytes) : Cell());
    row.push_back(known ? Cell(total) : Cell());
    t.add_row(std::move(row));
  }
  if (unreadable) notes.push_back(fmt::format("{} GC(s) have generation bounds that cannot be read (empty cells)", unreadable));
  return t;
}

// What the process's memory was made of after each listed GC that has a record (format §6.16);
// no table when none has. The fixed keys of the JSON are docs/cli.md's.
Table memory_table(const Recording& r, const std::vector<size_t>& listed, std::vector<std::string>& notes) {
  Table t("memory", "Memory after each GC (resident bytes; MANAGED is the GC heap's resident part)");
  t.add_column("gc", "GC", ColumnKind::Count);
  t.add_column("rss_bytes", "RSS", ColumnKind::Bytes).add_column("gc_resident_bytes", "MANAGED", ColumnKind::Bytes);
  t.add_column("live_object_bytes", "LIVE", ColumnKind::Bytes);
  t.add_column("free_or_fragmented_bytes", "FREE/FRAG", ColumnKind::Bytes);
  t.add_column("native_and_other_bytes", "NATIVE+OTHER", ColumnKind::Bytes);
  t.add_column("gcsnap_bytes", "GCSNAP", ColumnKind::Bytes);
  t.add_column("anonymous_bytes", "ANON", ColumnKind::Bytes).add_column("code_bytes", "CODE", ColumnKind::Bytes);
  t.add_column("mapped_file_bytes", "FILES", ColumnKind::Bytes).add_column("stack_bytes", "STACKS", ColumnKind::Bytes);
  t.add_column("cgroup_usage_bytes", "CGROUP", ColumnKind::Bytes).add_column("cgroup_limit_bytes", "LIMIT", ColumnKind::Bytes);
  for (const char* key : {"pss_bytes", "swap_bytes", "gc_committed_bytes", "gc_in_use_bytes", "recorder_bytes",
                          "sample_delay_ns", "private_bytes"})
    t.add_column(key, "", key == std::string("sample_delay_ns") ? ColumnKind::Count : ColumnKind::Bytes,
                 Shown::MachineOnly);
  uint64_t unreadable = 0;
  for (size_t i : listed) {
    auto read = r.read_memory_accounting(i);
    if (!read) ++unreadable;
    if (!read || !*read) continue;
    const MemoryAccounting& m = **read;
    auto when = [](bool known, uint64_t v) { return known ? Cell(v) : Cell(); };
    const bool process = m.has(memory_present::kProcess), live = m.has(memory_present::kLiveObjects);
    const bool gc = m.has(memory_present::kGcMappings);
    t.add_row({r.gcs()[i].info.gc_number, when(process, m.rss_bytes), when(gc, m.gc_resident_bytes),
               when(live, m.live_object_bytes), when(live && gc, m.free_or_fragmented_bytes()),
               when(process && gc, m.native_and_other_bytes()), when(process && m.recorder_bytes, m.gcsnap_bytes()),
               when(process, m.app_anonymous_bytes()),
               when(process, m.code_bytes), when(process, m.mapped_file_bytes), when(process, m.stack_bytes),
               when(m.has(memory_present::kCgroupUsage), m.cgroup_usage_bytes),
               when(m.has(memory_present::kCgroupLimit), m.cgroup_limit_bytes), when(m.has_pss_swap(), m.pss_bytes),
               when(m.has_pss_swap(), m.swap_bytes), when(gc, m.gc_committed_bytes), Cell(m.gc_in_use_bytes),
               Cell(m.recorder_bytes), Cell(m.sample_delay_ns), when(m.has(memory_present::kPrivate), m.private_bytes)});
  }
  if (unreadable) notes.push_back(fmt::format("{} GC(s) have a memory record that cannot be read", unreadable));
  return t;
}
/// How the walks' values were recorded (format-spec.md §6.26): whether string content is in
/// the file is what a user must know before sharing it.
void add_values_note(const Recording& r, std::vector<std::string>& notes) {
  uint64_t hashed = 0, captured = 0, stripped = 0;
  uint32_t chars = 0;
  for (size_t i = 0; i < r.gcs().size(); ++i) {
    auto capture = r.read_value_capture(i);
    if (!capture || !*capture) continue;
    ++hashed;
    if ((*capture)->flags & value_flags::kContentsCaptured) ++captured, chars = (*capture)->capture_chars;
    if ((*capture)->flags & value_flags::kContentsStripped) ++stripped;
  }
  if (hashed == 0) return;
  std::string text = fmt::format("strings recorded as length and keyed hash at {} heap walk(s)", hashed);
  if (captured)
    text += fmt::format("; their first {} characters too at {} walk(s) (record --capture-strings: the file holds "
                        "string content; gcsnap strip-strings removes it)",
                        chars, captured);
  else if (stripped)
    text += fmt::format("; captured content removed (strip-strings) at {} walk(s)", stripped);
  else
    text += "; no string content";
  notes.push_back(std::move(text));
}

void run_info(const InfoOptions& o) {
  auto recording = open_recording(o.file);
  const Recording& r = *recording;
  Report report;
  report.tables.push_back(file_table(o.file, r));
  std::vector<std::string> advice;
  if (auto at = memory_summary_gc(r)) {
    // The text opens with where the memory is, at the last walked GC that says so.
    const MemoryAccounting m = **r.read_memory_accounting(*at);
    report.tables.back().set_title(fmt::format("GC {}: {}\n{}", r.gcs()[*at].info.gc_number, memory_summary(m),
                                               memory_bar(m)));
    advice = memory_advice(r, *at, m);
  }
  const std::vector<size_t> listed = listed_gcs(r, o.snapshots);
  report.tables.push_back(gc_table(r, listed));
  report.tables.push_back(heap_table(r, listed, report.notes));
  Table memory = memory_table(r, listed, report.notes);
  if (!memory.empty()) report.tables.push_back(std::move(memory));
  for (std::string& line : advice) report.notes.push_back(std::move(line));
  if (r.end() == FileEnd::NoIndex)
    report.notes.push_back("the file has no index (the writer did not finish it); its GCs were found by scanning");
  else if (r.end() != FileEnd::Complete)
    report.notes.push_back(fmt::format("the file is {} after offset 0x{:x} ({}: {}); only the GCs before it are listed",
                                       file_end_name(r.end()), r.end_offset(), error_code_name(r.end_error().code),
                                       r.end_error().detail));
  uint64_t dropped = 0;
  for (const auto& e : r.gcs()) dropped += e.drops.any() ? 1 : 0;
  if (dropped) report.notes.push_back(fmt::format("{} GC(s) have data the recorder dropped (DROPS column)", dropped));
  std::vector<WalkSkip> skips;
  for (size_t i = 0; i < r.gcs().size(); ++i)
    if (auto skip = skipped_walk(r, i)) skips.push_back(*skip);
  for (std::string& line : walk_skip_notes(skips)) report.notes.push_back(std::move(line));
  add_dropped_walk_notes(r, report.notes);
  add_source_note(r, report.notes);
  add_values_note(r, report.notes);
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
  cmd->add_flag("--snapshots", options->snapshots, "list only the GCs with a heap walk");
  add_format_option(*cmd, options->format);
  cmd->callback([options] { run_info(*options); });
}

}  // namespace gcsnap::cli
