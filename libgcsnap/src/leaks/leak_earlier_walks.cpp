#include "leaks/leak_analysis.hpp"

#include "analysis/group_retained.hpp"
#include "platform/memory_map.hpp"

namespace gcsnap::leaks {

// The candidates' retained bytes at the last walk: the sum over their shapes' (as the joined
// groups' series are sums of their shapes' series). SLOT_OF: a candidate's shape's slot.
void add_last_retained(Analysis& a, std::span<const uint32_t> slot_of, std::span<const uint32_t> root_of_slot,
                       std::vector<uint32_t>& shape_of_node) {
  std::vector<uint32_t>& slot_of_node = shape_of_node;  // in place: 40 MB less at the peak (10 M objects)
  for (uint32_t& t : slot_of_node)
    if (t != ShapeTrie::kNone) t = slot_of[t];
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

// The walks before the identity segment know no object at the last walk: their maps to the
// next walk go (count_earlier_walks composes the others as it reads the walks).
void compose_identity(Analysis& a) {
  const size_t k = a.series.walks - 1;
  for (size_t w = 0; w < k; ++w)
    if (!a.by_identity || w < a.segment_start) a.steps.clear(w);
}

namespace {

// The candidate slot (one of its shapes') of each candidate group, by group id.
std::vector<uint32_t> first_slots(const Analysis& a, std::span<const uint32_t> root_of_slot) {
  std::vector<uint32_t> slot(a.trie.size(), ShapeTrie::kNone);
  for (uint32_t i = static_cast<uint32_t>(root_of_slot.size()); i-- > 0;) slot[root_of_slot[i]] = i;
  return slot;
}

// At walk W of the identity segment, per node: the slot of the candidate whose last-walk
// member it is (MEMBER_SLOT, from FIRST_SLOT), else kNone. A shape of the walk that matches
// no candidate's (SLOT) is given to the candidate of the first member found in it: the shape
// the members had then, from the holder on as from the root, with their kind's other objects.
std::vector<uint32_t> members_at(const Analysis& a, size_t w, const ScannedWalk& s, std::vector<uint32_t>& slot,
                                 std::span<const uint32_t> first_slot) {
  const size_t n = s.graph().node_count();
  std::vector<uint32_t> member_slot(n, ShapeTrie::kNone);
  if (!a.by_identity || w < a.segment_start) return member_slot;
  const std::vector<uint32_t>& last_node = a.last_node;
  const std::vector<uint32_t>& last_shape = a.last->shape;
  for (NodeIndex v = 0; v < n; ++v) {
    const uint32_t u = last_node[v];
    if (u == kNoBirth || last_shape[u] == ShapeTrie::kNone) continue;
    const uint32_t i = first_slot[last_shape[u]];
    if (i == ShapeTrie::kNone) continue;
    member_slot[v] = i;
    const uint32_t t = s.shape[v];
    if (t != ShapeTrie::kNone && slot[t] == ShapeTrie::kNone) slot[t] = i;
  }
  return member_slot;
}

// At walk W of the identity segment (S, TRIE before its children are forgotten): per followed
// holder (Analysis::holders), the shape that the objects of its candidate's kind have then, its
// node's shape at W extended by the labels from the holder on; kNone where the holder was not
// alive or not reached.
std::vector<uint32_t> holder_shapes(const Analysis& a, size_t w, const ScannedWalk& s, ShapeTrie& trie) {
  std::vector<uint32_t> out(a.holders.size(), ShapeTrie::kNone);
  if (a.holders.empty() || !a.by_identity || w < a.segment_start) return out;
  std::vector<uint32_t> holder_of(a.last->shape.size(), ShapeTrie::kNone);  // by last-walk node
  for (uint32_t i = 0; i < a.holders.size(); ++i) holder_of[a.holders[i].node] = i;
  const std::vector<uint32_t>& last_node = a.last_node;
  for (NodeIndex v = 0; v < last_node.size(); ++v) {
    if (last_node[v] == kNoBirth || s.shape[v] == ShapeTrie::kNone) continue;
    const uint32_t i = holder_of[last_node[v]];
    if (i == ShapeTrie::kNone) continue;
    uint32_t t = s.shape[v];
    for (const uint32_t label : a.holders[i].labels) t = trie.extend(t, label);
    out[i] = t;
  }
  return out;
}

// The followed holders' shapes at a walk (SHAPES, holder_shapes) go to their candidates (SLOT:
// by shape, from FIRST_SLOT) unless a candidate's labels have them already.
void add_holder_shapes(const Analysis& a, std::span<const uint32_t> shapes, std::vector<uint32_t>& slot,
                       std::span<const uint32_t> first_slot) {
  for (size_t i = 0; i < shapes.size(); ++i) {
    const uint32_t t = shapes[i];
    if (t == ShapeTrie::kNone) continue;
    if (t >= slot.size()) slot.resize(t + 1, ShapeTrie::kNone);
    if (slot[t] == ShapeTrie::kNone) slot[t] = first_slot[a.holders[i].group];
  }
}

}  // namespace

namespace {

// The candidates' points at walk W (S, its shapes' slots SLOT): each object of a candidate's
// shapes counts, but a member of that candidate (MEMBER_SLOT), which count_members_alive
// counts; the members retain as part of their candidate's group whatever their shape.
// MEMBER_SLOT becomes each node's slot for the retained bytes (in place: 40 MB at 10 M objects).
void add_points(Analysis& a, size_t w, const ScannedWalk& s, std::span<const uint32_t> slot,
                std::vector<uint32_t>& member_slot, std::span<const uint32_t> root_of_slot) {
  const size_t n = s.graph().node_count();
  std::vector<uint32_t>& slot_of_node = member_slot;
  std::vector<LeakPoint> points(root_of_slot.size());
  for (NodeIndex v = 0; v < n; ++v) {
    const uint32_t m = member_slot[v];
    const uint32_t i = s.shape[v] == ShapeTrie::kNone ? ShapeTrie::kNone : slot[s.shape[v]];
    slot_of_node[v] = m != ShapeTrie::kNone ? m : i;
    if (i == ShapeTrie::kNone || (m != ShapeTrie::kNone && root_of_slot[m] == root_of_slot[i])) continue;
    ++points[i].count;
    points[i].bytes += s.graph().object_size(v);
  }
  const auto retained = s.dominators ? detail::group_retained_bytes(s.dom(), slot_of_node, root_of_slot.size())
                                     : detail::group_retained_bytes(s.graph(), a.options.include_weak, slot_of_node,
                                                                    root_of_slot.size());
  for (size_t i = 0; i < root_of_slot.size(); ++i) {
    LeakPoint& p = a.groups[root_of_slot[i]][w];
    p.count += points[i].count;
    p.bytes += points[i].bytes;
    p.retained_bytes += retained[i];
  }
}

}  // namespace

// Second pass: count the candidates' members at every walk but the last, each walk's shapes in
// a trie of its own, matched to the last walk's by their labels; add every walk's shapes with
// members to SHAPES, to count the groups judged. In the identity segment a candidate's last-walk
// members are counted by count_members_alive, whatever their shape then: here only its other
// objects, those of its shapes and of the shapes its members had then (members_at).
Status count_earlier_walks(Analysis& a, const std::vector<uint32_t>& slot_of, const std::vector<uint32_t>& root_of_slot,
                           const PrefixMap& prefixes, const OpenWalk& open_walk, ShapeUnion& shapes) {
  const size_t k = a.series.walks - 1;
  const std::vector<uint32_t> first_slot = first_slots(a, root_of_slot);
  // From the last walk backwards: each walk's nodes at the last walk follow from the next
  // walk's (IdentitySteps). Nothing here depends on the order of the walks.
  for (size_t w = k; w-- > 0;) {
    if (a.by_identity && w >= a.segment_start) {
      a.last_node = a.steps.compose(w, w + 1 == k ? std::span<const uint32_t>() : a.last_node);
      a.steps.clear(w);
    }
    // The walk before's arrays are free, scattered between what is kept, and few of this walk's
    // fit those holes: the C heap (which the CLI never trims) grew by 0.1-0.2 GB a walk at
    // 10 M objects, held but never used again. Given back, a walk's pages are faulted in anew.
    platform::release_free_heap();
    auto opened = open_walk(w);
    if (!opened) return opened.error();
    // And so are the reader's temporaries once the walk is open, and the trie's map below, before
    // the shapes and the union take fresh memory: returned at these two steps as well, the peak of
    // 10 x 10 M cold fell from 1969 to 1742-1775 MiB for ~2 % more CPU (pages faulted in anew).
    platform::release_free_heap();
    ScannedWalk& s = **opened;
    ShapeTrie trie;
    if (a.options.include_weak || !assign_shapes_from_tree(s, trie)) {
      trie = ShapeTrie{};
      assign_shapes(s, trie, a.options.include_weak, false);
    }
    if (a.by_identity && w >= a.segment_start && a.last_node.size() != s.graph().node_count())
      return make_error(ErrorCode::InconsistentData, "a heap walk changed while it was read");
    std::vector<uint32_t>().swap(s.type);  // the shapes' labels: read no more
    const std::vector<uint32_t> held_shapes = holder_shapes(a, w, s, trie);
    trie.forget_children();  // only named from here on: its map is most of its memory
    platform::release_free_heap();
    const size_t n = s.graph().node_count();
    std::vector<uint8_t> has_members(trie.size(), 0);
    for (NodeIndex v = 0; v < n; ++v)
      if (s.shape[v] != ShapeTrie::kNone) has_members[s.shape[v]] = 1;
    shapes.add(trie, has_members);
    std::vector<uint8_t>().swap(has_members);
    if (!root_of_slot.empty()) {
      std::vector<uint32_t> slot = candidate_slots(trie, slot_of, prefixes);
      trie = ShapeTrie{};  // its shapes are slots now: 12 B a shape less for the retained bytes
      add_holder_shapes(a, held_shapes, slot, first_slot);
      std::vector<uint32_t> member_slot = members_at(a, w, s, slot, first_slot);
      add_points(a, w, s, slot, member_slot, root_of_slot);
    }
  }
  std::vector<uint32_t>().swap(a.last_node);
  platform::release_free_heap();  // before the last walk is opened again
  return {};
}

// A candidate's members at the last walk are followed back by identity: one born at walk b
// was alive at every walk from b on. Its count at an earlier walk of the segment is the union
// of those members and its kind's other objects then (count_earlier_walks): the members are
// counted whatever shape they had then (the shortest path started at another root or took other
// first hops), so that a group neither vanishes nor splits when its path changes before its
// holder; and the objects that shared the members' shape then and died since are counted too,
// so that a bounded collection whose survivors are its recent objects stays flat.
void count_members_alive(Analysis& a) {
  if (!a.by_identity) return;
  const size_t k = a.series.walks - 1;
  for (auto& [g, series] : a.groups) {
    const auto it = a.born_bytes.find(g);
    uint64_t born = 0, born_bytes = 0;  // members born after walk w
    for (size_t w = k; w-- > a.segment_start;) {
      born += series[w + 1].born_here;
      if (it != a.born_bytes.end()) born_bytes += it->second[w + 1];
      LeakPoint& p = series[w];
      p.count += series[k].count - born;
      p.bytes += series[k].bytes - born_bytes;
      p.retained_bytes = std::max(p.retained_bytes, p.bytes);  // they retain their own bytes at least
    }
  }
}

}  // namespace gcsnap::leaks
