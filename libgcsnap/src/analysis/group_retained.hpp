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

/// The same sums over the dominator tree of GRAPH (strong roots; every root with INCLUDE_WEAK)
/// without computing that tree: only the part of the graph that the members hold alone gets
/// one (group_retained_held.cpp), which costs a pass over the graph and that part's size
/// instead of the whole graph's reverse CSR and tree. Throws std::bad_alloc.
std::vector<uint64_t> group_retained_bytes(const HeapGraph& graph, bool include_weak,
                                           std::span<const uint32_t> group_of_node, size_t group_count);

}  // namespace gcsnap::detail
