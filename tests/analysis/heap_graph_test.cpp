#include "gcsnap/heap_graph.hpp"
#include "gcsnap/reader.hpp"

#include <algorithm>
#include <random>

#include <catch2/catch.hpp>

#include "analysis/csr_offsets.hpp"
#include "graph_fixture.hpp"

using namespace gcsnap;
using gcsnap::test::Fixture;

namespace {

Fixture small_fixture() {
  Fixture f;
  f.edges = {{1, 2}, {2}, {0}, {}};
  f.sizes = {24, 32, 40, 48};
  f.types = {1, 2, 2, 3};
  f.roots = {{0, RootKind::Stack, 0, 0x100}, {3, RootKind::Handle, root_flags::kWeakRef, 7}};
  return f;
}

}  // namespace

TEST_CASE("heap graph resolves addresses to node indices in recorded order") {
  ObjectTable objects;
  RootTable roots;
  to_tables(small_fixture(), objects, roots);
  auto g = HeapGraph::build(objects, roots);
  REQUIRE(g);
  CHECK(g->node_count() == 4);
  CHECK(g->edge_count() == 4);
  auto s0 = g->successors(0);
  CHECK(std::vector<NodeIndex>(s0.begin(), s0.end()) == std::vector<NodeIndex>{1, 2});
  CHECK(g->successors(3).empty());
  CHECK(g->stats().unresolved_references == 0);
  REQUIRE(g->roots().size() == 2);
  CHECK(g->roots()[1].node == 3);
  CHECK(g->roots()[1].is_weak());
  CHECK(g->roots()[0].root_id == 0x100);
  CHECK(g->address(2) == objects.addresses[2]);
  CHECK(g->object_size(2) == 40);
  CHECK(g->type_id(3) == 3);
}

TEST_CASE("unresolved targets are dropped and counted") {
  Fixture f = small_fixture();
  ObjectTable objects;
  RootTable roots;
  to_tables(f, objects, roots);
  const uint64_t a1 = objects.addresses[1];
  // An interior address, one past the last object, one below the first, and null.
  f.dangling = {{1, a1 + 8}, {1, objects.addresses[3] + 48}, {2, 0x1000}, {0, 0}};
  to_tables(f, objects, roots);
  auto g = HeapGraph::build(objects, roots);
  REQUIRE(g);
  CHECK(g->stats().references == 8);
  CHECK(g->stats().unresolved_references == 4);
  CHECK(g->edge_count() == 4);
  auto s1 = g->successors(1);
  CHECK(std::vector<NodeIndex>(s1.begin(), s1.end()) == std::vector<NodeIndex>{2});
}

TEST_CASE("null, unknown and interior roots") {
  ObjectTable objects;
  RootTable roots;
  to_tables(small_fixture(), objects, roots);
  roots.object_ids.push_back(0);
  roots.object_ids.push_back(objects.addresses[2] + 16);  // interior address, no flag
  roots.object_ids.push_back(objects.addresses[2] + 16);  // interior address, flagged
  roots.object_ids.push_back(0x10);
  for (int i = 0; i < 4; ++i) {
    roots.kinds.push_back(RootKind::Stack);
    roots.root_ids.push_back(0);
  }
  roots.flags.insert(roots.flags.end(), {0, 0, root_flags::kInterior, root_flags::kInterior});
  auto g = HeapGraph::build(objects, roots);
  REQUIRE(g);
  CHECK(g->stats().null_roots == 1);
  CHECK(g->stats().unresolved_roots == 2);
  CHECK(g->stats().interior_roots == 1);
  REQUIRE(g->roots().size() == 3);
  CHECK(g->roots()[2].node == 2);
  CHECK(g->roots()[2].root_index == 4);
  auto unresolved = g->unresolved_roots();
  CHECK(std::vector<uint32_t>(unresolved.begin(), unresolved.end()) == std::vector<uint32_t>{2, 3, 5});
}

