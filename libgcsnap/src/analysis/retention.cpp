#include "gcsnap/retention.hpp"

#include <algorithm>
#include <new>
#include <optional>
#include <tuple>

#include "analysis/backward_search.hpp"
#include "analysis/root_order.hpp"
#include "huge_pages.hpp"


namespace gcsnap {

unsigned root_priority(const GraphRoot& root) noexcept {
  unsigned rank = 0;
  switch (root.kind) {
    case RootKind::Handle: rank = 0; break;
    case RootKind::Other: rank = 1; break;
    case RootKind::Stack: rank = 2; break;
    case RootKind::Finalizer: rank = 3; break;
    default: rank = 4; break;
  }
  return root.is_weak() ? rank + 8 : rank;
}

// search() and from_parents() queue the roots in this one order (root_order.hpp).
std::vector<uint32_t> roots_by_priority(std::span<const GraphRoot> roots, bool include_weak) {
  std::vector<uint32_t> order;
  order.reserve(roots.size());
  for (uint32_t r = 0; r < roots.size(); ++r)
    if (include_weak || !roots[r].is_weak()) order.push_back(r);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return root_priority(roots[a]) < root_priority(roots[b]); });
  return order;
}

namespace {
constexpr size_t kAhead = 8;  // queue entries between a prefetch and its use
}  // namespace

template <typename IsTarget>
Result<ShortestPathTree> ShortestPathTree::search(const HeapGraph& graph, const RetentionOptions& options,
                                                  NodeIndex blocked, NodeIndex stop_at, IsTarget&& is_target,
                                                  size_t count, SearchOrder* keep) {
  try {
    ShortestPathTree tree;
    tree.graph_ = &graph;
    const auto roots = graph.roots();
    auto& parent = tree.owned_parent_;
    // Written at random (one miss per edge looked at): in 2 MiB pages, as the graph's arrays.
    detail::assign_huge(parent, graph.node_count(), kNoNode);
    tree.parent_ = parent;

    const std::vector<uint32_t> order = roots_by_priority(roots, options.include_weak);

    // The FIFO keeps each BFS level sorted by the priority of its best root, so the first
    // discoverer of a node is always its best-priority parent on the next level up.
    // A search whose order is kept reaches every node it can: its queue is sized once (growing
    // it copied and faulted in 1.5x its final size; the pages never written are never touched).
    std::vector<NodeIndex> queue;
    if (keep) detail::reserve_huge(queue, graph.node_count());
    else queue.reserve(std::min<size_t>(graph.node_count(), size_t{1} << 20));
    bool done = false;
    size_t targets_reached = 0;
    for (uint32_t r : order) {
      const NodeIndex node = roots[r].node;
      if (parent[node] != kNoNode) continue;
      parent[node] = kRootMark;
      tree.root_nodes_.emplace_back(node, r);
      queue.push_back(node);
      targets_reached += is_target(node);
      if (node == stop_at) done = true;
    }
    // Expanding level L discovers all of level L+1; at the end of a level (LEVEL_END) the
    // levels found so far are complete, so the COUNT nearest targets are known once reached.
    size_t level_end = queue.size();
    if (keep) keep->level_ends.assign(1, level_end);
    for (size_t head = 0; head < queue.size() && !done; ++head) {
      if (head == level_end) {
        if (count != 0 && targets_reached >= count) break;
        level_end = queue.size();
        if (keep) keep->level_ends.push_back(level_end);
      }
      // Each edge looked at is a miss on PARENT, and each node's successors one more: asked
      // for ahead of time, the nodes queued being known (a hint only: the search is the same).
      if (head + 2 * kAhead < queue.size()) __builtin_prefetch(graph.successors(queue[head + 2 * kAhead]).data());
      if (head + kAhead < queue.size())
        for (NodeIndex s : graph.successors(queue[head + kAhead])) __builtin_prefetch(&parent[s]);
      const NodeIndex v = queue[head];
      if (v == blocked) continue;
      for (NodeIndex s : graph.successors(v)) {
        if (parent[s] != kNoNode) continue;
        parent[s] = v;
        queue.push_back(s);
        targets_reached += is_target(s);
        if (s == stop_at) {
          done = true;
          break;
        }
      }
    }
    tree.reached_ = queue.size();
    std::sort(tree.root_nodes_.begin(), tree.root_nodes_.end());
    if (keep) keep->order = std::move(queue);
    return tree;
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "out of memory computing retention paths");
  }
}

