#include "gcsnap/type_histogram.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <catch2/catch.hpp>

#include "graph_fixture.hpp"

using namespace gcsnap;
using gcsnap::test::Fixture;

namespace {

std::unique_ptr<gcsnap::test::BuiltGraph> build(const Fixture& f) { return gcsnap::test::build_graph(f, true); }

}  // namespace

// Retained bytes of a type, by its documented meaning: the bytes of the union of what the
// type's objects dominate (each object counted once however many of them dominate it).
TEST_CASE("type histogram matches oracles on random heaps") {
  for (uint32_t seed = 1; seed <= 150; ++seed) {
    const uint32_t n = 4 + seed % 50;
    Fixture f = test::random_fixture(20000 + seed, n, 0.8 + (seed % 6) * 0.4, 1 + seed % 4, 0.2);
    auto b = build(f);
    auto dom = DominatorTree::compute(b->graph);
    REQUIRE(dom);
    auto hist = build_type_histogram(b->graph, &*dom, TypeHistogramOptions{TypeOrder::RetainedBytes, 0});
    REQUIRE(hist);
    const auto dominated = test::oracle_dominated(f, false);
    const auto reach = test::oracle_distances(f, false);
    std::map<uint32_t, TypeStats> expected;
    std::map<uint32_t, std::set<uint32_t>> covered;
    for (uint32_t v = 0; v < n; ++v) {
      TypeStats& t = expected[f.types[v]];
      t.type_id = f.types[v];
      ++t.count;
      t.shallow_bytes += f.sizes[v];
      if (reach[v] < 0) ++t.unreachable_count;
      covered[f.types[v]].insert(dominated[v].begin(), dominated[v].end());
    }
    for (auto& [type, nodes] : covered)
      for (uint32_t x : nodes) expected[type].retained_bytes += f.sizes[x];
    REQUIRE(hist->size() == expected.size());
    for (size_t i = 0; i < hist->size(); ++i) {
      const TypeStats& got = (*hist)[i];
      const TypeStats& want = expected[got.type_id];
      CHECK(got.count == want.count);
      CHECK(got.shallow_bytes == want.shallow_bytes);
      CHECK(got.retained_bytes == want.retained_bytes);
      CHECK(got.unreachable_count == want.unreachable_count);
      if (i > 0) CHECK((*hist)[i - 1].retained_bytes >= got.retained_bytes);
    }
  }
}

TEST_CASE("nested objects of one type are not counted twice") {
  // A linked list of three nodes (type 2) holding one payload each (type 3).
  Fixture f;
  f.edges = {{1}, {2, 4}, {3, 5}, {6}, {}, {}, {}};
  f.sizes = {100, 10, 10, 10, 1, 2, 4};
  f.types = {1, 2, 2, 2, 3, 3, 3};
  f.roots = {{0, RootKind::Other}};
  auto b = build(f);
  auto dom = DominatorTree::compute(b->graph);
  REQUIRE(dom);
  auto hist = build_type_histogram(b->graph, &*dom, TypeHistogramOptions{TypeOrder::Count, 0});
  REQUIRE(hist);
  REQUIRE(hist->size() == 3);
  CHECK((*hist)[0].type_id == 2);  // 3 objects; ties with type 3 broken by id
  CHECK((*hist)[0].retained_bytes == 37);
  CHECK((*hist)[1].type_id == 3);
  CHECK((*hist)[1].retained_bytes == 7);
  CHECK((*hist)[2].retained_bytes == 137);

  auto top = build_type_histogram(b->graph, &*dom, TypeHistogramOptions{TypeOrder::ShallowBytes, 1});
  REQUIRE(top);
  REQUIRE(top->size() == 1);
  CHECK((*top)[0].type_id == 1);

  auto shallow_only = build_type_histogram(b->graph, nullptr);
  REQUIRE(shallow_only);
  CHECK((*shallow_only)[0].retained_bytes == 0);
}

TEST_CASE("sparse type ids") {
  Fixture f;
  f.edges = {{1}, {}, {}};
  f.sizes = {8, 16, 24};
  f.types = {0xFFFFFFF0u, 7, 0xFFFFFFF0u};
  f.roots = {{0, RootKind::Other}};
  auto b = build(f);
  auto dom = DominatorTree::compute(b->graph);
  REQUIRE(dom);
  auto hist = build_type_histogram(b->graph, &*dom);
  REQUIRE(hist);
  REQUIRE(hist->size() == 2);
  CHECK((*hist)[0].type_id == 0xFFFFFFF0u);
  CHECK((*hist)[0].count == 2);
  CHECK((*hist)[0].retained_bytes == 24);
  CHECK((*hist)[0].unreachable_count == 1);
}
