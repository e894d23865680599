// Dependent handles (ConditionalWeakTable entries, format-spec.md §6.11) in the analyses: the
// secondary is held by its primary for reachability, paths, dominators and type histograms.
#include <algorithm>

#include <catch2/catch.hpp>

#include "gcsnap/dominators.hpp"
#include "gcsnap/heap_graph.hpp"
#include "gcsnap/retention.hpp"
#include "gcsnap/type_histogram.hpp"
#include "graph_fixture.hpp"

using namespace gcsnap;
using gcsnap::test::Fixture;

namespace {

// 0 Table (handle root) -> 1 Key; Key =CWT=> 2 Value -> 3 Inner. 4 is a dead key whose value 5
// no one reaches. 6 is referenced by Key directly and through a dependent handle too.
struct Heap {
  ObjectTable objects;
  RootTable roots;
  DependentHandleTable dependent;
};

Heap make_heap() {
  Fixture f;
  f.edges = {{1}, {6}, {3}, {}, {}, {}, {}};
  f.sizes = {24, 32, 40, 48, 56, 64, 72};
  f.types = {1, 2, 3, 4, 2, 3, 5};
  f.roots = {{0, RootKind::Handle, 0, 0x10}};
  Heap h;
  to_tables(f, h.objects, h.roots);
  const auto& a = h.objects.addresses;
  h.dependent.primaries = {a[1], a[4], a[1], a[1], 0x1234};
  h.dependent.secondaries = {a[2], a[5], a[6], 0x5678, a[3]};  // the last two: not objects
  return h;
}

}  // namespace

TEST_CASE("dependent handles add an edge from primary to secondary") {
  Heap h = make_heap();
  auto g = HeapGraph::build(h.objects, h.roots, &h.dependent);
  REQUIRE(g);
  CHECK(g->has_dependent_handles());
  CHECK(g->stats().dependent_handles == 5);
  CHECK(g->stats().dependent_edges == 3);
  auto s1 = g->successors(1);
  CHECK(std::vector<NodeIndex>(s1.begin(), s1.end()) == std::vector<NodeIndex>{6, 2, 6});  // references first
  CHECK(g->edge_kind(1, 2) == EdgeKind::DependentHandle);
  CHECK(g->edge_kind(1, 6) == EdgeKind::Reference);  // also a real reference: that wins
  CHECK(g->edge_kind(4, 5) == EdgeKind::DependentHandle);
  CHECK(g->edge_kind(2, 3) == EdgeKind::Reference);

  auto without = HeapGraph::build(h.objects, h.roots);
  REQUIRE(without);
  CHECK_FALSE(without->has_dependent_handles());
  CHECK(without->edge_count() + 3 == g->edge_count());
}

TEST_CASE("a ConditionalWeakTable value is reachable through its key, with the hop marked") {
  Heap h = make_heap();
  auto g = HeapGraph::build(h.objects, h.roots, &h.dependent);
  REQUIRE(g);
  for (bool reverse : {false, true}) {
    CAPTURE(reverse);
    if (reverse) REQUIRE(g->build_reverse());
    auto r = find_retention_paths(*g, 3, RetentionOptions{});
    REQUIRE(r);
    CHECK(r->reachability == Reachability::Strong);
    REQUIRE(r->paths.size() == 1);
    const RetentionPath& p = r->paths[0];
    CHECK(p.nodes == std::vector<NodeIndex>{0, 1, 2, 3});
    REQUIRE(p.edges.size() == 3);
    CHECK(p.edges[0].kind == EdgeKind::Reference);
    CHECK(p.edges[1].kind == EdgeKind::DependentHandle);
    CHECK(p.edges[2].kind == EdgeKind::Reference);
    auto all = find_retention_paths(*g, 2, RetentionOptions{false, 0});
    REQUIRE(all);
    REQUIRE(all->paths.size() == 1);
    CHECK(all->paths[0].edges.back().kind == EdgeKind::DependentHandle);
  }
  auto dead = find_retention_paths(*g, 5, RetentionOptions{});
  REQUIRE(dead);
  CHECK(dead->reachability == Reachability::Unreachable);  // its key is garbage too

  auto without = HeapGraph::build(h.objects, h.roots);
  REQUIRE(without);
  auto r = find_retention_paths(*without, 3, RetentionOptions{});
  REQUIRE(r);
  CHECK(r->reachability == Reachability::Unreachable);
}

TEST_CASE("the shortest-path tree marks dependent hops too") {
  Heap h = make_heap();
  auto g = HeapGraph::build(h.objects, h.roots, &h.dependent);
  REQUIRE(g);
  auto tree = ShortestPathTree::compute(*g, RetentionOptions{});
  REQUIRE(tree);
  RetentionPath p = tree->path_to(3);
  REQUIRE(p.edges.size() == 3);
  CHECK(p.edges[1].kind == EdgeKind::DependentHandle);
  CHECK(tree->reached_count() == 5);  // 0, 1, 6, 2, 3
}

TEST_CASE("dominators and type histograms count what a key retains through its table") {
  Heap h = make_heap();
  auto g = HeapGraph::build(h.objects, h.roots, &h.dependent);
  REQUIRE(g);
  REQUIRE(g->build_reverse());
  auto dom = DominatorTree::compute(*g);
  REQUIRE(dom);
  CHECK(dom->immediate_dominator(2) == 1);
  CHECK(dom->immediate_dominator(3) == 2);
  CHECK(dom->retained_size(1) == 32 + 40 + 48 + 72);
  CHECK_FALSE(dom->is_reachable(5));
  CHECK(dom->unreachable_count() == 2);
  auto hist = build_type_histogram(*g, &*dom, TypeHistogramOptions{TypeOrder::Count, 0});
  REQUIRE(hist);
  auto value_type = std::find_if(hist->begin(), hist->end(), [](const TypeStats& t) { return t.type_id == 3; });
  REQUIRE(value_type != hist->end());
  CHECK(value_type->count == 2);
  CHECK(value_type->unreachable_count == 1);  // only the dead key's value

  auto without = HeapGraph::build(h.objects, h.roots);
  REQUIRE(without);
  REQUIRE(without->build_reverse());
  auto dom0 = DominatorTree::compute(*without);
  REQUIRE(dom0);
  CHECK(dom0->unreachable_count() == 4);  // 2, 3, 4, 5
}
