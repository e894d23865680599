#include "commands/type_filter.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "errors/cli_error.hpp"

namespace gcsnap::cli {

namespace {

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

bool equals_ignore_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && contains_ignore_case(a, b);
}

bool contains_ignore_case(std::string_view name, std::string_view pattern) {
  if (pattern.size() > name.size()) return false;
  return std::search(name.begin(), name.end(), pattern.begin(), pattern.end(),
                     [](char a, char b) { return lower(a) == lower(b); }) != name.end();
}

size_t substring_distance(std::string_view name, std::string_view pattern) {
  // Sellers' algorithm: edit distance where the match may start and end anywhere in name.
  std::vector<size_t> prev(name.size() + 1, 0), cur(name.size() + 1);
  for (size_t i = 1; i <= pattern.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= name.size(); ++j) {
      const size_t replace = prev[j - 1] + (lower(pattern[i - 1]) == lower(name[j - 1]) ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, replace});
    }
    std::swap(prev, cur);
  }
  return *std::min_element(prev.begin(), prev.end());
}

std::vector<std::string_view> closest_names(std::span<const std::string_view> names, std::string_view pattern,
                                            size_t n) {
  const size_t limit = std::max<size_t>(2, pattern.size() / 3);
  std::vector<std::pair<size_t, std::string_view>> scored;
  for (std::string_view name : names) {
    const size_t d = substring_distance(name, pattern);
    if (d <= limit) scored.emplace_back(d, name);
  }
  std::sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first < b.first;
    if (a.second.size() != b.second.size()) return a.second.size() < b.second.size();
    return a.second < b.second;
  });
  scored.erase(std::unique(scored.begin(), scored.end()), scored.end());
  std::vector<std::string_view> out;
  for (size_t i = 0; i < scored.size() && out.size() < n; ++i) out.push_back(scored[i].second);
  return out;
}

void fail_no_match(std::string_view what, std::string_view pattern, std::span<const std::string_view> names) {
  const auto close = closest_names(names, pattern);
  std::string hint;
  for (std::string_view name : close) hint += fmt::format("{}{}", hint.empty() ? "" : ", ", name);
  throw CliError(close.empty() ? fmt::format("{} '{}' (no similar name; `gcsnap types` lists them)", what, pattern)
                               : fmt::format("{} '{}' (closest: {})", what, pattern, hint),
                 kExitUsage);
}

std::vector<uint32_t> type_ids_in(const HeapGraph& graph) {
  std::vector<uint32_t> ids(graph.type_ids().begin(), graph.type_ids().end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

std::vector<uint32_t> filter_type_ids(const NameTable& names, std::span<const uint32_t> ids,
                                      std::string_view pattern, std::string_view what) {
  std::vector<uint32_t> out;
  for (uint32_t id : ids)
    if (contains_ignore_case(names.type_name(id), pattern)) out.push_back(id);
  if (out.empty()) {
    std::vector<std::string_view> all;
    for (uint32_t id : ids) all.push_back(names.type_name(id));
    fail_no_match(what, pattern, all);
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

// The name without namespace or enclosing type: "Survivor2" for "Gcsnap.Sample.Survivor2".
std::string_view simple_name(std::string_view name) {
  const size_t generic = name.find('<');
  const size_t cut = name.substr(0, generic).find_last_of(".+");
  return cut == std::string_view::npos ? name : name.substr(cut + 1);
}

// How well NAME matches --type TYPE, best first: the full name, the name without namespace,
// the same two ignoring case (as --filter ignores it), a part, a part ignoring case; kNoMatch.
constexpr int kNoMatch = 6;
int type_match_rank(std::string_view name, std::string_view type) {
  const std::string_view simple = simple_name(name);
  if (name == type) return 0;
  if (simple == type) return 1;
  if (equals_ignore_case(name, type)) return 2;
  if (equals_ignore_case(simple, type)) return 3;
  if (name.find(type) != std::string_view::npos) return 4;
  return contains_ignore_case(name, type) ? 5 : kNoMatch;
}

}  // namespace

std::vector<uint32_t> type_ids_of_type(const NameTable& names, std::span<const uint32_t> ids, std::string_view type,
                                       std::string_view what) {
  // NameTable::type_name names the ids it does not declare as objects_of_type ranks them.
  std::vector<uint32_t> out;
  int best = kNoMatch;
  for (uint32_t id : ids) {
    const int r = type_match_rank(names.type_name(id), type);
    if (r == kNoMatch || r > best) continue;
    if (r < best) out.clear();
    best = r;
    out.push_back(id);
  }
  if (best == kNoMatch) {
    std::vector<std::string_view> all;
    for (uint32_t id : ids) all.push_back(names.type_name(id));
    fail_no_match(what, type, all);
  }
  return out;
}

std::vector<NodeIndex> objects_of_type(const HeapGraph& graph, const NameTable& names, std::string_view type,
                                       std::string_view what) {
  auto rank = [&](std::string_view name) { return type_match_rank(name, type); };
  // Each type's rank once (a few thousand names), not each object's (millions): the declared
  // types that match, by id, and the ranks of the two names an undeclared id gets.
  std::vector<std::pair<uint32_t, int>> matched;
  for (const TypeRecord& t : names.types())
    if (const int r = rank(names.type_name(t.id)); r < kNoMatch) matched.emplace_back(t.id, r);
  // (NameTable::type_name's names for ids it does not declare.)
  const int unknown_rank = rank("<unknown type>"), undeclared_rank = rank("<undeclared type>");
  const bool undeclared_match = unknown_rank < kNoMatch || undeclared_rank < kNoMatch;
  auto rank_of = [&](uint32_t id) {
    const auto it = std::lower_bound(matched.begin(), matched.end(), std::make_pair(id, 0));
    if (it != matched.end() && it->first == id) return it->second;
    if (!undeclared_match || names.find_type(id)) return kNoMatch;
    return id == 0 ? unknown_rank : undeclared_rank;
  };
  std::vector<NodeIndex> matches[kNoMatch];
  if (!matched.empty() || undeclared_match) {
    uint32_t last_id = 0;
    int last_rank = rank_of(0);
    for (NodeIndex v = 0; v < graph.node_count(); ++v) {
      const uint32_t id = graph.type_id(v);
      if (id != last_id) {
        last_id = id;
        last_rank = rank_of(id);
      }
      if (last_rank < kNoMatch) matches[last_rank].push_back(v);
    }
  }
  for (auto& m : matches)
    if (!m.empty()) return std::move(m);
  std::vector<std::string_view> all;
  for (uint32_t id : type_ids_in(graph)) all.push_back(names.type_name(id));
  fail_no_match(what, type, all);
}

}  // namespace gcsnap::cli
