#include "leaks/leak_analysis.hpp"

#include <numeric>

namespace gcsnap::leaks {

std::vector<LastWalkFacts> collect_last_walk(Analysis& a) {
  const ScannedWalk& s = *a.last;
  std::vector<LastWalkFacts> facts(a.trie.size());
  for (NodeIndex v = 0; v < s.graph().node_count(); ++v) {
    const uint32_t g = s.shape[v];
    if (g == ShapeTrie::kNone) continue;
    LastWalkFacts& f = facts[g];
    f.min_hops = std::min(f.min_hops, s.hops[v]);
    f.max_hops = std::max(f.max_hops, s.hops[v]);
    const uint32_t birth = s.birth[v];
    if (!a.by_identity || birth <= a.segment_start) continue;
    ++f.accumulated_count;
    f.accumulated_bytes += s.graph().object_size(v);
    if (f.newest == kNoNode || birth > s.birth[f.newest]) f.newest = v;
  }
  return facts;
}

PathShape make_shape(const Analysis& a, uint32_t g, const LastWalkFacts& f) {
  PathShape shape;
  const auto labels = a.trie.labels(g);
  shape.root_kind = static_cast<RootKind>((labels.front() >> 8) & 0xFF);
  shape.root_flags = static_cast<uint8_t>(labels.front() & 0xFF);
  for (size_t i = 1; i < labels.size(); ++i) shape.types.push_back(a.types.name(labels[i]));
  shape.count = a.last_count[g];
  shape.min_hops = f.min_hops == UINT32_MAX ? 0 : f.min_hops;
  shape.max_hops = f.max_hops;
  return shape;
}

// Groups of one type whose members reference each other at the last walk are one structure
// reached by several shapes (a doubly linked list entered from its head and from its tail):
// each half alone has half the count and, with identity, only the old or only the new
// members, so they are judged as one group. The group of the lowest id takes the others'
// facts and members (ROOT_OF: each shape's group); joined_candidate_shapes names their shapes.
void join_linked_groups(Analysis& a, std::vector<LastWalkFacts>& facts, std::vector<uint32_t>& root_of) {
  ScannedWalk& s = *a.last;
  const uint32_t n = static_cast<uint32_t>(a.trie.size());
  std::vector<uint32_t>& parent = root_of;
  parent.resize(n);
  std::iota(parent.begin(), parent.end(), 0u);
  for (NodeIndex v = 0; v < s.graph().node_count(); ++v) {
    const uint32_t g = s.shape[v];
    if (g == ShapeTrie::kNone) continue;
    for (NodeIndex w : s.graph().successors(v)) {
      const uint32_t h = s.shape[w];
      if (h == ShapeTrie::kNone || h == g || a.trie.label(h) != a.trie.label(g)) continue;
      const uint32_t x = find_set(parent, g), y = find_set(parent, h);
      if (x != y) parent[std::max(x, y)] = std::min(x, y);
    }
  }
  for (uint32_t g = 0; g < n; ++g) parent[g] = find_set(parent, g);
  bool joined = false;
  for (uint32_t g = 0; g < n; ++g) {
    const uint32_t r = parent[g];
    if (r == g) continue;
    LastWalkFacts& f = facts[r];
    const LastWalkFacts& o = facts[g];
    joined = true;
    f.accumulated_count += o.accumulated_count;
    f.accumulated_bytes += o.accumulated_bytes;
    f.min_hops = std::min(f.min_hops, o.min_hops);
    f.max_hops = std::max(f.max_hops, o.max_hops);
    if (o.newest != kNoNode && (f.newest == kNoNode || s.birth[o.newest] > s.birth[f.newest])) f.newest = o.newest;
  }
  if (joined)
    for (NodeIndex v = 0; v < s.graph().node_count(); ++v)
      if (s.shape[v] != ShapeTrie::kNone) s.shape[v] = parent[s.shape[v]];
}

// The shapes of each joined candidate (ROOT_OF, after choose_candidates), its root's first, as
// the last walk had them (SHAPE_OF_NODE: before joining; FACTS: the root's are the group's, so
// its own hops are read again). Named for the candidates only: for every joined group they
// were 0.2 GB of small allocations at the peak at 10 x 10 M objects.
std::map<uint32_t, std::vector<PathShape>> joined_candidate_shapes(const Analysis& a,
                                                                   const std::vector<LastWalkFacts>& facts,
                                                                   const std::vector<uint32_t>& root_of,
                                                                   std::span<const uint32_t> shape_of_node) {
  std::map<uint32_t, std::vector<PathShape>> shapes;
  const uint32_t n = static_cast<uint32_t>(a.trie.size());
  std::vector<uint8_t> is_root(n, 0);  // a joined candidate's root shape
  std::unordered_map<uint32_t, LastWalkFacts> own;
  for (uint32_t g = 0; g < n; ++g)
    if (root_of[g] != g && a.groups.count(root_of[g])) is_root[root_of[g]] = 1;
  for (uint32_t g = 0; g < n; ++g)
    if (is_root[g]) own.try_emplace(g);
  if (own.empty()) return shapes;
  const ScannedWalk& s = *a.last;
  for (NodeIndex v = 0; v < shape_of_node.size(); ++v) {
    const uint32_t g = shape_of_node[v];
    if (g == ShapeTrie::kNone || !is_root[g]) continue;
    LastWalkFacts& f = own[g];
    f.min_hops = std::min(f.min_hops, s.hops[v]);
    f.max_hops = std::max(f.max_hops, s.hops[v]);
  }
  for (uint32_t g = 0; g < n; ++g) {
    const uint32_t r = root_of[g];
    if (r == g || !is_root[r]) continue;
    if (shapes.find(r) == shapes.end()) shapes[r].push_back(make_shape(a, r, own.at(r)));
    shapes[r].push_back(make_shape(a, g, facts[g]));
  }
  return shapes;
}

namespace {

// A group's last-walk members by the walk they were born at (after the segment's first).
struct Births {
  std::vector<LeakPoint> points;  // born_here
  std::vector<uint64_t> bytes;
};

// With identity: the births of the groups that PASSED the last walk's counts, and which of
// them were born over enough intervals and still in the last ones (PASSED cleared if not).
std::unordered_map<uint32_t, Births> judge_births(const Analysis& a, std::vector<uint8_t>& passed) {
  const ScannedWalk& s = *a.last;
  const size_t walks = a.series.walks, k = walks - 1, ks = k - a.segment_start;
  std::unordered_map<uint32_t, Births> born;
  for (NodeIndex v = 0; v < s.graph().node_count(); ++v) {
    const uint32_t r = s.shape[v];
    if (r == ShapeTrie::kNone || !passed[r] || s.birth[v] <= a.segment_start) continue;
    Births& b = born[r];
    if (b.points.empty()) {
      b.points.resize(walks);
      b.bytes.resize(walks);
    }
    ++b.points[s.birth[v]].born_here;
    b.bytes[s.birth[v]] += s.graph().object_size(v);
  }
  for (uint32_t r = 0; r < passed.size(); ++r) {
    if (!passed[r]) continue;
    const auto it = born.find(r);
    size_t intervals = 0, recent = 0;
    if (it != born.end())
      for (size_t i = a.segment_start + 1; i <= k; ++i) {
        if (it->second.points[i].born_here == 0) continue;
        ++intervals;
        if (i > k - last_third(ks)) ++recent;
      }
    passed[r] = intervals >= (ks + 1) / 2 && recent > 0;
  }
  return born;
}

}  // namespace

// The groups (joined, by their root shape) that the last walk alone cannot rule out: with
// identity enough new members born over enough intervals and still in the last ones, without
// it a last count that can have grown by one per interval (both necessary for is_suspect).
// Each gets its full series, the last walk's point and births filled in.
void choose_candidates(Analysis& a, const std::vector<LastWalkFacts>& facts, const std::vector<uint32_t>& root_of,
                       uint64_t& judged_groups) {
  const ScannedWalk& s = *a.last;
  const size_t walks = a.series.walks, k = walks - 1, ks = k - a.segment_start;
  const size_t n = a.trie.size();
  // Members by group (by root: join_linked_groups renamed them) from the shapes' counts, and
  // bytes below for the candidates only: a walk of the synthetic series has about one shape
  // per object, so each array by shape here is 4-8 B an object of the peak.
  std::vector<uint32_t> count(n, 0);
  for (uint32_t g = 0; g < n; ++g) count[root_of[g]] += a.last_count[g];
  std::vector<uint8_t> passed(n, 0);
  for (uint32_t r = 0; r < n; ++r) {
    if (root_of[r] != r || count[r] == 0) continue;
    ++judged_groups;
    passed[r] = a.by_identity ? facts[r].accumulated_count >= std::max<uint64_t>(a.options.min_accumulated, ks)
                              : count[r] >= std::max<uint64_t>(a.options.min_accumulated, k);
  }
  std::unordered_map<uint32_t, Births> born;
  if (a.by_identity) {
    std::vector<uint8_t> before = passed;
    born = judge_births(a, passed);
    // A cache that replaces its entries fails the births test when its survivors are recent;
    // it stays a candidate for the bounded list (never a suspect: is_suspect repeats the test).
    for (const auto& [r, births] : born)
      if (before[r] && !passed[r]) passed[r] = may_be_bounded(a, r, births.points);
  }
  for (uint32_t r = 0; r < n; ++r) {
    if (!passed[r]) continue;
    auto& series = a.groups[r];
    if (const auto it = born.find(r); it != born.end()) {
      series = std::move(it->second.points);
      a.born_bytes[r] = std::move(it->second.bytes);
    }
    series.resize(walks);
    series[k].count = count[r];
  }
  for (NodeIndex v = 0; v < s.graph().node_count(); ++v) {
    const uint32_t r = s.shape[v];
    if (r != ShapeTrie::kNone && passed[r]) a.groups[r][k].bytes += s.graph().object_size(v);
  }
}

}  // namespace gcsnap::leaks
