#include "gcsnap/retention.hpp"

#include <algorithm>
#include <set>

#include <catch2/catch.hpp>

#include "graph_fixture.hpp"

using namespace gcsnap;
using gcsnap::test::Fixture;

namespace {

// With the reverse CSR, find_retention_paths searches backwards from the target; without it,
// forwards from the roots. Both must give the same answers.
std::unique_ptr<gcsnap::test::BuiltGraph> build(const Fixture& f, bool reverse = false) {
  return gcsnap::test::build_graph(f, reverse);
}

bool has_edge(const Fixture& f, uint32_t from, uint32_t to) {
  return std::find(f.edges[from].begin(), f.edges[from].end(), to) != f.edges[from].end();
}

// A path is valid when it starts at the object of the root it names, follows real edges and
// ends at the target; weak roots only when allowed.
void check_valid(const Fixture& f, const HeapGraph& g, const RetentionPath& path, uint32_t target, bool weak_ok) {
  REQUIRE(!path.nodes.empty());
  REQUIRE(path.root < g.roots().size());
  const GraphRoot& root = g.roots()[path.root];
  CHECK(root.node == path.nodes.front());
  if (!weak_ok) CHECK_FALSE(root.is_weak());
  CHECK(path.nodes.back() == target);
  for (size_t i = 0; i + 1 < path.nodes.size(); ++i) CHECK(has_edge(f, path.nodes[i], path.nodes[i + 1]));
}

}  // namespace

TEST_CASE("shortest retention paths match a BFS oracle on random heaps") {
  const bool reverse = GENERATE(false, true);
  CAPTURE(reverse);
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    const uint32_t n = 5 + seed % 120;
    Fixture f = test::random_fixture(seed, n, 0.6 + (seed % 7) * 0.4, 1 + seed % 4, 0.3);
    auto b = build(f, reverse);
    const auto strong = test::oracle_distances(f, false);
    const auto any = test::oracle_distances(f, true);
    for (uint32_t v = 0; v < n; ++v) {
      auto r = find_retention_paths(b->graph, v, RetentionOptions{});
      REQUIRE(r);
      if (strong[v] >= 0) {
        REQUIRE(r->reachability == Reachability::Strong);
        REQUIRE(r->paths.size() == 1);
        CHECK(r->paths[0].hops() == static_cast<size_t>(strong[v]));
        check_valid(f, b->graph, r->paths[0], v, false);
      } else if (any[v] >= 0) {
        REQUIRE(r->reachability == Reachability::WeakOnly);
        REQUIRE(r->paths.size() == 1);
        CHECK(r->paths[0].hops() == static_cast<size_t>(any[v]));
        check_valid(f, b->graph, r->paths[0], v, true);
      } else {
        CHECK(r->reachability == Reachability::Unreachable);
        CHECK(r->paths.empty());
      }
      auto with_weak = find_retention_paths(b->graph, v, RetentionOptions{true, 1});
      REQUIRE(with_weak);
      CHECK((with_weak->reachability == Reachability::Strong) == (any[v] >= 0));
    }
  }
}

TEST_CASE("distinct paths: one per direct retainer, each shortest through it") {
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    const uint32_t n = 5 + seed % 80;
    Fixture f = test::random_fixture(1000 + seed, n, 1.0 + (seed % 5) * 0.5, 1 + seed % 5, 0.2);
    auto b = build(f);
    const auto strong = test::oracle_distances(f, false);
    for (uint32_t v = 0; v < n; ++v) {
      auto r = find_retention_paths(b->graph, v, RetentionOptions{false, 0});
      REQUIRE(r);
      if (strong[v] < 0) continue;
      REQUIRE(r->reachability == Reachability::Strong);
      const auto avoiding = test::oracle_distances(f, false, v);
      uint64_t expected = 0;
      for (const auto& root : f.roots)
        if (root.node == v && !(root.flags & root_flags::kWeakRef)) ++expected;
      for (uint32_t p = 0; p < n; ++p)
        if (p != v && avoiding[p] >= 0 && has_edge(f, p, v)) ++expected;
      CHECK(r->retainer_count == expected);
      REQUIRE(r->paths.size() == expected);
      CHECK(r->paths.front().hops() == static_cast<size_t>(strong[v]));
      std::set<int64_t> retainers;
      for (size_t i = 0; i < r->paths.size(); ++i) {
        const auto& path = r->paths[i];
        check_valid(f, b->graph, path, v, false);
        if (i > 0) CHECK(path.hops() >= r->paths[i - 1].hops());
        CHECK(std::count(path.nodes.begin(), path.nodes.end(), v) == 1);
        if (path.nodes.size() == 1) {
          retainers.insert(-1 - static_cast<int64_t>(path.root));
        } else {
          const uint32_t p = path.nodes[path.nodes.size() - 2];
          retainers.insert(p);
          CHECK(path.hops() == static_cast<size_t>(avoiding[p] + 1));
        }
      }
      CHECK(retainers.size() == r->paths.size());
      auto limited = find_retention_paths(b->graph, v, RetentionOptions{false, 2});
      REQUIRE(limited);
      CHECK(limited->paths.size() == std::min<size_t>(2, expected));
    }
  }
}

