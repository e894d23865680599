#include "leaks/leak_analysis.hpp"

#include <numeric>
#include <string>

namespace gcsnap::leaks {

namespace {

// Suspects of one type where most members of one are referenced by the object through which the
// other's holder holds its members (its array, or itself): one collection's members, some of
// which a shorter path reaches from elsewhere (a stack frame's copy of part of a list), so that
// their shapes differ before the holder. PARENT: the union-find of same_leak.
template <typename SuspectOf>
void join_held_by_one(const std::vector<Judged>& in, const Analysis& a, const SuspectOf& suspect_of,
                      std::vector<uint32_t>& parent) {
  const ScannedWalk& w = *a.last;
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> held;  // (member's suspect, holder's) -> members
  for (uint32_t i = 0; i < in.size(); ++i) {
    const GroupHolder& h = in[i].holder;
    if (!h.found || h.is_owner) continue;
    const NodeIndex u = h.via_array != kNoNode ? h.via_array : h.node;
    for (NodeIndex x : w.graph().successors(u)) {
      const uint32_t j = suspect_of(x);
      if (j != UINT32_MAX && j != i && in[j].suspect.type == in[i].suspect.type) ++held[{j, i}];
    }
  }
  for (const auto& [pair, count] : held)
    if (2 * count > in[pair.first].suspect.series.back().count)
      parent[find_set(parent, pair.first)] = find_set(parent, pair.second);
}

// Which judged suspects are one leak: of one type, and either held at one accumulation point
// (an event's first subscriber and the later ones) or linked, a member of one referencing a
// member of the other (one structure reached by several shapes: a doubly linked list entered
// from its head and from its tail), or held by one collection (join_held_by_one). Returns a
// representative per suspect.
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
  auto suspect_of = [&](NodeIndex v) {
    return w.shape[v] == ShapeTrie::kNone ? UINT32_MAX : suspect_of_group[w.shape[v]];
  };
  for (NodeIndex v = 0; v < w.graph().node_count(); ++v) {
    const uint32_t i = suspect_of(v);
    if (i == UINT32_MAX) continue;
    for (NodeIndex u : w.graph().successors(v)) {
      const uint32_t j = suspect_of(u);
      if (j != UINT32_MAX && j != i && in[j].suspect.type == in[i].suspect.type)
        parent[find_set(parent, j)] = find_set(parent, i);
    }
  }
  join_held_by_one(in, a, suspect_of, parent);
  for (uint32_t i = 0; i < in.size(); ++i) parent[i] = find_set(parent, i);
  return parent;
}

}  // namespace

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
    if (!m.accumulation.found) m.accumulation = s.accumulation;  // a found one stays (below)
    else m.accumulation.members_dominated += s.accumulation.members_dominated;
    if (s.accumulated_count > m.accumulated_count) m.example_address = s.example_address;
    m.accumulated_count += s.accumulated_count;
    m.accumulated_bytes += s.accumulated_bytes;
    for (auto& shape : s.shapes) m.shapes.push_back(std::move(shape));
    into.groups.insert(into.groups.end(), j.groups.begin(), j.groups.end());
  }
  for (size_t i = 0; i < out.size(); ++i) {
    LeakSuspect& s = out[i].suspect;
    if (merged[i]) {
      // The joint search finds none where some members are also reached from elsewhere (not
      // dominated): the merged suspects' holder found alone, which holds them all, then stays.
      AccumulationPoint joint = find_accumulation_point(a, out[i].groups, a.trie.label(out[i].groups.front()));
      if (joint.found || !s.accumulation.found) s.accumulation = std::move(joint);
    }
    std::stable_sort(s.shapes.begin(), s.shapes.end(),
                     [](const PathShape& x, const PathShape& y) { return x.count > y.count; });
    if (s.shapes.size() > a.options.max_shapes) s.shapes.resize(std::max<size_t>(1, a.options.max_shapes));
    summarize(s, a.segment_start);
  }
  return out;
}

namespace {

// Per suspect, the suspect whose members hold (within a few dominator steps) most of its
// accumulated members, or UINT32_MAX.
std::vector<uint32_t> holding_suspects(const std::vector<Judged>& judged, const Analysis& a) {
  constexpr int kSteps = 4;
  const ScannedWalk& s = *a.last;
  std::vector<uint32_t> suspect_of_group(a.trie.size(), UINT32_MAX);
  for (uint32_t i = 0; i < judged.size(); ++i)
    for (uint32_t g : judged[i].groups) suspect_of_group[g] = i;
  auto suspect_of = [&](NodeIndex v) {
    return s.shape[v] == ShapeTrie::kNone ? UINT32_MAX : suspect_of_group[s.shape[v]];
  };
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
  return parent;
}

// Each suspect's outermost holder (itself when none holds it); a cycle (not expected of
// dominators) keeps all.
std::vector<uint32_t> outermost_holders(const std::vector<uint32_t>& parent) {
  const size_t n = parent.size();
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
  return top;
}

}  // namespace

// A suspect whose members are mostly each held (within a few dominator steps) by a member of
// another suspect accumulates only because that one does (a session's name and payload): it
// is folded into that one's `holds` instead of being ranked apart.
std::vector<LeakSuspect> fold_nested(std::vector<Judged> judged, const Analysis& a) {
  const std::vector<uint32_t> top = outermost_holders(holding_suspects(judged, a));
  const size_t n = judged.size();
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
    const auto same =
        std::find_if(holds.begin(), holds.end(), [&](const HeldGroup& h) { return h.type == nested.type; });
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

}  // namespace gcsnap::leaks
