#pragma once
// Retention paths as one line of text with field and static names, repeated hops folded
// (docs/design.md "Folding chains"): shared by path, leaks and the report.

#include <string>
#include <vector>

#include "commands/heap_load.hpp"
#include "gcsnap/edge_names.hpp"
#include "gcsnap/path_fold.hpp"
#include "gcsnap/retention.hpp"

namespace gcsnap::cli {

/// Return whether hop H of PATH is a dependent handle (a ConditionalWeakTable's key -> value).
bool is_dependent(const RetentionPath& path, size_t h);

/// Return the edge into hop H as it reads after its source's type: ".Customer -> ",
/// "[17].value -> ", " -[ConditionalWeakTable]-> ", a bare " -> " when unnamed.
std::string edge_text(const RetentionPath& path, const std::vector<HopField>& fields, size_t h);

/// Fold PATH's hops (fold_repeats): hop H's key is its type and the edge out of it. FOLD false:
/// one run per hop.
FoldedHops fold_path(const LoadedHeap& heap, const RetentionPath& path, const std::vector<HopField>& fields, bool fold);

/// Return "Zoo.Cache.Orders (static) -> Dictionary<...>._entries -> Node.Next ×4896 -> Order".
std::string chain_text(const LoadedHeap& heap, const RetentionPath& path, const std::vector<HopField>& fields,
                       const FoldedHops& folded);

/// Return the folded one-line path of NODE in TREE ("" when not reached).
std::string folded_chain_text(const LoadedHeap& heap, const ShortestPathTree& tree, NodeIndex node);

}  // namespace gcsnap::cli
