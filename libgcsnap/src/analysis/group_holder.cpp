#include "gcsnap/group_holder.hpp"

#include <new>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gcsnap {

namespace {

bool in_group(HolderMark m) { return m == HolderMark::Member || m == HolderMark::Counted; }

bool is_reached(const DominatorTree& dom, NodeIndex v) { return dom.immediate_dominator(v) != kNoNode; }

// Among the entries (reached Outside objects with an edge into the group) that members
// reference back: most back references, then most edges in, then the lowest address.
GroupHolder find_owner(const HeapGraph& graph, const DominatorTree& dom, std::span<const HolderMark> marks) {
  std::unordered_map<NodeIndex, std::pair<uint64_t, uint64_t>> entries;  // back refs, edges in
  for (NodeIndex u = 0; u < graph.node_count(); ++u) {
    if (marks[u] != HolderMark::Outside || !is_reached(dom, u)) continue;
    for (NodeIndex w : graph.successors(u))
      if (in_group(marks[w])) ++entries[u].second;
  }
  for (NodeIndex v = 0; v < graph.node_count(); ++v) {
    if (!in_group(marks[v])) continue;
    for (NodeIndex w : graph.successors(v))
      if (const auto it = entries.find(w); it != entries.end()) ++it->second.first;
  }
  GroupHolder holder;
  std::pair<uint64_t, uint64_t> best{0, 0};
  for (const auto& [u, score] : entries) {
    // An owner is referenced back by members: without that, the entry with most edges in is
    // only the largest way in (a cache's array among the nodes that each hold one member).
    if (score.first == 0) continue;
    if (holder.node == kNoNode || score > best ||
        (score == best && graph.address(u) < graph.address(holder.node))) {
      holder.node = u;
      best = score;
    }
  }
  if (holder.node == kNoNode) return holder;
  holder.found = holder.is_owner = true;
  holder.entries = entries.size();
  return holder;
}

}  // namespace

Result<GroupHolder> find_group_holder(const HeapGraph& graph, const DominatorTree& dom,
                                      std::span<const HolderMark> marks, std::span<const uint8_t> array_types) try {
  if (marks.size() != graph.node_count()) return make_error(ErrorCode::InvalidArgument, "one mark per node expected");
  // Counted members below each node, one pass over the preorder backwards. The nodes that
  // dominate more than half of them form one chain of the dominator tree, so the deepest
  // (not excluded) is the last of them in preorder.
  const auto preorder = dom.preorder();
  std::vector<uint32_t> below(graph.node_count(), 0);
  uint64_t total = 0;
  for (size_t i = preorder.size(); i-- > 0;) {
    const NodeIndex v = preorder[i];
    if (marks[v] == HolderMark::Counted) {
      ++below[v];
      ++total;
    }
    const NodeIndex p = dom.immediate_dominator(v);
    if (p != kVirtualRoot && p != kNoNode) below[p] += below[v];
  }
  NodeIndex best = kNoNode;
  for (NodeIndex v : preorder)
    if (2 * uint64_t{below[v]} > total && marks[v] == HolderMark::Outside) best = v;
  if (best == kNoNode) return find_owner(graph, dom, marks);
  GroupHolder holder;
  holder.found = true;
  holder.node = best;
  holder.members_dominated = below[best];
  // A collection holds its members through an array: name the collection, and the array.
  const uint32_t type = graph.type_id(best);
  if (type < array_types.size() && array_types[type]) {
    const NodeIndex owner = dom.immediate_dominator(best);
    if (owner != kVirtualRoot && owner != kNoNode && !in_group(marks[owner])) {
      holder.via_array = best;
      holder.node = owner;
    }
  }
  return holder;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "finding the holder of a group");
}

}  // namespace gcsnap
