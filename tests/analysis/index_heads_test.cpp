// The analysis index's largest heads (format-spec.md §12.3 array 18, minor 3): what the build
// stores is top_retainer_chains over the tree computed from the recording; `dominators --top`
// ranked from them gives the rows it computes from the arrays; a damaged or forged table is
// refused; an index of minor 2, without it, still reads and `index` rebuilds it.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "analysis_index/index_layout.hpp"
#include "gcsnap/analysis_index.hpp"
#include "gcsnap/gc_heap.hpp"
#include "gcsnap/retainer_chains.hpp"
#include "file_bytes.hpp"
#include "index_test_walk.hpp"
#include "handlers_sample.hpp"
#include "random_recording.hpp"
#include "temp_path.hpp"

using namespace gcsnap;
using namespace gcsnap::test;
namespace L = gcsnap::index_layout;

namespace {

// The heap decoded from the recording, both ways, for its dominator tree (computed, no index).
std::unique_ptr<GcHeap> computed_heap(const std::string& path, const OpenedWalk& o) {
  GcHeapOptions options;
  options.needs = kNeedGraph | kNeedPredecessors;
  auto heap = GcHeap::open(path, *o.rec, o.gc, options);
  REQUIRE(heap);
  return std::move(heap).value();
}

// The rows `dominators --top N` computes over the decoded heap (cmd_dominators' by_object).
std::vector<IndexedRetainer> computed_rows(const HeapGraph& g, const DominatorTree& dom, size_t n,
                                           std::span<const uint32_t> types) {
  auto chains = top_retainer_chains(g, dom, n, types);
  REQUIRE(chains);
  std::vector<IndexedRetainer> rows;
  for (const RetainerChain& c : *chains) {
    IndexedRetainer r;
    r.object = {c.head, g.address(c.head), g.object_size(c.head), g.type_id(c.head)};
    r.chain = c.length;
    r.retained = dom.retained_size(c.head);
    r.depth = dom.depth(c.head);
    if (const NodeIndex d = dom.immediate_dominator(c.head); d != kVirtualRoot)
      r.dominator = IndexedObject{d, g.address(d), g.object_size(d), g.type_id(d)};
    rows.push_back(r);
  }
  return rows;
}

bool same_rows(const std::vector<IndexedRetainer>& a, const std::vector<IndexedRetainer>& b) {
  auto same_object = [](const IndexedObject& x, const IndexedObject& y) {
    return x.node == y.node && x.address == y.address && x.size == y.size && x.type_id == y.type_id;
  };
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!same_object(a[i].object, b[i].object) || a[i].chain != b[i].chain || a[i].retained != b[i].retained ||
        a[i].depth != b[i].depth || a[i].dominator.has_value() != b[i].dominator.has_value())
      return false;
    if (a[i].dominator && !same_object(*a[i].dominator, *b[i].dominator)) return false;
  }
  return true;
}

// Stored = computed: the records are the 1024 largest heads with their columns, and the point
// reader's top_retainers equals the rows computed, for some N and type filters. Returns how
// many heads are kept.
size_t check_stored(const std::string& path, const OpenedWalk& o) {
  REQUIRE(ensure_analysis_index(path, *o.rec, o.gc));
  const auto heap = computed_heap(path, o);
  const HeapGraph& g = heap->graph;
  auto dom = DominatorTree::compute(g);
  REQUIRE(dom);
  auto ix = read_analysis_index(o.index, o.id, kIndexHolders);
  REQUIRE(ix);
  REQUIRE(ix->largest_heads);
  const auto expected = computed_rows(g, *dom, L::kHeadsKept, {});
  REQUIRE(ix->largest_heads->size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const LargestHead& h = (*ix->largest_heads)[i];
    CHECK(h.node == expected[i].object.node);
    CHECK(h.type_id == expected[i].object.type_id);
    CHECK(h.retained == expected[i].retained);
    CHECK(h.chain == expected[i].chain);
    CHECK(h.depth == expected[i].depth);
    CHECK(h.dominator == dom->immediate_dominator(h.node));
  }
  auto point = PointIndex::open(o.index, o.id);
  REQUIRE(point);
  CHECK(point->minor_version() == L::kMinor);
  auto heads = point->largest_heads();
  REQUIRE(heads);
  REQUIRE(*heads);
  CHECK(**heads == *ix->largest_heads);  // the point reader and the whole read agree
  std::vector<uint32_t> all_types;
  for (NodeIndex v = 0; v < g.node_count(); ++v) all_types.push_back(g.type_id(v));
  std::sort(all_types.begin(), all_types.end());
  all_types.erase(std::unique(all_types.begin(), all_types.end()), all_types.end());
  const std::vector<std::vector<uint32_t>> filters = {
      {},
      {all_types.front()},
      {all_types.back()},
      std::vector<uint32_t>(all_types.begin(), all_types.begin() + 1 + all_types.size() / 2)};
  for (const auto& types : filters)
    for (size_t n : {size_t{1}, size_t{10}, size_t{1500}}) {
      auto rows = point->top_retainers(n, types, true);
      REQUIRE(rows);
      CHECK(same_rows(*rows, computed_rows(g, *dom, n, types)));
    }
  return expected.size();
}

}  // namespace

