#pragma once
// `gcsnap export --to dot`: retention paths of one object or of a type's instances as a
// Graphviz digraph (one node per object or root kind, one edge per hop, named by field).

#include <vector>

#include "gcsnap/retention.hpp"
#include "loading/heap_load.hpp"
#include "output/output_file.hpp"

namespace gcsnap::cli {

/// Write PATHS (of HEAP's graph; loaded with fields) as one digraph; objects shared by several
/// paths and repeated hops appear once. TARGETS are drawn highlighted. FOLD: a chain of hops of
/// one type and field (fold_repeats) is drawn as its first object and one bold edge labelled
/// with the field and the count ("Next ×4249"); otherwise every hop is drawn.
void write_dot(const LoadedHeap& heap, const std::vector<RetentionPath>& paths, const std::vector<NodeIndex>& targets,
               OutputFile& out, bool fold = true);

}  // namespace gcsnap::cli
