// GcHeap: one GC's heap gives the same answers from its analysis index and decoded, and the
// index use it is asked for decides whether an index file is read, written or left alone.
#include "gcsnap/gc_heap.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "random_recording.hpp"
#include "temp_path.hpp"

using namespace gcsnap;
using namespace gcsnap::test;

namespace {

struct HeapFixture {
  TempFile snap{"gc_heap"};
  std::unique_ptr<Recording> rec;
  size_t gc = 0;
  std::string index_path;
  // The first random recording from SEED on with a heap walk.
  explicit HeapFixture(uint64_t seed) {
    for (;; seed += 1000) {
      auto model = make_random_gcs(seed, 3, ModelOptions{400, 30});
      rec.reset();  // closed first: Windows cannot truncate a file mapped in memory
      REQUIRE(write_model(snap.path(), model, WriterOptions{}).is_ok());
      auto opened = Recording::open(snap.path());
      REQUIRE(opened);
      rec = std::move(opened).value();
      if (rec->last_snapshot()) break;
    }
    gc = *rec->last_snapshot();
    index_path = analysis_index_path(snap.path(), rec->gcs()[gc].info.gc_number);
    std::remove(index_path.c_str());
  }
  ~HeapFixture() { std::remove(index_path.c_str()); }
  bool has_index_file() const { return std::filesystem::exists(index_path); }
  std::unique_ptr<GcHeap> open(IndexUse use, HeapNeeds needs = kNeedAll) const {
    GcHeapOptions options;
    options.index = use;
    options.needs = needs;
    auto heap = GcHeap::open(snap.path(), *rec, gc, options);
    REQUIRE(heap);
    return std::move(heap).value();
  }
};

void check_same_answers(GcHeap& a, GcHeap& b) {
  REQUIRE(a.graph.node_count() == b.graph.node_count());
  REQUIRE(a.graph.node_count() > 0);
  CHECK(a.graph.edge_count() == b.graph.edge_count());
  CHECK(a.roots.size() == b.roots.size());
  CHECK(a.has_dependent == b.has_dependent);
  auto dom_a = a.find_dominators(false);
  auto dom_b = b.find_dominators(false);
  REQUIRE(dom_a);
  REQUIRE(dom_b);
  auto paths_a = a.find_path_tree();
  auto paths_b = b.find_path_tree();
  REQUIRE(paths_a);
  REQUIRE(paths_b);
  for (NodeIndex v = 0; v < a.graph.node_count(); ++v) {
    REQUIRE(a.graph.address(v) == b.graph.address(v));
    REQUIRE(a.generation(v) == b.generation(v));
    REQUIRE(a.type_name(v) == b.type_name(v));
    REQUIRE((*dom_a)->retained_size(v) == (*dom_b)->retained_size(v));
    REQUIRE((*paths_a)->hops_to(v) == (*paths_b)->hops_to(v));
  }
  const TypeHistogramOptions by_retained{TypeOrder::RetainedBytes, 0};
  auto hist_a = a.find_type_histogram(false, by_retained);
  auto hist_b = b.find_type_histogram(false, by_retained);
  REQUIRE(hist_a);
  REQUIRE(hist_b);
  REQUIRE(hist_a->size() == hist_b->size());
  for (size_t t = 0; t < hist_a->size(); ++t) {
    CHECK((*hist_a)[t].type_id == (*hist_b)[t].type_id);
    CHECK((*hist_a)[t].retained_bytes == (*hist_b)[t].retained_bytes);
    CHECK((*hist_a)[t].generation_bytes == (*hist_b)[t].generation_bytes);
  }
  CHECK(a.type_ids() == b.type_ids());
  CHECK(*a.find_unreachable(false) == *b.find_unreachable(false));
  // Over every root: computed from the graph either way.
  CHECK(*a.find_unreachable(true) == *b.find_unreachable(true));
}

}  // namespace

TEST_CASE("a GC's heap gives the same answers from its index and decoded") {
  HeapFixture f(3);
  auto decoded = f.open(IndexUse::Ignore);
  CHECK(!decoded->is_from_index());
  CHECK(!f.has_index_file());
  CHECK(decoded->objects.size() == decoded->graph.node_count());
  auto built = f.open(IndexUse::Build);
  CHECK(built->is_from_index());
  CHECK(f.has_index_file());
  CHECK(built->objects.size() == 0);  // the index's columns, nothing decoded
  check_same_answers(*decoded, *built);
  auto mapped = f.open(IndexUse::Existing);
  CHECK(mapped->is_from_index());
  check_same_answers(*decoded, *mapped);
}

