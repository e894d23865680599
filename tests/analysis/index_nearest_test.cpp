// The analysis index's nearest instances (format-spec.md §12.3 array 18, minor 2): what the
// build stores is each type's instances ranked by their hops in the shortest-path tree computed
// from the recording; a damaged or forged table is refused; an index of minor 1, without it,
// still reads and `index` rebuilds it.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "analysis_index/index_layout.hpp"
#include "gcsnap/analysis_index.hpp"
#include "gcsnap/gc_heap.hpp"
#include "file_bytes.hpp"
#include "index_test_walk.hpp"
#include "handlers_sample.hpp"
#include "random_recording.hpp"
#include "temp_path.hpp"

using namespace gcsnap;
using namespace gcsnap::test;
namespace L = gcsnap::index_layout;

namespace {

constexpr uint32_t kPerType = 64;  // what the build keeps (index_nearest_instances.hpp)

// Each type's PER_TYPE instances with the fewest hops (node order among equals), ranked as
// `path --type` ranks them over the tree computed from the decoded recording.
NearestInstances computed_nearest(const std::string& path, const OpenedWalk& o, uint32_t per_type) {
  GcHeapOptions options;
  options.needs = kNeedGraph;
  auto heap = GcHeap::open(path, *o.rec, o.gc, options);
  REQUIRE(heap);
  const HeapGraph& g = (*heap)->graph;
  auto tree = ShortestPathTree::compute(g, RetentionOptions{});
  REQUIRE(tree);
  std::map<uint32_t, std::vector<std::pair<size_t, NodeIndex>>> by_type;
  for (NodeIndex v = 0; v < g.node_count(); ++v)
    if (const size_t hops = tree->hops_to(v); hops != SIZE_MAX) by_type[g.type_id(v)].emplace_back(hops, v);
  NearestInstances out;
  out.per_type = per_type;
  for (auto& [type, ranked] : by_type) {
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = 0; i < std::min<size_t>(ranked.size(), per_type); ++i)
      out.rows.push_back({type, ranked[i].second, static_cast<uint32_t>(ranked[i].first)});
  }
  return out;
}

NearestInstances stored_nearest(const std::string& path, const OpenedWalk& o) {
  REQUIRE(ensure_analysis_index(path, *o.rec, o.gc));
  auto ix = read_analysis_index(o.index, o.id, kIndexHolders);
  REQUIRE(ix);
  REQUIRE(ix->nearest_instances);
  auto point = PointIndex::open(o.index, o.id);
  REQUIRE(point);
  CHECK(point->minor_version() == L::kMinor);
  auto stats = point->type_stats();
  REQUIRE(stats);
  auto nearest = point->nearest_instances(*stats);
  REQUIRE(nearest);
  REQUIRE(*nearest);
  CHECK(**nearest == *ix->nearest_instances);  // the point reader and the whole read agree
  // Each row's path is its hops long, from the pieces.
  auto paths = point->tree_paths_of(ix->nearest_instances->rows);
  REQUIRE(paths);
  for (size_t i = 0; i < paths->paths.size(); ++i) {
    CHECK(paths->paths[i].hops() == ix->nearest_instances->rows[i].hops);
    CHECK(paths->paths[i].nodes.back() == ix->nearest_instances->rows[i].node);
  }
  return *ix->nearest_instances;
}

}  // namespace

TEST_CASE("the nearest instances equal the ranking computed from the recording", "[index][nearest]") {
  SECTION("a heap with event and timer holder patterns") {
    TempFile snap{"nearest"};
    REQUIRE(write_handlers_sample(snap.path()));
    const OpenedWalk o = open_last_walk(snap.path());
    const auto expected = computed_nearest(snap.path(), o, kPerType);
    CHECK(!expected.rows.empty());
    CHECK(stored_nearest(snap.path(), o) == expected);
    std::remove(o.index.c_str());
  }
  SECTION("random heaps, with types of more instances than are kept") {
    bool truncated = false;
    for (uint64_t seed : {21u, 22u, 23u, 24u}) {
      TempFile snap{"nearest"};
      write_random_rooted(snap.path(), seed, seed % 2 ? 400 : 3000, 30);
      const OpenedWalk o = open_last_walk(snap.path());
      const auto expected = computed_nearest(snap.path(), o, kPerType);
      CHECK(!expected.rows.empty());
      CHECK(stored_nearest(snap.path(), o) == expected);
      truncated = truncated || expected.rows.size() < computed_nearest(snap.path(), o, UINT32_MAX).rows.size();
      std::remove(o.index.c_str());
    }
    CHECK(truncated);  // some type had more reachable instances than are kept
  }
}

TEST_CASE("the search order gives the tree's hops level by level", "[index][nearest]") {
  TempFile snap{"nearest"};
  write_random_rooted(snap.path(), 31, 2000, 25);
  const OpenedWalk o = open_last_walk(snap.path());
  GcHeapOptions options;
  options.needs = kNeedGraph;
  auto heap = GcHeap::open(snap.path(), *o.rec, o.gc, options);
  REQUIRE(heap);
  ShortestPathTree::SearchOrder order;
  auto tree = ShortestPathTree::compute_in_order((*heap)->graph, RetentionOptions{}, order);
  REQUIRE(tree);
  REQUIRE(order.order.size() == tree->reached_count());
  REQUIRE(!order.level_ends.empty());
  CHECK(order.level_ends.back() == order.order.size());
  size_t level = 0;
  for (size_t i = 0; i < order.order.size(); ++i) {
    while (i >= order.level_ends[level]) ++level;
    CHECK(tree->hops_to(order.order[i]) == level);
  }
}

