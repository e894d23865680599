#pragma once
/// Retention paths: why is an object alive? Shortest chains of references from a root.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "gcsnap/heap_graph.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap {

struct RetentionOptions {
  /// Let roots flagged root_flags::kWeakRef retain objects. Off by default: a weak handle
  /// does not keep its target alive.
  bool include_weak = false;
  /// How many distinct paths find_retention_paths returns; 0 means all.
  size_t max_paths = 1;
};

/// Return the priority of a root when paths are equally short; lower wins.
/// Order: handles, other (statics live behind handles or here), stack, finalizer queue;
/// weak roots after all strong ones.
unsigned root_priority(const GraphRoot& root) noexcept;

/// How one hop of a path holds the next object: edges[i] is the hop nodes[i] -> nodes[i+1].
/// A struct so that what is known about a hop can grow without changing the path's shape.
struct PathHop {
  EdgeKind kind = EdgeKind::Reference;
};

/// One path: nodes.front() is the object a root points at, nodes.back() is the target.
struct RetentionPath {
  uint32_t root = 0;             ///< index into HeapGraph::roots()
  std::vector<NodeIndex> nodes;
  std::vector<PathHop> edges;    ///< hops() entries, filled by every function returning paths
  size_t hops() const noexcept { return nodes.empty() ? 0 : nodes.size() - 1; }
};

/// Fill path.edges from the graph (one entry per hop). The path-returning functions call it;
/// callers that assemble paths themselves may too.
void describe_hops(const HeapGraph& graph, RetentionPath& path);

enum class Reachability : uint8_t {
  Strong = 0,       ///< reachable from a strong root (or a weak one with include_weak)
  WeakOnly = 1,     ///< reachable only through weak roots: not retained
  Unreachable = 2,  ///< no root reaches it: garbage at the time of the walk, or roots were dropped
};

struct RetentionResult {
  Reachability reachability = Reachability::Unreachable;
  /// Shortest first. For WeakOnly, the paths from weak roots (informative, not retaining).
  std::vector<RetentionPath> paths;
  /// Distinct direct retainers of the target: objects referencing it plus roots pointing at
  /// it. Only counted when more than one path is asked for.
  uint64_t retainer_count = 0;
};

/// Breadth-first shortest-path tree from the roots (multi-source BFS, parent array).
/// Sources are queued in root_priority order, so among equally short paths the one from the
/// best-priority root wins. One tree answers path queries for any number of objects.
class ShortestPathTree {
 public:
  ShortestPathTree() = default;
  // Move-only: parent_ views owned_parent_'s buffer, which a move keeps and a copy would not.
  ShortestPathTree(ShortestPathTree&&) noexcept = default;
  ShortestPathTree& operator=(ShortestPathTree&&) noexcept = default;
  ShortestPathTree(const ShortestPathTree&) = delete;
  ShortestPathTree& operator=(const ShortestPathTree&) = delete;

  /// Run the BFS. `blocked` (if not kNoNode) is reached but never expanded, which gives the
  /// shortest paths that do not pass through it. The BFS stops early once `stop_at` is
  /// reached (kNoNode: explore everything). Errors: OutOfMemory.
  [[nodiscard]] static Result<ShortestPathTree> compute(const HeapGraph& graph, const RetentionOptions& options,
                                                        NodeIndex blocked = kNoNode, NodeIndex stop_at = kNoNode);

  /// The order a full BFS reached the nodes in: ORDER[i] is the i-th node reached, and level L
  /// (the nodes L hops from a root's object) ends before LEVEL_ENDS[L].
  struct SearchOrder {
    std::vector<NodeIndex> order;
    std::vector<size_t> level_ends;
  };
  /// compute(GRAPH, OPTIONS), keeping the search's order in ORDER (its queue: 4 bytes per node
  /// reached, which compute frees). Errors: OutOfMemory.
  [[nodiscard]] static Result<ShortestPathTree> compute_in_order(const HeapGraph& graph,
                                                                 const RetentionOptions& options, SearchOrder& order);

