#include "commands/diff_growth_paths.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <tuple>

#include <fmt/format.h>

#include "commands/type_filter.hpp"
#include "gcsnap/group_paths.hpp"
#include "gcsnap/heap_graph.hpp"
#include "output/cli_error.hpp"

namespace gcsnap::cli {
namespace {

struct Growth {
  std::string name;
  uint64_t count = 0, bytes = 0;  ///< B minus A, both positive
};

// The types whose count and bytes grew, largest byte growth first (then count, then name).
std::vector<Growth> grown_types(const DiffSide& a, const DiffSide& b, const std::string& filter) {
  std::map<std::string, TypeTotal> before;
  for (TypeTotal& t : a.type_totals()) before.emplace(t.name, std::move(t));
  std::vector<Growth> out;
  for (const TypeTotal& t : b.type_totals()) {
    if (!filter.empty() && !contains_ignore_case(t.name, filter)) continue;
    const auto it = before.find(t.name);
    const uint64_t count = it == before.end() ? 0 : it->second.count;
    const uint64_t bytes = it == before.end() ? 0 : it->second.bytes;
    if (t.count > count && t.bytes > bytes) out.push_back({t.name, t.count - count, t.bytes - bytes});
  }
  std::sort(out.begin(), out.end(), [](const Growth& x, const Growth& y) {
    return std::tie(y.bytes, y.count, x.name) < std::tie(x.bytes, x.count, y.name);
  });
  return out;
}

std::shared_ptr<const HeapGraph> graph_of(const DiffSide& b) {
  if (b.view.graph) return b.view.graph;
  auto graph = HeapGraph::build(b.walk.objects, b.walk.roots, b.walk.has_dependent ? &b.walk.dependent : nullptr);
  if (!graph) fail_on(b.selected.file, graph.error());
  return std::make_shared<const HeapGraph>(std::move(graph).value());
}

}  // namespace

void diff_growth_paths(const DiffSide& a, const DiffSide& b, size_t top, size_t shapes, const std::string& filter,
                       bool fold, ObjectLevel& out) {
  std::vector<Growth> grown = grown_types(a, b, filter);
  if (top && grown.size() > top) grown.resize(top);
  if (grown.empty()) return;
  // The groups: every object of each grown type at B, in address order (the table's order).
  std::map<std::string_view, size_t> group_of;
  std::vector<TypeGroup> groups(grown.size());
  for (size_t g = 0; g < grown.size(); ++g) {
    groups[g].name = grown[g].name;
    group_of.emplace(groups[g].name, g);
  }
  const NameTable& names = *b.view.names;
  for (size_t i = 0; i < b.view.type_ids.size(); ++i) {
    const auto it = group_of.find(names.type_name(b.view.type_ids[i]));
    if (it == group_of.end()) continue;
    TypeGroup& group = groups[it->second];
    group.members.push_back(i);
    ++group.count;
    group.bytes += b.view.sizes[i];
  }
  const auto graph = graph_of(b);
  const auto paths = value_or_fail(find_group_paths(*graph, groups, 4096, std::max<size_t>(1, shapes),
                                                    b.view.graph ? b.view.paths.get() : nullptr),
                                   b.selected.file);
  for (size_t g = 0; g < groups.size(); ++g) {
    const GroupPath& p = paths[g];
    const bool found = p.member != kNoObject;
    const size_t example = found ? p.member : groups[g].members.front();
    out.groups.add_row({grown[g].name, grown[g].count, grown[g].bytes, b.view.addresses[example],
                        found ? Cell(static_cast<uint64_t>(p.path.hops())) : Cell(),
                        fmt::format("{}/{}", p.same_shape, p.examined), p.same_shape, p.examined,
                        diff_path_text(*graph, names, p.path, fold)});
    add_path_hops(out, *graph, names, grown[g].name, 1, p.path);
    for (size_t k = 0; k < p.more_shapes.size(); ++k) {
      const GroupShape& shape = p.more_shapes[k];
      out.more_paths.add_row({grown[g].name, k + 2, b.view.addresses[shape.member],
                              static_cast<uint64_t>(shape.path.hops()),
                              fmt::format("{}/{}", shape.same_shape, p.examined), shape.same_shape, p.examined,
                              diff_path_text(*graph, names, shape.path, fold)});
      add_path_hops(out, *graph, names, grown[g].name, k + 2, shape.path);
    }
  }
}

}  // namespace gcsnap::cli