TEST_CASE("find_object accepts exact addresses only") {
  ObjectTable objects;
  RootTable roots;
  to_tables(small_fixture(), objects, roots);
  auto g = HeapGraph::build(objects, roots);
  REQUIRE(g);
  for (NodeIndex i = 0; i < 4; ++i) {
    auto found = g->find_object(objects.addresses[i]);
    REQUIRE(found);
    CHECK(*found == i);
  }
  CHECK(g->find_object(objects.addresses[1] + 8).error().code == ErrorCode::NotFound);
  CHECK(g->find_object(0).error().code == ErrorCode::NotFound);
  CHECK(g->find_object(~uint64_t{0}).error().code == ErrorCode::NotFound);
}

TEST_CASE("malformed tables are rejected") {
  ObjectTable objects;
  RootTable roots;
  to_tables(small_fixture(), objects, roots);
  SECTION("unsorted addresses") {
    std::swap(objects.addresses[1], objects.addresses[2]);
    CHECK(HeapGraph::build(objects, roots).error().code == ErrorCode::InvalidArgument);
  }
  SECTION("offsets past the targets") {
    objects.reference_offsets.back() += 1;
    CHECK(HeapGraph::build(objects, roots).error().code == ErrorCode::InvalidArgument);
  }
  SECTION("column length mismatch") {
    objects.sizes.pop_back();
    CHECK(HeapGraph::build(objects, roots).error().code == ErrorCode::InvalidArgument);
  }
  SECTION("root columns mismatch") {
    roots.kinds.pop_back();
    CHECK(HeapGraph::build(objects, roots).error().code == ErrorCode::InvalidArgument);
  }
}

TEST_CASE("empty heap") {
  ObjectTable objects;
  RootTable roots;
  auto g = HeapGraph::build(objects, roots);
  REQUIRE(g);
  CHECK(g->node_count() == 0);
  CHECK(g->build_reverse().is_ok());
  objects.reference_offsets.push_back(0);
  CHECK(HeapGraph::build(objects, roots));
}

TEST_CASE("reverse graph lists every edge once, sources ascending") {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    Fixture f = test::random_fixture(seed, 200, 3.0, 5, 0.2);
    ObjectTable objects;
    RootTable roots;
    to_tables(f, objects, roots);
    auto g = HeapGraph::build(objects, roots);
    REQUIRE(g);
    REQUIRE(g->build_reverse().is_ok());
    std::vector<std::pair<NodeIndex, NodeIndex>> forward, reverse;
    for (NodeIndex v = 0; v < g->node_count(); ++v) {
      for (NodeIndex s : g->successors(v)) forward.emplace_back(v, s);
      auto preds = g->predecessors(v);
      CHECK(std::is_sorted(preds.begin(), preds.end()));
      for (NodeIndex p : preds) reverse.emplace_back(p, v);
    }
    std::sort(forward.begin(), forward.end());
    std::sort(reverse.begin(), reverse.end());
    CHECK(forward == reverse);
  }
}

// The bulk resolver sorts targets in chunks whose size depends on the address span; compare
// it with a plain search over several chunks, sparse spans and misaligned targets.
TEST_CASE("bulk address resolution matches a per-edge search") {
  // The last span is too wide to pack into the sort key and takes the per-edge fallback.
  const uint64_t spans[] = {uint64_t{1} << 20, uint64_t{1} << 36, uint64_t{1} << 46, uint64_t{1} << 55};
  for (uint64_t span : spans) {
    std::mt19937_64 rng(span);
    ObjectTable objects;
    const size_t n = 50000;
    for (size_t i = 0; i < n; ++i) objects.addresses.push_back(0x10000 + (rng() % span) * 8);
    std::sort(objects.addresses.begin(), objects.addresses.end());
    objects.addresses.erase(std::unique(objects.addresses.begin(), objects.addresses.end()), objects.addresses.end());
    const size_t m = objects.addresses.size();
    objects.sizes.assign(m, 8);
    objects.type_ids.assign(m, 1);
    const size_t edges = span == (uint64_t{1} << 46) ? 2'500'000 : 200'000;
    objects.reference_offsets.assign(m + 1, 0);
    std::vector<NodeIndex> expected;
    for (size_t e = 0; e < edges; ++e) {
      const uint64_t pick = rng() % 4;
      uint64_t t = objects.addresses[rng() % m];
      if (pick == 1) t += 4;                  // misaligned
      if (pick == 2) t = 0x10000 + (rng() % span) * 8;  // probably no object
      objects.reference_targets.push_back(t);
      auto it = std::lower_bound(objects.addresses.begin(), objects.addresses.end(), t);
      expected.push_back(it != objects.addresses.end() && *it == t
                             ? static_cast<NodeIndex>(it - objects.addresses.begin()) : kNoNode);
    }
    objects.reference_offsets.back() = edges;  // all edges belong to the last object
    auto g = HeapGraph::build(objects, RootTable{});
    REQUIRE(g);
    std::vector<NodeIndex> resolved_expected;
    for (NodeIndex t : expected)
      if (t != kNoNode) resolved_expected.push_back(t);
    auto got = g->successors(static_cast<NodeIndex>(m - 1));
    CHECK(std::vector<NodeIndex>(got.begin(), got.end()) == resolved_expected);
    CHECK(g->stats().unresolved_references == edges - resolved_expected.size());
  }
}

