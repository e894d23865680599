#pragma once
// The order in which the shortest-path search queues the roots. Whoever rebuilds its tree or
// follows its shapes (ShortestPathTree::from_parents, the leak scan) must queue them the same
// way, or equal-length paths start from another root.

#include <cstdint>
#include <span>
#include <vector>

#include "gcsnap/heap_graph.hpp"

namespace gcsnap {

/// The roots a search starts from (weak ones only with INCLUDE_WEAK), best root_priority first,
/// in root table order among equals.
std::vector<uint32_t> roots_by_priority(std::span<const GraphRoot> roots, bool include_weak);

}  // namespace gcsnap
