#include "gcsnap/retainer_chains.hpp"

#include <algorithm>
#include <new>

#include "huge_pages.hpp"

namespace gcsnap {

namespace {

// The type ids of some heads, asked about once per node: a flag per id up to the largest
// (type ids are dense in a sound recording), a sorted list when that would be large.
class KeptTypes {
 public:
  KeptTypes(const HeapGraph& graph, std::span<const NodeIndex> heads) {
    for (NodeIndex h : heads) ids_.push_back(graph.type_id(h));
    std::sort(ids_.begin(), ids_.end());
    ids_.erase(std::unique(ids_.begin(), ids_.end()), ids_.end());
    if (!ids_.empty() && ids_.back() < kMaxDense) {
      flags_.assign(size_t{ids_.back()} + 1, 0);
      for (uint32_t t : ids_) flags_[t] = 1;
    }
  }
  bool contains(uint32_t type) const noexcept {
    if (ids_.empty() || type > ids_.back()) return false;
    return flags_.empty() ? std::binary_search(ids_.begin(), ids_.end(), type) : flags_[type] != 0;
  }

 private:
  static constexpr uint32_t kMaxDense = uint32_t{1} << 24;
  std::vector<uint32_t> ids_;
  std::vector<uint8_t> flags_;
};

}  // namespace

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
    // what each node's head is (its place among the kept heads, or none) is remembered (4 B per
    // node, written at random: 2 MiB pages), so every node is walked over once and each head
    // looked up among the kept ones once, not once per node. Whether a node's type is kept is
    // a lookup by type id, not a binary search per node.
    const KeptTypes kept(graph, heads);
    std::vector<NodeIndex> by_node(heads);
    std::sort(by_node.begin(), by_node.end());
    std::vector<uint64_t> count(by_node.size(), 0);
    constexpr uint32_t kUnknown = 0xFFFFFFFFu, kNotKept = 0xFFFFFFFEu;
    auto place_of = [&](NodeIndex h) {
      const auto it = std::lower_bound(by_node.begin(), by_node.end(), h);
      return it != by_node.end() && *it == h ? static_cast<uint32_t>(it - by_node.begin()) : kNotKept;
    };
    std::vector<uint32_t> place;
    std::vector<NodeIndex> path;
    detail::assign_huge(place, nodes, kUnknown);
    constexpr NodeIndex kAhead = 16;  // nodes between a prefetch and its use
    for (NodeIndex v = 0; v < nodes; ++v) {
      // The dominator's type and place are read at random: asked for ahead (a hint only).
      if (v + kAhead < nodes) {
        const NodeIndex d = dom.immediate_dominator(v + kAhead);
        if (d < nodes) __builtin_prefetch(&graph.type_ids()[d]), __builtin_prefetch(&place[d]);
      }
      if (!dom.is_reachable(v) || !kept.contains(graph.type_id(v))) continue;
      NodeIndex u = v;
      path.clear();
      while (place[u] == kUnknown && folded(u)) {
        path.push_back(u);
        u = dom.immediate_dominator(u);
      }
      if (place[u] == kUnknown) place[u] = place_of(u);  // U is its own head
      const uint32_t p = place[u];
      for (NodeIndex w : path) place[w] = p;
      if (p != kNotKept) ++count[p];
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
