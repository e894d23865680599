#include "output/short_names.hpp"

#include <algorithm>
#include <unordered_map>

namespace gcsnap::cli {

namespace {

constexpr int kMostAbbreviated = 3;

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
  if (depth > 0 && level >= 3) return std::string(chain.substr(last_dot + 1));
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

// The least abbreviated form of `text`, up to `max_level`, that fits `max_width`; when none
// does, the end of the level-`max_level` form after "…".
std::string shorten_upto(std::string_view text, size_t max_width, int max_level) {
  for (int level = 0; level <= max_level; ++level) {
    std::string s = level == 0 ? std::string(text) : abbreviate_type_name(text, level);
    if (display_width(s) <= max_width) return s;
  }
  const std::string most = max_level == 0 ? std::string(text) : abbreviate_type_name(text, max_level);
  if (max_width == 0) return {};
  // Keep the last max_width - 1 code points after the ellipsis (never split a UTF-8 sequence).
  size_t keep = max_width - 1, start = most.size();
  while (start > 0 && keep > 0) {
    --start;
    if ((static_cast<unsigned char>(most[start]) & 0xC0) != 0x80) --keep;
  }
  return "\u2026" + most.substr(start);
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
