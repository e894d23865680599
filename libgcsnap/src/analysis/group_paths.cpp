#include "gcsnap/group_paths.hpp"

#include "gcsnap/path_fold.hpp"
#include "analysis/shape_trie.hpp"

#include <unordered_map>

#include <algorithm>
#include <new>
#include <map>
#include <optional>

namespace gcsnap {

namespace {

// A path's shape: root kind and flags, then the type of each object from root to member,
// folded (fold_repeats): the members of a linked chain share one shape whatever their depth.
std::vector<uint32_t> shape_of(const HeapGraph& graph, const RetentionPath& path) {
  const GraphRoot& root = graph.roots()[path.root];
  std::vector<uint32_t> types;
  types.reserve(path.nodes.size());
  for (NodeIndex n : path.nodes) types.push_back(graph.type_id(n));
  auto folded = fold_repeats(types);
  if (!folded) throw std::bad_alloc();
  std::vector<uint32_t> shape;
  shape.reserve(folded->keys.size() + 1);
  shape.push_back(static_cast<uint32_t>(root.kind) << 8 | root.flags);
  shape.insert(shape.end(), folded->keys.begin(), folded->keys.end());
  return shape;
}

struct ShapeCount {
  uint64_t count = 0;
  size_t first_member = kNoObject;
  RetentionPath path;
};

// TREE null: no group has a candidate.
GroupPath cluster_group(const HeapGraph& graph, const ShortestPathTree* tree, const TypeGroup& group,
                        size_t max_candidates, size_t max_shapes) {
  GroupPath out;
  std::map<std::vector<uint32_t>, ShapeCount> shapes;
  const size_t n = std::min(group.members.size(), max_candidates);
  for (size_t k = 0; k < n; ++k) {
    const size_t member = group.members[k];
    ++out.examined;
    if (member >= graph.node_count() || !tree || !tree->is_reached(static_cast<NodeIndex>(member))) continue;
    ++out.reachable;
    RetentionPath path = tree->path_to(static_cast<NodeIndex>(member));
    ShapeCount& c = shapes[shape_of(graph, path)];
    if (c.count++ == 0) {
      c.first_member = member;
      c.path = std::move(path);
    }
  }
  // Most common first; ties to the shorter path, then the lower member.
  std::vector<const ShapeCount*> order;
  for (const auto& entry : shapes) order.push_back(&entry.second);
  std::sort(order.begin(), order.end(), [](const ShapeCount* x, const ShapeCount* y) {
    if (x->count != y->count) return x->count > y->count;
    if (x->path.nodes.size() != y->path.nodes.size()) return x->path.nodes.size() < y->path.nodes.size();
    return x->first_member < y->first_member;
  });
  if (!order.empty()) {
    out.member = order[0]->first_member;
    out.path = order[0]->path;
    out.same_shape = order[0]->count;
  }
  for (size_t i = 1; i < order.size() && i < max_shapes; ++i)
    out.more_shapes.push_back(GroupShape{order[i]->first_member, order[i]->path, order[i]->count});
  return out;
}

}  // namespace

Result<std::vector<GroupPath>> find_group_paths(const HeapGraph& graph, std::span<const TypeGroup> groups,
                                                size_t max_candidates, size_t max_shapes,
                                                const ShortestPathTree* tree) try {
  std::optional<ShortestPathTree> computed;
  if (!tree) {
    // The BFS only has to go as deep as the deepest candidate (the levels it completes keep
    // the parents a full BFS gives); it explores everything when one is unreachable.
    std::vector<NodeIndex> candidates;
    for (const auto& g : groups)
      for (size_t k = 0; k < g.members.size() && k < max_candidates; ++k)
        if (g.members[k] < graph.node_count()) candidates.push_back(static_cast<NodeIndex>(g.members[k]));
    if (!candidates.empty()) {
      auto bfs = ShortestPathTree::compute_nearest(graph, RetentionOptions{}, candidates, candidates.size());
      if (!bfs) return bfs.error();
      computed = std::move(bfs).value();
      tree = &*computed;
    }
  }
  std::vector<GroupPath> out;
  out.reserve(groups.size());
  for (const auto& g : groups)
    out.push_back(cluster_group(graph, tree, g, max_candidates, max_shapes));
  return out;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "finding group paths");
}

Result<std::vector<ShapeGroup>> group_by_folded_shape(const HeapGraph& graph, const ShortestPathTree& tree,
                                                      std::span<const NodeIndex> targets, const HopKeyFn& hop_key) try {
  // Keys become trie labels below ShapeTrie::kRootLabel; the root's label sits above it.
  leaks::ShapeTrie trie;
  std::unordered_map<uint32_t, uint32_t> label_of_key;
  auto label = [&](uint32_t key) {
    return label_of_key.try_emplace(key, static_cast<uint32_t>(label_of_key.size())).first->second;
  };
  std::unordered_map<NodeIndex, std::pair<uint32_t, uint32_t>> memo;  // node -> shape, hops
  const auto parents = tree.parents();
  std::vector<NodeIndex> stack;
  std::unordered_map<uint32_t, size_t> group_of_shape;
  std::vector<ShapeGroup> out;
  std::vector<uint32_t> out_shape;
  for (NodeIndex t : targets) {
    if (t >= graph.node_count() || !tree.is_reached(t)) continue;
    stack.clear();
    NodeIndex v = t;
    size_t guard = 0;
    while (memo.find(v) == memo.end()) {
      stack.push_back(v);
      const NodeIndex p = parents[v];
      if (p == ShortestPathTree::kRootMark || p == kNoNode || ++guard > graph.node_count()) break;
      v = p;
    }
    if (guard > graph.node_count()) continue;  // a forged parent cycle: no shape
    for (size_t i = stack.size(); i-- > 0;) {
      const NodeIndex u = stack[i];
      const NodeIndex p = parents[u];
      std::pair<uint32_t, uint32_t> shape;
      if (p == ShortestPathTree::kRootMark) {
        const GraphRoot& root = graph.roots()[tree.path_to(u).root];
        shape = {trie.extend(trie.root(static_cast<uint8_t>(root.kind), root.flags), label(hop_key(u, kNoNode))), 0};
      } else {
        const auto& ps = memo.at(p);
        shape = {trie.extend(ps.first, label(hop_key(u, p))), ps.second + 1};
      }
      memo.emplace(u, shape);
    }
    const auto [shape, hops] = memo.at(t);
    const auto [it, inserted] = group_of_shape.try_emplace(shape, out.size());
    if (inserted) {
      out.emplace_back();
      out_shape.push_back(shape);
      out.back().min_hops = out.back().max_hops = hops;
      out.back().example = out.back().farthest = t;
    }
    ShapeGroup& g = out[it->second];
    ++g.count;
    g.bytes += graph.object_size(t);
    if (hops < g.min_hops) {
      g.min_hops = hops;
      g.example = t;
    }
    if (hops > g.max_hops) {
      g.max_hops = hops;
      g.farthest = t;
    }
  }
  std::vector<uint32_t> key_of_label(label_of_key.size());
  for (const auto& [key, l] : label_of_key) key_of_label[l] = key;
  for (size_t i = 0; i < out.size(); ++i) {
    for (uint32_t l : trie.labels(out_shape[i]))
      out[i].keys.push_back(l >= leaks::ShapeTrie::kRootLabel ? l : key_of_label[l]);
  }
  std::stable_sort(out.begin(), out.end(), [](const ShapeGroup& x, const ShapeGroup& y) {
    return x.bytes != y.bytes ? x.bytes > y.bytes : x.count > y.count;
  });
  return out;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "grouping paths by shape");
}

}  // namespace gcsnap
