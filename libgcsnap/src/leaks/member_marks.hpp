#pragma once
// The marks of find_group_holder's dominating-holder search (group_holder.hpp, search_owner
// false) for one group at a time, written only where that search reads them: the group's
// members and their dominator ancestors. find_candidate_holders searches once per candidate;
// a full pass over every node for each made it O(nodes x candidates): at 10 x 2 M objects,
// 509 candidates, 7 % of `gcsnap leaks`.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "gcsnap/dominators.hpp"
#include "gcsnap/group_holder.hpp"
#include "gcsnap/heap_graph.hpp"

namespace gcsnap::leaks {

class MemberMarks {
 public:
  /// NODES marks, all Outside. Throws std::bad_alloc.
  explicit MemberMarks(size_t nodes) : marks_(nodes, HolderMark::Outside), seen_(nodes, 0) {}

  /// Mark a group as a full pass would for the search without the owner: COUNTED Counted,
  /// OTHERS Member, and every dominator ancestor (in DOM) of a counted member that is no member
  /// and whose entry in TYPES is EXCLUDED_TYPE Excluded. Marks left Outside elsewhere may be
  /// wrong for the owner search, which reads every node. Call clear() before the next group.
  /// Throws std::bad_alloc.
  void mark(std::span<const NodeIndex> counted, std::span<const NodeIndex> others, const DominatorTree& dom,
            std::span<const uint32_t> types, uint32_t excluded_type);
  /// For the owner search too (search_owner true, over GRAPH with its reverse edges), after
  /// mark(): every predecessor of the members (COUNTED and OTHERS) that is no member and whose
  /// entry in TYPES is EXCLUDED_TYPE Excluded, as a full pass marks it; the search reads the
  /// marks of the members and of their predecessors only. Throws std::bad_alloc.
  void mark_entries(std::span<const NodeIndex> counted, std::span<const NodeIndex> others, const HeapGraph& graph,
                    std::span<const uint32_t> types, uint32_t excluded_type);
  /// Back to all Outside, in time near the number of marks written.
  void clear();

  std::span<const HolderMark> marks() const noexcept { return marks_; }

 private:
  std::vector<HolderMark> marks_;
  std::vector<uint8_t> seen_;       // ancestors walked for the current group
  std::vector<NodeIndex> touched_;  // nodes whose mark or seen_ was written
};

}  // namespace gcsnap::leaks
