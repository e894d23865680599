#pragma once
// The backward search of a single retention path (find_retention_paths with max_paths 1 on a
// graph with its reverse CSR), over any source of predecessors: the graph in memory
// (retention.cpp) or an analysis index read a piece at a time (index_point_paths.cpp). One
// algorithm for both, so that the answer never depends on where the edges were read from.
// Internal to the library.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "gcsnap/heap_graph.hpp"
#include "gcsnap/retention.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap::detail {

// Search backwards from the target, one BFS level at a time, and stop at the first level that
// holds a root's object. A retention path is a few hops long in real heaps, so this touches the
// target's neighbourhood instead of expanding the whole graph from all roots (measured 534 ms
// -> under 1 ms on 10 M objects, docs/performance.md). Among the roots on that level the best
// root_priority wins, as in the forward tree; between equally short paths of equal priority the
// choice may differ from ShortestPathTree's. PREDECESSORS(v, f) calls f(p) for each
// predecessor p of v in the reverse CSR's order and returns a Status (a damaged piece).
template <typename Predecessors>
class BackwardSearch {
 public:
  BackwardSearch(size_t nodes, std::span<const GraphRoot> roots, const RetentionOptions& options,
                 Predecessors predecessors)
      : roots_(roots), options_(options), predecessors_(std::move(predecessors)), visited_(nodes),
        root_nodes_(nodes) {
    for (const GraphRoot& r : roots)
      if ((options.include_weak || !r.is_weak()) && r.node < nodes) root_nodes_[r.node] = true;
  }

  /// The path (Strong reachability) or none (Unreachable); its edges are not described.
  /// Errors: those of PREDECESSORS.
  Result<RetentionResult> run(NodeIndex target) {
    queue_.push_back({target, kNone});
    visited_[target] = true;
    for (size_t level = 0; level < queue_.size();) {
      const size_t level_end = queue_.size();
      if (auto found = best_root_in(level, level_end)) return result_from(*found);
      for (size_t i = level; i < level_end; ++i) {
        Status s = predecessors_(queue_[i].node, [&](NodeIndex p) {
          if (visited_[p]) return;
          visited_[p] = true;
          queue_.push_back({p, static_cast<uint32_t>(i)});
        });
        if (!s.is_ok()) return s.error();
      }
      level = level_end;
    }
    return RetentionResult{};
  }

 private:
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  struct Entry {
    NodeIndex node;
    uint32_t toward_target;  // queue position of the next node on the path; kNone for the target
  };
  struct Found {
    size_t position;
    uint32_t root;
  };

  // Return the level entry with the best root (priority, then RootTable order), if any.
  std::optional<Found> best_root_in(size_t begin, size_t end) const {
    std::vector<std::pair<NodeIndex, size_t>> hits;  // (node, queue position), sorted by node
    for (size_t i = begin; i < end; ++i)
      if (root_nodes_[queue_[i].node]) hits.emplace_back(queue_[i].node, i);
    if (hits.empty()) return std::nullopt;
    std::sort(hits.begin(), hits.end());
    std::optional<Found> best;
    unsigned best_priority = ~0u;
    for (uint32_t r = 0; r < roots_.size(); ++r) {  // once per search: only the last level has hits
      if (roots_[r].is_weak() && !options_.include_weak) continue;
      auto it = std::lower_bound(hits.begin(), hits.end(), std::make_pair(roots_[r].node, size_t{0}));
      if (it == hits.end() || it->first != roots_[r].node) continue;
      const unsigned priority = root_priority(roots_[r]);
      if (priority < best_priority) {
        best_priority = priority;
        best = Found{it->second, r};
      }
    }
    return best;
  }

  RetentionResult result_from(const Found& found) const {
    RetentionResult result;
    result.reachability = Reachability::Strong;
    RetentionPath path;
    path.root = found.root;
    for (uint32_t i = static_cast<uint32_t>(found.position); i != kNone; i = queue_[i].toward_target)
      path.nodes.push_back(queue_[i].node);
    result.paths.push_back(std::move(path));
    return result;
  }

  std::span<const GraphRoot> roots_;
  const RetentionOptions& options_;
  Predecessors predecessors_;
  std::vector<bool> visited_;     // one bit per node
  std::vector<bool> root_nodes_;  // objects of the roots that count
  std::vector<Entry> queue_;
};

template <typename Predecessors>
Result<RetentionResult> search_backward(size_t nodes, std::span<const GraphRoot> roots, NodeIndex target,
                                        const RetentionOptions& options, Predecessors predecessors) {
  return BackwardSearch<Predecessors>(nodes, roots, options, std::move(predecessors)).run(target);
}

}  // namespace gcsnap::detail
