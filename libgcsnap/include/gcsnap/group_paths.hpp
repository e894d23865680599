#pragma once
/// Retention paths for groups of objects (the largest groups of new survivors of a diff):
/// one shortest path per group, all from a single breadth-first search.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "gcsnap/heap_graph.hpp"
#include "gcsnap/object_diff.hpp"
#include "gcsnap/retention.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap {

/// Another shape of path among a group's members (GroupPath::more_shapes).
struct GroupShape {
  size_t member = kNoObject;  ///< the first member (in address order) whose path has this shape
  RetentionPath path;         ///< that member's shortest path
  uint64_t same_shape = 0;    ///< members examined whose shortest path has this shape
};

/// A retention path for one group: the most common shape of path among its members.
struct GroupPath {
  size_t member = kNoObject;  ///< the member the path leads to (kNoObject: none is reachable)
  RetentionPath path;         ///< empty when no member is strongly reachable
  uint64_t examined = 0;      ///< members looked at (the first max_candidates, in address order)
  uint64_t reachable = 0;     ///< of those, members a strong root reaches
  uint64_t same_shape = 0;    ///< of those, members whose shortest path has this path's shape
  /// The next most common shapes, in the same order (at most max_shapes - 1).
  std::vector<GroupShape> more_shapes;
};

/// For each group, cluster the shortest paths (one BFS for all groups) of its first
/// `max_candidates` members by shape (root kind and flags, then the type of every object on
/// the path, folded by fold_repeats) and return the most common shape, ties to the shorter path, then the lower
/// member; and the next `max_shapes - 1` shapes in that order. `graph` must be built from the
/// table the groups index. TREE (optional) is the graph's full shortest-path tree over strong
/// roots (an analysis index keeps one); without it one BFS runs, and stops once it has found
/// every candidate. Either way the paths are those of a full search.
/// Errors: those of ShortestPathTree::compute; OutOfMemory.
Result<std::vector<GroupPath>> find_group_paths(const HeapGraph& graph, std::span<const TypeGroup> groups,
                                                size_t max_candidates = 4096, size_t max_shapes = 1,
                                                const ShortestPathTree* tree = nullptr);

/// Instances that share one folded retention shape (path --type --group).
struct ShapeGroup {
  std::vector<uint32_t> keys;   ///< the shape: the root's label, then the folded hop keys
  uint64_t count = 0, bytes = 0;
  NodeIndex example = kNoNode;  ///< the member with the fewest hops (then the first given)
  NodeIndex farthest = kNoNode; ///< the member with the most hops (then the first given)
  size_t min_hops = 0, max_hops = 0;
};

/// Return the key of the hop into NODE from PARENT (kNoNode for a root's object); equal keys
/// fold together (path --group keys on the type and the field).
using HopKeyFn = std::function<uint32_t(NodeIndex node, NodeIndex parent)>;

/// Group TARGETS that TREE reaches by the folded shape of their shortest path: the root's kind
/// and flags, then HOP_KEY of every hop, folded by the rule of fold_repeats. Largest bytes
/// first, then count. Each node's shape is its tree parent's extended by one key, memoised:
/// O(nodes on the targets' paths), not O(targets x depth). Errors: OutOfMemory.
Result<std::vector<ShapeGroup>> group_by_folded_shape(const HeapGraph& graph, const ShortestPathTree& tree,
                                                      std::span<const NodeIndex> targets, const HopKeyFn& hop_key);

}  // namespace gcsnap
