#include "leaks/leak_analysis.hpp"

#include <numeric>

namespace gcsnap::leaks {

// Per shape, its last-walk members born after the segment's first walk (with identity): all the
// facts of choose_candidates' test. The other facts are for the candidates only (candidate_facts):
// a walk of the synthetic series has about one shape per object, so 24 B of facts per shape were
// 0.24 GB of the peak at 10 x 10 M objects.
std::vector<uint32_t> count_accumulated(const Analysis& a) {
  const ScannedWalk& s = *a.last;
  std::vector<uint32_t> accumulated(a.trie.size(), 0);
  if (!a.by_identity) return accumulated;
  for (NodeIndex v = 0; v < s.shape.size(); ++v)
    if (s.shape[v] != ShapeTrie::kNone && s.birth[v] > a.segment_start) ++accumulated[s.shape[v]];
  return accumulated;
}

namespace {

void add_facts(LastWalkFacts& f, const LastWalkFacts& o, const ScannedWalk& s) {
  f.accumulated_count += o.accumulated_count;
  f.accumulated_bytes += o.accumulated_bytes;
  f.min_hops = std::min(f.min_hops, o.min_hops);
  f.max_hops = std::max(f.max_hops, o.max_hops);
  if (o.newest != kNoNode && (f.newest == kNoNode || s.birth[o.newest] > s.birth[f.newest])) f.newest = o.newest;
}

}  // namespace

CandidateFacts candidate_facts(const Analysis& a, const std::vector<uint32_t>& root_of,
                               std::span<const uint32_t> shape_of_node) {
  const ScannedWalk& s = *a.last;
  const uint32_t n = static_cast<uint32_t>(a.trie.size());
  std::vector<uint8_t> in_candidate(n, 0);
  CandidateFacts out;
  for (uint32_t g = 0; g < n; ++g)
    if (a.groups.count(root_of[g])) {
      in_candidate[g] = 1;
      out.own.try_emplace(g);
    }
  for (NodeIndex v = 0; v < shape_of_node.size(); ++v) {
    const uint32_t g = shape_of_node[v];
    if (g == ShapeTrie::kNone || !in_candidate[g]) continue;
    LastWalkFacts& f = out.own[g];
    f.min_hops = std::min(f.min_hops, s.hops[v]);
    f.max_hops = std::max(f.max_hops, s.hops[v]);
    const uint32_t birth = s.birth[v];
    if (!a.by_identity || birth <= a.segment_start) continue;
    ++f.accumulated_count;
    f.accumulated_bytes += s.graph().object_size(v);
    if (f.newest == kNoNode || birth > s.birth[f.newest]) f.newest = v;
  }
  // A joined group's facts are its shapes' in shape order, its root (the lowest) first.
  for (uint32_t g = 0; g < n; ++g)
    if (in_candidate[g]) add_facts(out.joined[root_of[g]], out.own.at(g), s);
  return out;
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
// members and their ACCUMULATED counts (ROOT_OF: each shape's group); joined_candidate_shapes
// names their shapes.
void join_linked_groups(Analysis& a, std::vector<uint32_t>& accumulated, std::vector<uint32_t>& root_of) {
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
    joined = true;
    accumulated[r] += accumulated[g];
  }
  if (joined)
    for (NodeIndex v = 0; v < s.graph().node_count(); ++v)
      if (s.shape[v] != ShapeTrie::kNone) s.shape[v] = parent[s.shape[v]];
}

// The shapes of each joined candidate (ROOT_OF, after choose_candidates), its root's first, as
// the last walk had them (FACTS: each shape's own). Named for the candidates only: for every
// joined group they were 0.2 GB of small allocations at the peak at 10 x 10 M objects.
std::map<uint32_t, std::vector<PathShape>> joined_candidate_shapes(const Analysis& a, const CandidateFacts& facts,
                                                                   const std::vector<uint32_t>& root_of) {
  std::map<uint32_t, std::vector<PathShape>> shapes;
  const uint32_t n = static_cast<uint32_t>(a.trie.size());
  for (uint32_t g = 0; g < n; ++g) {
    const uint32_t r = root_of[g];
    if (r == g || !a.groups.count(r)) continue;
    if (shapes.find(r) == shapes.end()) shapes[r].push_back(make_shape(a, r, facts.own.at(r)));
    shapes[r].push_back(make_shape(a, g, facts.own.at(g)));
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
void choose_candidates(Analysis& a, const std::vector<uint32_t>& accumulated, const std::vector<uint32_t>& root_of,
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
    passed[r] = a.by_identity ? accumulated[r] >= std::max<uint64_t>(a.options.min_accumulated, ks)
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
