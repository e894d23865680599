// Retention paths for groups of new objects: one BFS, the shortest path to any member.
#include <catch2/catch.hpp>

#include "gcsnap/group_paths.hpp"

namespace gcsnap {

TEST_CASE("group paths report the most common path shape", "[diff][paths]") {
  // 0 Cache -> 1 Array -> {2 Order, 3 Order}; 4 Order held by a handle; 5 String unreachable;
  // 6 String held only by a weak handle.
  ObjectTable objects;
  objects.addresses = {0x100, 0x200, 0x300, 0x400, 0x500, 0x600, 0x700};
  objects.type_ids = {1, 2, 3, 3, 3, 4, 4};
  objects.sizes = {16, 64, 24, 24, 24, 32, 32};
  objects.generations.assign(7, Generation::Gen0);
  objects.reference_offsets = {0, 1, 3, 3, 3, 3, 3, 3};
  objects.reference_targets = {0x200, 0x300, 0x400};
  RootTable roots;
  roots.object_ids = {0x100, 0x500, 0x700};
  roots.kinds = {RootKind::Handle, RootKind::Handle, RootKind::Handle};
  roots.flags = {0, 0, root_flags::kWeakRef};
  roots.root_ids = {1, 2, 3};
  auto graph = HeapGraph::build(objects, roots);
  REQUIRE(graph.is_ok());

  std::vector<TypeGroup> groups(3);
  groups[0].members = {2, 3, 4};  // two via Cache -> Array, one held by a handle directly
  groups[1].members = {4};        // only the direct one
  groups[2].members = {5, 6};     // nothing strong reaches them
  auto paths = find_group_paths(*graph, groups);
  REQUIRE(paths.is_ok());
  REQUIRE(paths->size() == 3);
  const GroupPath& orders = (*paths)[0];
  CHECK(orders.member == 2);
  CHECK(orders.path.nodes == std::vector<NodeIndex>{0, 1, 2});
  CHECK(orders.examined == 3);
  CHECK(orders.reachable == 3);
  CHECK(orders.same_shape == 2);  // Orders 2 and 3 share Handle -> Cache -> Array -> Order
  CHECK((*paths)[1].member == 4);
  CHECK((*paths)[1].path.hops() == 0);
  CHECK((*paths)[1].same_shape == 1);
  CHECK((*paths)[2].member == kNoObject);
  CHECK((*paths)[2].path.nodes.empty());
  CHECK((*paths)[2].reachable == 0);
  // Only the first candidates are examined.
  auto limited = find_group_paths(*graph, std::span<const TypeGroup>(groups).first(1), 1);
  REQUIRE(limited.is_ok());
  CHECK((*limited)[0].examined == 1);
  CHECK((*limited)[0].same_shape == 1);
  // With a full shortest-path tree given (an analysis index keeps one), the same answers.
  auto tree = ShortestPathTree::compute(*graph, RetentionOptions{});
  REQUIRE(tree.is_ok());
  auto kept = ShortestPathTree::from_parents(*graph, tree->parents(), tree->reached_count(), nullptr);
  REQUIRE(kept.is_ok());
  auto from_tree = find_group_paths(*graph, groups, 4096, 3, &*kept);
  auto searched = find_group_paths(*graph, groups, 4096, 3);
  REQUIRE(from_tree.is_ok());
  REQUIRE(searched.is_ok());
  for (size_t g = 0; g < groups.size(); ++g) {
    CHECK((*from_tree)[g].member == (*searched)[g].member);
    CHECK((*from_tree)[g].path.nodes == (*searched)[g].path.nodes);
    CHECK((*from_tree)[g].path.root == (*searched)[g].path.root);
    CHECK((*from_tree)[g].same_shape == (*searched)[g].same_shape);
    CHECK((*from_tree)[g].reachable == (*searched)[g].reachable);
    CHECK((*from_tree)[g].more_shapes.size() == (*searched)[g].more_shapes.size());
  }
  // A tree in which a strong root's object is not a root (forged) is refused.
  std::vector<NodeIndex> forged(tree->parents().begin(), tree->parents().end());
  forged[0] = 1;  // node 0 (Cache) is held by a handle
  CHECK(ShortestPathTree::from_parents(*graph, forged, tree->reached_count(), nullptr).error().code ==
        ErrorCode::InvalidArgument);
  // A tree of another graph is refused.
  CHECK(ShortestPathTree::from_parents(*graph, tree->parents().first(3), 3, nullptr).error().code ==
        ErrorCode::InvalidArgument);
}

}  // namespace gcsnap

