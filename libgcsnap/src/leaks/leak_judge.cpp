#include "leaks/leak_analysis.hpp"

#include <algorithm>
#include <new>

#include "gcsnap/group_holder.hpp"
#include "leaks/member_marks.hpp"

namespace gcsnap::leaks {

namespace {

bool is_suspect(const Analysis& a, uint32_t g, const LastWalkFacts& f) {
  const auto& points = a.groups.at(g);
  // Two necessary conditions first, which most groups fail without a copy of their counts:
  // the count ends above where the judged series starts, and with identity enough members are
  // new (the full test below repeats both).
  const size_t last = points.size() - 1;
  const bool last_segment = points.size() - a.segment_start >= std::max<size_t>(a.options.min_walks, 2);
  if (points[last].count <= points[last_segment ? a.segment_start : 0].count) return false;
  if (a.by_identity && f.accumulated_count < std::max<uint64_t>(a.options.min_accumulated, last - a.segment_start))
    return false;
  std::vector<uint64_t> counts(points.size());
  for (size_t i = 0; i < points.size(); ++i) counts[i] = points[i].count;
  // Recordings of several runs: each run starts from nothing, so the last run's walks are
  // judged alone when they are enough; one-walk recordings (snapshots) form one series.
  const size_t segment_walks = points.size() - a.segment_start;
  const auto judged = segment_walks >= std::max<size_t>(a.options.min_walks, 2)
                          ? std::span<const uint64_t>(counts).subspan(a.segment_start)
                          : std::span<const uint64_t>(counts);
  if (!is_growing_series(judged, a.options.min_growth_share)) return false;
  const size_t k = points.size() - 1;
  if (!a.by_identity) return counts[k] - counts[0] >= std::max<uint64_t>(a.options.min_accumulated, k);
  // Object identity: the members that grow the count must be new objects that stay, born
  // over most of the intervals and still in the last ones.
  const size_t ks = k - a.segment_start;
  if (f.accumulated_count < std::max<uint64_t>(a.options.min_accumulated, ks)) return false;
  size_t birth_intervals = 0, recent = 0;
  for (size_t i = a.segment_start + 1; i <= k; ++i) {
    if (points[i].born_here == 0) continue;
    ++birth_intervals;
    if (i > k - last_third(ks)) ++recent;
  }
  return birth_intervals >= (ks + 1) / 2 && recent > 0;
}

}  // namespace

// The holder of the groups' accumulated members (all members without identity) at the last
// walk: find_group_holder, with the members' type excluded from being the holder.
// Once per last walk (the holder is searched for every suspect): which types are arrays, and
// the preorder positions that let each search visit the members' dominators only.
void prepare_holder_search(Analysis& a) {
  const ScannedWalk& s = *a.last;
  const size_t n = s.graph().node_count();
  a.array_types = array_type_flags(s.graph(), s.names());
  a.preorder_position.assign(n, 0);
  const auto preorder = s.dom().preorder();
  for (uint32_t i = 0; i < preorder.size(); ++i) a.preorder_position[preorder[i]] = i;
}

namespace {

GroupHolder holder_of(const Analysis& a, const std::vector<uint8_t>& in_group, uint32_t type,
                      bool search_owner = true) {
  const ScannedWalk& s = *a.last;
  const size_t n = s.graph().node_count();
  std::vector<HolderMark> marks(n, HolderMark::Outside);
  std::vector<NodeIndex> counted;
  for (NodeIndex v = 0; v < n; ++v) {
    if (s.shape[v] != ShapeTrie::kNone && in_group[s.shape[v]]) {
      const bool is_counted = !a.by_identity || s.birth[v] > a.segment_start;
      marks[v] = is_counted ? HolderMark::Counted : HolderMark::Member;
      if (is_counted) counted.push_back(v);
    } else if (s.type[v] == type) {
      marks[v] = HolderMark::Excluded;
    }
  }
  auto holder =
      find_group_holder(s.graph(), s.dom(), marks, counted, a.preorder_position, a.array_types, search_owner);
  if (!holder) throw std::bad_alloc();  // its only other error is a marks size mismatch
  return *holder;
}

// holder_of GROUPS (candidates, each once) from their members (Analysis::members) and the marks
// the search reads (MemberMarks): the same holder, without a pass over every node per suspect
// (at 10 x 10 M objects those passes were 10 % of `gcsnap leaks`).
GroupHolder members_holder(const Analysis& a, std::span<const uint32_t> groups, uint32_t type) {
  const ScannedWalk& s = *a.last;
  std::vector<NodeIndex> counted, others;
  for (const uint32_t g : groups) {
    const uint32_t i = a.member_position[g];
    for (size_t j = a.members.start[i]; j < a.members.start[i + 1]; ++j) {
      const NodeIndex v = a.members.nodes[j];
      (!a.by_identity || s.birth[v] > a.segment_start ? counted : others).push_back(v);
    }
  }
  MemberMarks& marks = *a.suspect_marks;
  marks.mark(counted, others, s.dom(), s.type, type);
  marks.mark_entries(counted, others, s.graph(), s.type, type);
  auto holder = find_group_holder(s.graph(), s.dom(), marks.marks(), counted, a.preorder_position, a.array_types);
  marks.clear();
  if (!holder) throw std::bad_alloc();  // its only other error is a marks size mismatch
  return *holder;
}

AccumulationPoint to_point(const Analysis& a, const GroupHolder& holder) {
  const ScannedWalk& s = *a.last;
  AccumulationPoint point;
  if (!holder.found) return point;
  point.found = true;
  point.is_owner = holder.is_owner;
  point.entries = holder.entries;
  point.address = s.graph().address(holder.node);
  point.type = a.types.name(s.type[holder.node]);
  point.retained_bytes = s.dom().retained_size(holder.node);
  point.members_dominated = holder.members_dominated;
  if (holder.via_array != kNoNode) {
    point.via_array = a.types.name(s.type[holder.via_array]);
    point.via_array_address = s.graph().address(holder.via_array);
  }
  return point;
}

}  // namespace

AccumulationPoint find_accumulation_point(const Analysis& a, std::span<const uint32_t> groups, uint32_t type,
                                          GroupHolder* holder) {
  std::vector<uint32_t> unique(groups.begin(), groups.end());
  std::sort(unique.begin(), unique.end());
  unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
  const bool indexed = a.suspect_marks && std::all_of(unique.begin(), unique.end(), [&](uint32_t g) {
    return g < a.member_position.size() && a.member_position[g] != ShapeTrie::kNone;
  });
  GroupHolder found;
  if (indexed) {
    found = members_holder(a, unique, type);
  } else {
    std::vector<uint8_t> in_group(a.trie.size(), 0);
    for (uint32_t g : groups) in_group[g] = 1;
    found = holder_of(a, in_group, type);
  }
  if (holder) *holder = found;
  return to_point(a, found);
}

namespace {

CandidateMembers candidate_members(const Analysis& a, std::span<const uint32_t> candidates) {
  const std::vector<uint32_t>& shape = a.last->shape;
  std::vector<uint32_t> position(a.trie.size(), ShapeTrie::kNone);
  for (uint32_t i = 0; i < candidates.size(); ++i) position[candidates[i]] = i;
  CandidateMembers out;
  out.start.assign(candidates.size() + 1, 0);
  for (const uint32_t g : shape)
    if (g != ShapeTrie::kNone && position[g] != ShapeTrie::kNone) ++out.start[position[g] + 1];
  for (size_t i = 1; i < out.start.size(); ++i) out.start[i] += out.start[i - 1];
  out.nodes.resize(out.start.back());
  std::vector<size_t> next(out.start.begin(), out.start.end() - 1);
  for (NodeIndex v = 0; v < shape.size(); ++v)
    if (shape[v] != ShapeTrie::kNone && position[shape[v]] != ShapeTrie::kNone)
      out.nodes[next[position[shape[v]]]++] = v;
  return out;
}

}  // namespace

// Each candidate's holder at the last walk, when it dominates the candidate's members and the
// candidate's shape is the holder's (SHAPE_OF_NODE: before joining) extended: the holder and
// the labels from it on (Analysis::holders). An owner that does not dominate, or a shape that
// collapsed across the holder, leaves the candidate counted by its shapes and members only.
// The search without the owner reads the marks of the members and their dominators only
// (MemberMarks), so each candidate costs its members, not a pass over every node.
void find_candidate_holders(Analysis& a, std::span<const uint32_t> shape_of_node) {
  a.holders.clear();
  if (!a.by_identity) return;
  std::vector<uint32_t> candidates;  // in shape order: a shape two holders reach goes to the first
  for (const auto& [g, series] : a.groups) candidates.push_back(g);
  std::sort(candidates.begin(), candidates.end());
  const ScannedWalk& s = *a.last;
  const CandidateMembers members = candidate_members(a, candidates);
  MemberMarks marks(s.graph().node_count());
  std::vector<NodeIndex> counted, others;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const uint32_t g = candidates[i];
    counted.clear();
    others.clear();
    for (size_t j = members.start[i]; j < members.start[i + 1]; ++j) {
      const NodeIndex v = members.nodes[j];
      (s.birth[v] > a.segment_start ? counted : others).push_back(v);
    }
    marks.mark(counted, others, s.dom(), s.type, a.trie.label(g));
    auto found =
        find_group_holder(s.graph(), s.dom(), marks.marks(), counted, a.preorder_position, a.array_types, false);
    marks.clear();
    if (!found) throw std::bad_alloc();  // its only other error is a marks size mismatch
    const GroupHolder& holder = *found;
    if (!holder.found || holder.is_owner || shape_of_node[holder.node] == ShapeTrie::kNone) continue;
    const std::vector<uint32_t> group_labels = a.trie.labels(g);
    const std::vector<uint32_t> holder_labels = a.trie.labels(shape_of_node[holder.node]);
    if (holder_labels.size() >= group_labels.size() ||
        !std::equal(holder_labels.begin(), holder_labels.end(), group_labels.begin()))
      continue;
    a.holders.push_back({g, holder.node, {group_labels.begin() + holder_labels.size(), group_labels.end()}});
  }
}