TEST_CASE("CSR offsets (internal) are 32-bit while the edges fit, 64-bit beyond") {
  detail::CsrOffsets narrow;
  narrow.reset(4, UINT32_MAX);
  CHECK(narrow.narrow().size() == 4);
  CHECK(narrow.wide().empty());
  narrow.set(3, UINT32_MAX);
  CHECK(narrow[3] == UINT32_MAX);
  CHECK(narrow[0] == 0);
  detail::CsrOffsets wide;
  wide.reset(4, uint64_t{UINT32_MAX} + 1);
  CHECK(wide.narrow().empty());
  REQUIRE(wide.wide().size() == 4);
  wide.set(2, uint64_t{1} << 40);
  CHECK(wide[2] == uint64_t{1} << 40);
  CHECK_FALSE(wide.empty());
  CHECK(detail::CsrOffsets{}.empty());
}

TEST_CASE("find_containing_each answers as find_containing, for sorted and unsorted queries") {
  // Objects with gaps, a zero-size object and one ending at 2^64.
  const std::vector<uint64_t> addresses = {0x1000, 0x1010, 0x1010 + 0x30, 0x2000, 0x2008, ~uint64_t{0} - 0x10};
  const std::vector<uint64_t> sizes = {0x10, 0x30, 0x8, 0, 0x18, 0x40};
  std::vector<uint64_t> queries = {0, 0xFFF, 0x1000, 0x100F, 0x1010, 0x103F, 0x1040, 0x1047, 0x1048, 0x1FFF,
                                   0x2000, 0x2001, 0x2008, 0x201F, 0x2020, ~uint64_t{0} - 0x11,
                                   ~uint64_t{0} - 0x10, ~uint64_t{0}};
  auto expect_same = [&](const std::vector<uint64_t>& q) {
    const auto found = find_containing_each(addresses, sizes, q);
    REQUIRE(found.size() == q.size());
    for (size_t k = 0; k < q.size(); ++k) {
      INFO("query " << q[k]);
      CHECK(found[k] == find_containing(addresses, sizes, q[k]));
    }
  };
  expect_same(queries);  // ascending, with repeats of the same object
  std::vector<uint64_t> backwards(queries.rbegin(), queries.rend());
  expect_same(backwards);
  // Mixed order and repeats, and many objects (galloping far ahead, then back).
  std::vector<uint64_t> many, many_sizes;
  for (uint64_t i = 0; i < 5000; ++i) {
    many.push_back(0x10000 + i * 0x40 + (i % 7) * 8);
    many_sizes.push_back(i % 11 == 0 ? 0 : 0x20);
  }
  std::vector<uint64_t> mixed;
  for (uint64_t i = 0; i < 3000; ++i) mixed.push_back(0x10000 + (i * 7919 % 5003) * 0x40 + (i % 5) * 8);
  std::sort(mixed.begin(), mixed.begin() + 1500);  // half sorted, then random
  const auto found = find_containing_each(many, many_sizes, mixed);
  size_t hits = 0;
  for (size_t k = 0; k < mixed.size(); ++k) {
    REQUIRE(found[k] == find_containing(many, many_sizes, mixed[k]));
    hits += found[k].has_value();
  }
  CHECK(hits > 1000);  // the queries do land inside objects
  CHECK(find_containing_each(many, many_sizes, {}).empty());
  CHECK_FALSE(find_containing_each({}, {}, std::vector<uint64_t>{5})[0]);
}
