#pragma once
/// Dominator tree and retained sizes: what would be freed if this object went away?

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "gcsnap/heap_graph.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap {

/// Parent of the objects that no single object dominates (the virtual root above all roots).
inline constexpr NodeIndex kVirtualRoot = 0xFFFFFFFEu;

struct DominatorOptions {
  /// Let roots flagged root_flags::kWeakRef retain objects (off: weak roots are ignored).
  bool include_weak = false;
};

/// The dominator tree over the graph rooted at a virtual root whose children are the (strong)
/// roots' objects. Object d dominates v when every path from a root to v goes through d;
/// v's retained size is the sum of the shallow sizes of the objects d dominates (itself
/// included): what freeing d would free.
class DominatorTree {
 public:
  /// Compute the tree with the Semi-NCA algorithm (iterative DFS, then semidominators with
  /// path compression, then nearest common ancestors), and the retained sizes in one
  /// reverse-preorder pass. The graph must have its reverse CSR (HeapGraph::build_reverse).
  /// Errors: InvalidState (no reverse CSR), OutOfMemory.
  [[nodiscard]] static Result<DominatorTree> compute(const HeapGraph& graph, const DominatorOptions& options = {});

  /// Return v's immediate dominator: an object, kVirtualRoot, or kNoNode when v is not
  /// reachable from the roots used.
  NodeIndex immediate_dominator(NodeIndex v) const noexcept { return idom_[v]; }
  bool is_reachable(NodeIndex v) const noexcept { return idom_[v] != kNoNode; }
  /// Return the retained size (0 for unreachable objects).
  uint64_t retained_size(NodeIndex v) const noexcept { return retained_[v]; }
  /// Return the number of dominators above v, virtual root excluded (0 for a root's object
  /// that nothing else dominates). O(depth).
  uint32_t depth(NodeIndex v) const noexcept;

  std::span<const NodeIndex> immediate_dominators() const noexcept { return idom_; }
  std::span<const uint64_t> retained_sizes() const noexcept { return retained_; }
  /// Return the reachable nodes in DFS preorder: every node comes after its dominators.
  std::span<const NodeIndex> preorder() const noexcept { return preorder_; }

  size_t reachable_count() const noexcept { return preorder_.size(); }
  uint64_t reachable_bytes() const noexcept { return reachable_bytes_; }
  size_t unreachable_count() const noexcept { return idom_.size() - preorder_.size(); }
  uint64_t unreachable_bytes() const noexcept { return unreachable_bytes_; }

  /// Return the n reachable objects with the largest retained sizes, largest first (ties by
  /// address order). n = 0 returns all of them.
  std::vector<NodeIndex> top_retainers(size_t n) const;

 private:
  friend struct detail::AnalysisIndexAccess;
  // compute, calling AFTER_DFS between the DFS (which reads only the successors) and the
  // semidominators (the first use of the reverse CSR): the analysis index's build gives back
  // what only the DFS read and builds the reverse CSR there (index_build_file.cpp).
  static Result<DominatorTree> compute_after(const HeapGraph& graph, const DominatorOptions& options,
                                             const std::function<Status()>& after_dfs);
  // The arrays live in storage_: owned vectors, or a mapped analysis index kept alive.
  std::span<const NodeIndex> idom_;
  std::span<const uint64_t> retained_;
  std::span<const NodeIndex> preorder_;
  uint64_t reachable_bytes_ = 0;
  uint64_t unreachable_bytes_ = 0;
  std::shared_ptr<const void> storage_;
};

}  // namespace gcsnap