// With the last walk open again: its members of every candidate, for the suspects' holders.
void index_suspect_members(Analysis& a) {
  std::vector<uint32_t> candidates;
  for (const auto& [g, series] : a.groups) candidates.push_back(g);
  std::sort(candidates.begin(), candidates.end());
  a.members = candidate_members(a, candidates);
  a.member_position.assign(a.trie.size(), ShapeTrie::kNone);
  for (uint32_t i = 0; i < candidates.size(); ++i) a.member_position[candidates[i]] = i;
  // Without the reverse edges the owner search reads every node's marks: the full pass then.
  if (a.last->graph().has_reverse()) a.suspect_marks = std::make_unique<MemberMarks>(a.last->graph().node_count());
}

// Growth figures and interval counts from the series (after a merge too).
void summarize(LeakSuspect& s, size_t segment_start) {
  const LeakPoint& first = s.series.front();
  const LeakPoint& last = s.series.back();
  s.retained_growth = static_cast<int64_t>(last.retained_bytes) - static_cast<int64_t>(first.retained_bytes);
  s.bytes_growth = static_cast<int64_t>(last.bytes) - static_cast<int64_t>(first.bytes);
  s.count_growth = static_cast<int64_t>(last.count) - static_cast<int64_t>(first.count);
  s.growth_intervals = s.birth_intervals = 0;
  for (size_t i = 1; i < s.series.size(); ++i) {
    s.growth_intervals += s.series[i].count > s.series[i - 1].count;
    s.birth_intervals += i > segment_start && s.series[i].born_here > 0;
  }
  if (!s.by_identity) {
    s.accumulated_count = s.count_growth > 0 ? static_cast<uint64_t>(s.count_growth) : 0;
    s.accumulated_bytes = s.bytes_growth > 0 ? static_cast<uint64_t>(s.bytes_growth) : 0;
  }
}

