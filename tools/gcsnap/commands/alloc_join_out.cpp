// Sampled allocation sites in the output of objects, where, path and leaks (alloc_join_out.hpp).
#include "commands/alloc_join_out.hpp"

#include <algorithm>
#include <span>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "errors/cli_error.hpp"

namespace gcsnap::cli {
namespace {

std::string join_stack(const std::vector<std::string>& frames) {
  std::string out;
  for (const std::string& f : frames) out += (out.empty() ? "" : " <- ") + f;
  return out;
}

const char* kind_name(AllocSampleKind kind) { return kind == AllocSampleKind::Tick ? "tick" : "sampled"; }

}  // namespace

std::unique_ptr<AllocJoin> load_alloc_join(const std::string& file, const Recording& recording, size_t gc_pos) {
  auto join = AllocJoin::load(recording, gc_pos);
  if (!join) fail_on(file, join.error());
  if (join->empty()) return nullptr;
  return std::make_unique<AllocJoin>(std::move(*join));
}

void add_allocated_at_columns(Table& table) {
  table.add_column("allocated_at", "ALLOCATED AT");
  table.add_column("allocation_stack", "", ColumnKind::Text, Shown::MachineOnly);
}

std::vector<Cell> allocated_at_cells(const AllocJoin& join, uint64_t address) {
  const FollowedSample* f = join.find_live(address);
  if (!f) return {Cell(), Cell()};
  const AllocSample& s = f->sample;
  const std::vector<std::string> stack = join.stack(s);
  return {Cell(join.site(s)), stack.empty() ? Cell() : Cell(join_stack(stack))};
}

void add_allocated_at(Report& report, const std::string& file, const Recording& recording, size_t gc_pos,
                      uint64_t address, Format format) {
  const auto join = load_alloc_join(file, recording, gc_pos);
  if (!join) return;
  const FollowedSample* f = join->find_live(address);
  const AllocSample* s = f ? &f->sample : nullptr;
  if (format == Format::Table) {
    if (!s) return;
    const std::vector<std::string> stack = join->stack(*s);
    report.notes.push_back(stack.empty() ? fmt::format("allocated at {}", join->site(*s))
                                         : fmt::format("allocated at {} (stack: {})", join->site(*s), join_stack(stack)));
    return;
  }
  // Scripts get the same keys whether or not this object was sampled.
  Table table("allocated_at", "");
  table.add_column("address", "ADDRESS", ColumnKind::Address).add_column("site", "SITE");
  table.add_column("stack", "STACK").add_column("kind", "KIND").add_column("time_ns", "TIME", ColumnKind::Count);
  if (s) table.add_row({address, join->site(*s), join_stack(join->stack(*s)), kind_name(s->kind), s->time_ns});
  report.tables.push_back(std::move(table));
}

std::vector<std::vector<AllocSiteShare>> leak_alloc_sites(const LoadedLeaks& l, size_t top) {
  const LeakReport& r = l.report;
  if (r.suspects.empty() || r.walks.empty()) return {};
  const LeakWalk& last = r.walks.back();
  // New members are those born after the first walk of the last walk's recording (as
  // accumulated_count counts them): samples of a later block.
  size_t first_pos = last.gc_pos;
  for (const LeakWalk& w : r.walks)
    if (w.recording == last.recording) first_pos = std::min(first_pos, w.gc_pos);
  const Recording& rec = *l.recordings[r.recording_order[last.recording]];
  const auto join = load_alloc_join(l.file_of(last), rec, last.gc_pos);
  if (!join) return {};
  // The samples alive and new at the last walk, by type name: one pass for all suspects.
  // Keys own their text: type_name() returns a new string.
  std::unordered_map<std::string, std::vector<uint32_t>> by_type;
  for (size_t i = 0; i < join->samples().size(); ++i) {
    const FollowedSample& f = join->samples()[i];
    if (f.alive && f.block_pos > first_pos)
      by_type[join->names().type_name(f.sample.class_id)].push_back(static_cast<uint32_t>(i));
  }
  std::vector<std::vector<AllocSiteShare>> out;
  for (const LeakSuspect& suspect : r.suspects) {
    const auto found = by_type.find(suspect.type);
    const std::span<const uint32_t> members =
        found != by_type.end() ? std::span<const uint32_t>(found->second) : std::span<const uint32_t>{};
    auto sites = rank_alloc_sites(*join, members, top);
    if (!sites) fail_on(l.file_of(last), sites.error());
    out.push_back(std::move(*sites));
  }
  return out;
}

std::string describe_alloc_sites(const std::vector<AllocSiteShare>& sites) {
  if (sites.empty()) return "no sampled member";
  std::string out;
  for (const AllocSiteShare& s : sites)
    out += fmt::format("{}{} {:.0f}%", out.empty() ? "" : ", ", s.site, s.share * 100.0);
  return out;
}

Table leak_alloc_sites_table(const std::vector<std::vector<AllocSiteShare>>& sites) {
  Table table("alloc_sites", "Where the suspects' new members were allocated (sampled)");
  table.add_column("rank", "#", ColumnKind::Count).add_column("site", "SITE");
  table.add_column("samples", "SAMPLES", ColumnKind::Count).add_column("share", "SHARE", ColumnKind::Share);
  table.add_column("est_bytes", "EST. BYTES", ColumnKind::Bytes).add_column("est_objects", "EST. OBJECTS", ColumnKind::Count);
  for (size_t i = 0; i < sites.size(); ++i)
    for (const AllocSiteShare& s : sites[i])
      table.add_row({i + 1, s.site, s.samples, Cell::real(s.share), static_cast<uint64_t>(s.est_bytes + 0.5),
                     static_cast<uint64_t>(s.est_objects + 0.5)});
  return table;
}

std::string leak_alloc_sites_note() {
  return "alloc at = the allocation sites (innermost app frame) of the sampled objects of the suspect's type "
         "born after the first heap walk and alive at the last, with their share of those samples";
}

}  // namespace gcsnap::cli
