#pragma once
// Synthetic heaps for the analysis tests: an adjacency list turned into the reader's
// ObjectTable/RootTable, plus brute-force oracles that follow the definitions directly.

#include <algorithm>
#include <memory>
#include <cstdint>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "gcsnap/heap_graph.hpp"
#include "gcsnap/model.hpp"
#include "gcsnap/reader.hpp"

namespace gcsnap::test {

struct FixtureRoot {
  uint32_t node;
  RootKind kind = RootKind::Handle;
  uint8_t flags = 0;
  uint64_t root_id = 0;
};

struct Fixture {
  std::vector<std::vector<uint32_t>> edges;  // node -> targets (node indices)
  std::vector<uint64_t> sizes;
  std::vector<uint32_t> types;
  std::vector<FixtureRoot> roots;
  std::vector<std::pair<uint32_t, uint64_t>> dangling;  // (source, address of no object)

  size_t size() const { return edges.size(); }
};

/// Objects laid out from `base` in node order (so node i is the i-th address), with the
/// fixture's edges as addresses and dangling edges appended to their source.
inline void to_tables(const Fixture& f, ObjectTable& objects, RootTable& roots, uint64_t base = 0x7f0000001000) {
  const size_t n = f.size();
  objects = ObjectTable{};
  uint64_t address = base;
  for (size_t i = 0; i < n; ++i) {
    objects.addresses.push_back(address);
    address += f.sizes[i];
  }
  objects.sizes = f.sizes;
  objects.type_ids = f.types;
  objects.generations.assign(n, Generation::Gen0);
  objects.reference_offsets.push_back(0);
  for (size_t i = 0; i < n; ++i) {
    for (uint32_t t : f.edges[i]) objects.reference_targets.push_back(objects.addresses[t]);
    for (const auto& d : f.dangling)
      if (d.first == i) objects.reference_targets.push_back(d.second);
    objects.reference_offsets.push_back(objects.reference_targets.size());
  }
  roots = RootTable{};
  for (const auto& r : f.roots) {
    roots.object_ids.push_back(objects.addresses[r.node]);
    roots.kinds.push_back(r.kind);
    roots.flags.push_back(r.flags);
    roots.root_ids.push_back(r.root_id);
  }
}

/// A random heap: n objects, mean out-degree about `degree`, edges mostly to nearby objects,
/// a few roots of random kinds, some weak.
inline Fixture random_fixture(uint32_t seed, uint32_t n, double degree, uint32_t root_count, double weak_share) {
  std::mt19937 rng(seed);
  Fixture f;
  f.edges.resize(n);
  std::uniform_int_distribution<uint32_t> node(0, n - 1);
  std::uniform_int_distribution<int> size_words(3, 12);
  std::uniform_int_distribution<uint32_t> type(1, 6);
  std::poisson_distribution<int> out_degree(degree);
  std::uniform_real_distribution<double> unit(0, 1);
  for (uint32_t i = 0; i < n; ++i) {
    f.sizes.push_back(8u * static_cast<uint64_t>(size_words(rng)));
    f.types.push_back(type(rng));
    const int d = out_degree(rng);
    for (int k = 0; k < d; ++k) {
      if (unit(rng) < 0.6) {
        const int delta = static_cast<int>(rng() % 9) - 4;
        const int64_t t = static_cast<int64_t>(i) + delta;
        f.edges[i].push_back(static_cast<uint32_t>(std::clamp<int64_t>(t, 0, n - 1)));
      } else {
        f.edges[i].push_back(node(rng));
      }
    }
  }
  const RootKind kinds[] = {RootKind::Stack, RootKind::Finalizer, RootKind::Handle, RootKind::Other};
  for (uint32_t r = 0; r < root_count; ++r) {
    FixtureRoot root{node(rng), kinds[rng() % 4], 0, rng()};
    if (unit(rng) < weak_share) root.flags |= root_flags::kWeakRef;
    f.roots.push_back(root);
  }
  return f;
}

/// BFS distances from the allowed roots over the fixture's edges; -1 when unreachable.
/// `removed` (if < n) is treated as absent.
inline std::vector<int64_t> oracle_distances(const Fixture& f, bool include_weak, uint32_t removed = UINT32_MAX) {
  std::vector<int64_t> dist(f.size(), -1);
  std::vector<uint32_t> queue;
  for (const auto& r : f.roots) {
    if ((r.flags & root_flags::kWeakRef) && !include_weak) continue;
    if (r.node == removed || dist[r.node] == 0) continue;
    dist[r.node] = 0;
    queue.push_back(r.node);
  }
  for (size_t head = 0; head < queue.size(); ++head) {
    const uint32_t v = queue[head];
    for (uint32_t s : f.edges[v]) {
      if (s == removed || dist[s] >= 0) continue;
      dist[s] = dist[v] + 1;
      queue.push_back(s);
    }
  }
  return dist;
}

/// dominated[d] = the nodes d dominates (itself included), by the definition: v is dominated
/// by d iff v is reachable and becomes unreachable when d is removed.
inline std::vector<std::vector<uint32_t>> oracle_dominated(const Fixture& f, bool include_weak) {
  const auto base = oracle_distances(f, include_weak);
  std::vector<std::vector<uint32_t>> dominated(f.size());
  for (uint32_t d = 0; d < f.size(); ++d) {
    if (base[d] < 0) continue;
    const auto without = oracle_distances(f, include_weak, d);
    for (uint32_t v = 0; v < f.size(); ++v)
      if (base[v] >= 0 && (v == d || without[v] < 0)) dominated[d].push_back(v);
  }
  return dominated;
}

/// A fixture turned into reader tables and a built HeapGraph (reverse CSR too when asked).
struct BuiltGraph {
  ObjectTable objects;
  RootTable roots;
  HeapGraph graph;
};

inline std::unique_ptr<BuiltGraph> build_graph(const Fixture& f, bool with_reverse) {
  auto b = std::make_unique<BuiltGraph>();
  to_tables(f, b->objects, b->roots);
  auto g = HeapGraph::build(b->objects, b->roots);
  REQUIRE(g);
  b->graph = std::move(g).value();
  if (with_reverse) REQUIRE(b->graph.build_reverse().is_ok());
  return b;
}

}  // namespace gcsnap::test
