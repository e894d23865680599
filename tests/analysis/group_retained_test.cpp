// group_retained_bytes over the graph (analysis/group_retained.hpp): the retained bytes of
// groups of objects from a dominator tree of the part that the members hold alone are those of
// the whole graph's tree, on random heaps with shared, nested and unreachable members, with
// and without weak roots; and the tree's search against its definition.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "analysis/group_retained.hpp"
#include "graph_fixture.hpp"

namespace gcsnap {
namespace {

// A random heap of N objects as the reader's tables (graph_fixture.hpp): mean out-degree 1.5,
// mostly to near objects, three roots of which about a third are weak.
struct RandomHeap {
  ObjectTable objects;
  RootTable roots;
};

RandomHeap random_heap(std::mt19937& rng, size_t n) {
  RandomHeap h;
  test::to_tables(test::random_fixture(static_cast<uint32_t>(rng()), static_cast<uint32_t>(n), 1.5, 3, 0.34),
                  h.objects, h.roots);
  return h;
}

}  // namespace

TEST_CASE("group_retained_bytes: over the held part as over the whole tree", "[leaks]") {
  std::mt19937 rng(4545);
  uint64_t nonzero = 0, nested = 0;
  for (int round = 0; round < 300; ++round) {
    const size_t n = 5 + rng() % 80;
    const RandomHeap h = random_heap(rng, n);
    auto graph = HeapGraph::build(h.objects, h.roots);
    REQUIRE(graph.is_ok());
    REQUIRE(graph->build_reverse().is_ok());
    const size_t groups = 1 + rng() % 4;
    std::vector<uint32_t> group_of_node(n, detail::kNoGroup);
    const auto share = static_cast<unsigned>(1 + rng() % 3);  // about 1/4 .. 3/4 of the objects are members
    for (auto& g : group_of_node)
      if (rng() % 4 < share) g = static_cast<uint32_t>(rng() % groups);
    for (const bool include_weak : {false, true}) {
      auto dom = DominatorTree::compute(*graph, DominatorOptions{include_weak});
      REQUIRE(dom.is_ok());
      const auto expected = detail::group_retained_bytes(*dom, group_of_node, groups);
      const auto got = detail::group_retained_bytes(*graph, include_weak, group_of_node, groups);
      CHECK(got == expected);
      for (uint64_t b : expected) nonzero += b != 0;
      for (NodeIndex v = 0; v < n; ++v) {
        const NodeIndex d = dom->immediate_dominator(v);
        nested += group_of_node[v] != detail::kNoGroup && d != kNoNode && d != kVirtualRoot &&
                  group_of_node[d] == group_of_node[v];
      }
    }
  }
  // The heaps exercised what the sums depend on: groups that retain, members under members.
  CHECK(nonzero > 300);
  CHECK(nested > 100);
}

// The tree's search against its definition: a member counts its retained bytes when no member
// of its group dominates it (its immediate dominators followed up to the virtual root).
TEST_CASE("group_retained_bytes: members under no member of their group", "[leaks]") {
  std::mt19937 rng(4546);
  uint64_t counted = 0, skipped = 0;
  for (int round = 0; round < 300; ++round) {
    const size_t n = 5 + rng() % 80;
    const RandomHeap h = random_heap(rng, n);
    auto graph = HeapGraph::build(h.objects, h.roots);
    REQUIRE(graph.is_ok());
    REQUIRE(graph->build_reverse().is_ok());
    const size_t groups = 1 + rng() % 4;
    std::vector<uint32_t> group_of_node(n, detail::kNoGroup);
    for (auto& g : group_of_node)
      if (rng() % 2 == 0) g = static_cast<uint32_t>(rng() % groups);
    auto dom = DominatorTree::compute(*graph, DominatorOptions{rng() % 2 == 0});
    REQUIRE(dom.is_ok());
    std::vector<uint64_t> expected(groups, 0);
    for (NodeIndex v = 0; v < n; ++v) {
      const uint32_t g = group_of_node[v];
      if (g == detail::kNoGroup || dom->immediate_dominator(v) == kNoNode) continue;
      bool under_member = false;
      for (NodeIndex d = dom->immediate_dominator(v); d != kVirtualRoot; d = dom->immediate_dominator(d))
        under_member = under_member || group_of_node[d] == g;
      if (under_member) {
        ++skipped;
        continue;
      }
      ++counted;
      expected[g] += dom->retained_size(v);
    }
    CHECK(detail::group_retained_bytes(*dom, group_of_node, groups) == expected);
  }
  CHECK(counted > 300);
  CHECK(skipped > 100);
}

TEST_CASE("group_retained_bytes: no member, no root", "[leaks]") {
  std::mt19937 rng(7);
  RandomHeap h = random_heap(rng, 20);
  auto graph = HeapGraph::build(h.objects, h.roots);
  REQUIRE(graph.is_ok());
  const std::vector<uint32_t> none(20, detail::kNoGroup);
  CHECK(detail::group_retained_bytes(*graph, false, none, 2) == std::vector<uint64_t>{0, 0});
  h.roots = RootTable{};
  auto rootless = HeapGraph::build(h.objects, h.roots);
  REQUIRE(rootless.is_ok());
  const std::vector<uint32_t> all(20, 0);
  CHECK(detail::group_retained_bytes(*rootless, false, all, 1) == std::vector<uint64_t>{0});
}

}  // namespace gcsnap
