// The analysis index's holder table (format-spec.md §12.3 array 18, minor 1): what the build
// stores is what describe_type_holders computes from the recording; a damaged table is refused
// (the command then computes); an index of minor 0, without the table, still reads.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "analysis_index/index_layout.hpp"
#include "gcsnap/analysis_index.hpp"
#include "gcsnap/gc_heap.hpp"
#include "gcsnap/type_holder_cells.hpp"
#include "file_bytes.hpp"
#include "index_test_walk.hpp"
#include "handlers_sample.hpp"
#include "random_recording.hpp"
#include "temp_path.hpp"

using namespace gcsnap;
using namespace gcsnap::test;
namespace L = gcsnap::index_layout;

namespace {

// The HELD BY cells `dominators --by type` computes without an index, for the types the
// table keeps: the first kHeldByRows by retained bytes.
std::vector<IndexedTypeHolder> computed_holders(const std::string& path, const OpenedWalk& o) {
  GcHeapOptions options;
  options.needs |= kNeedFieldNames;
  auto heap = GcHeap::open(path, *o.rec, o.gc, options);
  REQUIRE(heap);
  GcHeap& h = **heap;
  auto dom = h.find_dominators(false);
  REQUIRE(dom);
  auto hist = h.find_type_histogram(false, TypeHistogramOptions{TypeOrder::RetainedBytes, kHeldByRows});
  REQUIRE(hist);
  std::vector<uint32_t> types;
  for (const TypeStats& t : *hist) types.push_back(t.type_id);
  const EdgeNamer namer = h.edge_namer();
  const TypeHolderInput input{h.graph, **dom, h.names, h.delegates, [&]() -> Result<HolderPathSources> {
                                auto tree = h.find_path_tree();
                                if (!tree) return tree.error();
                                return HolderPathSources{*tree, &namer};
                              }};
  auto cells = describe_type_holders(input, types);
  REQUIRE(cells);
  std::vector<IndexedTypeHolder> out;
  for (size_t i = 0; i < types.size(); ++i) out.push_back({types[i], (*cells)[i]});
  return out;
}

std::vector<IndexedTypeHolder> stored_holders(const std::string& path, const OpenedWalk& o) {
  REQUIRE(ensure_analysis_index(path, *o.rec, o.gc));
  auto ix = read_analysis_index(o.index, o.id, kIndexHolders);
  REQUIRE(ix);
  REQUIRE(ix->type_holders);
  auto point = PointIndex::open(o.index, o.id);
  REQUIRE(point);
  CHECK(point->minor_version() == L::kMinor);
  auto stats = point->type_stats();
  REQUIRE(stats);
  auto rows = point->type_holders(*stats);
  REQUIRE(rows);
  REQUIRE(*rows);
  CHECK(**rows == *ix->type_holders);  // the point reader and the whole read agree
  return *ix->type_holders;
}

// INDEX (a minor 1 file) as a minor 0 writer would have written it: no array 18, its header
// fields zero.
std::vector<char> as_minor_zero(std::vector<char> b) {
  const auto coded = load_at<uint64_t>(b, L::kOffHolderCoded);
  b.resize(b.size() - static_cast<size_t>(coded));
  std::fill(b.begin() + L::kOffHolderHash, b.begin() + L::kOffArrayHashes, 0);
  store_at<uint16_t>(b, L::kOffMinor, 0);
  store_at<uint32_t>(b, L::kOffFlags, load_at<uint32_t>(b, L::kOffFlags) & ~(L::kFlagHolders | L::kFlagNearest | L::kFlagHeads));
  rehash_index_header(b);
  return b;
}

}  // namespace

TEST_CASE("the holder table equals the holders computed from the recording", "[index][holder]") {
  SECTION("a heap with event and timer holder patterns") {
    TempFile snap{"holders"};
    REQUIRE(write_handlers_sample(snap.path()));
    const OpenedWalk o = open_last_walk(snap.path());
    const auto expected = computed_holders(snap.path(), o);
    const auto stored = stored_holders(snap.path(), o);
    CHECK(stored == expected);
    // The sample's patterns are named (else this test would not test the texts).
    CHECK(std::any_of(stored.begin(), stored.end(), [](const IndexedTypeHolder& h) {
      return h.cell.text.find("(static event)") != std::string::npos;
    }));
    std::remove(o.index.c_str());
  }
  SECTION("random heaps") {
    for (uint64_t seed : {11u, 12u, 13u}) {
      TempFile snap{"holders"};
      for (uint64_t s = seed;; s += 1000) {
        REQUIRE(write_model(snap.path(), make_random_gcs(s, 3, ModelOptions{400, 30}), WriterOptions{}).is_ok());
        if ((*Recording::open(snap.path()))->last_snapshot()) break;
      }
      const OpenedWalk o = open_last_walk(snap.path());
      const auto expected = computed_holders(snap.path(), o);
      CHECK(!expected.empty());
      CHECK(stored_holders(snap.path(), o) == expected);
      std::remove(o.index.c_str());
    }
  }
}