namespace {

// What the last walk decides before the earlier walks are read: the candidates' facts and
// (joined) shapes, and how the earlier walks' shapes find them.
struct LastWalkPlan {
  std::unordered_map<uint32_t, LastWalkFacts> facts;  // of the candidates
  std::map<uint32_t, std::vector<PathShape>> joined_shapes;
  std::vector<uint32_t> slot_of, root_of_slot;
  PrefixMap prefixes;
  uint64_t judged_groups = 0;  // groups judged at the last walk
};

LastWalkPlan plan_last_walk(Analysis& a) {
  ScannedWalk& last = *a.last;
  assign_shapes(last, a.trie, a.options.include_weak);
  // From here on the last walk's shapes are only named (labels) and the candidates matched
  // through their prefixes (index_candidate_shapes): the lookup map is not needed.
  a.trie.forget_children();
  a.last_count.assign(a.trie.size(), 0);
  for (const uint32_t g : last.shape)
    if (g != ShapeTrie::kNone) ++a.last_count[g];
  std::vector<uint32_t> shape_of_node = last.shape;  // before joining renames them
  LastWalkPlan plan;
  std::vector<uint32_t> accumulated = count_accumulated(a);
  std::vector<uint32_t> root_of;
  join_linked_groups(a, accumulated, root_of);
  choose_candidates(a, accumulated, root_of, plan.judged_groups);
  std::vector<uint32_t>().swap(accumulated);  // not `= {}`, which keeps the capacity
  CandidateFacts facts = candidate_facts(a, root_of, shape_of_node);
  plan.joined_shapes = joined_candidate_shapes(a, facts, root_of);
  plan.facts = std::move(facts.joined);
  facts = {};
  // Each array by node or by shape is 40 MB at 10 M objects: what is read no more goes before
  // the retained bytes' search, the peak of `leaks` (the positions come back after reopen_walk).
  std::vector<uint32_t>().swap(last.hops);
  prepare_holder_search(a);
  find_candidate_holders(a, shape_of_node);
  std::vector<uint32_t>().swap(a.preorder_position);
  index_candidate_shapes(a, root_of, plan.slot_of, plan.root_of_slot, plan.prefixes);
  std::vector<uint32_t>().swap(root_of);
  add_last_retained(a, plan.slot_of, plan.root_of_slot, shape_of_node);
  return plan;
}

// The candidates' points at the earlier walks, and the groups judged over all walks.
Status count_all_walks(Analysis& a, const LastWalkPlan& plan, const OpenWalk& open_walk,
                       const std::function<Status()>& reopen_last, uint64_t& judged_groups) {
  ShapeUnion shapes;
  std::vector<uint8_t> has_members(a.trie.size(), 0);
  uint64_t last_shapes = 0;
  for (uint32_t g = 0; g < a.trie.size(); ++g) {
    has_members[g] = a.last_count[g] != 0;
    last_shapes += has_members[g];
  }
  shapes.add(a.trie, has_members);
  std::vector<uint8_t>().swap(has_members);
  // The last walk's heap is opened again after the earlier ones, decoded too: held through
  // them it was the largest part of the peak beside the walk being read (10 x 2 M objects:
  // 862 -> 742 MB peak RSS, for 3 % more CPU to decode it and find its dominators twice).
  a.last->release_heap();
  if (Status st = count_earlier_walks(a, plan.slot_of, plan.root_of_slot, plan.prefixes, open_walk, shapes); !st)
    return st.error();
  if (Status st = reopen_last(); !st) return st.error();
  count_members_alive(a);
  judged_groups += shapes.members() - last_shapes + plan.judged_groups;
  return {};
}

Judged make_suspect(const Analysis& a, uint32_t g, const LastWalkFacts& f, LastWalkPlan& plan) {
  Judged j;
  j.groups.push_back(g);
  LeakSuspect& s = j.suspect;
  const uint32_t type = a.trie.label(g);
  s.type = a.types.name(type);
  if (const auto joined = plan.joined_shapes.find(g); joined != plan.joined_shapes.end()) {
    s.shapes = std::move(joined->second);
    std::stable_sort(s.shapes.begin(), s.shapes.end(),
                     [](const PathShape& x, const PathShape& y) { return x.count > y.count; });
    if (s.shapes.size() > a.options.max_shapes) s.shapes.resize(std::max<size_t>(1, a.options.max_shapes));
  } else {
    s.shapes.push_back(make_shape(a, g, f));
  }
  s.series = a.groups.at(g);
  s.by_identity = a.by_identity;
  s.accumulated_count = f.accumulated_count;
  s.accumulated_bytes = f.accumulated_bytes;
  s.accumulation = find_accumulation_point(a, j.groups, type, &j.holder);
  if (f.newest != kNoNode) s.example_address = a.last->graph().address(f.newest);
  if (!a.by_identity) {
    for (NodeIndex v = 0; v < a.last->graph().node_count(); ++v)
      if (a.last->shape[v] == g) s.example_address = a.last->graph().address(v);
  }
  summarize(s, a.segment_start);
  return j;
}

}  // namespace