Result<ShortestPathTree> ShortestPathTree::compute(const HeapGraph& graph, const RetentionOptions& options,
                                                   NodeIndex blocked, NodeIndex stop_at) {
  return search(graph, options, blocked, stop_at, [](NodeIndex) { return false; }, 0);
}

Result<ShortestPathTree> ShortestPathTree::compute_in_order(const HeapGraph& graph, const RetentionOptions& options,
                                                            SearchOrder& order) {
  return search(graph, options, kNoNode, kNoNode, [](NodeIndex) { return false; }, 0, &order);
}

Result<ShortestPathTree> ShortestPathTree::compute_nearest(const HeapGraph& graph, const RetentionOptions& options,
                                                           std::span<const NodeIndex> targets, size_t count) {
  if (count == 0) return compute(graph, options);
  try {
    // A bit per node: the BFS asks once per node it reaches.
    std::vector<bool> target(graph.node_count(), false);
    for (NodeIndex t : targets)
      if (t < target.size()) target[t] = true;
    return search(graph, options, kNoNode, kNoNode, [&](NodeIndex v) { return target[v]; }, count);
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "out of memory computing retention paths");
  }
}

Result<ShortestPathTree> ShortestPathTree::from_parents(const HeapGraph& graph, std::span<const NodeIndex> parents,
                                                        size_t reached, std::shared_ptr<const void> keep) try {
  if (parents.size() != graph.node_count())
    return make_error(ErrorCode::InvalidArgument, "shortest-path tree of another graph");
  ShortestPathTree tree;
  tree.graph_ = &graph;
  tree.parent_ = parents;
  tree.keep_ = std::move(keep);
  tree.reached_ = reached;
  // A root's object names the best-priority strong root pointing at it, as search() picks it.
  const auto roots = graph.roots();
  const std::vector<uint32_t> order = roots_by_priority(roots, false);
  for (uint32_t r : order) tree.root_nodes_.emplace_back(roots[r].node, r);
  // Stable: the first entry of each node is its best root.
  std::stable_sort(tree.root_nodes_.begin(), tree.root_nodes_.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  tree.root_nodes_.erase(std::unique(tree.root_nodes_.begin(), tree.root_nodes_.end(),
                                     [](const auto& x, const auto& y) { return x.first == y.first; }),
                         tree.root_nodes_.end());
  for (const auto& [node, r] : tree.root_nodes_)
    if (node >= parents.size() || parents[node] != kRootMark)
      return make_error(ErrorCode::InvalidArgument, "a strong root's object is not a root of the shortest-path tree");
  return tree;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "out of memory adopting a shortest-path tree");
}

void describe_hops(const HeapGraph& graph, RetentionPath& path) {
  path.edges.assign(path.hops(), PathHop{});
  for (size_t i = 0; i + 1 < path.nodes.size(); ++i) path.edges[i].kind = graph.edge_kind(path.nodes[i], path.nodes[i + 1]);
}

uint32_t ShortestPathTree::root_of(NodeIndex node) const noexcept {
  auto it = std::lower_bound(root_nodes_.begin(), root_nodes_.end(), std::make_pair(node, uint32_t{0}));
  return it != root_nodes_.end() && it->first == node ? it->second : 0;
}

size_t ShortestPathTree::hops_to(NodeIndex node) const noexcept {
  if (parent_[node] == kNoNode) return SIZE_MAX;
  size_t hops = 0;
  for (NodeIndex v = node; parent_[v] != kRootMark; v = parent_[v]) {
    if (hops >= parent_.size() || parent_[v] >= parent_.size()) return SIZE_MAX;  // forged: a cycle or a dangling parent
    ++hops;
  }
  return hops;
}

RetentionPath ShortestPathTree::path_to(NodeIndex node) const {
  RetentionPath path;
  // hops_to checks the parents (a cycle or a dangling one gives no path); then fill from the end.
  const size_t hops = hops_to(node);
  if (hops == SIZE_MAX) return path;
  path.nodes.resize(hops + 1);
  NodeIndex v = node;
  for (size_t i = hops; i > 0; --i, v = parent_[v]) path.nodes[i] = v;
  path.nodes[0] = v;
  path.root = root_of(v);
  describe_hops(*graph_, path);
  return path;
}

