#include "commands/leaks_bounded.hpp"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "commands/leaks_text.hpp"
#include "output/output.hpp"
#include "output/short_names.hpp"

namespace gcsnap::cli {

namespace {

// LINE cut to WIDTH columns (0: as it is); type names are shortened before, this only keeps a
// long holder from running past the edge.
std::string fitted(std::string line, size_t width) {
  if (width && display_width(line) > width) line = shorten_type_name(line, width);
  return line + '\n';
}

// The least abbreviated holder that fits WIDTH after the label, as the suspects' `held by`.
std::string holder_text(const AccumulationPoint& p, size_t width) {
  std::string holder;
  for (int level = 0; level <= 2; ++level) {
    holder = accumulation_text(p, level);
    if (width == 0 || 14 + display_width(holder) <= width) break;
  }
  return holder;
}

}  // namespace

std::string bounded_reason(const LoadedLeaks& l, const BoundedGroup& b) {
  if (b.kind == BoundedKind::Slowed) return "growth small beside the suspects' and slowing";
  const LeakWalk& walk = l.report.walks[b.flat_from];
  return fmt::format("held flat from walk {} (GC {})", b.flat_from + 1, walk.gc_number);
}

std::string render_bounded_text(const LoadedLeaks& l, size_t width) {
  const auto& bounded = l.report.bounded;
  if (bounded.empty()) return {};
  std::string out = fmt::format("\nBounded: {} group(s) grew and then held flat or slowed (not suspects)\n",
                                bounded.size());
  for (const BoundedGroup& b : bounded) {
    const LeakSuspect& s = b.group;
    const std::string tail = fmt::format("  {:+} objects, {}", s.count_growth, bounded_reason(l, b));
    const size_t used = 2 + display_width(tail);
    const std::string type = width ? shorten_type_name(s.type, width > used ? width - used : 1) : s.type;
    out += fitted("  " + type + tail, width);
    out += fitted(fmt::format("     counts   {} at each heap walk, {} at the last", describe_counts(s),
                              format_bytes(s.series.back().bytes)),
                  width);
    if (s.accumulation.found) out += fitted("     held by  " + holder_text(s.accumulation, width), width);
    if (s.holds.empty()) continue;
    std::string also;
    for (const HeldGroup& h : s.holds)
      also += fmt::format("{}{} ×{}", also.empty() ? "" : ", ", width ? abbreviate_type_name(h.type, 1) : h.type,
                          h.accumulated_count);
    out += fitted("     also     " + also, width);
  }
  return out;
}

Table bounded_table(const LoadedLeaks& l, Format format) {
  const auto& r = l.report;
  Table table("bounded", "Grew, then held flat or slowed (not suspects)");
  table.add_column("rank", "#", ColumnKind::Count).add_column("type", "TYPE");
  table.add_column("why", "WHY");
  table.add_column("count", "COUNT", ColumnKind::Count).add_column("count_growth", "GROWTH", ColumnKind::DeltaCount);
  table.add_column("flat_from_gc", "FLAT FROM GC", ColumnKind::Count);
  table.add_column("bytes", "BYTES", ColumnKind::Bytes).add_column("retained_bytes", "RETAINED", ColumnKind::Bytes);
  if (format == Format::Table) table.add_column("counts", "COUNT PER WALK");
  table.add_column("accumulation_point", "HELD BY");
  table.add_column("accumulation_address", "HELD BY ADDRESS", ColumnKind::Address);
  for (size_t i = 0; i < r.bounded.size(); ++i) {
    const BoundedGroup& b = r.bounded[i];
    const LeakSuspect& s = b.group;
    const bool flat = b.kind == BoundedKind::HeldFlat;
    std::vector<Cell> row = {i + 1, s.type, flat ? "held_flat" : "slowed", s.series.back().count, s.count_growth,
                             flat ? Cell(r.walks[b.flat_from].gc_number) : Cell(), s.series.back().bytes,
                             s.series.back().retained_bytes};
    if (format == Format::Table) row.emplace_back(describe_counts(s));
    row.emplace_back(describe_point(s.accumulation));
    row.push_back(s.accumulation.found ? Cell(s.accumulation.address) : Cell());
    table.add_row(std::move(row));
  }
  return table;
}

Table bounded_series_table(const LoadedLeaks& l) {
  const auto& r = l.report;
  Table table("bounded_series", "The bounded groups at every heap walk");
  table.add_column("rank", "#", ColumnKind::Count).add_column("file", "FILE").add_column("gc", "GC", ColumnKind::Count);
  table.add_column("count", "COUNT", ColumnKind::Count).add_column("bytes", "BYTES", ColumnKind::Bytes);
  table.add_column("retained_bytes", "RETAINED", ColumnKind::Bytes);
  for (size_t i = 0; i < r.bounded.size(); ++i)
    for (size_t w = 0; w < r.walks.size(); ++w) {
      const LeakPoint& p = r.bounded[i].group.series[w];
      table.add_row({i + 1, l.file_of(r.walks[w]), r.walks[w].gc_number, p.count, p.bytes, p.retained_bytes});
    }
  return table;
}

namespace {

int64_t change(const TypeSeries& t) {
  return static_cast<int64_t>(t.counts.back()) - static_cast<int64_t>(t.counts.front());
}

std::string counts_text(const TypeSeries& t, size_t max = 8) {
  std::string out;
  const size_t n = t.counts.size();
  for (size_t i = 0; i < n; ++i) {
    if (n > max && i >= max / 2 && i < n - max / 2) {
      if (i == max / 2) out += " …";
      continue;
    }
    out += fmt::format("{}{}", out.empty() ? "" : " ", t.counts[i]);
  }
  return out;
}

}  // namespace

Table type_series_table(const LoadedLeaks& l, Format format, size_t top) {
  const auto& r = l.report;
  std::vector<const TypeSeries*> types;
  for (const TypeSeries& t : r.types)
    if (!t.counts.empty() && *std::min_element(t.counts.begin(), t.counts.end()) !=
                                 *std::max_element(t.counts.begin(), t.counts.end()))
      types.push_back(&t);
  std::stable_sort(types.begin(), types.end(), [](const TypeSeries* x, const TypeSeries* y) {
    return std::abs(change(*x)) > std::abs(change(*y));
  });
  if (top != 0 && types.size() > top) types.resize(top);
  Table table("type_series", fmt::format("The types whose count changed, at every heap walk ({} of them)", types.size()));
  table.add_column("type", "TYPE");
  if (format == Format::Table) {
    table.add_column("count_growth", "GROWTH", ColumnKind::DeltaCount);
    table.add_column("bytes", "BYTES AT THE LAST", ColumnKind::Bytes).add_column("counts", "COUNT PER WALK");
    for (const TypeSeries* t : types) table.add_row({t->type, change(*t), t->bytes.back(), counts_text(*t)});
    return table;
  }
  table.add_column("file", "FILE").add_column("gc", "GC", ColumnKind::Count);
  table.add_column("count", "COUNT", ColumnKind::Count).add_column("bytes", "BYTES", ColumnKind::Bytes);
  for (const TypeSeries* t : types)
    for (size_t w = 0; w < r.walks.size(); ++w)
      table.add_row({t->type, l.file_of(r.walks[w]), r.walks[w].gc_number, t->counts[w], t->bytes[w]});
  return table;
}

}  // namespace gcsnap::cli
