#include "analysis/leak_analysis.hpp"

#include "analysis/group_retained.hpp"

namespace gcsnap::leaks {

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

namespace {

// Each shape of a walk's TRIE mapped to the slot of the candidate shape with its labels (or
// kNone). A shape's parent has a smaller id than it: one pass maps every shape.
std::vector<uint32_t> candidate_slots(const ShapeTrie& trie, const std::vector<uint32_t>& slot_of,
                                      const PrefixMap& prefixes) {
  std::vector<uint32_t> slot(trie.size(), ShapeTrie::kNone);
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
  return slot;
}

}  // namespace

// Second pass: count the candidates' members at every walk but the last, each walk's shapes in
// a trie of its own, matched to the last walk's by their labels; add every walk's shapes with
// members to SHAPES, to count the groups judged.
Status count_earlier_walks(Analysis& a, const std::vector<uint32_t>& slot_of, const std::vector<uint32_t>& root_of_slot,
                           const PrefixMap& prefixes, const OpenWalk& open_walk, ShapeUnion& shapes) {
  const size_t k = a.series.walks - 1;
  for (size_t w = 0; w < k; ++w) {
    auto opened = open_walk(w);
    if (!opened) return opened.error();
    ScannedWalk& s = **opened;
    ShapeTrie trie;
    if (a.options.include_weak || !assign_shapes_from_tree(s, trie)) {
      trie = ShapeTrie{};
      assign_shapes(s, trie, a.options.include_weak);
    }
    trie.forget_children();  // only named from here on: its map is most of its memory
    const size_t n = s.graph().node_count();
    std::vector<uint8_t> has_members(trie.size(), 0);
    for (NodeIndex v = 0; v < n; ++v)
      if (s.shape[v] != ShapeTrie::kNone) has_members[s.shape[v]] = 1;
    shapes.add(trie, has_members);
    has_members = {};
    if (root_of_slot.empty()) continue;
    const std::vector<uint32_t> slot = candidate_slots(trie, slot_of, prefixes);
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

namespace {

uint64_t growth(const std::vector<uint64_t>& v, size_t from, size_t to) {
  return v[to] > v[from] ? v[to] - v[from] : 0;
}

}  // namespace

// A candidate's members at the last walk are followed back by identity: one born at walk b
// was alive at every walk from b on. At a walk where some of them were reached through
// another shape (the shortest path started at another root or took other first hops), the
// shape's count misses them, and the count is raised to the members known alive then, so
// that a group neither vanishes nor splits when its path changes before its holder. Only
// where the type itself grew since that walk by at least the members born since: on a heap
// that churns, the survivors of any group are its recent members, and counted back alone
// they would make every group whose shapes drift look as if it grew.
void count_members_alive(Analysis& a) {
  if (!a.by_identity) return;
  const size_t k = a.series.walks - 1;
  for (auto& [g, series] : a.groups) {
    const auto& type_counts = a.series.type_counts[a.trie.label(g)];
    const auto it = a.born_bytes.find(g);
    uint64_t born = 0, born_bytes = 0;  // members born after walk w
    for (size_t w = k; w-- > a.segment_start;) {
      born += series[w + 1].born_here;
      if (it != a.born_bytes.end()) born_bytes += it->second[w + 1];
      LeakPoint& p = series[w];
      const uint64_t alive = series[k].count - born;
      if (alive <= p.count || growth(type_counts, w, k) < born) continue;
      p.count = alive;
      p.bytes = std::max(p.bytes, series[k].bytes - born_bytes);
      p.retained_bytes = std::max(p.retained_bytes, p.bytes);  // they retain their own bytes at least
    }
  }
}

}  // namespace gcsnap::leaks