Result<JudgedGroups> judge_groups(Analysis& a, uint64_t& judged_groups, const OpenWalk& open_walk,
                                  const std::function<Status()>& reopen_last) {
  if (Status st = find_walk_dominators(*a.last, a.options.include_weak); !st) return st.error();
  LastWalkPlan plan = plan_last_walk(a);
  if (Status st = count_all_walks(a, plan, open_walk, reopen_last, judged_groups); !st) return st.error();
  prepare_holder_search(a);
  index_suspect_members(a);
  std::vector<Judged> suspects;
  std::vector<uint32_t> candidates, others;
  for (const auto& [g, series] : a.groups) candidates.push_back(g);
  std::sort(candidates.begin(), candidates.end());
  for (const uint32_t g : candidates) {
    if (!is_suspect(a, g, plan.facts[g])) {
      others.push_back(g);
      continue;
    }
    suspects.push_back(make_suspect(a, g, plan.facts[g], plan));
  }
  JudgedGroups out;
  out.suspects = fold_nested(merge_suspects(std::move(suspects), a), a);
  std::vector<Judged> flat;
  for (const uint32_t g : flat_candidates(a, others)) flat.push_back(make_suspect(a, g, plan.facts[g], plan));
  keep_flat(a, fold_nested(merge_suspects(std::move(flat), a), a), out.bounded);
  demote_slowed(a, out.suspects, out.bounded);
  return out;
}

}  // namespace gcsnap::leaks
