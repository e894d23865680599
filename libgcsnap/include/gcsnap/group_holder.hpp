#pragma once
/// What holds a group of objects (a leak suspect's members, a type's instances): the deepest
/// object that dominates most of them, or, when none does, the owner of the structure they
/// form (docs/design.md "The holder of a leak").

#include <cstdint>
#include <span>
#include <vector>

#include "gcsnap/dominators.hpp"
#include "gcsnap/heap_graph.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap {

class NameTable;

/// Per node: how it relates to the group (find_group_holder's MARKS).
enum class HolderMark : uint8_t {
  Outside = 0,   ///< may be the holder or an entry
  Excluded = 1,  ///< not in the group but never the holder (an object of the group's type)
  Member = 2,    ///< in the group, not counted in the majority (a member older than the series)
  Counted = 3,   ///< in the group and counted
};

struct GroupHolder {
  bool found = false;
  /// True when no object dominates more than half of the counted members and NODE is the
  /// owner: the entry (an Outside object with an edge into the group) that most members
  /// reference back (at least one), then the one with most edges into the group, then the
  /// lowest address. No entry referenced back: not found.
  bool is_owner = false;
  NodeIndex node = kNoNode;
  /// When the dominating object is an array whose immediate dominator is outside the group
  /// (a List's items, a Dictionary's entries), NODE is that owner and this the array.
  NodeIndex via_array = kNoNode;
  uint64_t members_dominated = 0;  ///< counted members below NODE (0 for an owner)
  uint64_t entries = 0;            ///< is_owner: the entries found
};

/// Per type id of GRAPH's nodes (up to the highest), nonzero when the type is an array (its
/// name in NAMES ends in ']'): the ARRAY_TYPES of the holder searches below. O(nodes).
std::vector<uint8_t> array_type_flags(const HeapGraph& graph, const NameTable& names);

/// Find the holder of the group MARKS describes (one mark per node of GRAPH). DOM is GRAPH's
/// dominator tree. ARRAY_TYPES (by type id, may be shorter or empty) says which types are
/// arrays. The owner search needs GRAPH's forward edges. O(nodes + edges).
/// Errors: InvalidArgument (MARKS not one per node), OutOfMemory.
[[nodiscard]] Result<GroupHolder> find_group_holder(const HeapGraph& graph, const DominatorTree& dom,
                                                    std::span<const HolderMark> marks,
                                                    std::span<const uint8_t> array_types);

/// Find the holder as find_group_holder does, when the caller knows the group's COUNTED
/// members (the nodes marked Counted, any order) and PREORDER_POSITION (per node of GRAPH, its
/// position in DOM.preorder()): the dominating holder is then found from the members'
/// dominator ancestors alone, in time near their number and not the graph's (the owner
/// search, when no node dominates more than half of them, still reads every edge). The same
/// answer as find_group_holder. SEARCH_OWNER false: a dominating holder only (not found
/// instead of the owner search). Errors: InvalidArgument (MARKS or PREORDER_POSITION not one
/// per node), OutOfMemory.
[[nodiscard]] Result<GroupHolder> find_group_holder(const HeapGraph& graph, const DominatorTree& dom,
                                                    std::span<const HolderMark> marks,
                                                    std::span<const NodeIndex> counted,
                                                    std::span<const uint32_t> preorder_position,
                                                    std::span<const uint8_t> array_types,
                                                    bool search_owner = true);

/// Find the holder of each type's objects, as find_group_holder finds it with that type's
/// objects Counted and every other object Outside, for all of TYPE_IDS (one holder per entry,
/// in order): from the types' objects, their dominator ancestors and the objects they
/// reference, in time near their number, not a pass over every node and edge per type. An
/// owner's ENTRIES is not counted here (0): that would read every edge. GRAPH needs its
/// forward edges; ARRAY_TYPES as find_group_holder's. Errors: InvalidArgument (DOM not of
/// GRAPH's size), OutOfMemory.
[[nodiscard]] Result<std::vector<GroupHolder>> find_type_holders(const HeapGraph& graph, const DominatorTree& dom,
                                                                 std::span<const uint32_t> type_ids,
                                                                 std::span<const uint8_t> array_types);

}  // namespace gcsnap
