// Retained bytes of groups of objects (a type, a leak shape): the bytes that would be freed if
// every member of the group went, i.e. the union of the members' dominator subtrees.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "gcsnap/dominators.hpp"

namespace gcsnap::detail {

/// group_of_node holds one group per node of the tree's graph, or kNoGroup.
inline constexpr uint32_t kNoGroup = 0xFFFFFFFFu;

/// Per group, the sum of the retained sizes of its members that no other member dominates.
/// Adding every member's retained size would count a member nested under another twice.
std::vector<uint64_t> group_retained_bytes(const DominatorTree& dom, std::span<const uint32_t> group_of_node,
                                           size_t group_count);

}  // namespace gcsnap::detail