TEST_CASE("a damaged holder table is refused; the other arrays still read", "[index][holder]") {
  TempFile snap{"holders"};
  REQUIRE(write_handlers_sample(snap.path()));
  const OpenedWalk o = open_last_walk(snap.path());
  (void)stored_holders(snap.path(), o);
  const std::vector<char> good = slurp(o.index);
  const auto coded = static_cast<size_t>(load_at<uint64_t>(good, L::kOffHolderCoded));
  REQUIRE(coded > 0);
  const size_t table = good.size() - coded;  // array 18 is last (§12.3)
  for (size_t at : {table + 2, table + coded / 2, good.size() - 1}) {
    std::vector<char> bad = good;
    bad[at] ^= 0x20;
    spit(o.index, bad);
    CHECK_FALSE(read_analysis_index(o.index, o.id, kIndexHolders));
    CHECK_FALSE(read_analysis_index(o.index, o.id, kIndexAll));
    CHECK(read_analysis_index(o.index, o.id, kIndexTypes | kIndexObjects | kIndexDominators));
    auto point = PointIndex::open(o.index, o.id);
    REQUIRE(point);
    auto stats = point->type_stats();
    REQUIRE(stats);
    CHECK_FALSE(point->type_holders(*stats));
  }
  // A header that says the table is longer or shorter than its bytes.
  for (int32_t delta : {-1, 1}) {
    std::vector<char> bad = good;
    store_at<uint32_t>(bad, L::kOffHolderText, load_at<uint32_t>(bad, L::kOffHolderText) + delta);
    rehash_index_header(bad);
    spit(o.index, bad);
    CHECK_FALSE(read_analysis_index(o.index, o.id, kIndexHolders));
  }
  // More rows than types, and the flag on a minor 0 index.
  std::vector<char> bad = good;
  store_at<uint32_t>(bad, L::kOffHolderRows, static_cast<uint32_t>(load_at<uint64_t>(bad, L::kOffTypes) + 1));
  rehash_index_header(bad);
  spit(o.index, bad);
  CHECK(read_analysis_index(o.index, o.id, kIndexTypes).error().code == ErrorCode::CorruptSection);
  bad = good;
  store_at<uint16_t>(bad, L::kOffMinor, 0);
  rehash_index_header(bad);
  spit(o.index, bad);
  CHECK(read_analysis_index(o.index, o.id, kIndexTypes).error().code == ErrorCode::CorruptSection);
  bad = good;
  store_at<uint16_t>(bad, L::kOffMinor, L::kMinor + 1);
  rehash_index_header(bad);
  spit(o.index, bad);
  CHECK(read_analysis_index(o.index, o.id, kIndexTypes).error().code == ErrorCode::UnsupportedVersion);
  std::remove(o.index.c_str());
}

TEST_CASE("an index of minor 0 has no holder table, still reads, and `index` rebuilds it", "[index][holder]") {
  TempFile snap{"holders"};
  REQUIRE(write_handlers_sample(snap.path()));
  const OpenedWalk o = open_last_walk(snap.path());
  const auto stored = stored_holders(snap.path(), o);
  const std::vector<char> current = slurp(o.index);
  spit(o.index, as_minor_zero(current));
  {  // closed before the rebuild: Windows does not replace a file that is still mapped
    auto whole = read_analysis_index(o.index, o.id, kIndexAll);
    REQUIRE(whole);
    CHECK_FALSE(whole->type_holders);
    CHECK(!whole->type_stats.empty());
    auto point = PointIndex::open(o.index, o.id);
    REQUIRE(point);
    CHECK(point->minor_version() == 0);
    auto stats = point->type_stats();
    REQUIRE(stats);
    auto rows = point->type_holders(*stats);
    REQUIRE(rows);
    CHECK_FALSE(*rows);
  }
  // `gcsnap index` brings it to minor 1; the commands meanwhile use it as it is.
  check_rebuilt(snap.path(), o, current);
  CHECK(stored_holders(snap.path(), o) == stored);
  std::remove(o.index.c_str());
}