  /// Run the BFS only as far as the COUNT nearest of TARGETS (node indices) need: it
  /// stops at the end of the first level after which at least COUNT targets are reached (or
  /// when everything is). Every node up to that level is reached, with the same parent as in
  /// a full BFS; nodes beyond it are not. COUNT 0 explores everything. Errors: OutOfMemory.
  [[nodiscard]] static Result<ShortestPathTree> compute_nearest(const HeapGraph& graph, const RetentionOptions& options,
                                                                std::span<const NodeIndex> targets, size_t count);

  /// A tree computed before (ShortestPathTree::parents() of a full compute over strong roots
  /// with RetentionOptions{} on the same graph, as an analysis index keeps it): PARENTS is
  /// used in place and KEEP keeps it alive; REACHED is its count of reached nodes. Errors:
  /// InvalidArgument (not one parent per node, or a root mark on no strong root's object),
  /// OutOfMemory.
  [[nodiscard]] static Result<ShortestPathTree> from_parents(const HeapGraph& graph, std::span<const NodeIndex> parents,
                                                             size_t reached, std::shared_ptr<const void> keep);

  /// Parent of a root's object in parents().
  static constexpr NodeIndex kRootMark = 0xFFFFFFFEu;

  bool is_reached(NodeIndex node) const noexcept { return parent_[node] != kNoNode; }
  /// Return the path to node (empty nodes when it was not reached). O(path length); a
  /// parent array with a cycle (a forged index) gives an empty path, never a hang.
  RetentionPath path_to(NodeIndex node) const;
  /// Return the hops of node's path (path_to(node).hops()) without building it; SIZE_MAX when
  /// it is not reached (or its parents form a cycle). O(path length).
  size_t hops_to(NodeIndex node) const noexcept;
  /// Return the number of reached nodes.
  size_t reached_count() const noexcept { return reached_; }
  /// Per node: its parent, kRootMark for a root's object, kNoNode when not reached.
  std::span<const NodeIndex> parents() const noexcept { return parent_; }

 private:
  // The BFS of both: IS_TARGET / COUNT as compute_nearest (COUNT 0: no level stop).
  template <typename IsTarget>
  static Result<ShortestPathTree> search(const HeapGraph& graph, const RetentionOptions& options, NodeIndex blocked,
                                         NodeIndex stop_at, IsTarget&& is_target, size_t count,
                                         SearchOrder* keep = nullptr);
  uint32_t root_of(NodeIndex node) const noexcept;
  const HeapGraph* graph_ = nullptr;
  std::span<const NodeIndex> parent_;  // kNoNode: not reached; kRootMark: a root's object
  std::vector<NodeIndex> owned_parent_;  // parent_'s storage when computed here
  std::shared_ptr<const void> keep_;     // parent_'s storage when given to from_parents
  std::vector<std::pair<NodeIndex, uint32_t>> root_nodes_;  // sorted by node: best root per node
  size_t reached_ = 0;
};

/// Find the shortest retention path to target, or up to options.max_paths distinct ones.
/// Distinct paths are one per distinct direct retainer (a root pointing at the target, or an
/// object referencing it), each the shortest path through that retainer that does not pass
/// through the target itself; sorted by length, then root priority. When the target is not
/// strongly reachable, reachability says why and paths holds weak-root paths if any.
/// Two search strategies answer a single-path query: a backward search from the target when
/// the graph has its reverse CSR, a forward BFS from the roots otherwise. Both return a
/// shortest path from the best root priority, but between equally short paths of equal
/// priority they may pick different ones (different hops, same length and root kind).
/// Errors: InvalidArgument (target out of range), OutOfMemory.
[[nodiscard]] Result<RetentionResult> find_retention_paths(const HeapGraph& graph, NodeIndex target,
                                                           const RetentionOptions& options);

}  // namespace gcsnap