TEST_CASE("the largest heads equal the chains computed from the recording", "[index][heads]") {
  SECTION("a heap with event and timer holder patterns") {
    TempFile snap{"heads"};
    REQUIRE(write_handlers_sample(snap.path()));
    const OpenedWalk o = open_last_walk(snap.path());
    CHECK(check_stored(snap.path(), o) > 0);
    std::remove(o.index.c_str());
  }
  SECTION("random heaps, some with more heads than are kept") {
    bool full = false;
    for (uint64_t seed : {21u, 22u, 23u, 24u}) {
      TempFile snap{"heads"};
      write_random_rooted(snap.path(), seed, seed % 2 ? 400 : 6000, 30);
      const OpenedWalk o = open_last_walk(snap.path());
      full = full || check_stored(snap.path(), o) == L::kHeadsKept;
      std::remove(o.index.c_str());
    }
    CHECK(full);  // a heap had more heads than are kept: the filters then read the arrays too
  }
}

TEST_CASE("a damaged or forged heads table is refused; the other arrays still read", "[index][heads]") {
  TempFile snap{"heads"};
  write_random_rooted(snap.path(), 41, 3000, 30);
  const OpenedWalk o = open_last_walk(snap.path());
  check_stored(snap.path(), o);
  const std::vector<char> good = slurp(o.index);
  {  // array 18 is the file's last: flip a byte of its last frame
    std::vector<char> bad = good;
    bad[bad.size() - 1] ^= 0x20;
    spit(o.index, bad);
    CHECK_FALSE(read_analysis_index(o.index, o.id, kIndexHolders));
    CHECK(read_analysis_index(o.index, o.id, kIndexTypes | kIndexObjects | kIndexDominators));
    auto point = PointIndex::open(o.index, o.id);
    REQUIRE(point);
    CHECK_FALSE(point->largest_heads());
    CHECK_FALSE(point->top_retainers(10, {}, true));
  }
  auto refused = [&](auto&& forge) {
    std::vector<char> bad = good;
    forge(bad);
    rehash_index_header(bad);
    spit(o.index, bad);
    return !read_analysis_index(o.index, o.id, kIndexHolders) && !PointIndex::open(o.index, o.id);
  };
  CHECK(refused([](auto& b) { store_at<uint16_t>(b, L::kOffMinor, 2); }));  // the flag on minor 2
  CHECK(refused([](auto& b) {
    store_at<uint32_t>(b, L::kOffFlags, load_at<uint32_t>(b, L::kOffFlags) & ~(L::kFlagHolders | L::kFlagNearest));
  }));
  CHECK(refused([](auto& b) { store_at<uint16_t>(b, L::kOffMinor, L::kMinor + 1); }));
  spit(o.index, good);
  // Rows forged with their checksums right: out of order; a type id that is not the object's.
  rewrite_index(o, [](AnalysisIndex& ix) { std::swap((*ix.largest_heads)[0], (*ix.largest_heads)[1]); });
  CHECK_FALSE(read_analysis_index(o.index, o.id, kIndexHolders));
  spit(o.index, good);
  rewrite_index(o, [](AnalysisIndex& ix) { (*ix.largest_heads)[0].type_id ^= 1; });
  {
    auto point = PointIndex::open(o.index, o.id);
    REQUIRE(point);
    auto rows = point->top_retainers(1, {}, true);
    REQUIRE_FALSE(rows);
    CHECK(rows.error().code == ErrorCode::CorruptSection);
  }
  std::remove(o.index.c_str());
}

TEST_CASE("an index of minor 2 has no largest heads, still ranks, and `index` rebuilds it", "[index][heads]") {
  TempFile snap{"heads"};
  write_random_rooted(snap.path(), 51, 1500, 30);
  const OpenedWalk o = open_last_walk(snap.path());
  check_stored(snap.path(), o);
  const std::vector<char> current = slurp(o.index);
  std::vector<IndexedRetainer> ranked;
  {
    auto point = PointIndex::open(o.index, o.id);
    REQUIRE(point);
    auto rows = point->top_retainers(20, {}, true);
    REQUIRE(rows);
    ranked = *rows;
  }
  // As a minor 2 writer wrote it: array 18 without the records, flag bit 5 clear.
  rewrite_index(o, [](AnalysisIndex& ix) { ix.largest_heads.reset(); });
  CHECK((load_at<uint32_t>(slurp(o.index), L::kOffFlags) & L::kFlagHeads) == 0);
  mark_minor(o, 2);
  {  // closed before the rebuild: Windows does not replace a file that is still mapped
    auto whole = read_analysis_index(o.index, o.id, kIndexAll);
    REQUIRE(whole);
    CHECK_FALSE(whole->largest_heads);
    CHECK(whole->nearest_instances);
    auto point = PointIndex::open(o.index, o.id);
    REQUIRE(point);
    CHECK(point->minor_version() == 2);
    auto heads = point->largest_heads();
    REQUIRE(heads);
    CHECK_FALSE(*heads);
    auto rows = point->top_retainers(20, {}, true);  // computed from the arrays
    REQUIRE(rows);
    CHECK(same_rows(*rows, ranked));
  }
  check_rebuilt(snap.path(), o, current);
  std::remove(o.index.c_str());
}
