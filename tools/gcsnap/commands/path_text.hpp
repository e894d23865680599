#pragma once
// Retention paths as one line of text with field and static names, repeated hops folded
// (docs/design.md "Folding chains"): shared by path, leaks and the report.

#include <string>
#include <vector>

#include "loading/heap_load.hpp"
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

/// One folded hop of a chain: its type's name (empty for the static a chain starts from) and
/// the text after it up to the next type (".Next ×4896 -> ", "Orders (static) -> ", "" last).
struct ChainHop {
  std::string type;
  std::string edge;
  /// A delegate's method when the recording has it (format-spec.md §6.22), written after the
  /// type as " [Ns.Subscriber.OnChanged]"; empty otherwise.
  std::string method;
};

/// Return PATH's folded hops as chain_text writes them.
std::vector<ChainHop> chain_hops(const LoadedHeap& heap, const RetentionPath& path, const std::vector<HopField>& fields,
                                 const FoldedHops& folded);

/// Return the method the delegate at NODE calls ("<lambda> in Ns.Poll.Start"), or "" when the
/// recording does not say (not a delegate, or no delegate targets).
std::string delegate_method(const LoadedHeap& heap, NodeIndex node);

/// Return the hops' text with every type name abbreviated to LEVEL (abbreviate_type_name).
std::string join_chain(const std::vector<ChainHop>& hops, int level = 0);

/// Return "Zoo.Cache.Orders (static) -> Dictionary<...>._entries -> Node.Next ×4896 -> Order".
std::string chain_text(const LoadedHeap& heap, const RetentionPath& path, const std::vector<HopField>& fields,
                       const FoldedHops& folded);

/// Return the folded hops of NODE's path in TREE (empty when not reached); FOLD false: every hop.
std::vector<ChainHop> folded_chain_hops(const LoadedHeap& heap, const ShortestPathTree& tree, NodeIndex node,
                                        bool fold = true);

/// Return the folded one-line path of NODE in TREE ("" when not reached).
std::string folded_chain_text(const LoadedHeap& heap, const ShortestPathTree& tree, NodeIndex node);

}  // namespace gcsnap::cli