namespace {

// A candidate for one distinct retainer, cheap to sort before any path is materialised.
struct Candidate {
  uint64_t hops;
  unsigned priority;
  NodeIndex retainer;  // kNoNode: a root pointing straight at the target
  uint32_t root;
};

std::vector<NodeIndex> direct_referrers(const HeapGraph& graph, NodeIndex target) {
  std::vector<NodeIndex> referrers;
  if (graph.has_reverse()) {
    for (NodeIndex p : graph.predecessors(target))
      if (p != target) referrers.push_back(p);
  } else {
    // One sequential pass over the forward edges is cheaper than building the reverse CSR.
    for (NodeIndex p = 0; p < graph.node_count(); ++p)
      for (NodeIndex s : graph.successors(p))
        if (s == target && p != target) referrers.push_back(p);
  }
  referrers.erase(std::unique(referrers.begin(), referrers.end()), referrers.end());
  return referrers;
}

Result<RetentionResult> find_distinct_paths(const HeapGraph& graph, NodeIndex target,
                                            const RetentionOptions& options) {
  auto tree = ShortestPathTree::compute(graph, options, target);
  if (!tree) return tree.error();
  RetentionResult result;
  if (!tree->is_reached(target)) return result;
  result.reachability = Reachability::Strong;
  const auto roots = graph.roots();
  std::vector<Candidate> candidates;
  for (uint32_t r = 0; r < roots.size(); ++r) {
    if (roots[r].node == target && (options.include_weak || !roots[r].is_weak()))
      candidates.push_back({0, root_priority(roots[r]), kNoNode, r});
  }
  for (NodeIndex p : direct_referrers(graph, target)) {
    if (!tree->is_reached(p)) continue;
    RetentionPath path = tree->path_to(p);
    candidates.push_back({path.nodes.size(), root_priority(roots[path.root]), p, path.root});
  }
  result.retainer_count = candidates.size();
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.hops, a.priority, a.retainer, a.root) < std::tie(b.hops, b.priority, b.retainer, b.root);
  });
  if (options.max_paths != 0 && candidates.size() > options.max_paths) candidates.resize(options.max_paths);
  for (const Candidate& c : candidates) {
    RetentionPath path;
    if (c.retainer == kNoNode) {
      path.root = c.root;
    } else {
      path = tree->path_to(c.retainer);
    }
    path.nodes.push_back(target);
    result.paths.push_back(std::move(path));
  }
  return result;
}

Result<RetentionResult> find_paths_once(const HeapGraph& graph, NodeIndex target, const RetentionOptions& options) {
  if (options.max_paths != 1) return find_distinct_paths(graph, target, options);
  if (graph.has_reverse())
    return detail::search_backward(graph.node_count(), graph.roots(), target, options,
                                   [&graph](NodeIndex v, auto&& visit) {
                                     for (NodeIndex p : graph.predecessors(v)) visit(p);
                                     return Status();
                                   });
  auto tree = ShortestPathTree::compute(graph, options, kNoNode, target);
  if (!tree) return tree.error();
  RetentionResult result;
  if (tree->is_reached(target)) {
    result.reachability = Reachability::Strong;
    result.paths.push_back(tree->path_to(target));
  }
  return result;
}

}  // namespace

Result<RetentionResult> find_retention_paths(const HeapGraph& graph, NodeIndex target,
                                             const RetentionOptions& options) {
  if (target >= graph.node_count()) return make_error(ErrorCode::InvalidArgument, "node index out of range");
  try {
    auto described = [&](Result<RetentionResult> r) {
      if (r)
        for (RetentionPath& p : r->paths) describe_hops(graph, p);
      return r;
    };
    auto result = find_paths_once(graph, target, options);
    if (!result || result->reachability == Reachability::Strong || options.include_weak) return described(std::move(result));
    RetentionOptions weak = options;
    weak.include_weak = true;
    auto weak_result = find_paths_once(graph, target, weak);
    if (!weak_result) return weak_result;
    if (weak_result->reachability == Reachability::Strong) weak_result->reachability = Reachability::WeakOnly;
    return described(std::move(weak_result));
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "out of memory computing retention paths");
  }
}

}  // namespace gcsnap