TEST_CASE("equally short paths prefer handles, then other, stack, finalizer") {
  const bool reverse = GENERATE(false, true);
  CAPTURE(reverse);
  Fixture f;
  f.edges = {{4}, {4}, {4}, {4}, {}};
  f.sizes.assign(5, 24);
  f.types.assign(5, 1);
  f.roots = {{0, RootKind::Finalizer}, {1, RootKind::Stack}, {2, RootKind::Other}, {3, RootKind::Handle}};
  auto b = build(f, reverse);
  auto r = find_retention_paths(b->graph, 4, RetentionOptions{});
  REQUIRE(r);
  REQUIRE(r->paths.size() == 1);
  CHECK(b->graph.roots()[r->paths[0].root].kind == RootKind::Handle);
  CHECK(r->paths[0].nodes == std::vector<NodeIndex>{3, 4});

  auto all = find_retention_paths(b->graph, 4, RetentionOptions{false, 0});
  REQUIRE(all);
  REQUIRE(all->paths.size() == 4);
  const RootKind order[] = {RootKind::Handle, RootKind::Other, RootKind::Stack, RootKind::Finalizer};
  for (size_t i = 0; i < 4; ++i) CHECK(b->graph.roots()[all->paths[i].root].kind == order[i]);
}

TEST_CASE("priority carries down equally long chains, but a shorter path wins") {
  const bool reverse = GENERATE(false, true);
  CAPTURE(reverse);
  // stack root 0 -> 1 -> 4 and handle root 2 -> 3 -> 4 are equally long; stack root 5 -> 6.
  Fixture f;
  f.edges = {{1}, {4}, {3}, {4}, {}, {6}, {}};
  f.sizes.assign(7, 24);
  f.types.assign(7, 1);
  f.roots = {{0, RootKind::Stack}, {2, RootKind::Handle}, {5, RootKind::Stack}};
  auto b = build(f, reverse);
  auto r = find_retention_paths(b->graph, 4, RetentionOptions{});
  REQUIRE(r);
  CHECK(r->paths[0].nodes == std::vector<NodeIndex>{2, 3, 4});
  f.edges[5] = {4};  // now the stack root is one hop away
  auto b2 = build(f, reverse);
  auto r2 = find_retention_paths(b2->graph, 4, RetentionOptions{});
  REQUIRE(r2);
  CHECK(r2->paths[0].nodes == std::vector<NodeIndex>{5, 4});
}

TEST_CASE("weak roots do not retain unless asked") {
  const bool reverse = GENERATE(false, true);
  CAPTURE(reverse);
  Fixture f;
  f.edges = {{1}, {}, {}, {2}};  // 2 <-> 3 is a cycle nobody references
  f.edges[2] = {3};
  f.sizes.assign(4, 24);
  f.types.assign(4, 1);
  f.roots = {{0, RootKind::Handle, root_flags::kWeakRef}};
  auto b = build(f, reverse);
  auto r = find_retention_paths(b->graph, 1, RetentionOptions{});
  REQUIRE(r);
  CHECK(r->reachability == Reachability::WeakOnly);
  REQUIRE(r->paths.size() == 1);
  CHECK(r->paths[0].nodes == std::vector<NodeIndex>{0, 1});
  auto w = find_retention_paths(b->graph, 1, RetentionOptions{true, 1});
  REQUIRE(w);
  CHECK(w->reachability == Reachability::Strong);
  auto cycle = find_retention_paths(b->graph, 3, RetentionOptions{true, 0});
  REQUIRE(cycle);
  CHECK(cycle->reachability == Reachability::Unreachable);
  CHECK(cycle->paths.empty());
  CHECK(find_retention_paths(b->graph, 4, RetentionOptions{}).error().code == ErrorCode::InvalidArgument);
}

