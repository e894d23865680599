#include "commands/leaks_text.hpp"

#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include "commands/leaks_bounded.hpp"
#include "gcsnap/enum_names.hpp"
#include "gcsnap/root_summary.hpp"
#include "output/output.hpp"
#include "output/short_names.hpp"

namespace gcsnap::cli {
namespace {

constexpr size_t kIndent = 5;     // where a block's labels start
constexpr size_t kValueAt = 14;   // where a block's values start
constexpr int kMostAbbreviated = 3;

size_t fits(size_t width, size_t used) { return width == 0 ? SIZE_MAX : (width > used ? width - used : 1); }

// Lay PIECES out from column START of a line that already holds LINE, in lines of at most
// WIDTH columns; continuation lines start at START too. A line breaks only between pieces
// (a path's hops), its trailing blanks dropped; a piece wider than a line is cut from the
// front ("…" and its end). Returns the number of lines.
size_t wrap_pieces(std::string& out, std::string line, const std::vector<std::string>& pieces, size_t start,
                   size_t width) {
  size_t lines = 1;
  size_t used = display_width(line);
  for (const std::string& raw : pieces) {
    std::string piece = width && display_width(raw) > fits(width, start) ? shorten_type_name(raw, fits(width, start)) : raw;
    const size_t w = display_width(piece);
    if (width && used > start && used + w > width) {
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + '\n';
      line.assign(start, ' ');
      used = start;
      ++lines;
    }
    line += piece;
    used += w;
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  out += line + '\n';
  return lines;
}

// Lay out pieces made at an abbreviation level: the least abbreviated that takes at most
// MAX_LINES lines, else the most abbreviated.
void wrap_abbreviated(std::string& out, const std::string& line, size_t start, size_t width, size_t max_lines,
                      const std::function<std::vector<std::string>(int)>& pieces_at) {
  for (int level = 0; width && level < kMostAbbreviated; ++level) {
    std::string trial;
    if (wrap_pieces(trial, line, pieces_at(level), start, width) <= max_lines) {
      out += trial;
      return;
    }
  }
  wrap_pieces(out, line, pieces_at(width ? kMostAbbreviated : 0), start, width);
}

std::string label(std::string_view name) {
  std::string s(kIndent, ' ');
  s += name;
  s.resize(std::max(s.size() + 1, kValueAt), ' ');
  return s;
}

std::string abbreviated(const std::string& type, int level) {
  return level == 0 ? type : abbreviate_type_name(type, level);
}

std::vector<std::string> chain_pieces(const SuspectPath& path, int level) {
  std::vector<std::string> pieces;
  for (const ChainHop& hop : path.hops)
    pieces.push_back(abbreviated(hop.type, level) + (hop.method.empty() ? "" : " [" + hop.method + "]") + hop.edge);
  // Two appends: `" " + std::string&&` trips GCC 12's -Wrestrict false positive at -O3.
  pieces.back() += ' ';
  pieces.back() += format_address(path.address);
  return pieces;
}

// "2251 objects: [stack] -> A -> B (3..2253 hops)": how members are held, their own type (the
// suspect's, the last of the shape) left out.
std::vector<std::string> shape_pieces(const PathShape& shape, int level) {
  const std::string flags = root_flags_text(shape.root_flags);
  std::vector<std::string> pieces{fmt::format("{} {}: [{}{}{}]", shape.count, shape.count == 1 ? "object" : "objects",
                                              root_kind_name(shape.root_kind), flags.empty() ? "" : " ", flags)};
  for (size_t i = 0; i + 1 < shape.types.size(); ++i) pieces.push_back(" -> " + abbreviated(shape.types[i], level));
  pieces.back() += shape.min_hops == shape.max_hops ? fmt::format(" ({} hops)", shape.min_hops)
                                                     : fmt::format(" ({}..{} hops)", shape.min_hops, shape.max_hops);
  return pieces;
}

// LINE and PIECES on one line of at most WIDTH columns: the first piece, " -> …" and as many
// of the last pieces as fit (all of them when they fit).
std::string elide_middle(std::string line, const std::vector<std::string>& pieces, size_t width) {
  size_t total = display_width(line);
  for (const std::string& p : pieces) total += display_width(p);
  if (width == 0 || total <= width || pieces.size() < 3) {
    std::string out;
    wrap_pieces(out, std::move(line), pieces, kValueAt, width);
    return out;
  }
  const std::string gap = " -> …";
  size_t used = display_width(line) + display_width(pieces.front()) + display_width(gap);
  size_t from = pieces.size();
  while (from > 1 && used + display_width(pieces[from - 1]) <= width) used += display_width(pieces[--from]);
  if (from == pieces.size()) --from;  // the last piece, cut by wrap_pieces if need be
  std::vector<std::string> kept{pieces.front() + gap};
  kept.insert(kept.end(), pieces.begin() + static_cast<std::ptrdiff_t>(from), pieces.end());
  std::string out;
  wrap_pieces(out, std::move(line), kept, kValueAt, width);
  return out;
}

void write_suspect(std::string& out, const LoadedLeaks& l, size_t rank, const SuspectPath* path, size_t width) {
  const LeakSuspect& s = l.report.suspects[rank];
  const LeakPoint& last = s.series.back();
  const std::string head = fmt::format("#{} ", rank + 1);
  const std::string tail = fmt::format("  {:+} objects, retains {} ({})", s.count_growth, format_bytes(last.retained_bytes),
                                       format_delta_bytes(s.retained_growth));
  const size_t room = fits(width, display_width(head) + display_width(tail));
  out += head + (width ? shorten_type_name(s.type, room) : s.type) + tail + '\n';
  std::string counts = fmt::format("{} at each heap walk, {} at the last", describe_counts(s), format_bytes(last.bytes));
  if (s.by_identity) counts += fmt::format("; {} new and alive", s.accumulated_count);
  wrap_pieces(out, label("counts"), {counts}, kValueAt, width);
  // A holder pattern names the field to change; the dominating object is the fallback.
  if (path && path->match.pattern != HolderPattern::None)
    wrap_abbreviated(out, label("held by"), kValueAt, width, 2, [&](int level) {
      return pattern_pieces(*path, [&](const std::string& type) { return abbreviated(type, level); });
    });
  else if (s.accumulation.found)
    wrap_abbreviated(out, label("held by"), kValueAt, width, 1,
                     [&](int level) { return std::vector<std::string>{accumulation_text(s.accumulation, level)}; });
  if (path && !path->hops.empty())
    wrap_abbreviated(out, label("path"), kValueAt, width, 2, [&](int level) { return chain_pieces(*path, level); });
  if (path && !path->allocated_at.empty()) wrap_pieces(out, label("alloc at"), {path->allocated_at}, kValueAt, width);
  // One shape is the path above without its field names; several tell how the group is held,
  // one line each: the root, then as many of the last hops as fit.
  if (s.shapes.size() > 1)
    for (size_t k = 0; k < std::min<size_t>(s.shapes.size(), 3); ++k)
      out += elide_middle(label(k == 0 ? "held as" : ""), shape_pieces(s.shapes[k], width ? kMostAbbreviated : 0),
                          width);
  if (!s.holds.empty())
    wrap_abbreviated(out, label("also"), kValueAt, width, 1, [&](int level) {
      std::vector<std::string> pieces;
      for (size_t i = 0; i < s.holds.size(); ++i)
        pieces.push_back(fmt::format("{} ×{}{}", abbreviated(s.holds[i].type, level), s.holds[i].accumulated_count,
                                     i + 1 < s.holds.size() ? ", " : ""));
      return pieces;
    });
}

// "note: " and TEXT, broken between words.
void write_note(std::string& out, const std::string& text, size_t width) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < text.size()) {
    const size_t space = text.find(' ', i);
    const size_t end = space == std::string::npos ? text.size() : space + 1;
    words.push_back(text.substr(i, end - i));
    i = end;
  }
  std::string line = "note: ";
  size_t used = 6;
  for (const std::string& w : words) {
    const size_t ww = display_width(w);
    if (width && used > 6 && used + ww - (w.back() == ' ' ? 1 : 0) > width) {
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + '\n';
      line = "      ";
      used = 6;
    }
    line += w;
    used += ww;
  }
  out += line + '\n';
}

// The suspects shown in one line each: beside the largest suspect's, few new members and little
// retained growth (both under LeakOptions::small_growth_share of the largest). They met every
// rule, yet a block each would push the leaks that matter off the screen (a service's pool that
// gains one block a walk beside a leak of thousands).
std::vector<bool> brief_suspects(const LeakReport& r) {
  uint64_t most_members = 0;
  int64_t most_retained = 0;
  for (const LeakSuspect& s : r.suspects) {
    most_members = std::max(most_members, s.accumulated_count);
    most_retained = std::max(most_retained, s.retained_growth);
  }
  const double share = LeakOptions{}.small_growth_share;
  std::vector<bool> brief(r.suspects.size(), false);
  for (size_t i = 0; i < r.suspects.size(); ++i) {
    const LeakSuspect& s = r.suspects[i];
    brief[i] = i > 0 && static_cast<double>(s.accumulated_count) < share * static_cast<double>(most_members) &&
               static_cast<double>(s.retained_growth) < share * static_cast<double>(most_retained);
  }
  return brief;
}

// "Small, steady growths" and one line per brief suspect, with its rank: "#3 TYPE  +2 objects
// (2 3 4), retains 16.2 KiB". At most kMaxBrief lines; the rest are counted.
std::string render_brief_suspects(const LeakReport& r, const std::vector<bool>& brief, size_t width) {
  constexpr size_t kMaxBrief = 5;
  const size_t n = static_cast<size_t>(std::count(brief.begin(), brief.end(), true));
  if (n == 0) return {};
  std::string out = fmt::format("\nSmall, steady growths: {} suspect(s) with under {:.0f} % of #1's new objects\n", n,
                                LeakOptions{}.small_growth_share * 100);
  size_t shown = 0;
  for (size_t i = 0; i < r.suspects.size() && shown < kMaxBrief; ++i) {
    if (!brief[i]) continue;
    const LeakSuspect& s = r.suspects[i];
    const std::string head = fmt::format("  #{} ", i + 1);
    const std::string tail = fmt::format("  {:+} objects ({}), retains {}", s.count_growth, describe_counts(s, 4),
                                         format_bytes(s.series.back().retained_bytes));
    const size_t room = fits(width, display_width(head) + display_width(tail));
    out += head + (width ? shorten_type_name(s.type, room) : s.type) + tail + '\n';
    ++shown;
  }
  if (n > shown) out += fmt::format("  ... and {} more (--format csv lists every suspect)\n", n - shown);
  return out;
}

}  // namespace

