#include "group_retained.hpp"

namespace gcsnap::detail {
namespace {

// The dominator tree's children as a CSR over preorder positions 1..m (0 is the virtual root):
// children of position p are children[offsets[p] .. offsets[p + 1]).
struct ChildLists {
  std::vector<uint32_t> offsets;
  std::vector<uint32_t> children;
};

ChildLists child_lists(const DominatorTree& dom, size_t node_count) {
  const auto preorder = dom.preorder();
  const size_t m = preorder.size();
  std::vector<uint32_t> position(node_count, 0);
  for (size_t i = 0; i < m; ++i) position[preorder[i]] = static_cast<uint32_t>(i + 1);
  auto parent_position = [&](size_t i) {
    const NodeIndex parent = dom.immediate_dominator(preorder[i]);
    return parent == kVirtualRoot ? 0u : position[parent];
  };
  ChildLists lists{std::vector<uint32_t>(m + 2, 0), std::vector<uint32_t>(m)};
  for (size_t i = 0; i < m; ++i) ++lists.offsets[parent_position(i)];
  uint32_t sum = 0;
  for (auto& o : lists.offsets) {
    const uint32_t c = o;
    o = sum;
    sum += c;
  }
  // Filling advances each start to the next list's start; shifting by one restores the starts.
  for (size_t i = 0; i < m; ++i) lists.children[lists.offsets[parent_position(i)]++] = static_cast<uint32_t>(i + 1);
  for (size_t i = m + 1; i > 0; --i) lists.offsets[i] = lists.offsets[i - 1];
  lists.offsets[0] = 0;
  return lists;
}

}  // namespace

std::vector<uint64_t> group_retained_bytes(const DominatorTree& dom, std::span<const uint32_t> group_of_node,
                                           size_t group_count) {
  std::vector<uint64_t> retained(group_count, 0);
  const auto preorder = dom.preorder();
  const ChildLists lists = child_lists(dom, group_of_node.size());
  // Depth-first with, per group, how many members are on the current path: a member counts
  // only when it is the first of its group on the path from the roots.
  std::vector<uint32_t> on_path(group_count, 0);
  struct Step {
    uint32_t position;
    bool leaving;
  };
  std::vector<Step> stack;
  auto push_children = [&](uint32_t position) {
    for (uint32_t c = lists.offsets[position]; c < lists.offsets[position + 1]; ++c)
      stack.push_back({lists.children[c], false});
  };
  push_children(0);
  while (!stack.empty()) {
    const Step step = stack.back();
    stack.pop_back();
    const NodeIndex node = preorder[step.position - 1];
    const uint32_t group = group_of_node[node];
    if (step.leaving) {
      if (group != kNoGroup) --on_path[group];
      continue;
    }
    if (group != kNoGroup && on_path[group]++ == 0) retained[group] += dom.retained_size(node);
    stack.push_back({step.position, true});
    push_children(step.position);
  }
  return retained;
}

}  // namespace gcsnap::detail
