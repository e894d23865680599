#include "gcsnap/retainer_chains.hpp"

#include <algorithm>
#include <new>

namespace gcsnap {

Result<std::vector<RetainerChain>> top_retainer_chains(const HeapGraph& graph, const DominatorTree& dom, size_t n,
                                                       std::span<const uint32_t> types) {
  if (dom.immediate_dominators().size() != graph.node_count())
    return make_error(ErrorCode::InvalidArgument, "dominator tree belongs to another graph");
  try {
    // Preorder visits a dominator before the nodes it dominates, so its head is known first.
    std::vector<NodeIndex> head(graph.node_count(), kNoNode);
    auto larger = [&](NodeIndex a, NodeIndex b) {
      const uint64_t ra = dom.retained_size(a), rb = dom.retained_size(b);
      return ra != rb ? ra > rb : a < b;
    };
    // The heads that qualify; with a limit only the N largest so far (a heap whose top is the
    // smallest kept), so memory stays 4 B per object plus N (a 10 M-object heap: 40 MB, not 160).
    std::vector<NodeIndex> heads;
    for (NodeIndex v : dom.preorder()) {
      const NodeIndex d = dom.immediate_dominator(v);
      const bool folded = d != kVirtualRoot && d != kNoNode && graph.type_id(d) == graph.type_id(v);
      head[v] = folded ? head[d] : v;
      if (folded) continue;
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
    std::vector<RetainerChain> out;
    out.reserve(heads.size());
    if (n == 0) {  // every head: one count per node
      std::vector<uint64_t> length(graph.node_count(), 0);
      for (NodeIndex v : dom.preorder()) ++length[head[v]];
      for (NodeIndex v : heads) out.push_back(RetainerChain{v, length[v]});
      return out;
    }
    // Chain lengths of the kept heads only: a second pass counts the nodes folded into each.
    std::vector<NodeIndex> by_node(heads);
    std::sort(by_node.begin(), by_node.end());
    std::vector<uint64_t> count(by_node.size(), 0);
    for (NodeIndex v : dom.preorder()) {
      const auto it = std::lower_bound(by_node.begin(), by_node.end(), head[v]);
      if (it != by_node.end() && *it == head[v]) ++count[static_cast<size_t>(it - by_node.begin())];
    }
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