TEST_CASE("a damaged or forged nearest table is refused; the other arrays still read", "[index][nearest]") {
  TempFile snap{"nearest"};
  write_random_rooted(snap.path(), 41, 3000, 30);
  const OpenedWalk o = open_last_walk(snap.path());
  const auto stored = stored_nearest(snap.path(), o);
  REQUIRE(stored.rows.size() > 2);
  const std::vector<char> good = slurp(o.index);
  // The table is the end of array 18, the file's last array: flip a byte of its last frame.
  {
    std::vector<char> bad = good;
    bad[bad.size() - 1] ^= 0x20;
    spit(o.index, bad);
    CHECK_FALSE(read_analysis_index(o.index, o.id, kIndexHolders));
    CHECK(read_analysis_index(o.index, o.id, kIndexTypes | kIndexObjects | kIndexPathTree));
    auto point = PointIndex::open(o.index, o.id);
    REQUIRE(point);
    auto stats = point->type_stats();
    REQUIRE(stats);
    CHECK_FALSE(point->nearest_instances(*stats));
  }
  // Counts that do not match the bytes, the flag without the holder table or on minor 1, k = 0.
  auto refused = [&](auto&& forge) {
    std::vector<char> bad = good;
    forge(bad);
    rehash_index_header(bad);
    spit(o.index, bad);
    return !read_analysis_index(o.index, o.id, kIndexHolders);
  };
  CHECK(refused(
      [](auto& b) { store_at<uint32_t>(b, L::kOffNearestRows, load_at<uint32_t>(b, L::kOffNearestRows) + 1); }));
  CHECK(refused(
      [](auto& b) { store_at<uint32_t>(b, L::kOffNearestRows, load_at<uint32_t>(b, L::kOffNearestRows) - 1); }));
  CHECK(refused([](auto& b) { store_at<uint32_t>(b, L::kOffNearestPerType, 0); }));
  CHECK(refused([](auto& b) { store_at<uint32_t>(b, L::kOffNearestPerType, kPerType - 1); }));
  CHECK(refused([](auto& b) { store_at<uint16_t>(b, L::kOffMinor, 1); }));
  CHECK(refused(
      [](auto& b) { store_at<uint32_t>(b, L::kOffFlags, load_at<uint32_t>(b, L::kOffFlags) & ~L::kFlagHolders); }));
  CHECK(refused([](auto& b) { store_at<uint16_t>(b, L::kOffMinor, L::kMinor + 1); }));
  spit(o.index, good);
  // Rows forged with their checksums right: out of order, and hops a path does not have.
  rewrite_index(o, [](AnalysisIndex& ix) { std::swap(ix.nearest_instances->rows[0], ix.nearest_instances->rows[1]); });
  CHECK_FALSE(read_analysis_index(o.index, o.id, kIndexHolders));
  spit(o.index, good);
  rewrite_index(o, [](AnalysisIndex& ix) {
    for (NearestInstance& r : ix.nearest_instances->rows) ++r.hops;
  });
  {
    auto point = PointIndex::open(o.index, o.id);
    REQUIRE(point);
    auto stats = point->type_stats();
    REQUIRE(stats);
    auto nearest = point->nearest_instances(*stats);
    REQUIRE(nearest);  // their rules hold: the hops are checked by the paths
    REQUIRE(*nearest);
    auto paths = point->tree_paths_of(std::span((*nearest)->rows).first(1));
    REQUIRE_FALSE(paths);
    CHECK(paths.error().code == ErrorCode::CorruptSection);
  }
  std::remove(o.index.c_str());
}

TEST_CASE("an index of minor 1 has no nearest instances, still reads, and `index` rebuilds it", "[index][nearest]") {
  TempFile snap{"nearest"};
  write_random_rooted(snap.path(), 51, 1500, 30);
  const OpenedWalk o = open_last_walk(snap.path());
  const auto stored = stored_nearest(snap.path(), o);
  const std::vector<char> current = slurp(o.index);
  // As a minor 1 writer wrote it: array 18 without the rows, flag bit 4 and its counts clear.
  rewrite_index(o, [](AnalysisIndex& ix) {
    ix.nearest_instances.reset();
    ix.largest_heads.reset();
  });
  CHECK(load_at<uint64_t>(slurp(o.index), L::kOffNearestRows) == 0);
  mark_minor(o, 1);
  {  // closed before the rebuild: Windows does not replace a file that is still mapped
    auto whole = read_analysis_index(o.index, o.id, kIndexAll);
    REQUIRE(whole);
    CHECK_FALSE(whole->nearest_instances);
    CHECK(whole->type_holders);
    auto point = PointIndex::open(o.index, o.id);
    REQUIRE(point);
    CHECK(point->minor_version() == 1);
    auto stats = point->type_stats();
    REQUIRE(stats);
    auto nearest = point->nearest_instances(*stats);
    REQUIRE(nearest);
    CHECK_FALSE(*nearest);
  }
  check_rebuilt(snap.path(), o, current);
  CHECK(stored_nearest(snap.path(), o) == stored);
  std::remove(o.index.c_str());
}
