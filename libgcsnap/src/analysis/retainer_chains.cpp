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
    std::vector<uint64_t> length(graph.node_count(), 0);
    for (NodeIndex v : dom.preorder()) {
      const NodeIndex d = dom.immediate_dominator(v);
      const bool folded = d != kVirtualRoot && d != kNoNode && graph.type_id(d) == graph.type_id(v);
      head[v] = folded ? head[d] : v;
      ++length[head[v]];
    }
    std::vector<NodeIndex> heads;
    for (NodeIndex v : dom.preorder()) {
      if (head[v] != v) continue;
      if (!types.empty() && !std::binary_search(types.begin(), types.end(), graph.type_id(v))) continue;
      heads.push_back(v);
    }
    auto larger = [&](NodeIndex a, NodeIndex b) {
      const uint64_t ra = dom.retained_size(a), rb = dom.retained_size(b);
      return ra != rb ? ra > rb : a < b;
    };
    if (n != 0 && n < heads.size()) {
      std::nth_element(heads.begin(), heads.begin() + static_cast<std::ptrdiff_t>(n), heads.end(), larger);
      heads.resize(n);
    }
    std::sort(heads.begin(), heads.end(), larger);
    std::vector<RetainerChain> out;
    out.reserve(heads.size());
    for (NodeIndex v : heads) out.push_back(RetainerChain{v, length[v]});
    return out;
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "out of memory folding retainer chains");
  }
}

}  // namespace gcsnap
