#pragma once
// What a HeapGraph owns: its arrays when built in memory, or a mapped analysis index kept
// alive (the graph's pointers then point into the mapping). Internal to the library.

#include <memory>
#include <utility>
#include <vector>

#include "analysis/csr_offsets.hpp"
#include "gcsnap/heap_graph.hpp"
#include "gcsnap/status.hpp"

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

namespace detail {

/// A reverse CSR built apart from its graph (HeapGraph::build_reverse = make + adopt).
struct ReverseCsr {
  CsrOffsets offsets;
  std::vector<NodeIndex> sources;
};

/// Build GRAPH's reverse CSR: it reads only the forward CSR, so it can run on one thread while
/// others read the graph. With DISCARD_FORWARD the pages of the forward targets are given back
/// as the scatter consumes them (a build whose forward CSR has no reader left: they read as
/// zeros afterwards), so that the two graphs' edges are not both whole in memory.
/// Errors: OutOfMemory.
[[nodiscard]] Result<ReverseCsr> make_reverse_csr(const HeapGraph& graph, bool discard_forward);

}  // namespace detail
}  // namespace gcsnap