std::string accumulation_text(const AccumulationPoint& p, int level) {
  std::string text = fmt::format("{} {}", abbreviated(p.type, level), format_address(p.address));
  if (p.is_owner) return text + fmt::format(" (owner; entered from {} objects)", p.entries);
  if (!p.via_array.empty()) return text + fmt::format(" (via {})", abbreviated(p.via_array, level));
  return text;
}

std::string render_leaks_text(const LoadedLeaks& l, const std::vector<SuspectPath>& paths,
                              const std::vector<std::string>& notes, size_t width) {
  const LeakReport& r = l.report;
  std::string out;
  if (r.too_few_walks) {  // nothing was judged: the note says what to do
    for (const std::string& note : notes) write_note(out, note, width);
    return out;
  }
  out = fmt::format("Leak suspects: {} of {} groups (type + path shape) accumulate over {} heap walks\n",
                                r.suspects.size(), r.groups, r.walks.size());
  const std::vector<bool> brief = brief_suspects(r);
  for (size_t i = 0; i < r.suspects.size(); ++i) {
    if (brief[i]) continue;
    out += '\n';
    write_suspect(out, l, i, i < paths.size() ? &paths[i] : nullptr, width);
  }
  out += render_brief_suspects(r, brief, width);
  out += render_bounded_text(l, width);
  if (!notes.empty()) out += '\n';
  for (const std::string& note : notes) write_note(out, note, width);
  return out;
}

}  // namespace gcsnap::cli
