#include "gcsnap/dominators.hpp"

#include <algorithm>
#include <set>

#include <catch2/catch.hpp>

#include "graph_fixture.hpp"

using namespace gcsnap;
using gcsnap::test::Fixture;

namespace {

std::unique_ptr<gcsnap::test::BuiltGraph> build(const Fixture& f) { return gcsnap::test::build_graph(f, true); }

// Check the whole tree against the definition: the chain of immediate dominators above v
// must be exactly the set of objects whose removal makes v unreachable, and retained sizes
// the sums over what each object dominates.
void check_against_oracle(const Fixture& f, bool include_weak) {
  auto b = build(f);
  auto dom = DominatorTree::compute(b->graph, DominatorOptions{include_weak});
  REQUIRE(dom);
  const auto dominated = test::oracle_dominated(f, include_weak);
  const auto reach = test::oracle_distances(f, include_weak);
  const size_t n = f.size();
  std::vector<std::set<uint32_t>> dominators(n);
  for (uint32_t d = 0; d < n; ++d)
    for (uint32_t v : dominated[d])
      if (v != d) dominators[v].insert(d);
  size_t reachable = 0;
  uint64_t reachable_bytes = 0;
  for (uint32_t v = 0; v < n; ++v) {
    REQUIRE(dom->is_reachable(v) == (reach[v] >= 0));
    if (reach[v] < 0) {
      CHECK(dom->immediate_dominator(v) == kNoNode);
      CHECK(dom->retained_size(v) == 0);
      continue;
    }
    ++reachable;
    reachable_bytes += f.sizes[v];
    std::set<uint32_t> chain;
    for (NodeIndex x = dom->immediate_dominator(v); x != kVirtualRoot; x = dom->immediate_dominator(x)) {
      REQUIRE(x < n);
      REQUIRE(chain.size() <= n);
      chain.insert(x);
    }
    CHECK(chain == dominators[v]);
    CHECK(dom->depth(v) == dominators[v].size());
    uint64_t retained = 0;
    for (uint32_t x : dominated[v]) retained += f.sizes[x];
    CHECK(dom->retained_size(v) == retained);
  }
  CHECK(dom->reachable_count() == reachable);
  CHECK(dom->reachable_bytes() == reachable_bytes);
  CHECK(dom->unreachable_count() == n - reachable);
  // Preorder puts every object after its dominators.
  std::vector<size_t> position(n, 0);
  for (size_t i = 0; i < dom->preorder().size(); ++i) position[dom->preorder()[i]] = i;
  for (NodeIndex v : dom->preorder()) {
    const NodeIndex d = dom->immediate_dominator(v);
    if (d != kVirtualRoot) CHECK(position[d] < position[v]);
  }
}

}  // namespace

TEST_CASE("dominators match the definition on hundreds of random heaps") {
  for (uint32_t seed = 1; seed <= 400; ++seed) {
    const uint32_t n = 3 + seed % 60;
    const double degree = 0.5 + (seed % 9) * 0.4;
    Fixture f = test::random_fixture(5000 + seed, n, degree, 1 + seed % 5, 0.25);
    check_against_oracle(f, false);
    if (seed % 4 == 0) check_against_oracle(f, true);
  }
}

TEST_CASE("dominators on dense graphs with many roots") {
  for (uint32_t seed = 1; seed <= 60; ++seed) {
    Fixture f = test::random_fixture(9000 + seed, 40, 4.0, 12, 0.0);
    check_against_oracle(f, false);
  }
}

TEST_CASE("diamond, cycle and self-loop") {
  // 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3, 3 -> 4, 4 -> 3, 4 -> 4
  Fixture f;
  f.edges = {{1, 2}, {3}, {3}, {4}, {3, 4}};
  f.sizes = {8, 16, 24, 32, 40};
  f.types.assign(5, 1);
  f.roots = {{0, RootKind::Stack}};
  auto b = build(f);
  auto dom = DominatorTree::compute(b->graph);
  REQUIRE(dom);
  CHECK(dom->immediate_dominator(0) == kVirtualRoot);
  CHECK(dom->immediate_dominator(1) == 0);
  CHECK(dom->immediate_dominator(2) == 0);
  CHECK(dom->immediate_dominator(3) == 0);
  CHECK(dom->immediate_dominator(4) == 3);
  CHECK(dom->retained_size(0) == 120);
  CHECK(dom->retained_size(3) == 72);
  CHECK(dom->retained_size(1) == 16);
  CHECK(dom->top_retainers(2) == std::vector<NodeIndex>{0, 3});
  check_against_oracle(f, false);
}

TEST_CASE("weak-only and unreachable objects have no dominator") {
  Fixture f;
  f.edges = {{1}, {}, {3}, {}, {}};
  f.sizes = {8, 16, 24, 32, 40};
  f.types.assign(5, 1);
  f.roots = {{0, RootKind::Handle}, {2, RootKind::Handle, root_flags::kWeakRef}};
  auto b = build(f);
  auto dom = DominatorTree::compute(b->graph);
  REQUIRE(dom);
  CHECK(dom->reachable_count() == 2);
  CHECK(dom->unreachable_count() == 3);
  CHECK(dom->unreachable_bytes() == 96);
  CHECK_FALSE(dom->is_reachable(2));
  CHECK_FALSE(dom->is_reachable(3));
  auto weak = DominatorTree::compute(b->graph, DominatorOptions{true});
  REQUIRE(weak);
  CHECK(weak->immediate_dominator(3) == 2);
  CHECK(weak->retained_size(2) == 56);
}

TEST_CASE("dominators need the reverse graph") {
  Fixture f;
  f.edges = {{}};
  f.sizes = {8};
  f.types = {1};
  ObjectTable objects;
  RootTable roots;
  to_tables(f, objects, roots);
  auto g = HeapGraph::build(objects, roots);
  REQUIRE(g);
  CHECK(DominatorTree::compute(*g).error().code == ErrorCode::InvalidState);
}

TEST_CASE("a chain one million objects deep") {
  const uint32_t n = 1'000'000;
  Fixture f;
  f.edges.resize(n);
  for (uint32_t i = 0; i + 1 < n; ++i) f.edges[i] = {i + 1};
  f.edges[n - 1] = {n / 2};  // a cycle at the end must not change anything
  f.sizes.assign(n, 24);
  f.types.assign(n, 1);
  f.roots = {{0, RootKind::Stack}};
  auto b = build(f);
  auto dom = DominatorTree::compute(b->graph);
  REQUIRE(dom);
  CHECK(dom->reachable_count() == n);
  CHECK(dom->retained_size(0) == uint64_t{24} * n);
  CHECK(dom->retained_size(n / 2) == uint64_t{24} * (n - n / 2));
  CHECK(dom->immediate_dominator(n - 1) == n - 2);
  CHECK(dom->depth(n - 1) == n - 1);
}
