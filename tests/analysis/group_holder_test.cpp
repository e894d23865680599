// The holder of a group (group_holder.hpp): the deepest object that dominates most of the
// counted members, checked against dominance found by brute force (an object dominates a
// member when removing it leaves the member unreachable); the owner when none does.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <vector>

#include "gcsnap/group_holder.hpp"

namespace gcsnap {
namespace {

struct Built {
  ObjectTable objects;
  RootTable roots;
};

Built make_heap(const std::vector<uint32_t>& types, const std::vector<std::vector<size_t>>& refs,
                const std::vector<size_t>& rooted) {
  Built b;
  b.objects.reference_offsets.push_back(0);
  for (size_t i = 0; i < types.size(); ++i) {
    b.objects.addresses.push_back(0x1000 + 0x40 * i);
    b.objects.type_ids.push_back(types[i]);
    b.objects.sizes.push_back(32);
    b.objects.generations.push_back(Generation::Gen0);
    for (size_t r : refs[i]) b.objects.reference_targets.push_back(0x1000 + 0x40 * r);
    b.objects.reference_offsets.push_back(b.objects.reference_targets.size());
  }
  for (size_t r : rooted) {
    b.roots.object_ids.push_back(0x1000 + 0x40 * r);
    b.roots.kinds.push_back(RootKind::Handle);
    b.roots.flags.push_back(0);
    b.roots.root_ids.push_back(b.roots.root_ids.size() + 1);
  }
  return b;
}

// Nodes reachable from the roots without passing through BLOCKED.
std::vector<bool> reach_without(const HeapGraph& g, NodeIndex blocked) {
  std::vector<bool> seen(g.node_count(), false);
  std::vector<NodeIndex> stack;
  for (const GraphRoot& r : g.roots())
    if (r.node != blocked && !seen[r.node]) seen[r.node] = true, stack.push_back(r.node);
  while (!stack.empty()) {
    const NodeIndex v = stack.back();
    stack.pop_back();
    for (NodeIndex w : g.successors(v))
      if (w != blocked && !seen[w]) seen[w] = true, stack.push_back(w);
  }
  return seen;
}

// MIN_OBJECTS + 0..39 objects of types 1..KINDS, each with 0..KINDS-1 references to any of them.
struct RandomShape {
  std::vector<uint32_t> types;
  std::vector<std::vector<size_t>> refs;
};

RandomShape random_shape(std::mt19937& rng, size_t min_objects, uint32_t kinds) {
  const size_t n = min_objects + rng() % 40;
  RandomShape s{std::vector<uint32_t>(n), std::vector<std::vector<size_t>>(n)};
  for (size_t i = 0; i < n; ++i) {
    s.types[i] = 1 + static_cast<uint32_t>(rng() % kinds);
    const size_t k = rng() % kinds;
    for (size_t j = 0; j < k; ++j) s.refs[i].push_back(rng() % n);
  }
  return s;
}

}  // namespace

TEST_CASE("find_group_holder: the deepest majority dominator, by brute force", "[holder]") {
  std::mt19937 rng(17);
  for (int round = 0; round < 200; ++round) {
    const RandomShape shape = random_shape(rng, 8, 3);
    const std::vector<uint32_t>& types = shape.types;
    const std::vector<std::vector<size_t>>& refs = shape.refs;
    const size_t n = types.size();
    const Built b = make_heap(types, refs, {0, static_cast<size_t>(rng() % n)});
    auto graph = HeapGraph::build(b.objects, b.roots);
    REQUIRE(graph.is_ok());
    REQUIRE(graph->build_reverse().is_ok());
    auto dom = DominatorTree::compute(*graph);
    REQUIRE(dom.is_ok());
    const auto all = reach_without(*graph, kNoNode);
    std::vector<HolderMark> marks(n, HolderMark::Outside);
    for (NodeIndex v = 0; v < n; ++v)
      if (types[v] == 2) marks[v] = all[v] && rng() % 4 ? HolderMark::Counted : HolderMark::Member;
    auto holder = find_group_holder(*graph, *dom, marks, {});
    REQUIRE(holder.is_ok());
    // The form that visits the members' dominators only gives the same answer.
    std::vector<NodeIndex> counted;
    for (NodeIndex v = 0; v < n; ++v)
      if (marks[v] == HolderMark::Counted) counted.push_back(v);
    std::shuffle(counted.begin(), counted.end(), rng);
    std::vector<uint32_t> position(n, 0);
    for (uint32_t i = 0; i < dom->preorder().size(); ++i) position[dom->preorder()[i]] = i;
    auto sparse = find_group_holder(*graph, *dom, marks, counted, position, {});
    REQUIRE(sparse.is_ok());
    CHECK(sparse->found == holder->found);
    CHECK(sparse->node == holder->node);
    CHECK(sparse->is_owner == holder->is_owner);
    CHECK(sparse->members_dominated == holder->members_dominated);
    CHECK(sparse->entries == holder->entries);
    CHECK(sparse->via_array == holder->via_array);
    // Oracle: for every Outside reachable d, the counted members it dominates.
    uint64_t total = 0;
    for (NodeIndex v = 0; v < n; ++v) total += marks[v] == HolderMark::Counted;
    NodeIndex want = kNoNode;
    uint64_t want_below = 0, best_size = 0;
    for (NodeIndex d = 0; d < n; ++d) {
      if (!all[d] || marks[d] != HolderMark::Outside) continue;
      const auto without = reach_without(*graph, d);
      uint64_t below = 0;
      for (NodeIndex v = 0; v < n; ++v) below += marks[v] == HolderMark::Counted && (v == d || !without[v]);
      if (2 * below <= total) continue;
      // The majority dominators form a chain: the deepest dominates the fewest nodes.
      uint64_t size = 0;
      for (NodeIndex v = 0; v < n; ++v) size += all[v] && (v == d || !without[v]);
      if (want == kNoNode || size < best_size) {
        want = d;
        want_below = below;
        best_size = size;
      }
    }
    INFO("round " << round);
    if (want != kNoNode) {
      REQUIRE(holder->found);
      CHECK_FALSE(holder->is_owner);
      CHECK(holder->node == want);
      CHECK(holder->members_dominated == want_below);
    } else if (holder->found) {
      // The owner: an Outside reached object with an edge into the group.
      CHECK(holder->is_owner);
      CHECK(marks[holder->node] == HolderMark::Outside);
      bool edge_in = false;
      for (NodeIndex w : graph->successors(holder->node))
        edge_in |= marks[w] == HolderMark::Member || marks[w] == HolderMark::Counted;
      CHECK(edge_in);
      bool back = false;
      for (NodeIndex v = 0; v < n; ++v)
        if (marks[v] == HolderMark::Member || marks[v] == HolderMark::Counted)
          for (NodeIndex w : graph->successors(v)) back |= w == holder->node;
      CHECK(back);
    }
  }
}

// The owner search finds the entries from the members' predecessors when the graph has them,
// else from every node's successors: the same owner and the same count of entries (edges in
// repeated, self references, members of the excluded type).
TEST_CASE("find_group_holder: the owner from predecessors is the one from successors", "[holder]") {
  std::mt19937 rng(41);
  size_t owners = 0;
  for (int round = 0; round < 300; ++round) {
    const RandomShape shape = random_shape(rng, 6, 4);
    const size_t n = shape.types.size();
    const Built b = make_heap(shape.types, shape.refs, {0, static_cast<size_t>(rng() % n)});
    auto both = HeapGraph::build(b.objects, b.roots);
    auto forward = HeapGraph::build(b.objects, b.roots);
    REQUIRE(both.is_ok());
    REQUIRE(forward.is_ok());
    REQUIRE(both->build_reverse().is_ok());
    auto dom = DominatorTree::compute(*both);
    REQUIRE(dom.is_ok());
    std::vector<HolderMark> marks(n, HolderMark::Outside);
    for (NodeIndex v = 0; v < n; ++v)
      if (shape.types[v] == 2) marks[v] = static_cast<HolderMark>(1 + rng() % 3);
    auto want = find_group_holder(*forward, *dom, marks, {});
    auto got = find_group_holder(*both, *dom, marks, {});
    REQUIRE(want.is_ok());
    REQUIRE(got.is_ok());
    INFO("round " << round);
    CHECK(got->found == want->found);
    CHECK(got->is_owner == want->is_owner);
    CHECK(got->node == want->node);
    CHECK(got->entries == want->entries);
    owners += want->is_owner;
  }
  CHECK(owners > 30);  // the owner search ran, not only the dominating holder
}

// find_type_holders answers as find_group_holder with one type's objects Counted, for every
// type at once (a type listed twice, one with no objects, an array type named via its owner).
TEST_CASE("find_type_holders: find_group_holder's answer for each type", "[holder]") {
  std::mt19937 rng(29);
  const std::vector<uint8_t> array_types = {0, 0, 0, 1, 0};  // type 3 is an array
  const std::vector<uint32_t> asked = {2, 3, 1, 4, 2, 7};
  size_t owners = 0, dominated = 0, via_array = 0;
  for (int round = 0; round < 300; ++round) {
    const RandomShape shape = random_shape(rng, 6, 4);
    const std::vector<uint32_t>& types = shape.types;
    const std::vector<std::vector<size_t>>& refs = shape.refs;
    const size_t n = types.size();
    const Built b = make_heap(types, refs, {0, static_cast<size_t>(rng() % n), static_cast<size_t>(rng() % n)});
    auto graph = HeapGraph::build(b.objects, b.roots);
    REQUIRE(graph.is_ok());
    REQUIRE(graph->build_reverse().is_ok());
    auto dom = DominatorTree::compute(*graph);
    REQUIRE(dom.is_ok());
    auto holders = find_type_holders(*graph, *dom, asked, array_types);
    REQUIRE(holders.is_ok());
    REQUIRE(holders->size() == asked.size());
    for (size_t i = 0; i < asked.size(); ++i) {
      std::vector<HolderMark> marks(n, HolderMark::Outside);
      for (NodeIndex v = 0; v < n; ++v)
        if (types[v] == asked[i]) marks[v] = HolderMark::Counted;
      auto want = find_group_holder(*graph, *dom, marks, array_types);
      REQUIRE(want.is_ok());
      INFO("round " << round << ", type " << asked[i]);
      const GroupHolder& got = (*holders)[i];
      CHECK(got.found == want->found);
      CHECK(got.node == want->node);
      CHECK(got.is_owner == want->is_owner);
      CHECK(got.via_array == want->via_array);
      CHECK(got.members_dominated == want->members_dominated);
      owners += want->is_owner;
      dominated += want->found && !want->is_owner;
      via_array += want->via_array != kNoNode;
    }
  }
  // The rounds reached every kind of answer.
  CHECK(owners > 20);
  CHECK(dominated > 20);
  CHECK(via_array > 5);
}

// Twelve objects referenced back by 12, 11, ... 1 of the group's, only the last with an edge
// into the group: the owner search goes down every level of back references to it.
TEST_CASE("find_type_holders: the owner at the twelfth level of back references", "[holder]") {
  enum : uint32_t { Member = 1, Other };
  std::vector<uint32_t> types(12, Member);
  types.resize(24, Other);
  std::vector<std::vector<size_t>> refs(types.size());
  for (size_t j = 0; j < 12; ++j)
    for (size_t k = j; k < 12; ++k) refs[j].push_back(12 + k);  // object 12 + k: k + 1 back references
  refs[12].push_back(0);
  std::vector<size_t> rooted(types.size());
  for (size_t i = 0; i < rooted.size(); ++i) rooted[i] = i;
  const Built b = make_heap(types, refs, rooted);
  auto graph = HeapGraph::build(b.objects, b.roots);
  REQUIRE(graph.is_ok());
  REQUIRE(graph->build_reverse().is_ok());
  auto dom = DominatorTree::compute(*graph);
  REQUIRE(dom.is_ok());
  std::vector<HolderMark> marks(types.size(), HolderMark::Outside);
  for (size_t i = 0; i < 12; ++i) marks[i] = HolderMark::Counted;
  auto want = find_group_holder(*graph, *dom, marks, {});
  const std::vector<uint32_t> asked = {Member};
  auto got = find_type_holders(*graph, *dom, asked, {});
  REQUIRE(want.is_ok());
  REQUIRE(got.is_ok());
  REQUIRE(want->is_owner);
  CHECK(want->node == 12);
  CHECK((*got)[0].is_owner);
  CHECK((*got)[0].node == 12);
}

// A doubly linked list held at its head by Owner (which every node references back) and at
// its tail by Waiter, under two roots: nothing dominates the nodes; the owner is Owner.
TEST_CASE("find_group_holder: a list held at both ends is held by its owner", "[holder]") {
  enum : uint32_t { Owner = 1, Waiter, Node };
  // 0 Owner, 1 Waiter, 2..7 nodes: 2 is the head, 7 the tail.
  std::vector<uint32_t> types = {Owner, Waiter, Node, Node, Node, Node, Node, Node};
  std::vector<std::vector<size_t>> refs(types.size());
  refs[0] = {2};
  refs[1] = {7};
  for (size_t i = 2; i < 8; ++i) {
    refs[i].push_back(0);
    if (i + 1 < 8) refs[i].push_back(i + 1);
    if (i > 2) refs[i].push_back(i - 1);
  }
  const Built b = make_heap(types, refs, {0, 1});
  auto graph = HeapGraph::build(b.objects, b.roots);
  REQUIRE(graph.is_ok());
  REQUIRE(graph->build_reverse().is_ok());
  auto dom = DominatorTree::compute(*graph);
  REQUIRE(dom.is_ok());
  std::vector<HolderMark> marks(types.size(), HolderMark::Outside);
  for (size_t i = 2; i < 8; ++i) marks[i] = HolderMark::Counted;
  auto holder = find_group_holder(*graph, *dom, marks, {});
  REQUIRE(holder.is_ok());
  REQUIRE(holder->found);
  CHECK(holder->is_owner);
  CHECK(holder->node == 0);
  CHECK(holder->entries == 2);
  CHECK(holder->members_dominated == 0);
  // Wrong sizes are refused.
  std::vector<HolderMark> short_marks(3, HolderMark::Outside);
  CHECK(find_group_holder(*graph, *dom, short_marks, {}).error().code == ErrorCode::InvalidArgument);
  const std::vector<uint32_t> short_positions(1, 0);
  CHECK(find_group_holder(*graph, *dom, marks, {}, short_positions, {}).error().code == ErrorCode::InvalidArgument);
}

}  // namespace gcsnap
