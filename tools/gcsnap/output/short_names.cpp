#include "output/short_names.hpp"

#include <algorithm>
#include <unordered_map>

namespace gcsnap::cli {

namespace {

/// Levels of abbreviate_type_name; the one after them elides generic arguments to fit.
constexpr int kNamespaceLevels = 4;
constexpr int kMostAbbreviated = kNamespaceLevels + 1;
constexpr std::string_view kEllipsis = "\u2026";

bool is_name_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         c == '`' || c == '$' || c == '@' || c == '#';
}

// "System.Collections.Generic.List" at generic depth `depth`, abbreviated for `level`.
std::string abbreviate_chain(std::string_view chain, size_t depth, int level) {
  const size_t last_dot = chain.rfind('.');
  if (level == 0 || last_dot == std::string_view::npos) return std::string(chain);
  if (depth > 0 && level == 1) return std::string(chain);
  if ((depth > 0 && level >= 3) || level >= 4) return std::string(chain.substr(last_dot + 1));
  std::string out;
  size_t start = 0;
  while (start < last_dot) {
    const size_t dot = chain.find('.', start);
    out += chain[start];  // a namespace part is never empty: chains are split at name characters
    out += '.';
    start = dot + 1;
  }
  return out + std::string(chain.substr(last_dot + 1));
}

}  // namespace

size_t display_width(std::string_view text) {
  return static_cast<size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string abbreviate_type_name(std::string_view text, int level) {
  std::string out;
  size_t depth = 0;
  size_t i = 0;
  while (i < text.size()) {
    if (!is_name_char(text[i])) {
      // "->" of a path is not a closing bracket; unbalanced brackets only clamp the depth.
      if (text[i] == '<') ++depth;
      else if (text[i] == '>' && depth > 0 && !(i > 0 && text[i - 1] == '-')) --depth;
      out += text[i++];
      continue;
    }
    // A chain: names joined by single dots ("A.B.C"); a dot not followed by a name ends it.
    size_t end = i;
    while (end < text.size() && is_name_char(text[end])) {
      while (end < text.size() && is_name_char(text[end])) ++end;
      if (end + 1 < text.size() && text[end] == '.' && is_name_char(text[end + 1])) ++end;
    }
    out += abbreviate_chain(text.substr(i, end - i), depth, level);
    i = end;
  }
  return out;
}

namespace {

/// One generic argument of a name: text[begin, end) at nesting depth `depth` (1: the outer
/// name's own arguments).
struct GenericArgument {
  size_t begin, end, depth;
};

// The generic arguments of `text`, split at the commas of their list. Only a '<' right after a
// name opens a list ("List<"): "<>c__DisplayClass" and "-[...]->" of a path are not lists.
std::vector<GenericArgument> generic_arguments(std::string_view text) {
  struct Open {
    bool generic;
    size_t arg_begin;
  };
  std::vector<Open> open;
  std::vector<GenericArgument> args;
  auto depth = [&] {
    return static_cast<size_t>(std::count_if(open.begin(), open.end(), [](const Open& o) { return o.generic; }));
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<') {
      open.push_back({i > 0 && is_name_char(text[i - 1]), i + 1});
    } else if (c == '>' && !open.empty() && !(i > 0 && text[i - 1] == '-')) {
      if (open.back().generic && i > open.back().arg_begin) args.push_back({open.back().arg_begin, i, depth()});
      open.pop_back();
    } else if (c == ',' && !open.empty() && open.back().generic) {
      args.push_back({open.back().arg_begin, i, depth()});
      open.back().arg_begin = i + 1 < text.size() && text[i + 1] == ' ' ? i + 2 : i + 1;
    }
  }
  return args;
}

// Replace generic arguments with "…" until `text` fits `max_width`: the deepest first, then
// the longest, then the leftmost ("Dictionary<String, List<…>>", "Dictionary<…, List<…>>");
// a list whose arguments are all elided reads "<…>". The outer name always stays.
std::string elide_generic_arguments(std::string text, size_t max_width) {
  while (display_width(text) > max_width) {
    const std::vector<GenericArgument> args = generic_arguments(text);
    const GenericArgument* pick = nullptr;
    for (const GenericArgument& a : args) {
      if (std::string_view(text).substr(a.begin, a.end - a.begin) == kEllipsis) continue;
      if (!pick || a.depth > pick->depth || (a.depth == pick->depth && a.end - a.begin > pick->end - pick->begin))
        pick = &a;
    }
    if (!pick) break;
    text.replace(pick->begin, pick->end - pick->begin, kEllipsis);
    // "<…, …>" says no more than "<…>".
    for (size_t at; (at = text.find("\u2026, \u2026")) != std::string::npos;) text.erase(at, kEllipsis.size() + 2);
  }
  return text;
}

// `text` shortened to `level`: abbreviate_type_name's levels, then (kMostAbbreviated) the
// namespace-less form with generic arguments elided to fit `max_width`.
std::string shortened_form(std::string_view text, int level, size_t max_width) {
  if (level == 0) return std::string(text);
  if (level <= kNamespaceLevels) return abbreviate_type_name(text, level);
  return elide_generic_arguments(abbreviate_type_name(text, kNamespaceLevels), max_width);
}

// The first KEEP code points of TEXT (never a split UTF-8 sequence).
std::string_view head_of(std::string_view text, size_t keep) {
  size_t end = 0;
  while (end < text.size() && keep > 0) {
    ++end;
    while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
    --keep;
  }
  return text.substr(0, end);
}

// A path ("[static] A.s -> B -> C") too wide for MAX_WIDTH, cut in its middle so that its root
// stays: the first hop, " -> … -> " and as many of the last hops as fit; when not even the
// last hop fits, the start and the end of the text around "…". Empty when TEXT is no path.
std::string cut_path_middle(std::string_view text, size_t max_width) {
  constexpr std::string_view kArrow = " -> ";
  const size_t first = text.find(kArrow);
  if (first == std::string_view::npos || max_width < 8) return {};
  const std::string head = std::string(text.substr(0, first)) + " -> " + std::string(kEllipsis) + " -> ";
  size_t from = text.size(), best = std::string_view::npos;
  while (from > first) {
    const size_t arrow = text.rfind(kArrow, from - 1);
    if (arrow == std::string_view::npos || arrow <= first) break;
    if (display_width(head) + display_width(text.substr(arrow + kArrow.size())) > max_width) break;
    best = arrow + kArrow.size();
    from = arrow;
  }
  if (best != std::string_view::npos) return head + std::string(text.substr(best));
  // Half the width for the start (the root), the rest for the end (the member).
  const size_t keep_head = (max_width - 1) / 2, keep_tail = max_width - 1 - keep_head;
  size_t start = text.size(), keep = keep_tail;
  while (start > 0 && keep > 0) {
    --start;
    if ((static_cast<unsigned char>(text[start]) & 0xC0) != 0x80) --keep;
  }
  return std::string(head_of(text, keep_head)) + std::string(kEllipsis) + std::string(text.substr(start));
}

// The least abbreviated form of `text`, up to `max_level`, that fits `max_width`; when none
// does, a path's middle is cut (cut_path_middle), another text's start ("…" and the end of
// the level-`max_level` form).
std::string shorten_upto(std::string_view text, size_t max_width, int max_level) {
  for (int level = 0; level <= max_level; ++level) {
    std::string s = shortened_form(text, level, max_width);
    if (display_width(s) <= max_width) return s;
  }
  const std::string most = shortened_form(text, max_level, max_width);
  if (max_width == 0) return {};
  if (std::string path = cut_path_middle(most, max_width); !path.empty()) return path;
  // Keep the last max_width - 1 code points after the ellipsis (never split a UTF-8 sequence).
  size_t keep = max_width - 1, start = most.size();
  while (start > 0 && keep > 0) {
    --start;
    if ((static_cast<unsigned char>(most[start]) & 0xC0) != 0x80) --keep;
  }
  return std::string(kEllipsis) + most.substr(start);
}

}  // namespace