TEST_CASE("only IndexUse::Build writes an index; OnlyExisting gives no heap without one") {
  HeapFixture f(7);
  auto existing = f.open(IndexUse::Existing);
  CHECK(!existing->is_from_index());
  CHECK(!f.has_index_file());
  GcHeapOptions only;
  only.index = IndexUse::OnlyExisting;
  auto none = GcHeap::open(f.snap.path(), *f.rec, f.gc, only);
  REQUIRE(none);
  CHECK(*none == nullptr);
  CHECK(!find_analysis_index(f.snap.path(), *f.rec, f.gc, kIndexAll));
  CHECK(!f.has_index_file());

  f.open(IndexUse::Build);
  REQUIRE(f.has_index_file());
  auto some = GcHeap::open(f.snap.path(), *f.rec, f.gc, only);
  REQUIRE(some);
  REQUIRE(*some != nullptr);
  CHECK((*some)->is_from_index());
  auto found = find_analysis_index(f.snap.path(), *f.rec, f.gc, kIndexTypeIds);
  REQUIRE(found);
  CHECK(index_vouches_for_block(*found, *f.rec, f.gc));
  // Another GC's block is not the one it was built from.
  for (size_t other = 0; other < f.rec->gcs().size(); ++other)
    if (other != f.gc) CHECK(!index_vouches_for_block(*found, *f.rec, other));
}

TEST_CASE("a heap of fewer index parts refuses what it cannot answer, with an error") {
  HeapFixture f(11);
  f.open(IndexUse::Build);
  auto types_only = f.open(IndexUse::Existing, kNeedHistogram);
  REQUIRE(types_only->is_from_index());
  CHECK(types_only->graph.node_count() == 0);
  CHECK(types_only->find_type_histogram(false, TypeHistogramOptions{}).is_ok());
  CHECK(types_only->find_unreachable(false).is_ok());
  CHECK(types_only->find_dominators(true).error().code == ErrorCode::InvalidState);
  CHECK(types_only->find_path_tree().error().code == ErrorCode::InvalidState);
}

TEST_CASE("a heap decoded for its objects alone has the same nodes and roots and no edges") {
  HeapFixture f(13);
  auto whole = f.open(IndexUse::Ignore);
  auto objects = f.open(IndexUse::Ignore, kNeedObjects);
  REQUIRE(!objects->is_from_index());
  REQUIRE(whole->graph.edge_count() > 0);  // else the edges' absence below shows nothing
  CHECK(objects->graph.edge_count() == 0);
  REQUIRE(objects->graph.node_count() == whole->graph.node_count());
  for (NodeIndex v = 0; v < whole->graph.node_count(); ++v) {
    REQUIRE(objects->graph.address(v) == whole->graph.address(v));
    REQUIRE(objects->graph.object_size(v) == whole->graph.object_size(v));
    REQUIRE(objects->type_name(v) == whole->type_name(v));
    REQUIRE(objects->generation(v) == whole->generation(v));
    REQUIRE(objects->graph.successors(v).empty());
  }
  REQUIRE(objects->graph.roots().size() == whole->graph.roots().size());
  for (size_t r = 0; r < whole->graph.roots().size(); ++r)
    CHECK(objects->graph.roots()[r].node == whole->graph.roots()[r].node);
  // No tree of an edgeless graph: an error, not a wrong answer.
  CHECK(objects->find_dominators(false).error().code == ErrorCode::InvalidState);
  CHECK(objects->find_dominators(true).error().code == ErrorCode::InvalidState);
  CHECK(objects->find_path_tree().error().code == ErrorCode::InvalidState);
}

TEST_CASE("a GC without a heap walk is refused") {
  HeapFixture f(19);
  for (size_t i = 0; i < f.rec->gcs().size(); ++i) {
    if (f.rec->gcs()[i].has_heap_walk()) continue;
    auto heap = GcHeap::open(f.snap.path(), *f.rec, i, GcHeapOptions{});
    CHECK(heap.error().code == ErrorCode::NoHeapWalk);
  }
  CHECK(GcHeap::open(f.snap.path(), *f.rec, f.rec->gcs().size(), GcHeapOptions{}).error().code ==
        ErrorCode::NotFound);
}
