#pragma once
// The state of one leak-suspect analysis (find_leak_suspects) and its steps, one file each:
// the candidates at the last walk (leak_candidates.cpp), the pass over the earlier walks
// (leak_earlier_walks.cpp), the judging (leak_judge.cpp) and the merging and folding of the
// suspects (leak_merge.cpp).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "leaks/identity_steps.hpp"
#include "leaks/leak_scan.hpp"
#include "leaks/member_marks.hpp"
#include "analysis/shape_trie.hpp"
#include "analysis/shape_union.hpp"
#include "gcsnap/group_holder.hpp"
#include "gcsnap/leak_suspects.hpp"

namespace gcsnap::leaks {

// The last walk's nodes of each of a list of candidates (shape ids) in node order, as offsets
// into one array: candidate i's are nodes[start[i] .. start[i + 1]).
struct CandidateMembers {
  std::vector<size_t> start;
  std::vector<NodeIndex> nodes;
};

// What the last walk says about one group's members: one per shape of the last walk (about
// one per object in the synthetic series), so 24 B, not 40 (counts and hops fit 32 bits as
// node numbers do; the newest member's birth is the last walk's birth of it).
struct LastWalkFacts {
  uint64_t accumulated_bytes = 0;
  uint32_t accumulated_count = 0;
  NodeIndex newest = kNoNode;
  uint32_t min_hops = UINT32_MAX, max_hops = 0;
};
static_assert(sizeof(LastWalkFacts) == 24);

struct Analysis {
  const LeakOptions& options;
  ShapeTrie trie;  // the last walk's shapes: a group is one of them
  TypeInterner types;
  SeriesTable series;
  std::unique_ptr<ScannedWalk> last;
  size_t segment_start = 0;  // first walk of the identity segment that ends at the last walk
  bool by_identity = false;
  std::vector<uint32_t> last_count;  // per shape: members at the last walk
  // The full series of the candidate groups (those the last walk cannot rule out), by shape.
  std::unordered_map<uint32_t, std::vector<LeakPoint>> groups;
  // With identity, per candidate: the bytes of its last-walk members born at each walk (as
  // its series' born_here counts them), from which its members alive at each walk follow.
  std::unordered_map<uint32_t, std::vector<uint64_t>> born_bytes;
  // The last walk's, for the holder searches (prepare_holder_search): by type id whether it
  // is an array, and each node's position in the dominator tree's preorder (found again after
  // reopen_walk rather than held through the earlier walks).
  std::vector<uint8_t> array_types;
  std::vector<uint32_t> preorder_position;
  // With identity, each walk's objects' nodes at the next walk (scan_walks), composed back from
  // the last walk as the second pass reads the walks: LAST_NODE, for the walk it reads, each
  // object's node at the last walk or kNoBirth where it died before (empty outside the segment).
  IdentitySteps steps;
  std::vector<uint32_t> last_node;
  // With identity, the candidates whose holder dominates their members at the last walk
  // (find_candidate_holders): followed back by identity, the objects at an earlier walk with
  // the holder's shape then extended by LABELS (the candidate's shape from the holder on) are
  // of the candidate's kind, whatever came before the holder.
  struct FollowedHolder {
    uint32_t group;
    NodeIndex node;  // at the last walk
    std::vector<uint32_t> labels;
  };
  std::vector<FollowedHolder> holders;
  // Once the last walk is open again (index_suspect_members): per shape, its position among the
  // candidates or ShapeTrie::kNone; their members; and the marks of the holder searches, so that
  // a suspect's search costs its members and not a pass over every node (find_accumulation_point).
  std::vector<uint32_t> member_position;
  CandidateMembers members;
  std::unique_ptr<MemberMarks> suspect_marks;
};

// A suspect, the groups (shape ids) it is made of and their holder at the last walk.
struct Judged {
  LeakSuspect suspect;
  std::vector<uint32_t> groups;
  GroupHolder holder;
};

// A candidate shape's prefixes: parent << 32 | label -> shape (index_candidate_shapes).
using PrefixMap = std::unordered_map<uint64_t, uint32_t>;

using OpenWalk = std::function<Result<std::unique_ptr<ScannedWalk>>(size_t)>;

// The last third of N intervals, at least one.
inline size_t last_third(size_t n) { return std::max<size_t>(1, (n + 2) / 3); }

inline uint32_t find_set(std::vector<uint32_t>& parent, uint32_t x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

// leak_candidates.cpp
std::vector<uint32_t> count_accumulated(const Analysis& a);
PathShape make_shape(const Analysis& a, uint32_t g, const LastWalkFacts& f);
void join_linked_groups(Analysis& a, std::vector<uint32_t>& accumulated, std::vector<uint32_t>& root_of);
void choose_candidates(Analysis& a, const std::vector<uint32_t>& accumulated, const std::vector<uint32_t>& root_of,
                       uint64_t& judged_groups);
// The facts of the candidates' shapes (after choose_candidates; ROOT_OF, SHAPE_OF_NODE: before
// joining): each shape's own, and each candidate's (its joined shapes' together).
struct CandidateFacts {
  std::unordered_map<uint32_t, LastWalkFacts> own, joined;
};
CandidateFacts candidate_facts(const Analysis& a, const std::vector<uint32_t>& root_of,
                               std::span<const uint32_t> shape_of_node);
std::map<uint32_t, std::vector<PathShape>> joined_candidate_shapes(const Analysis& a, const CandidateFacts& facts,
                                                                   const std::vector<uint32_t>& root_of);

// leak_earlier_walks.cpp
void compose_identity(Analysis& a);
// SHAPE_OF_NODE (the last walk's shapes before joining) is turned into each node's slot.
void add_last_retained(Analysis& a, std::span<const uint32_t> slot_of, std::span<const uint32_t> root_of_slot,
                       std::vector<uint32_t>& shape_of_node);
void index_candidate_shapes(const Analysis& a, const std::vector<uint32_t>& root_of, std::vector<uint32_t>& slot_of,
                            std::vector<uint32_t>& root_of_slot, PrefixMap& prefixes);
Status count_earlier_walks(Analysis& a, const std::vector<uint32_t>& slot_of, const std::vector<uint32_t>& root_of_slot,
                           const PrefixMap& prefixes, const OpenWalk& open_walk, ShapeUnion& shapes);
void count_members_alive(Analysis& a);

// leak_judge.cpp
void prepare_holder_search(Analysis& a);
void index_suspect_members(Analysis& a);
void find_candidate_holders(Analysis& a, std::span<const uint32_t> shape_of_node);
AccumulationPoint find_accumulation_point(const Analysis& a, std::span<const uint32_t> groups, uint32_t type,
                                          GroupHolder* holder = nullptr);
void summarize(LeakSuspect& s, size_t segment_start);
struct JudgedGroups {
  std::vector<LeakSuspect> suspects;
  std::vector<BoundedGroup> bounded;
};
Result<JudgedGroups> judge_groups(Analysis& a, uint64_t& judged_groups, const OpenWalk& open_walk,
                                              const std::function<Status()>& reopen_last);

// leak_bounded.cpp
// Whether group R, which fails the births test of the suspects, stays a candidate for the
// bounded list: its last-walk members were born in two intervals or more (BIRTHS: born_here
// per walk; not a one-time allocation, not churn that lives one interval) and its type's count
// grew and held flat (flat_from).
bool may_be_bounded(const Analysis& a, uint32_t r, const std::vector<LeakPoint>& births);
// The counts of SERIES that the judgement looks at (from the last recording's first walk when
// it has enough walks); OFFSET: the walk of the first.
std::vector<uint64_t> judged_counts(const Analysis& a, const std::vector<LeakPoint>& series, size_t& offset);
// Of the candidates that are not suspects (OTHERS), those that grew and held flat, the largest
// rise first, at most LeakOptions::max_bounded.
std::vector<uint32_t> flat_candidates(const Analysis& a, std::span<const uint32_t> others);
// GROUPS (flat candidates, merged and folded) that still hold flat, into BOUNDED.
void keep_flat(const Analysis& a, std::vector<LeakSuspect> groups, std::vector<BoundedGroup>& bounded);
// Move the suspects whose growth is small beside the largest and does not keep up to BOUNDED.
void demote_slowed(const Analysis& a, std::vector<LeakSuspect>& suspects, std::vector<BoundedGroup>& bounded);

// leak_merge.cpp
std::vector<Judged> merge_suspects(std::vector<Judged> in, const Analysis& a);
std::vector<LeakSuspect> fold_nested(std::vector<Judged> judged, const Analysis& a);

}  // namespace gcsnap::leaks
