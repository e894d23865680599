#pragma once
// A leak suspect's example path at the last walk, named: its folded hops, the holder pattern
// on it (holder_patterns.hpp) and what that keeps (the delegate's method, the timer's owner
// field), for every output of `gcsnap leaks` (docs/cli.md "leaks").

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "commands/path_text.hpp"
#include "gcsnap/holder_patterns.hpp"
#include "loading/heap_load.hpp"
#include "output/output.hpp"

namespace gcsnap::cli {

/// The example member of a suspect and its folded path at the last walk (empty: not found).
struct SuspectPath {
  uint64_t address = 0;
  std::vector<ChainHop> hops;
  std::vector<NodeIndex> nodes;  ///< the path's objects, root object first (unfolded)
  HolderPatternMatch match;  ///< pattern None when no holder pattern is on the path
  PatternTarget target;
  /// Where its sampled members were allocated ("App.Cache.Add 75%, ..."); empty: not sampled.
  std::string allocated_at;
};

/// Return NODE's path in TREE, folded (FOLD false: every hop), with its holder pattern.
SuspectPath describe_suspect_path(const LoadedHeap& heap, const ShortestPathTree& tree, NodeIndex node, bool fold);

/// "Ns.ConfigWatcher.Changed (static event) -> System.EventHandler -> Ns.Subscriber.OnChanged":
/// the holder, its pattern and what it keeps; "" without a pattern.
std::string pattern_holder_text(const SuspectPath& path);

/// The pieces of pattern_holder_text, for a text form that breaks lines between them: the
/// holder and its pattern, " -> " and what it keeps, "; kept in " and the owner's field; the
/// type names as TYPE_TEXT writes them (abbreviated).
std::vector<std::string> pattern_pieces(const SuspectPath& path,
                                        const std::function<std::string(const std::string&)>& type_text);

/// The registered delegate's method ("" when not recorded or no delegate).
std::string pattern_method(const SuspectPath& path);

/// Add the named path's columns to `leaks`' suspects table (JSON and CSV): path, pattern,
/// holder, holder_link, delegate, method, target, owner_field.
void add_named_path_columns(Table& table);

/// Append PATH's cells for those columns to ROW (empty cells when PATH is null or empty).
void add_named_path_cells(std::vector<Cell>& row, const SuspectPath* path);

}  // namespace gcsnap::cli