TEST_CASE("a path one million hops long") {
  const bool reverse = GENERATE(false, true);
  CAPTURE(reverse);
  const uint32_t n = 1'000'000;
  Fixture f;
  f.edges.resize(n);
  for (uint32_t i = 0; i + 1 < n; ++i) f.edges[i] = {i + 1};
  f.edges[n - 1] = {0};  // and a cycle back
  f.sizes.assign(n, 24);
  f.types.assign(n, 1);
  f.roots = {{0, RootKind::Stack}};
  auto b = build(f, reverse);
  auto r = find_retention_paths(b->graph, n - 1, RetentionOptions{});
  REQUIRE(r);
  REQUIRE(r->paths.size() == 1);
  CHECK(r->paths[0].hops() == n - 1);
  CHECK(r->paths[0].nodes[123456] == 123456);
  auto all = find_retention_paths(b->graph, n / 2, RetentionOptions{false, 0});
  REQUIRE(all);
  REQUIRE(all->paths.size() == 1);
  CHECK(all->paths[0].hops() == n / 2);
}

TEST_CASE("one shortest-path tree answers many queries") {
  Fixture f = test::random_fixture(77, 500, 2.0, 6, 0.0);
  auto b = build(f);
  const auto dist = test::oracle_distances(f, false);
  auto tree = ShortestPathTree::compute(b->graph, RetentionOptions{});
  REQUIRE(tree);
  size_t reached = 0;
  for (uint32_t v = 0; v < 500; ++v) {
    CHECK(tree->is_reached(v) == (dist[v] >= 0));
    if (dist[v] < 0) continue;
    ++reached;
    auto path = tree->path_to(v);
    CHECK(path.hops() == static_cast<size_t>(dist[v]));
    check_valid(f, b->graph, path, v, false);
  }
  CHECK(tree->reached_count() == reached);
}

TEST_CASE("a BFS stopped at the nearest targets gives the full BFS's paths to them") {
  size_t stopped_early = 0;
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    const uint32_t n = 20 + seed % 300;
    Fixture f = test::random_fixture(500 + seed, n, 0.8 + (seed % 5) * 0.4, 1 + seed % 4, 0.2);
    auto b = build(f);
    const bool weak = seed % 3 == 0;
    auto full = ShortestPathTree::compute(b->graph, RetentionOptions{weak, 1});
    REQUIRE(full);
    std::vector<NodeIndex> targets;
    for (NodeIndex v = seed % 7; v < n; v += 3 + seed % 11) targets.push_back(v);
    const size_t count = 1 + seed % 6;
    auto near = ShortestPathTree::compute_nearest(b->graph, RetentionOptions{weak, 1}, targets, count);
    REQUIRE(near);
    CHECK(near->reached_count() <= full->reached_count());
    stopped_early += near->reached_count() < full->reached_count();
    // The COUNT nearest targets by (hops, node) of the full BFS, and their paths, must be the
    // first COUNT the stopped BFS reaches, with the same hops through the same nodes.
    auto nearest = [&](const ShortestPathTree& t) {
      std::vector<std::pair<size_t, NodeIndex>> out;
      for (NodeIndex v : targets)
        if (t.is_reached(v)) out.emplace_back(t.path_to(v).hops(), v);
      std::sort(out.begin(), out.end());
      if (out.size() > count) out.resize(count);
      return out;
    };
    const auto want = nearest(*full), got = nearest(*near);
    REQUIRE(got == want);
    for (const auto& [hops, v] : want) {
      CHECK(near->path_to(v).nodes == full->path_to(v).nodes);
      CHECK(near->path_to(v).root == full->path_to(v).root);
    }
    // Every node the stopped BFS reached has the full BFS's parent chain.
    for (NodeIndex v = 0; v < n; ++v)
      if (near->is_reached(v)) CHECK(near->path_to(v).nodes == full->path_to(v).nodes);
  }
  CHECK(stopped_early > 20);  // the stop is exercised, not only the full walk
  // COUNT 0 explores everything.
  Fixture f = test::random_fixture(42, 200, 2.0, 3, 0.0);
  auto b = build(f);
  auto all = ShortestPathTree::compute_nearest(b->graph, RetentionOptions{}, std::vector<NodeIndex>{1}, 0);
  REQUIRE(all);
  CHECK(all->reached_count() == ShortestPathTree::compute(b->graph, RetentionOptions{})->reached_count());
}
