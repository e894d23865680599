#include "gcsnap/leak_suspects.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <new>
#include <numeric>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "analysis/group_retained.hpp"
#include "analysis/leak_scan.hpp"
#include "analysis/shape_union.hpp"
#include "gcsnap/group_holder.hpp"
#include "gcsnap/path_fold.hpp"

namespace gcsnap {

Result<std::vector<uint32_t>> collapse_repeats(std::span<const uint32_t> types, size_t max_period) {
  auto folded = fold_repeats(types, max_period);
  if (!folded) return folded.error();
  return std::move(folded->keys);
}

namespace {

size_t ceil_share(size_t n, double share) {
  const double x = std::ceil(static_cast<double>(n) * share - 1e-9);
  return std::max<size_t>(1, x < 0 ? 0 : static_cast<size_t>(x));
}

// The last third of N intervals, at least one.
size_t last_third(size_t n) { return std::max<size_t>(1, (n + 2) / 3); }

}  // namespace

bool is_growing_series(std::span<const uint64_t> counts, double min_growth_share) {
  if (counts.size() < 2) return false;
  const size_t k = counts.size() - 1;
  size_t grew = 0;
  for (size_t i = 1; i <= k; ++i) grew += counts[i] > counts[i - 1];
  if (grew < ceil_share(k, min_growth_share)) return false;
  if (counts[k] <= counts[0]) return false;
  return counts[k] > counts[k - last_third(k)];
}

namespace {

using leaks::ScannedWalk;
using leaks::ShapeTrie;

// What the last walk says about one group's members.
struct LastWalkFacts {
  uint64_t accumulated_count = 0, accumulated_bytes = 0;
  NodeIndex newest = kNoNode;
  uint32_t newest_birth = 0;
  uint64_t min_hops = UINT64_MAX, max_hops = 0;
};

struct Analysis {
  const LeakOptions& options;
  ShapeTrie trie;  // the last walk's shapes: a group is one of them
  leaks::TypeInterner types;
  leaks::SeriesTable series;
  std::unique_ptr<ScannedWalk> last;
  size_t segment_start = 0;  // first walk of the identity segment that ends at the last walk
  bool by_identity = false;
  std::vector<uint32_t> last_count;  // per shape: members at the last walk
  // The full series of the candidate groups (those the last walk cannot rule out), by shape.
  std::unordered_map<uint32_t, std::vector<LeakPoint>> groups;
  // The last walk's, for the holder searches (prepare_holder_search): by type id whether it
  // is an array, and each node's position in the dominator tree's preorder.
  std::vector<uint8_t> array_types;
  std::vector<uint32_t> preorder_position;
};

std::vector<LastWalkFacts> collect_last_walk(Analysis& a) {
  const ScannedWalk& s = *a.last;
  std::vector<LastWalkFacts> facts(a.trie.size());
  for (NodeIndex v = 0; v < s.graph().node_count(); ++v) {
    const uint32_t g = s.shape[v];
    if (g == ShapeTrie::kNone) continue;
    LastWalkFacts& f = facts[g];
    f.min_hops = std::min<uint64_t>(f.min_hops, s.hops[v]);
    f.max_hops = std::max<uint64_t>(f.max_hops, s.hops[v]);
    const uint32_t birth = s.birth[v];
    if (!a.by_identity || birth <= a.segment_start) continue;
    ++f.accumulated_count;
    f.accumulated_bytes += s.graph().object_size(v);
    if (f.newest == kNoNode || birth > f.newest_birth) {
      f.newest = v;
      f.newest_birth = birth;
    }
  }
  return facts;
}

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

uint32_t find_set(std::vector<uint32_t>& parent, uint32_t x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

bool is_array_name(std::string_view name) { return !name.empty() && name.back() == ']'; }

// The holder of the groups' accumulated members (all members without identity) at the last
// walk: find_group_holder, with the members' type excluded from being the holder.
// Once per last walk (the holder is searched for every suspect): which types are arrays, and
// the preorder positions that let each search visit the members' dominators only.
void prepare_holder_search(Analysis& a) {
  const ScannedWalk& s = *a.last;
  const size_t n = s.graph().node_count();
  a.array_types.clear();
  for (NodeIndex v = 0; v < n; ++v) {
    const uint32_t t = s.graph().type_id(v);
    if (t >= a.array_types.size()) a.array_types.resize(t + 1, 2);
    if (a.array_types[t] == 2) a.array_types[t] = is_array_name(s.names().type_name(t));
  }
  a.preorder_position.assign(n, 0);
  const auto preorder = s.dom().preorder();
  for (uint32_t i = 0; i < preorder.size(); ++i) a.preorder_position[preorder[i]] = i;
}

AccumulationPoint find_accumulation_point(const Analysis& a, const std::vector<uint8_t>& in_group, uint32_t type) {
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
  auto holder = find_group_holder(s.graph(), s.dom(), marks, counted, a.preorder_position, a.array_types);
  if (!holder) throw std::bad_alloc();  // its only other error is a marks size mismatch
  AccumulationPoint point;
  if (!holder->found) return point;
  point.found = true;
  point.is_owner = holder->is_owner;
  point.entries = holder->entries;
  point.address = s.graph().address(holder->node);
  point.type = a.types.name(s.type[holder->node]);
  point.retained_bytes = s.dom().retained_size(holder->node);
  point.members_dominated = holder->members_dominated;
  if (holder->via_array != kNoNode) {
    point.via_array = a.types.name(s.type[holder->via_array]);
    point.via_array_address = s.graph().address(holder->via_array);
  }
  return point;
}

AccumulationPoint find_accumulation_point(const Analysis& a, std::span<const uint32_t> groups, uint32_t type) {
  std::vector<uint8_t> in_group(a.trie.size(), 0);
  for (uint32_t g : groups) in_group[g] = 1;
  return find_accumulation_point(a, in_group, type);
}

PathShape make_shape(const Analysis& a, uint32_t g, const LastWalkFacts& f) {
  PathShape shape;
  const auto labels = a.trie.labels(g);
  shape.root_kind = static_cast<RootKind>((labels.front() >> 8) & 0xFF);
  shape.root_flags = static_cast<uint8_t>(labels.front() & 0xFF);
  for (size_t i = 1; i < labels.size(); ++i) shape.types.push_back(a.types.name(labels[i]));
  shape.count = a.last_count[g];
  shape.min_hops = f.min_hops == UINT64_MAX ? 0 : f.min_hops;
  shape.max_hops = f.max_hops;
  return shape;
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

// A suspect and the groups (shape ids) it is made of.
struct Judged {
  LeakSuspect suspect;
  std::vector<uint32_t> groups;
};

// Which judged suspects are one leak: of one type, and either held at one accumulation point
// (an event's first subscriber and the later ones) or linked, a member of one referencing a
// member of the other (one structure reached by several shapes: a doubly linked list entered
// from its head and from its tail). Returns a representative per suspect.
std::vector<uint32_t> same_leak(const std::vector<Judged>& in, const Analysis& a) {
  std::vector<uint32_t> parent(in.size());
  std::iota(parent.begin(), parent.end(), 0u);
  std::map<std::pair<std::string, uint64_t>, uint32_t> by_point;
  for (uint32_t i = 0; i < in.size(); ++i) {
    const LeakSuspect& s = in[i].suspect;
    if (!s.accumulation.found) continue;
    const auto [it, inserted] = by_point.try_emplace({s.type, s.accumulation.address}, i);
    if (!inserted) parent[find_set(parent, i)] = find_set(parent, it->second);
  }
  const ScannedWalk& w = *a.last;
  std::vector<uint32_t> suspect_of_group(a.trie.size(), UINT32_MAX);
  for (uint32_t i = 0; i < in.size(); ++i)
    for (uint32_t g : in[i].groups) suspect_of_group[g] = i;
  auto suspect_of = [&](NodeIndex v) { return w.shape[v] == ShapeTrie::kNone ? UINT32_MAX : suspect_of_group[w.shape[v]]; };
  for (NodeIndex v = 0; v < w.graph().node_count(); ++v) {
    const uint32_t i = suspect_of(v);
    if (i == UINT32_MAX) continue;
    for (NodeIndex u : w.graph().successors(v)) {
      const uint32_t j = suspect_of(u);
      if (j != UINT32_MAX && j != i && in[j].suspect.type == in[i].suspect.type)
        parent[find_set(parent, j)] = find_set(parent, i);
    }
  }
  for (uint32_t i = 0; i < in.size(); ++i) parent[i] = find_set(parent, i);
  return parent;
}

// Groups that are one leak (same_leak) are one suspect with several shapes, its series the sum
// of theirs; its holder is found again for all its groups together.
std::vector<Judged> merge_suspects(std::vector<Judged> in, const Analysis& a) {
  const std::vector<uint32_t> leak_of = same_leak(in, a);
  std::vector<Judged> out;
  std::vector<uint32_t> position(in.size(), UINT32_MAX);
  std::vector<uint8_t> merged;
  for (uint32_t i = 0; i < in.size(); ++i) {
    Judged& j = in[i];
    LeakSuspect& s = j.suspect;
    if (position[leak_of[i]] == UINT32_MAX) {
      position[leak_of[i]] = static_cast<uint32_t>(out.size());
      out.push_back(std::move(j));
      merged.push_back(0);
      continue;
    }
    Judged& into = out[position[leak_of[i]]];
    merged[position[leak_of[i]]] = 1;
    LeakSuspect& m = into.suspect;
    for (size_t k = 0; k < m.series.size(); ++k) {
      m.series[k].count += s.series[k].count;
      m.series[k].bytes += s.series[k].bytes;
      m.series[k].retained_bytes += s.series[k].retained_bytes;
      m.series[k].born_here += s.series[k].born_here;
    }
    m.accumulation.members_dominated += s.accumulation.members_dominated;
    if (s.accumulated_count > m.accumulated_count) m.example_address = s.example_address;
    m.accumulated_count += s.accumulated_count;
    m.accumulated_bytes += s.accumulated_bytes;
    for (auto& shape : s.shapes) m.shapes.push_back(std::move(shape));
    into.groups.insert(into.groups.end(), j.groups.begin(), j.groups.end());
  }
  for (size_t i = 0; i < out.size(); ++i) {
    LeakSuspect& s = out[i].suspect;
    if (merged[i]) s.accumulation = find_accumulation_point(a, out[i].groups, a.trie.label(out[i].groups.front()));
    std::stable_sort(s.shapes.begin(), s.shapes.end(),
                     [](const PathShape& x, const PathShape& y) { return x.count > y.count; });
    if (s.shapes.size() > a.options.max_shapes) s.shapes.resize(std::max<size_t>(1, a.options.max_shapes));
    summarize(s, a.segment_start);
  }
  return out;
}

// A suspect whose members are mostly each held (within a few dominator steps) by a member of
// another suspect accumulates only because that one does (a session's name and payload): it
// is folded into that one's `holds` instead of being ranked apart.
std::vector<LeakSuspect> fold_nested(std::vector<Judged> judged, const Analysis& a) {
  constexpr int kSteps = 4;
  const ScannedWalk& s = *a.last;
  std::vector<uint32_t> suspect_of_group(a.trie.size(), UINT32_MAX);
  for (uint32_t i = 0; i < judged.size(); ++i)
    for (uint32_t g : judged[i].groups) suspect_of_group[g] = i;
  auto suspect_of = [&](NodeIndex v) { return s.shape[v] == ShapeTrie::kNone ? UINT32_MAX : suspect_of_group[s.shape[v]]; };
  std::vector<uint32_t> parent(judged.size(), UINT32_MAX);
  std::vector<std::map<uint32_t, uint64_t>> held_by(judged.size());
  std::vector<uint64_t> members(judged.size(), 0);
  for (NodeIndex v = 0; v < s.graph().node_count(); ++v) {
    const uint32_t b = suspect_of(v);
    if (b == UINT32_MAX || (a.by_identity && s.birth[v] <= a.segment_start)) continue;
    ++members[b];
    NodeIndex u = s.dom().immediate_dominator(v);
    for (int step = 0; step < kSteps && u != kVirtualRoot && u != kNoNode; ++step, u = s.dom().immediate_dominator(u)) {
      const uint32_t owner = suspect_of(u);
      if (owner == UINT32_MAX || owner == b) continue;
      ++held_by[b][owner];
      break;
    }
  }
  for (uint32_t b = 0; b < judged.size(); ++b)
    for (const auto& [owner, count] : held_by[b])
      if (2 * count > members[b]) parent[b] = owner;
  // Each suspect goes to its outermost holder; a cycle (not expected of dominators) keeps all.
  const size_t n = judged.size();
  std::vector<uint32_t> top(n);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t t = i;
    size_t steps = 0;
    while (parent[t] != UINT32_MAX && steps <= n) {
      t = parent[t];
      ++steps;
    }
    top[i] = steps > n ? i : t;
  }
  std::vector<LeakSuspect> out;
  std::vector<uint32_t> position(n, UINT32_MAX);
  for (uint32_t i = 0; i < n; ++i)
    if (top[i] == i) {
      position[i] = static_cast<uint32_t>(out.size());
      out.push_back(std::move(judged[i].suspect));
    }
  for (uint32_t i = 0; i < n; ++i) {
    if (top[i] == i) continue;
    const LeakSuspect& nested = judged[i].suspect;
    auto& holds = out[position[top[i]]].holds;
    // Groups of one type held by one suspect (through its several shapes) are one entry.
    const auto same = std::find_if(holds.begin(), holds.end(), [&](const HeldGroup& h) { return h.type == nested.type; });
    if (same != holds.end()) {
      same->accumulated_count += nested.accumulated_count;
      same->accumulated_bytes += nested.accumulated_bytes;
      continue;
    }
    holds.push_back(HeldGroup{nested.type, nested.accumulated_count, nested.accumulated_bytes,
                              nested.shapes.empty() ? PathShape{} : nested.shapes.front()});
  }
  return out;
}

// Groups of one type whose members reference each other at the last walk are one structure
// reached by several shapes (a doubly linked list entered from its head and from its tail):
// each half alone has half the count and, with identity, only the old or only the new
// members, so they are judged as one group. The group of the lowest id takes the others'
// facts and members (ROOT_OF: each shape's group); their shapes are returned by that id.
std::map<uint32_t, std::vector<PathShape>> join_linked_groups(Analysis& a, std::vector<LastWalkFacts>& facts,
                                                              std::vector<uint32_t>& root_of) {
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
  std::map<uint32_t, std::vector<PathShape>> shapes;
  for (uint32_t g = 0; g < n; ++g) {
    const uint32_t r = parent[g];
    if (r == g) continue;
    if (shapes.find(r) == shapes.end()) shapes[r].push_back(make_shape(a, r, facts[r]));
    shapes[r].push_back(make_shape(a, g, facts[g]));
  }
  for (uint32_t g = 0; g < n; ++g) {
    const uint32_t r = parent[g];
    if (r == g) continue;
    LastWalkFacts& f = facts[r];
    const LastWalkFacts& o = facts[g];
    f.accumulated_count += o.accumulated_count;
    f.accumulated_bytes += o.accumulated_bytes;
    f.min_hops = std::min(f.min_hops, o.min_hops);
    f.max_hops = std::max(f.max_hops, o.max_hops);
    if (o.newest != kNoNode && (f.newest == kNoNode || o.newest_birth > f.newest_birth)) {
      f.newest = o.newest;
      f.newest_birth = o.newest_birth;
    }
  }
  if (!shapes.empty())
    for (NodeIndex v = 0; v < s.graph().node_count(); ++v)
      if (s.shape[v] != ShapeTrie::kNone) s.shape[v] = parent[s.shape[v]];
  return shapes;
}

// The groups (joined, by their root shape) that the last walk alone cannot rule out: with
// identity enough new members born over enough intervals and still in the last ones, without
// it a last count that can have grown by one per interval (both necessary for is_suspect).
// Each gets its full series, the last walk's point and births filled in.
void choose_candidates(Analysis& a, const std::vector<LastWalkFacts>& facts, const std::vector<uint32_t>& root_of,
                       uint64_t& judged_groups) {
  const ScannedWalk& s = *a.last;
  const size_t walks = a.series.walks, k = walks - 1, ks = k - a.segment_start;
  const size_t n = a.trie.size();
  std::vector<uint64_t> count(n, 0), bytes(n, 0);
  for (NodeIndex v = 0; v < s.graph().node_count(); ++v) {
    if (s.shape[v] == ShapeTrie::kNone) continue;
    ++count[s.shape[v]];  // by root: join_linked_groups renamed the members
    bytes[s.shape[v]] += s.graph().object_size(v);
  }
  std::vector<uint8_t> passed(n, 0);
  for (uint32_t r = 0; r < n; ++r) {
    if (root_of[r] != r || count[r] == 0) continue;
    ++judged_groups;
    passed[r] = a.by_identity ? facts[r].accumulated_count >= std::max<uint64_t>(a.options.min_accumulated, ks)
                              : count[r] >= std::max<uint64_t>(a.options.min_accumulated, k);
  }
  std::unordered_map<uint32_t, std::vector<LeakPoint>> born;
  if (a.by_identity) {
    for (NodeIndex v = 0; v < s.graph().node_count(); ++v) {
      const uint32_t r = s.shape[v];
      if (r == ShapeTrie::kNone || !passed[r] || s.birth[v] <= a.segment_start) continue;
      auto& series = born[r];
      if (series.empty()) series.resize(walks);
      ++series[s.birth[v]].born_here;
    }
    for (uint32_t r = 0; r < n; ++r) {
      if (!passed[r]) continue;
      const auto it = born.find(r);
      size_t intervals = 0, recent = 0;
      if (it != born.end())
        for (size_t i = a.segment_start + 1; i <= k; ++i) {
          if (it->second[i].born_here == 0) continue;
          ++intervals;
          if (i > k - last_third(ks)) ++recent;
        }
      passed[r] = intervals >= (ks + 1) / 2 && recent > 0;
    }
  }
  for (uint32_t r = 0; r < n; ++r) {
    if (!passed[r]) continue;
    auto& series = a.groups[r];
    if (const auto it = born.find(r); it != born.end()) series = std::move(it->second);
    series.resize(walks);
    series[k].count = count[r];
    series[k].bytes = bytes[r];
  }
}

// The candidates' retained bytes at the last walk: the sum over their shapes' (as the joined
// groups' series are sums of their shapes' series). SLOT_OF: a candidate's shape's slot.
void add_last_retained(Analysis& a, std::span<const uint32_t> slot_of, std::span<const uint32_t> root_of_slot,
                       std::span<const uint32_t> shape_of_node) {
  std::vector<uint32_t> slot_of_node(shape_of_node.size(), ShapeTrie::kNone);
  for (size_t v = 0; v < shape_of_node.size(); ++v)
    if (shape_of_node[v] != ShapeTrie::kNone) slot_of_node[v] = slot_of[shape_of_node[v]];
  const auto retained = detail::group_retained_bytes(a.last->dom(), slot_of_node, root_of_slot.size());
  const size_t k = a.series.walks - 1;
  for (size_t i = 0; i < root_of_slot.size(); ++i) a.groups.at(root_of_slot[i])[k].retained_bytes += retained[i];
}

// Second pass: count the candidates' members at every walk but the last, each walk's shapes in
// a trie of its own, matched to the last walk's by their labels; add every walk's shapes with
// members to SHAPES, to count the groups judged.
using PrefixMap = std::unordered_map<uint64_t, uint32_t>;

// The candidates' shapes (before joining) get a slot each (SLOT_OF, by shape; ROOT_OF_SLOT:
// the candidate), and every prefix of them an entry in PREFIXES: parent << 32 | label -> shape.
void index_candidate_shapes(const Analysis& a, const std::vector<uint32_t>& root_of, std::vector<uint32_t>& slot_of,
                            std::vector<uint32_t>& root_of_slot, PrefixMap& prefixes) {
  slot_of.assign(a.trie.size(), ShapeTrie::kNone);
  for (uint32_t g = 0; g < a.trie.size(); ++g) {
    if (a.last_count[g] == 0 || !a.groups.count(root_of[g])) continue;
    slot_of[g] = static_cast<uint32_t>(root_of_slot.size());
    root_of_slot.push_back(root_of[g]);
    for (uint32_t t = g; t != ShapeTrie::kNone; t = a.trie.parent(t))
      if (!prefixes.emplace(static_cast<uint64_t>(a.trie.parent(t)) << 32 | a.trie.label(t), t).second) break;
  }
}

Status count_earlier_walks(Analysis& a, const std::vector<uint32_t>& slot_of, const std::vector<uint32_t>& root_of_slot,
                           const PrefixMap& prefixes,
                           const std::function<Result<std::unique_ptr<ScannedWalk>>(size_t)>& open_walk,
                           leaks::ShapeUnion& shapes) {
  const size_t k = a.series.walks - 1;
  for (size_t w = 0; w < k; ++w) {
    auto opened = open_walk(w);
    if (!opened) return opened.error();
    ScannedWalk& s = **opened;
    ShapeTrie trie;
    if (a.options.include_weak || !leaks::assign_shapes_from_tree(s, trie)) {
      trie = ShapeTrie{};
      leaks::assign_shapes(s, trie, a.options.include_weak);
    }
    trie.forget_children();  // only named from here on: its map is most of its memory
    const size_t n = s.graph().node_count();
    std::vector<uint8_t> has_members(trie.size(), 0);
    for (NodeIndex v = 0; v < n; ++v)
      if (s.shape[v] != ShapeTrie::kNone) has_members[s.shape[v]] = 1;
    shapes.add(trie, has_members);
    has_members = {};
    if (root_of_slot.empty()) continue;
    // A shape's parent has a smaller id than it: one pass maps every shape to the last walk's.
    std::vector<uint32_t> slot(trie.size(), ShapeTrie::kNone);
    {
      std::vector<uint32_t> in_last(trie.size(), ShapeTrie::kNone);
      for (uint32_t t = 0; t < trie.size(); ++t) {
        const uint32_t p = trie.parent(t);
        if (p != ShapeTrie::kNone && in_last[p] == ShapeTrie::kNone) continue;
        const auto it = prefixes.find(static_cast<uint64_t>(p == ShapeTrie::kNone ? ShapeTrie::kNone : in_last[p]) << 32 |
                                      trie.label(t));
        if (it == prefixes.end()) continue;
        in_last[t] = it->second;
        slot[t] = slot_of[it->second];
      }
    }
    std::vector<uint32_t> slot_of_node(n, ShapeTrie::kNone);
    std::vector<LeakPoint> points(root_of_slot.size());
    for (NodeIndex v = 0; v < n; ++v) {
      if (s.shape[v] == ShapeTrie::kNone || slot[s.shape[v]] == ShapeTrie::kNone) continue;
      const uint32_t i = slot[s.shape[v]];
      slot_of_node[v] = i;
      ++points[i].count;
      points[i].bytes += s.graph().object_size(v);
    }
    const auto retained = detail::group_retained_bytes(s.dom(), slot_of_node, root_of_slot.size());
    for (size_t i = 0; i < root_of_slot.size(); ++i) {
      LeakPoint& p = a.groups[root_of_slot[i]][w];
      p.count += points[i].count;
      p.bytes += points[i].bytes;
      p.retained_bytes += retained[i];
    }
  }
  return {};
}

Result<std::vector<LeakSuspect>> judge_groups(Analysis& a, uint64_t& judged_groups,
                                              const std::function<Result<std::unique_ptr<ScannedWalk>>(size_t)>& open_walk,
                                              const std::function<Status()>& reopen_last) {
  ScannedWalk& last = *a.last;
  leaks::assign_shapes(last, a.trie, a.options.include_weak);
  // From here on the last walk's shapes are only named (labels) and the candidates matched
  // through their prefixes (index_candidate_shapes): the lookup map is not needed.
  a.trie.forget_children();
  a.last_count.assign(a.trie.size(), 0);
  for (const uint32_t g : last.shape)
    if (g != ShapeTrie::kNone) ++a.last_count[g];
  std::vector<uint32_t> shape_of_node = last.shape;  // before joining renames them
  std::unordered_map<uint32_t, LastWalkFacts> facts;  // of the candidates
  std::map<uint32_t, std::vector<PathShape>> joined_shapes;
  std::vector<uint32_t> slot_of, root_of_slot;
  PrefixMap prefixes;
  uint64_t judged_at_last = 0;
  {
    auto all_facts = collect_last_walk(a);
    std::vector<uint32_t> root_of;
    joined_shapes = join_linked_groups(a, all_facts, root_of);
    choose_candidates(a, all_facts, root_of, judged_at_last);
    for (const auto& [g, series] : a.groups) facts[g] = all_facts[g];
    all_facts = {};
    index_candidate_shapes(a, root_of, slot_of, root_of_slot, prefixes);
    add_last_retained(a, slot_of, root_of_slot, shape_of_node);
    shape_of_node = {};
  }
  leaks::ShapeUnion shapes;
  {
    std::vector<uint8_t> has_members(a.trie.size(), 0);
    uint64_t last_shapes = 0;
    for (uint32_t g = 0; g < a.trie.size(); ++g) {
      has_members[g] = a.last_count[g] != 0;
      last_shapes += has_members[g];
    }
    shapes.add(a.trie, has_members);
    // A last walk read from an index is opened again after the earlier ones.
    const bool release = a.last->heap->is_from_index();
    if (release) a.last->release_heap();
    if (Status st = count_earlier_walks(a, slot_of, root_of_slot, prefixes, open_walk, shapes); !st) return st.error();
    if (release)
      if (Status st = reopen_last(); !st) return st.error();
    judged_groups += shapes.members() - last_shapes + judged_at_last;
  }
  prepare_holder_search(a);
  std::vector<Judged> suspects;
  std::vector<uint32_t> candidates;
  for (const auto& [g, series] : a.groups) candidates.push_back(g);
  std::sort(candidates.begin(), candidates.end());
  for (const uint32_t g : candidates) {
    if (!is_suspect(a, g, facts[g])) continue;
    Judged j;
    j.groups.push_back(g);
    LeakSuspect& s = j.suspect;
    const uint32_t type = a.trie.label(g);
    s.type = a.types.name(type);
    if (const auto joined = joined_shapes.find(g); joined != joined_shapes.end()) {
      s.shapes = std::move(joined->second);
      std::stable_sort(s.shapes.begin(), s.shapes.end(),
                       [](const PathShape& x, const PathShape& y) { return x.count > y.count; });
      if (s.shapes.size() > a.options.max_shapes) s.shapes.resize(std::max<size_t>(1, a.options.max_shapes));
    } else {
      s.shapes.push_back(make_shape(a, g, facts[g]));
    }
    s.series = a.groups.at(g);
    s.by_identity = a.by_identity;
    s.accumulated_count = facts[g].accumulated_count;
    s.accumulated_bytes = facts[g].accumulated_bytes;
    s.accumulation = find_accumulation_point(a, j.groups, type);
    if (facts[g].newest != kNoNode) s.example_address = a.last->graph().address(facts[g].newest);
    if (!a.by_identity) {
      for (NodeIndex v = 0; v < a.last->graph().node_count(); ++v)
        if (a.last->shape[v] == g) s.example_address = a.last->graph().address(v);
    }
    summarize(s, a.segment_start);
    suspects.push_back(std::move(j));
  }
  return fold_nested(merge_suspects(std::move(suspects), a), a);
}

std::vector<TypeSeries> type_series(const Analysis& a) {
  std::vector<TypeSeries> out;
  for (uint32_t t = 0; t < a.series.type_counts.size(); ++t) {
    if (a.series.type_counts[t].empty()) continue;
    out.push_back(TypeSeries{a.types.name(t), a.series.type_counts[t], a.series.type_bytes[t]});
  }
  std::sort(out.begin(), out.end(), [](const TypeSeries& x, const TypeSeries& y) { return x.type < y.type; });
  return out;
}

}  // namespace

Result<LeakReport> find_leak_suspects(std::span<const Recording* const> recordings, const LeakOptions& options) {
  return find_leak_suspects(recordings, {}, options);
}

Result<LeakReport> find_leak_suspects(std::span<const Recording* const> recordings, std::span<const std::string> paths,
                                      const LeakOptions& options) try {
  if (recordings.empty()) return make_error(ErrorCode::InvalidArgument, "no recording given");
  if (!paths.empty() && paths.size() != recordings.size())
    return make_error(ErrorCode::InvalidArgument, "not one path per recording");
  for (const Recording* r : recordings)
    if (!r) return make_error(ErrorCode::InvalidArgument, "a recording is null");
  LeakReport report;
  report.recording_order.resize(recordings.size());
  std::iota(report.recording_order.begin(), report.recording_order.end(), size_t{0});
  auto first_time = [&](size_t i) {
    const auto gcs = recordings[i]->gcs();
    return gcs.empty() ? UINT64_MAX : gcs.front().info.start_time_ns;
  };
  std::stable_sort(report.recording_order.begin(), report.recording_order.end(),
                   [&](size_t x, size_t y) { return first_time(x) < first_time(y); });
  for (size_t r = 0; r < recordings.size(); ++r) {
    const auto gcs = recordings[report.recording_order[r]]->gcs();
    for (size_t i = 0; i < gcs.size(); ++i)
      if (gcs[i].has_heap_walk()) report.walks.push_back(LeakWalk{r, i, gcs[i].info.gc_number, gcs[i].info.start_time_ns});
  }
  if (report.walks.empty()) return make_error(ErrorCode::NotFound, "no heap walk in the recordings");

  Analysis a{options, ShapeTrie{}, {}, {}, nullptr, 0, false, {}, {}, {}, {}};
  a.series.walks = report.walks.size();
  static const std::string kDecode;
  auto path_of = [&](const LeakWalk& walk) -> const std::string& {
    return paths.empty() ? kDecode : paths[report.recording_order[walk.recording]];
  };
  auto recording_of = [&](const LeakWalk& walk) -> const Recording& {
    return *recordings[report.recording_order[walk.recording]];
  };
  // First pass: the objects of every walk, their births and the types' series; the last walk
  // whole (graph, dominators), as the suspects are judged there.
  for (uint32_t w = 0; w < report.walks.size(); ++w) {
    LeakWalk& walk = report.walks[w];
    const bool same_recording = w > 0 && report.walks[w - 1].recording == walk.recording;
    if (!same_recording) a.types.start_recording();
    bool identity = false;
    // The walk before is needed only for its objects' identity: free the rest first.
    if (a.last) a.last->slim();
    const bool is_last = w + 1 == report.walks.size();
    auto scanned = leaks::scan_walk(recording_of(walk), path_of(walk), walk.gc_pos, w,
                                    same_recording ? a.last.get() : nullptr, &identity, a.types, a.series, is_last,
                                    options.include_weak);
    if (!scanned) return scanned.error();
    a.last = std::move(scanned).value();
    walk.identity_from_previous = identity;
    walk.objects = a.last->graph().node_count();
    for (const uint64_t size : a.last->graph().sizes()) walk.bytes += size;
  }
  a.segment_start = report.walks.size() - 1;
  while (a.segment_start > 0 && report.walks[a.segment_start].identity_from_previous) --a.segment_start;
  a.by_identity = a.segment_start + 1 < report.walks.size();
  report.types = type_series(a);
  if (report.walks.size() < std::max<size_t>(options.min_walks, 2)) {
    report.too_few_walks = true;
    return report;
  }
  auto open_walk = [&](size_t w) {
    const LeakWalk& walk = report.walks[w];
    return leaks::open_walk_graph(recording_of(walk), path_of(walk), walk.gc_pos, a.types, options.include_weak);
  };
  auto reopen_last = [&]() {
    const LeakWalk& walk = report.walks.back();
    return leaks::reopen_walk(*a.last, recording_of(walk), path_of(walk), options.include_weak);
  };
  auto suspects = judge_groups(a, report.groups, open_walk, reopen_last);
  if (!suspects) return suspects.error();
  report.suspects = std::move(suspects).value();
  std::stable_sort(report.suspects.begin(), report.suspects.end(), [](const LeakSuspect& x, const LeakSuspect& y) {
    return std::tie(y.retained_growth, y.bytes_growth, x.type) < std::tie(x.retained_growth, x.bytes_growth, y.type);
  });
  if (options.top != 0 && report.suspects.size() > options.top) report.suspects.resize(options.top);
  return report;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "finding leak suspects");
}

}  // namespace gcsnap
