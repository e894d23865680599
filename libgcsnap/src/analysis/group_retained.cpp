#include "group_retained.hpp"

namespace gcsnap::detail {
namespace {

// The dominator tree's children as a CSR over nodes: the children of node v are
// children[offsets[v] .. offsets[v + 1]), those of the virtual root (or of a parent that is not
// in the tree's preorder) children[offsets[n] .. offsets[n + 1]). Over nodes, not preorder positions: no map of
// positions (4 B an object), which with the search's stack of pending children made this 25 B
// an object at the peak of `gcsnap leaks` (10 x 10 M objects).
struct ChildLists {
  std::vector<uint32_t> offsets;
  std::vector<NodeIndex> children;
};

ChildLists child_lists(const DominatorTree& dom, size_t node_count) {
  const auto preorder = dom.preorder();
  const size_t m = preorder.size();
  std::vector<bool> in_tree(node_count, false);
  for (const NodeIndex v : preorder) in_tree[v] = true;
  auto parent_of = [&](NodeIndex v) -> size_t {
    const NodeIndex parent = dom.immediate_dominator(v);
    return parent < node_count && in_tree[parent] ? parent : node_count;
  };
  ChildLists lists{std::vector<uint32_t>(node_count + 2, 0), std::vector<NodeIndex>(m)};
  for (const NodeIndex v : preorder) ++lists.offsets[parent_of(v) + 1];
  for (size_t i = 1; i < lists.offsets.size(); ++i) lists.offsets[i] += lists.offsets[i - 1];
  // Filling advances each start to the next list's start; shifting by one restores the starts.
  for (const NodeIndex v : preorder) lists.children[lists.offsets[parent_of(v)]++] = v;
  for (size_t i = node_count + 1; i > 0; --i) lists.offsets[i] = lists.offsets[i - 1];
  lists.offsets[0] = 0;
  return lists;
}

}  // namespace

std::vector<uint64_t> group_retained_bytes(const DominatorTree& dom, std::span<const uint32_t> group_of_node,
                                           size_t group_count) {
  std::vector<uint64_t> retained(group_count, 0);
  const size_t n = group_of_node.size();
  const ChildLists lists = child_lists(dom, n);
  // Depth-first with, per group, how many members are on the current path: a member counts
  // only when it is the first of its group on the path from the roots. One frame per level
  // (the node and its next child), not every pending child: the virtual root has millions.
  std::vector<uint32_t> on_path(group_count, 0);
  struct Frame {
    size_t node;  // n: the virtual root
    uint32_t next;
  };
  std::vector<Frame> stack{{n, lists.offsets[n]}};
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.next == lists.offsets[top.node + 1]) {
      if (top.node != n && group_of_node[top.node] != kNoGroup) --on_path[group_of_node[top.node]];
      stack.pop_back();
      continue;
    }
    const NodeIndex node = lists.children[top.next++];
    const uint32_t group = group_of_node[node];
    if (group != kNoGroup && on_path[group]++ == 0) retained[group] += dom.retained_size(node);
    stack.push_back({node, lists.offsets[node]});
  }
  return retained;
}

}  // namespace gcsnap::detail
