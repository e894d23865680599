#pragma once
// What a HeapGraph owns: its arrays when built in memory, or a mapped analysis index kept
// alive (the graph's pointers then point into the mapping). Internal to the library.

#include <memory>
#include <utility>
#include <vector>

#include "analysis/csr_offsets.hpp"
#include "gcsnap/heap_graph.hpp"

namespace gcsnap {

struct HeapGraph::Storage {
  detail::CsrOffsets forward_offsets;
  std::vector<NodeIndex> forward_targets;
  detail::CsrOffsets reverse_offsets;
  std::vector<NodeIndex> reverse_sources;
  std::vector<GraphRoot> roots;
  std::vector<uint32_t> unresolved_roots;
  std::vector<std::pair<NodeIndex, NodeIndex>> dependent_edges;
  std::shared_ptr<const void> mapping;  ///< set when the arrays live in a mapped index
};

}  // namespace gcsnap
