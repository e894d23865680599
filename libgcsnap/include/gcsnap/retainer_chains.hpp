#pragma once
/// The largest retainers with chains folded: the nodes of a linked list (or a tree) of one
/// type dominate each other, and would otherwise fill a top-N list with one culprit.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "gcsnap/dominators.hpp"
#include "gcsnap/heap_graph.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap {

/// One row of a folded top-retainer list.
struct RetainerChain {
  NodeIndex head = kNoNode;   ///< the object whose immediate dominator is not of its type
  uint64_t length = 1;        ///< objects in the chain: head plus those folded into it (1: none)
};

/// Return the n reachable objects with the largest retained sizes (largest first, ties by
/// address order; n = 0: all), where an object whose immediate dominator has the same type
/// is folded into that dominator's row, transitively: a list of 1000 nodes is one row of
/// length 1000, its retained size the head's. With `types` (sorted type ids) only heads of
/// those types are returned. `dominators` must come from `graph`.
/// Errors: InvalidArgument (tree of another graph), OutOfMemory.
[[nodiscard]] Result<std::vector<RetainerChain>> top_retainer_chains(const HeapGraph& graph,
                                                                     const DominatorTree& dominators, size_t n,
                                                                     std::span<const uint32_t> types = {});

}  // namespace gcsnap
