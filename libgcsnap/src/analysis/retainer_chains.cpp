#include "gcsnap/retainer_chains.hpp"

#include <algorithm>
#include <new>

namespace gcsnap {

Result<std::vector<RetainerChain>> top_retainer_chains(const HeapGraph& graph, const DominatorTree& dom, size_t n,
                                                       std::span<const uint32_t> types) {
  if (dom.immediate_dominators().size() != graph.node_count())
    return make_error(ErrorCode::InvalidArgument, "dominator tree belongs to another graph");
  try {
    const size_t nodes = graph.node_count();
    auto larger = [&](NodeIndex a, NodeIndex b) {
      const uint64_t ra = dom.retained_size(a), rb = dom.retained_size(b);
      return ra != rb ? ra > rb : a < b;
    };
    // A reachable node folds into its immediate dominator when both have the same type, so a
    // chain is all of one type and its head is the first node up the tree whose dominator has
    // another type. Heads are told node by node in index order (sequential reads, one random
    // read of the dominator's type): no walk over the preorder, whose order is random in memory.
    auto folded = [&](NodeIndex v) {
      const NodeIndex d = dom.immediate_dominator(v);
      return d != kVirtualRoot && d != kNoNode && graph.type_id(d) == graph.type_id(v);
    };
    // The heads that qualify; with a limit only the N largest so far (a heap whose top is the
    // smallest kept): the set kept does not depend on the visiting order (a strict total order).
    std::vector<NodeIndex> heads;
    for (NodeIndex v = 0; v < nodes; ++v) {
      if (!dom.is_reachable(v)) continue;
      // Smaller than the smallest of N kept: it cannot be a result, whatever it folds into
      // (checked first, so most nodes never read their dominator's type).
      if (n != 0 && heads.size() == n && !larger(v, heads.front())) continue;
      if (folded(v)) continue;
      if (!types.empty() && !std::binary_search(types.begin(), types.end(), graph.type_id(v))) continue;
      if (n == 0 || heads.size() < n) {
        heads.push_back(v);
        if (n != 0) std::push_heap(heads.begin(), heads.end(), larger);
      } else if (larger(v, heads.front())) {
        std::pop_heap(heads.begin(), heads.end(), larger);
        heads.back() = v;
        std::push_heap(heads.begin(), heads.end(), larger);
      }
    }
    std::sort(heads.begin(), heads.end(), larger);
    // Chain lengths: each node of a kept head's type finds its head by walking up the tree;
    // the heads found are remembered (4 B per node), so every node is walked over once.
    std::vector<uint32_t> kept_types;
    for (NodeIndex h : heads) kept_types.push_back(graph.type_id(h));
    std::sort(kept_types.begin(), kept_types.end());
    kept_types.erase(std::unique(kept_types.begin(), kept_types.end()), kept_types.end());
    std::vector<NodeIndex> by_node(heads);
    std::sort(by_node.begin(), by_node.end());
    std::vector<uint64_t> count(by_node.size(), 0);
    std::vector<NodeIndex> head(nodes, kNoNode), path;
    for (NodeIndex v = 0; v < nodes; ++v) {
      if (!dom.is_reachable(v) || !std::binary_search(kept_types.begin(), kept_types.end(), graph.type_id(v)))
        continue;
      NodeIndex u = v;
      path.clear();
      while (head[u] == kNoNode && folded(u)) {
        path.push_back(u);
        u = dom.immediate_dominator(u);
      }
      const NodeIndex h = head[u] != kNoNode ? head[u] : u;
      head[u] = h;
      for (NodeIndex w : path) head[w] = h;
      const auto it = std::lower_bound(by_node.begin(), by_node.end(), h);
      if (it != by_node.end() && *it == h) ++count[static_cast<size_t>(it - by_node.begin())];
    }
    std::vector<RetainerChain> out;
    out.reserve(heads.size());
    for (NodeIndex v : heads) {
      const size_t at = static_cast<size_t>(std::lower_bound(by_node.begin(), by_node.end(), v) - by_node.begin());
      out.push_back(RetainerChain{v, count[at]});
    }
    return out;
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "out of memory folding retainer chains");
  }
}

}  // namespace gcsnap
