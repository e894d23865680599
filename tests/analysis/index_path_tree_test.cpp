// IndexedPathTree::hop_slot (gcsnap/index_path_tree.hpp): the slot of a hop read from the
// index's pieces, without its forward graph, equals the one the decoded walk's EdgeSlots give,
// on the handlers sample (support/handlers_sample.hpp), whose objects all record their slots.
#include <cstdio>

#include <catch2/catch.hpp>

#include "gcsnap/analysis_index.hpp"
#include "gcsnap/gc_heap.hpp"
#include "gcsnap/index_path_tree.hpp"
#include "handlers_sample.hpp"
#include "temp_path.hpp"

using namespace gcsnap;

TEST_CASE("a hop's slot read from the index's pieces is the decoded walk's") {
  test::TempFile snap("path-tree-slots");
  REQUIRE(test::write_handlers_sample(snap.path()));
  auto rec = Recording::open(snap.path());
  REQUIRE(rec);
  REQUIRE(open_analysis_index(snap.path(), **rec, 0, true));
  const std::string index_path = analysis_index_path(snap.path(), (*rec)->gcs()[0].info.gc_number);
  GcHeapOptions decoded_options;
  decoded_options.needs |= kNeedFieldNames;
  auto decoded = GcHeap::open(snap.path(), **rec, 0, decoded_options);
  REQUIRE(decoded);
  GcHeapOptions indexed_options;
  indexed_options.index = IndexUse::OnlyExisting;
  indexed_options.needs = kNeedObjects;
  auto indexed = GcHeap::open(snap.path(), **rec, 0, indexed_options);
  REQUIRE(indexed);
  REQUIRE((*indexed)->indexed_unreachable);
  auto stream = (*indexed)->open_index_stream();
  REQUIRE(stream);
  const uint64_t reached = (*indexed)->graph.node_count() - (*indexed)->indexed_unreachable->first;
  auto tree = IndexedPathTree::read(std::move(stream).value(), (*indexed)->graph, reached);
  REQUIRE(tree);
  const HeapGraph& g = (*decoded)->graph;
  REQUIRE(g.node_count() == (*indexed)->graph.node_count());
  size_t named = 0;
  for (NodeIndex from = 0; from < g.node_count(); ++from) {
    for (NodeIndex to : g.successors(from)) {
      auto slot = tree->hop_slot(from, to);
      REQUIRE(slot);
      CHECK(*slot == (*decoded)->edge_slots.slot_of(g, from, to));
      named += *slot != kUnknownSlot;
    }
  }
  CHECK(named == g.edge_count());
  // No such reference: no slot (the statics array does not reference the subscribers).
  auto none = tree->hop_slot(*g.find_object(0x1000), *g.find_object(0x2400));
  REQUIRE(none);
  CHECK(*none == kUnknownSlot);
  std::remove(index_path.c_str());
}
