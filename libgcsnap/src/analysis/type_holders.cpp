// The holders of several types' instances at once (find_type_holders, group_holder.hpp): the
// answers of find_group_holder, found from each type's objects, their dominators and the
// objects they reference, where find_group_holder reads every node (and, for an owner, every
// edge through a hash map) once per type: at 50 M objects that was ~5 s per type.
#include <algorithm>
#include <new>
#include <utility>
#include <vector>

#include "gcsnap/group_holder.hpp"
#include "huge_pages.hpp"

namespace gcsnap {

namespace {

constexpr uint32_t kNone = UINT32_MAX;

bool is_reached(const DominatorTree& dom, NodeIndex v) { return dom.immediate_dominator(v) != kNoNode; }

// A hint that P will be read soon (GCC and Clang, the compilers of every build).
inline void prefetch(const void* p) { __builtin_prefetch(p); }

// The objects of each of TYPES (by position; a type listed twice has its objects under its
// first position only), from one pass over the type ids.
std::vector<std::vector<NodeIndex>> objects_of_types(const HeapGraph& graph, std::span<const uint32_t> types) {
  std::vector<uint32_t> position;
  for (size_t i = 0; i < types.size(); ++i) {
    if (types[i] >= position.size()) position.resize(size_t{types[i]} + 1, kNone);
    if (position[types[i]] == kNone) position[types[i]] = static_cast<uint32_t>(i);
  }
  std::vector<std::vector<NodeIndex>> objects(types.size());
  const auto type_ids = graph.type_ids();
  for (NodeIndex v = 0; v < type_ids.size(); ++v)
    if (type_ids[v] < position.size() && position[type_ids[v]] != kNone) objects[position[type_ids[v]]].push_back(v);
  return objects;
}

// Per position of TYPES (its OBJECTS): whether one child of the virtual root dominates more
// than half of the reached objects. Every object that dominates more than half of them is
// below such a child, which then does too: a position without one has no majority dominator,
// and majority_dominator's walk up the tree from each object (random reads, most of
// find_type_holders' time when there is none) is not needed. Each node's top dominator comes
// from one pass in preorder (a node after its dominators); a majority vote per position then
// picks the one candidate, and a second pass counts it. TOP (one per node) is scratch space:
// zero on return.
std::vector<uint8_t> top_majorities(const DominatorTree& dom, const std::vector<std::vector<NodeIndex>>& objects,
                                    std::vector<NodeIndex>& top) {
  std::fill(top.begin(), top.end(), kNoNode);
  for (const NodeIndex v : dom.preorder()) {
    const NodeIndex d = dom.immediate_dominator(v);
    top[v] = d == kVirtualRoot ? v : top[d];
  }
  std::vector<uint8_t> found(objects.size(), 0);
  for (size_t i = 0; i < objects.size(); ++i) {
    NodeIndex candidate = kNoNode;
    uint64_t votes = 0, total = 0, count = 0;
    for (const NodeIndex m : objects[i]) {
      const NodeIndex t = top[m];
      if (t == kNoNode) continue;
      ++total;
      if (votes == 0) candidate = t, votes = 1;
      else if (t == candidate) ++votes;
      else --votes;
    }
    if (candidate == kNoNode) continue;
    for (const NodeIndex m : objects[i]) count += top[m] == candidate;
    found[i] = 2 * count > total;
  }
  std::fill(top.begin(), top.end(), 0);
  return found;
}

// The deepest reached object not of TYPE that dominates more than half of the reached
// MEMBERS (of TYPE), and how many it dominates; kNoNode when none does. Only the members'
// dominator ancestors are visited: SLOT (0 for every node on entry and on return) numbers
// them from 1. Their counts are summed children first (a node is taken once all its children in
// the set are done), so the first that qualifies is the deepest: the nodes that dominate
// more than half of the members form one chain of the tree.
std::pair<NodeIndex, uint64_t> majority_dominator(const HeapGraph& graph, const DominatorTree& dom, uint32_t type,
                                                  std::span<const NodeIndex> members, std::vector<uint32_t>& slot) {
  // Each node's parent in the set is known as the walk up from a member reaches it: the
  // next node up, new or met before (or none under the virtual root).
  std::vector<NodeIndex> nodes;
  std::vector<uint32_t> parent, pending, below, ready;
  uint64_t total = 0;
  for (const NodeIndex m : members) {
    if (!is_reached(dom, m)) continue;
    ++total;
    uint32_t child = kNone;
    NodeIndex x = m;
    for (; x != kVirtualRoot && slot[x] == 0; x = dom.immediate_dominator(x)) {
      const auto i = static_cast<uint32_t>(nodes.size());
      nodes.push_back(x);
      parent.push_back(kNone);
      pending.push_back(0);
      slot[x] = i + 1;
      if (child != kNone) parent[child] = i, ++pending[i];
      child = i;
    }
    if (child != kNone && x != kVirtualRoot) parent[child] = slot[x] - 1, ++pending[slot[x] - 1];
  }
  below.assign(nodes.size(), 0);
  for (const NodeIndex m : members)
    if (is_reached(dom, m)) below[slot[m] - 1] = 1;
  for (uint32_t i = 0; i < nodes.size(); ++i)
    if (pending[i] == 0) ready.push_back(i);
  std::pair<NodeIndex, uint64_t> best{kNoNode, 0};
  while (!ready.empty() && best.first == kNoNode) {
    const uint32_t i = ready.back();
    ready.pop_back();
    if (2 * uint64_t{below[i]} > total && graph.type_id(nodes[i]) != type) best = {nodes[i], below[i]};
    if (parent[i] != kNone) {
      below[parent[i]] += below[i];
      if (--pending[parent[i]] == 0) ready.push_back(parent[i]);
    }
  }
  for (const NodeIndex x : nodes) slot[x] = 0;
  return best;
}

// TYPE's edges into U (find_group_holder's "edges in" of an entry).
uint64_t edges_into(const HeapGraph& graph, NodeIndex u, uint32_t type) {
  uint64_t n = 0;
  for (const NodeIndex w : graph.successors(u)) n += graph.type_id(w) == type;
  return n;
}

// The owner of TYPE's OBJECTS (find_group_holder's owner search): the entries it scores are
// the reached objects of other types that objects of TYPE reference (back references) and
// that have an edge into TYPE (edges in); most back references, then most edges in, then the
// lowest address. Only the objects with the most back references are asked for their edges
// in, level by level down until one has some: the referenced objects are millions, the owner
// is among the first few hundred. COUNT (0 for every node on entry and on return)
// counts the back references.
NodeIndex type_owner(const HeapGraph& graph, const DominatorTree& dom, uint32_t type,
                     std::span<const NodeIndex> objects, std::vector<uint32_t>& count) {
  // The counts are read at random (a cache miss each): ask for them some objects ahead, and
  // for those objects' edges (a miss each too, the objects being far apart) twice as far.
  constexpr size_t kAhead = 8;
  std::vector<NodeIndex> referenced;
  for (size_t j = 0; j < objects.size(); ++j) {
    if (j + 2 * kAhead < objects.size()) prefetch(graph.successors(objects[j + 2 * kAhead]).data());
    if (j + kAhead < objects.size())
      for (const NodeIndex w : graph.successors(objects[j + kAhead])) prefetch(&count[w]);
    for (const NodeIndex w : graph.successors(objects[j]))
      if (count[w]++ == 0) referenced.push_back(w);
  }
  std::vector<std::pair<uint32_t, NodeIndex>> scored;  // back references, object
  scored.reserve(referenced.size());
  for (size_t j = 0; j < referenced.size(); ++j) {
    if (j + kAhead < referenced.size()) {
      const NodeIndex ahead = referenced[j + kAhead];
      prefetch(&graph.type_ids()[ahead]);
      prefetch(&dom.immediate_dominators()[ahead]);
    }
    const NodeIndex u = referenced[j];
    if (graph.type_id(u) != type && is_reached(dom, u)) scored.emplace_back(count[u], u);
    count[u] = 0;
  }
  // The levels of back references, most first, from a heap: the first objects are often
  // hubs that reference no object of TYPE, and a level's whole count is a few objects.
  const auto fewer = [](const auto& x, const auto& y) { return x.first < y.first; };
  std::make_heap(scored.begin(), scored.end(), fewer);
  auto end = scored.end();
  while (end != scored.begin()) {
    const uint32_t level = scored.front().first;
    NodeIndex owner = kNoNode;
    uint64_t most = 0;
    for (; end != scored.begin() && scored.front().first == level; --end) {
      std::pop_heap(scored.begin(), end, fewer);
      const NodeIndex u = (end - 1)->second;
      const uint64_t in = edges_into(graph, u, type);
      if (in > 0 && (owner == kNoNode || in > most || (in == most && graph.address(u) < graph.address(owner)))) {
        owner = u;
        most = in;
      }
    }
    if (owner != kNoNode) return owner;
  }
  return kNoNode;
}

}  // namespace

Result<std::vector<GroupHolder>> find_type_holders(const HeapGraph& graph, const DominatorTree& dom,
                                                   std::span<const uint32_t> type_ids,
                                                   std::span<const uint8_t> array_types) try {
  if (dom.immediate_dominators().size() != graph.node_count())
    return make_error(ErrorCode::InvalidArgument, "a dominator tree of the graph expected");
  const auto objects = objects_of_types(graph, type_ids);
  // majority_dominator's SLOT, type_owner's COUNT: read and written at random, in 2 MiB pages.
  std::vector<uint32_t> slot;
  detail::assign_huge(slot, graph.node_count(), uint32_t{0});
  const auto majority = top_majorities(dom, objects, slot);
  std::vector<GroupHolder> holders(type_ids.size());
  for (size_t i = 0; i < type_ids.size(); ++i) {
    const uint32_t type = type_ids[i];
    const size_t first = static_cast<size_t>(std::find(type_ids.begin(), type_ids.end(), type) - type_ids.begin());
    if (first < i) {
      holders[i] = holders[first];
      continue;
    }
    GroupHolder& h = holders[i];
    const auto [best, dominated] = majority[i] ? majority_dominator(graph, dom, type, objects[i], slot)
                                               : std::pair<NodeIndex, uint64_t>{kNoNode, 0};
    if (best == kNoNode) {
      h.node = type_owner(graph, dom, type, objects[i], slot);
      h.found = h.is_owner = h.node != kNoNode;
      continue;
    }
    h.found = true;
    h.node = best;
    h.members_dominated = dominated;
    // A collection holds its members through an array: name the collection, and the array.
    const uint32_t best_type = graph.type_id(best);
    const NodeIndex owner = dom.immediate_dominator(best);
    if (best_type < array_types.size() && array_types[best_type] && owner != kVirtualRoot &&
        graph.type_id(owner) != type) {
      h.via_array = best;
      h.node = owner;
    }
  }
  return holders;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "finding the holders of types");
}

}  // namespace gcsnap
