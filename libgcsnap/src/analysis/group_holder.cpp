#include "gcsnap/group_holder.hpp"

#include <algorithm>
#include <new>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gcsnap/reader.hpp"

namespace gcsnap {

std::vector<uint8_t> array_type_flags(const HeapGraph& graph, const NameTable& names) {
  std::vector<uint8_t> array_types;  // 2: not looked at yet
  for (NodeIndex v = 0; v < graph.node_count(); ++v) {
    const uint32_t t = graph.type_id(v);
    if (t >= array_types.size()) array_types.resize(size_t{t} + 1, 2);
    if (array_types[t] == 2) {
      const std::string_view name = names.type_name(t);
      array_types[t] = !name.empty() && name.back() == ']';
    }
  }
  return array_types;
}

namespace {

bool in_group(HolderMark m) { return m == HolderMark::Member || m == HolderMark::Counted; }

bool is_reached(const DominatorTree& dom, NodeIndex v) { return dom.immediate_dominator(v) != kNoNode; }

// Among the entries (reached Outside objects with an edge into the group) that members
// reference back: most back references, then most edges in, then the lowest address.
GroupHolder find_owner(const HeapGraph& graph, const DominatorTree& dom, std::span<const HolderMark> marks) {
  std::unordered_map<NodeIndex, std::pair<uint64_t, uint64_t>> entries;  // back refs, edges in
  if (graph.has_reverse()) {
    // The same counts from the members' predecessors (one per edge in, repeats too): the edges
    // of the group instead of every edge of the heap, which `gcsnap leaks` paid per suspect.
    for (NodeIndex w = 0; w < graph.node_count(); ++w) {
      if (!in_group(marks[w])) continue;
      for (NodeIndex u : graph.predecessors(w))
        if (marks[u] == HolderMark::Outside && is_reached(dom, u)) ++entries[u].second;
    }
  } else {
    for (NodeIndex u = 0; u < graph.node_count(); ++u) {
      if (marks[u] != HolderMark::Outside || !is_reached(dom, u)) continue;
      for (NodeIndex w : graph.successors(u))
        if (in_group(marks[w])) ++entries[u].second;
    }
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

// The holder BEST, which dominates DOMINATED counted members; a collection's array names
// the collection, and the array.
GroupHolder dominating_holder(const HeapGraph& graph, const DominatorTree& dom, std::span<const HolderMark> marks,
                              NodeIndex best, uint64_t dominated, std::span<const uint8_t> array_types);

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
  return dominating_holder(graph, dom, marks, best, below[best], array_types);
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "finding the holder of a group");
}

Result<GroupHolder> find_group_holder(const HeapGraph& graph, const DominatorTree& dom,
                                      std::span<const HolderMark> marks, std::span<const NodeIndex> counted,
                                      std::span<const uint32_t> preorder_position,
                                      std::span<const uint8_t> array_types, bool search_owner) try {
  if (marks.size() != graph.node_count() || preorder_position.size() != graph.node_count())
    return make_error(ErrorCode::InvalidArgument, "one mark and one preorder position per node expected");
  // The nodes with counted members below them are the members' dominator ancestors: collect
  // them (each once), then sum the counts up the tree deepest first (by preorder position,
  // backwards), as the full pass does over every node.
  std::unordered_map<NodeIndex, uint32_t> slot;  // ancestor -> position in `nodes`
  std::vector<NodeIndex> nodes;
  uint64_t total = 0;
  for (const NodeIndex m : counted) {
    if (m >= marks.size() || marks[m] != HolderMark::Counted || !is_reached(dom, m)) continue;
    ++total;
    for (NodeIndex x = m; x != kVirtualRoot && x != kNoNode && slot.try_emplace(x, nodes.size()).second;
         x = dom.immediate_dominator(x))
      nodes.push_back(x);
  }
  std::vector<uint32_t> order(nodes.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return preorder_position[nodes[a]] > preorder_position[nodes[b]];
  });
  std::vector<uint32_t> below(nodes.size(), 0);
  NodeIndex best = kNoNode;
  uint32_t best_below = 0;
  for (const uint32_t i : order) {  // deepest first: a node's count is whole when it is reached
    const NodeIndex v = nodes[i];
    if (marks[v] == HolderMark::Counted) ++below[i];
    const NodeIndex p = dom.immediate_dominator(v);
    if (p != kVirtualRoot && p != kNoNode) below[slot.at(p)] += below[i];
  }
  // The full pass keeps the last node in preorder that qualifies.
  for (const uint32_t i : order) {
    if (2 * uint64_t{below[i]} > total && marks[nodes[i]] == HolderMark::Outside) {
      best = nodes[i];
      best_below = below[i];
      break;
    }
  }
  if (best == kNoNode) return search_owner ? find_owner(graph, dom, marks) : GroupHolder{};
  return dominating_holder(graph, dom, marks, best, best_below, array_types);
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "finding the holder of a group");
}

namespace {

GroupHolder dominating_holder(const HeapGraph& graph, const DominatorTree& dom, std::span<const HolderMark> marks,
                              NodeIndex best, uint64_t dominated, std::span<const uint8_t> array_types) {
  GroupHolder holder;
  holder.found = true;
  holder.node = best;
  holder.members_dominated = dominated;
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
}

}  // namespace

}  // namespace gcsnap
