#include "leaks/member_marks.hpp"

namespace gcsnap::leaks {

void MemberMarks::mark(std::span<const NodeIndex> counted, std::span<const NodeIndex> others, const DominatorTree& dom,
                       std::span<const uint32_t> types, uint32_t excluded_type) {
  for (const NodeIndex v : counted) {
    marks_[v] = HolderMark::Counted;
    touched_.push_back(v);
  }
  for (const NodeIndex v : others) {
    marks_[v] = HolderMark::Member;
    touched_.push_back(v);
  }
  // The search reads the marks of the counted members' dominator ancestors (the chain it
  // climbs, and the owner of an array holder): there an object of the group's type must not
  // look Outside. Each chain is climbed until a node seen before.
  for (const NodeIndex m : counted) {
    for (NodeIndex x = dom.immediate_dominator(m); x != kVirtualRoot && x != kNoNode && !seen_[x];
         x = dom.immediate_dominator(x)) {
      seen_[x] = 1;
      touched_.push_back(x);
      if (marks_[x] == HolderMark::Outside && types[x] == excluded_type) marks_[x] = HolderMark::Excluded;
    }
  }
}

void MemberMarks::mark_entries(std::span<const NodeIndex> counted, std::span<const NodeIndex> others,
                               const HeapGraph& graph, std::span<const uint32_t> types, uint32_t excluded_type) {
  for (const auto members : {counted, others})
    for (const NodeIndex w : members)
      for (const NodeIndex u : graph.predecessors(w))
        if (marks_[u] == HolderMark::Outside && types[u] == excluded_type) {
          marks_[u] = HolderMark::Excluded;
          touched_.push_back(u);
        }
}

void MemberMarks::clear() {
  for (const NodeIndex v : touched_) {
    marks_[v] = HolderMark::Outside;
    seen_[v] = 0;
  }
  touched_.clear();
}

}  // namespace gcsnap::leaks
