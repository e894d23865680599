#include "commands/diff_growth_paths.hpp"
#include "commands/diff_hop_names.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "commands/type_filter.hpp"
#include "gcsnap/group_paths.hpp"
#include "gcsnap/heap_graph.hpp"
#include "gcsnap/retention.hpp"
#include "errors/cli_error.hpp"

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

// One side's graph, its full shortest-path tree over strong roots (the index's when it keeps
// one) and the grown types' objects grouped by folded shape.
struct SideShapes {
  std::shared_ptr<const HeapGraph> graph;
  std::optional<ShortestPathTree> own_tree;
  const ShortestPathTree* tree = nullptr;
  std::vector<ShapeGroup> shapes;
};

// Shapes comparable across the two sides: a hop's key is its type's name (as diff prints a
// path), numbered in one table shared by both sides.
class SharedTypeKeys {
 public:
  HopKeyFn for_side(const HeapGraph& graph, const NameTable& names) {
    auto ids = std::make_shared<std::vector<uint32_t>>();
    return [this, &graph, &names, ids](NodeIndex node, NodeIndex) {
      const uint32_t t = graph.type_id(node);
      if (t >= ids->size()) ids->resize(size_t{t} + 1, UINT32_MAX);
      if ((*ids)[t] == UINT32_MAX) (*ids)[t] = key_of(names.type_name(t));
      return (*ids)[t];
    };
  }
  uint32_t key_of(std::string_view name) {
    return keys_.try_emplace(std::string(name), static_cast<uint32_t>(keys_.size())).first->second;
  }

 private:
  std::map<std::string, uint32_t, std::less<>> keys_;
};

SideShapes shapes_of(const DiffSide& side, const std::map<std::string_view, size_t>& group_of, SharedTypeKeys& keys) {
  SideShapes out;
  out.graph = graph_of(side);
  if (side.view.graph && side.view.paths) {
    out.tree = side.view.paths.get();
  } else {
    out.own_tree.emplace(value_or_fail(ShortestPathTree::compute(*out.graph, RetentionOptions{}), side.selected.file));
    out.tree = &*out.own_tree;
  }
  const NameTable& names = *side.view.names;
  std::vector<NodeIndex> targets;
  for (size_t i = 0; i < side.view.type_ids.size(); ++i)
    if (group_of.count(names.type_name(side.view.type_ids[i]))) targets.push_back(static_cast<NodeIndex>(i));
  out.shapes = value_or_fail(group_by_folded_shape(*out.graph, *out.tree, targets, keys.for_side(*out.graph, names)),
                             side.selected.file);
  return out;
}

}  // namespace

// Two recordings share no object, so the new objects of a type cannot be told from its old
// ones. What grew is told by shape instead: both sides' objects of the grown types are grouped
// by folded retention shape, and the shape whose count grew most is the type's path (a bounded
// cache of the same type, as full at A as at B, does not grow and is not blamed).
void diff_growth_paths(const DiffSide& a, const DiffSide& b, size_t top, size_t shapes, const std::string& filter,
                       bool fold, ObjectLevel& out) {
  std::vector<Growth> grown = grown_types(a, b, filter);
  if (top && grown.size() > top) grown.resize(top);
  if (grown.empty()) return;
  std::map<std::string_view, size_t> group_of;
  for (size_t g = 0; g < grown.size(); ++g) group_of.emplace(grown[g].name, g);
  SharedTypeKeys keys;
  std::vector<uint32_t> type_key(grown.size());
  for (size_t g = 0; g < grown.size(); ++g) type_key[g] = keys.key_of(grown[g].name);
  const SideShapes side_a = shapes_of(a, group_of, keys);
  const SideShapes side_b = shapes_of(b, group_of, keys);
  std::map<std::vector<uint32_t>, uint64_t> count_at_a;
  for (const ShapeGroup& s : side_a.shapes) count_at_a[s.keys] += s.count;
  // Per grown type: its shapes at B with their growth, largest growth first, then count at B.
  struct Ranked {
    const ShapeGroup* shape;
    int64_t growth;
  };
  std::vector<std::vector<Ranked>> ranked(grown.size());
  std::vector<uint64_t> total_at_b(grown.size());
  std::map<uint32_t, size_t> group_of_key;
  for (size_t g = 0; g < grown.size(); ++g) group_of_key.emplace(type_key[g], g);
  for (const ShapeGroup& s : side_b.shapes) {
    if (s.keys.empty()) continue;
    const auto it = group_of_key.find(s.keys.back());
    if (it == group_of_key.end()) continue;
    const auto at_a = count_at_a.find(s.keys);
    const uint64_t before = at_a == count_at_a.end() ? 0 : at_a->second;
    ranked[it->second].push_back({&s, static_cast<int64_t>(s.count) - static_cast<int64_t>(before)});
    total_at_b[it->second] += s.count;
  }
  const NameTable& names = *b.view.names;
  const HeapGraph& graph = *side_b.graph;
  const DiffHopNamer namer(b, *b.selected.recording, graph);
  for (size_t g = 0; g < grown.size(); ++g) {
    auto& r = ranked[g];
    std::stable_sort(r.begin(), r.end(), [](const Ranked& x, const Ranked& y) {
      return x.growth != y.growth ? x.growth > y.growth : x.shape->count > y.shape->count;
    });
    if (r.empty()) {
      out.groups.add_row({grown[g].name, grown[g].count, grown[g].bytes, Cell(), Cell(), "0/0", uint64_t{0},
                          uint64_t{0}, diff_path_text(graph, names, RetentionPath{}, fold)});
      continue;
    }
    for (size_t k = 0; k < r.size() && k < std::max<size_t>(1, shapes); ++k) {
      if (k > 0 && r[k].growth <= 0) break;  // further shapes that did not grow tell nothing
      // The member farthest along the shape: its path shows how long the folded chain gets.
      const ShapeGroup& shape = *r[k].shape;
      const RetentionPath path = side_b.tree->path_to(shape.farthest);
      const std::string share = fmt::format("{}/{}", shape.count, total_at_b[g]);
      if (k == 0) {
        out.groups.add_row({grown[g].name, grown[g].count, grown[g].bytes, graph.address(shape.farthest),
                            static_cast<uint64_t>(path.hops()), share, shape.count, total_at_b[g],
                            diff_path_text(graph, names, path, fold, &namer)});
      } else {
        out.more_paths.add_row({grown[g].name, k + 1, graph.address(shape.farthest), static_cast<uint64_t>(path.hops()),
                                share, shape.count, total_at_b[g], diff_path_text(graph, names, path, fold, &namer)});
      }
      add_path_hops(out, graph, names, grown[g].name, k + 1, path,
                    [&graph](NodeIndex n) { return graph.address(n); });
    }
  }
}

}  // namespace gcsnap::cli
