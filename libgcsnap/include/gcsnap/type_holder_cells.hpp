#pragma once
/// The HELD BY column of `gcsnap dominators --by type` (docs/cli.md "dominators"): what holds
/// the instances of each type, as text and the holder's address. Computed from the graph here,
/// or read from the analysis index, which keeps them for the first types of its histogram
/// (format-spec.md §12.3, array 18).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "gcsnap/dominators.hpp"
#include "gcsnap/edge_names.hpp"
#include "gcsnap/heap_graph.hpp"
#include "gcsnap/model.hpp"
#include "gcsnap/retention.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap {

/// Rows of `dominators --by type` that get a HELD BY (the default --top's), and so the types
/// an analysis index keeps holders for.
inline constexpr size_t kHeldByRows = 50;

/// One type's HELD BY cells: empty text for none; the address only when the text names an
/// object (not for a holder pattern's text, which names a field).
struct TypeHolderCell {
  std::string text;  ///< "List<T> (via T[])", "Registrations (owner)", "Ns.W.Changed (static event) -> ..."
  bool has_address = false;
  uint64_t address = 0;
  bool operator==(const TypeHolderCell&) const = default;
};

/// One row of an analysis index's holder table (format-spec.md §12.3, array 18).
struct IndexedTypeHolder {
  uint32_t type_id = 0;
  TypeHolderCell cell;
  bool operator==(const IndexedTypeHolder&) const = default;
};

/// What the holder patterns read of a heap beyond its graph: its shortest-path tree over
/// strong roots and names for its edges (field names need the edge slots and the statics).
struct HolderPathSources {
  const ShortestPathTree* tree = nullptr;
  const EdgeNamer* namer = nullptr;
};

/// What the holder search reads. The path sources are asked for only when a type's instances
/// are tried against the holder patterns (none may be), after the dominating holders are found:
/// the dominator tree is not read after that (a caller short of memory may free it then).
struct TypeHolderInput {
  const HeapGraph& graph;           ///< with its forward edges
  const DominatorTree& dominators;  ///< over strong roots
  const NameTable& names;
  std::span<const DelegateTarget> delegates;  ///< sorted by address; may be empty
  std::function<Result<HolderPathSources>()> path_sources;
};

/// Return the HELD BY cells of each of TYPES (distinct type ids), in order: the deepest object
/// dominating most of the type's objects or the owner of their structure (find_type_holders);
/// the holder pattern's text when one of the type's newest instances has its path through the
/// holder at or after a pattern's structure; and an owner that most of them do not reference
/// back replaced by the object with edges to more than half of them (or none). Each type's
/// cells depend on that type alone. Errors: those of find_type_holders and of PATH_TREE.
[[nodiscard]] Result<std::vector<TypeHolderCell>> describe_type_holders(const TypeHolderInput& input,
                                                                        std::span<const uint32_t> types);

}  // namespace gcsnap