namespace gcsnap {

// The red herring: 3 Bookings in a cache at 3 hops, 5 held by the nodes of a linked list at
// 3 to 7 hops. By unfolded shape every chain depth is its own shape and the cache wins; folded,
// the 5 share one shape and win.
TEST_CASE("group paths cluster by folded shape", "[diff][paths][fold]") {
  enum : uint32_t { Cache = 1, Array, Booking, Head, Node };
  std::vector<uint32_t> types = {Cache, Array, Booking, Booking, Booking, Head};
  for (int i = 0; i < 5; ++i) types.push_back(Node);
  for (int i = 0; i < 5; ++i) types.push_back(Booking);
  std::vector<std::vector<size_t>> refs(types.size());
  refs[0] = {1};
  refs[1] = {2, 3, 4};
  refs[5] = {6};
  for (size_t i = 0; i < 5; ++i) {
    if (i + 1 < 5) refs[6 + i].push_back(7 + i);
    refs[6 + i].push_back(11 + i);
  }
  ObjectTable objects;
  objects.reference_offsets.push_back(0);
  for (size_t i = 0; i < types.size(); ++i) {
    objects.addresses.push_back(0x1000 + 0x100 * i);
    objects.type_ids.push_back(types[i]);
    objects.sizes.push_back(32);
    objects.generations.push_back(Generation::Gen0);
    for (size_t r : refs[i]) objects.reference_targets.push_back(0x1000 + 0x100 * r);
    objects.reference_offsets.push_back(objects.reference_targets.size());
  }
  RootTable roots;
  roots.object_ids = {0x1000, 0x1500};
  roots.kinds = {RootKind::Handle, RootKind::Handle};
  roots.flags = {0, 0};
  roots.root_ids = {1, 2};
  auto graph = HeapGraph::build(objects, roots);
  REQUIRE(graph.is_ok());
  std::vector<TypeGroup> groups(1);
  groups[0].members = {2, 3, 4, 11, 12, 13, 14, 15};
  auto paths = find_group_paths(*graph, groups, 4096, 2);
  REQUIRE(paths.is_ok());
  const GroupPath& g = (*paths)[0];
  CHECK(g.same_shape == 5);
  CHECK(g.member == 11);  // the nearest of the chain's Bookings
  CHECK(g.path.nodes == std::vector<NodeIndex>{5, 6, 11});
  REQUIRE(g.more_shapes.size() == 1);
  CHECK(g.more_shapes[0].same_shape == 3);
}

}  // namespace gcsnap

#include <map>
#include <random>

#include "gcsnap/path_fold.hpp"

namespace gcsnap {

// Oracle: each target's path built alone (path_to), its keys folded by fold_repeats, grouped
// in a map, gives the groups the memoised trie walk gives.
TEST_CASE("group_by_folded_shape equals folding every path alone", "[paths][fold]") {
  std::mt19937 rng(3);
  for (int round = 0; round < 30; ++round) {
    const size_t n = 20 + rng() % 200;
    ObjectTable objects;
    objects.reference_offsets.push_back(0);
    for (size_t i = 0; i < n; ++i) {
      objects.addresses.push_back(0x1000 + 0x40 * i);
      objects.type_ids.push_back(1 + static_cast<uint32_t>(rng() % 3));
      objects.sizes.push_back(16 + 8 * (rng() % 4));
      objects.generations.push_back(Generation::Gen0);
      const size_t refs = rng() % 3;
      for (size_t r = 0; r < refs; ++r) objects.reference_targets.push_back(0x1000 + 0x40 * (rng() % n));
      objects.reference_offsets.push_back(objects.reference_targets.size());
    }
    RootTable roots;
    for (int r = 0; r < 3; ++r) {
      roots.object_ids.push_back(0x1000 + 0x40 * (rng() % n));
      roots.kinds.push_back(r == 0 ? RootKind::Stack : RootKind::Handle);
      roots.flags.push_back(0);
      roots.root_ids.push_back(static_cast<uint64_t>(r + 1));
    }
    auto graph = HeapGraph::build(objects, roots);
    REQUIRE(graph.is_ok());
    auto tree = ShortestPathTree::compute(*graph, RetentionOptions{});
    REQUIRE(tree.is_ok());
    std::vector<NodeIndex> targets;
    for (NodeIndex v = 0; v < graph->node_count(); ++v)
      if (graph->type_id(v) == 2) targets.push_back(v);
    const HopKeyFn key = [&](NodeIndex node, NodeIndex) { return graph->type_id(node); };
    auto groups = group_by_folded_shape(*graph, *tree, targets, key);
    REQUIRE(groups.is_ok());
    std::map<std::vector<uint32_t>, std::pair<uint64_t, uint64_t>> want;  // shape -> count, bytes
    for (NodeIndex t : targets) {
      if (!tree->is_reached(t)) continue;
      const RetentionPath path = tree->path_to(t);
      std::vector<uint32_t> keys;
      for (NodeIndex v : path.nodes) keys.push_back(graph->type_id(v));
      const GraphRoot& root = graph->roots()[path.root];
      std::vector<uint32_t> shape{0x80000000u | static_cast<uint32_t>(root.kind) << 8 | root.flags};
      const auto folded = fold_repeats(keys).value();
      shape.insert(shape.end(), folded.keys.begin(), folded.keys.end());
      ++want[shape].first;
      want[shape].second += graph->object_size(t);
    }
    std::map<std::vector<uint32_t>, std::pair<uint64_t, uint64_t>> got;
    for (const ShapeGroup& g : *groups) {
      CHECK(got.count(g.keys) == 0);
      got[g.keys] = {g.count, g.bytes};
      CHECK(tree->hops_to(g.example) == g.min_hops);
      CHECK(tree->hops_to(g.farthest) == g.max_hops);
    }
    REQUIRE(got == want);
    for (size_t i = 1; i < groups->size(); ++i) CHECK((*groups)[i - 1].bytes >= (*groups)[i].bytes);
  }
}

}  // namespace gcsnap