std::string shorten_type_name(std::string_view text, size_t max_width) {
  return shorten_upto(text, max_width, kMostAbbreviated);
}

std::vector<std::string> shorten_type_names(const std::vector<std::string>& names, size_t max_width) {
  std::vector<std::string> out;
  out.reserve(names.size());
  for (const auto& n : names) out.push_back(shorten_type_name(n, max_width));
  // Rows whose short form another full name also got, then less abbreviation for them.
  auto colliding = [&] {
    std::unordered_map<std::string_view, std::string_view> owner;
    std::unordered_map<std::string_view, bool> clash;
    for (size_t i = 0; i < out.size(); ++i) {
      auto [it, fresh] = owner.emplace(out[i], names[i]);
      if (!fresh && it->second != names[i]) clash[out[i]] = true;
    }
    std::vector<size_t> rows;
    for (size_t i = 0; i < out.size(); ++i)
      if (clash.count(out[i])) rows.push_back(i);
    return rows;
  };
  // Less abbreviation first, still cut to the width: names that differ only inside their
  // generic arguments' namespaces usually differ at their end too, and "…" keeps the end.
  for (int level = kMostAbbreviated - 1; level >= 0; --level) {
    const std::vector<size_t> rows = colliding();
    if (rows.empty()) return out;
    for (size_t i : rows) out[i] = shorten_upto(names[i], max_width, level);
  }
  // Names that only their start tells apart: the full name, wider than asked.
  for (size_t i : colliding()) out[i] = names[i];
  return out;
}

}  // namespace gcsnap::cli
