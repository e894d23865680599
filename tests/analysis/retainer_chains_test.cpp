// top_retainer_chains against its definition on random heaps: a reachable object is folded
// into its immediate dominator when both have the same type (transitively); each row is a
// head with its chain length, ranked by the head's retained size, ties by address order.
#include "gcsnap/retainer_chains.hpp"

#include <algorithm>
#include <map>

#include <catch2/catch.hpp>

#include "graph_fixture.hpp"

using namespace gcsnap;

namespace {

struct ExpectedRow {
  NodeIndex head;
  uint64_t length;
};

// The rows by the definition, computed by walking up each object's dominator chain.
std::vector<ExpectedRow> expected_rows(const HeapGraph& graph, const DominatorTree& dom,
                                       const std::vector<uint32_t>& types) {
  std::map<NodeIndex, uint64_t> length;
  for (NodeIndex v = 0; v < graph.node_count(); ++v) {
    if (!dom.is_reachable(v)) continue;
    NodeIndex head = v;
    for (;;) {
      const NodeIndex up = dom.immediate_dominator(head);
      if (up == kVirtualRoot || graph.type_id(up) != graph.type_id(head)) break;
      head = up;
    }
    ++length[head];
  }
  std::vector<ExpectedRow> rows;
  for (const auto& [head, n] : length) {
    if (types.empty() || std::binary_search(types.begin(), types.end(), graph.type_id(head)))
      rows.push_back({head, n});
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const ExpectedRow& a, const ExpectedRow& b) {
    const uint64_t ra = dom.retained_size(a.head), rb = dom.retained_size(b.head);
    return ra != rb ? ra > rb : graph.address(a.head) < graph.address(b.head);
  });
  return rows;
}

void check(const gcsnap::test::Fixture& f, size_t n, const std::vector<uint32_t>& types) {
  auto b = gcsnap::test::build_graph(f, true);
  auto dom = DominatorTree::compute(b->graph);
  REQUIRE(dom);
  auto rows = top_retainer_chains(b->graph, *dom, n, types);
  REQUIRE(rows);
  auto want = expected_rows(b->graph, *dom, types);
  if (n != 0 && want.size() > n) want.resize(n);
  REQUIRE(rows->size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    CHECK((*rows)[i].head == want[i].head);
    CHECK((*rows)[i].length == want[i].length);
  }
}

}  // namespace

TEST_CASE("top_retainer_chains folds same-type dominator chains, as defined, on random heaps") {
  size_t folded = 0;
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    // Few types, so same-type dominator chains are common.
    auto f = gcsnap::test::random_fixture(7000 + seed, 5 + seed % 80, 0.8 + (seed % 5) * 0.4, 1 + seed % 4, 0.0);
    for (auto& t : f.types) t = 1 + t % 2;
    check(f, 0, {});
    check(f, 3, {});
    check(f, 0, {2});
    auto b = gcsnap::test::build_graph(f, true);
    auto dom = DominatorTree::compute(b->graph);
    REQUIRE(dom);
    for (const auto& row : expected_rows(b->graph, *dom, {})) folded += row.length > 1;
  }
  CHECK(folded > 50);  // the fixtures do exercise folding
}

TEST_CASE("a linked list of one type is one row; another type in the middle splits it") {
  gcsnap::test::Fixture f;
  const uint32_t n = 10;
  f.edges.resize(n);
  for (uint32_t i = 0; i + 1 < n; ++i) f.edges[i].push_back(i + 1);
  f.sizes.assign(n, 24);
  f.types.assign(n, 7);
  f.roots.push_back({0});
  {
    auto b = gcsnap::test::build_graph(f, true);
    auto dom = DominatorTree::compute(b->graph);
    REQUIRE(dom);
    auto rows = top_retainer_chains(b->graph, *dom, 0);
    REQUIRE(rows);
    REQUIRE(rows->size() == 1);
    CHECK((*rows)[0].head == 0);
    CHECK((*rows)[0].length == n);
  }
  f.types[4] = 8;
  auto b = gcsnap::test::build_graph(f, true);
  auto dom = DominatorTree::compute(b->graph);
  REQUIRE(dom);
  auto rows = top_retainer_chains(b->graph, *dom, 0);
  REQUIRE(rows);
  REQUIRE(rows->size() == 3);  // 0..3 (type 7), 4 (type 8), 5..9 (type 7)
  CHECK((*rows)[0].head == 0);
  CHECK((*rows)[0].length == 4);
  CHECK((*rows)[1].head == 4);
  CHECK((*rows)[1].length == 1);
  CHECK((*rows)[2].head == 5);
  CHECK((*rows)[2].length == 5);
}

TEST_CASE("top_retainer_chains refuses a dominator tree of another graph") {
  auto small = gcsnap::test::random_fixture(11, 5, 1.0, 1, 0.0);
  auto large = gcsnap::test::random_fixture(12, 9, 1.0, 1, 0.0);
  auto a = gcsnap::test::build_graph(small, true);
  auto b = gcsnap::test::build_graph(large, true);
  auto dom = DominatorTree::compute(b->graph);
  REQUIRE(dom);
  auto rows = top_retainer_chains(a->graph, *dom, 0);
  REQUIRE_FALSE(rows);
  CHECK(rows.error().code == ErrorCode::InvalidArgument);
}
