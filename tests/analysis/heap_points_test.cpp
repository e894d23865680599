// HeapPoints: a few objects' answers are the same from a GC's analysis index (a piece at a
// time) and from its recording, and the index-only queries say when they cannot answer.
#include "gcsnap/heap_points.hpp"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <numeric>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "handlers_sample.hpp"
#include "temp_path.hpp"

using namespace gcsnap;
using namespace gcsnap::test;

namespace {

struct PointsFixture {
  TempFile snap{"heap_points"};
  std::unique_ptr<Recording> rec;
  size_t gc = 0;
  std::string index_path;
  // The handlers sample (support/handlers_sample.hpp): roots that reach its objects.
  PointsFixture() {
    REQUIRE(write_handlers_sample(snap.path()));
    auto opened = Recording::open(snap.path());
    REQUIRE(opened);
    rec = std::move(opened).value();
    index_path = analysis_index_path(snap.path(), rec->gcs()[gc].info.gc_number);
    std::remove(index_path.c_str());
  }
  ~PointsFixture() { std::remove(index_path.c_str()); }
  std::unique_ptr<HeapPoints> open(IndexUse use) const {
    auto points = HeapPoints::open(snap.path(), *rec, gc, use);
    REQUIRE(points);
    return std::move(points).value();
  }
};

}  // namespace

TEST_CASE("a GC's points give the same objects from its index and its recording") {
  PointsFixture f;
  REQUIRE(save_heap_index(f.snap.path(), *f.rec, f.gc).is_ok());
  auto decoded = f.open(IndexUse::Ignore);
  auto indexed = f.open(IndexUse::Existing);
  CHECK(!decoded->has_index());
  REQUIRE(indexed->has_index());
  CHECK(*decoded->has_dependent_handles() == *indexed->has_dependent_handles());
  auto objects = f.rec->read_objects(f.gc);
  REQUIRE(objects);
  REQUIRE(objects->size() > 0);
  size_t reachable = 0;
  for (size_t row = 0; row < objects->size(); ++row) {
    // The object's start and a byte inside it (when it has one) find the same object.
    for (uint64_t at : {objects->addresses[row], objects->addresses[row] + (objects->sizes[row] > 1 ? 1 : 0)}) {
      auto a = decoded->find_object(at);
      auto b = indexed->find_object(at);
      REQUIRE(a);
      REQUIRE(b);
      REQUIRE(a->has_value() == b->has_value());
      if (!*a) continue;
      CHECK((*a)->node == (*b)->node);
      CHECK((*a)->address == (*b)->address);
      CHECK((*a)->size == (*b)->size);
      CHECK((*a)->type_id == (*b)->type_id);
      CHECK((*a)->generation == (*b)->generation);
    }
    auto ra = decoded->is_reachable(static_cast<NodeIndex>(row));
    auto rb = indexed->is_reachable(static_cast<NodeIndex>(row));
    REQUIRE(ra);
    REQUIRE(rb);
    CHECK(*ra == *rb);
    reachable += *ra;
  }
  CHECK(reachable > 0);
  CHECK(indexed->has_index());  // every answer came from the index
  auto roots = f.rec->read_roots(f.gc);
  REQUIRE(roots);
  std::vector<size_t> rows(roots->size());
  std::iota(rows.begin(), rows.end(), size_t{0});
  auto ta = decoded->root_object_types(*roots, rows);
  auto tb = indexed->root_object_types(*roots, rows);
  REQUIRE(ta);
  REQUIRE(tb);
  CHECK(*ta == *tb);
}

TEST_CASE("only an index answers the queries a piece at a time; OnlyExisting gives none without one") {
  PointsFixture f;
  auto none = HeapPoints::open(f.snap.path(), *f.rec, f.gc, IndexUse::OnlyExisting);
  REQUIRE(none);
  CHECK(*none == nullptr);
  auto decoded = f.open(IndexUse::Existing);  // no index yet: the recording answers
  CHECK(!decoded->has_index());
  CHECK(!decoded->type_ids());
  CHECK(!decoded->top_retainers(5, {}, true));
  CHECK(!decoded->reachable_counts());
  REQUIRE(save_heap_index(f.snap.path(), *f.rec, f.gc).is_ok());
  auto indexed = f.open(IndexUse::OnlyExisting);
  REQUIRE(indexed != nullptr);
  auto counts = indexed->reachable_counts();
  REQUIRE(counts);
  CHECK(counts->objects + counts->unreachable_objects == f.rec->gcs()[f.gc].object_count);
  auto top = indexed->top_retainers(5, {}, false);
  REQUIRE(top);
  CHECK(!top->empty());
  CHECK(HeapPoints::open(f.snap.path(), *f.rec, f.gc, IndexUse::Build).error().code == ErrorCode::InvalidArgument);
  CHECK(HeapPoints::open(f.snap.path(), *f.rec, f.rec->gcs().size(), IndexUse::Ignore).error().code ==
        ErrorCode::NotFound);
}

TEST_CASE("a damaged piece turns the points to the recording, or is an error with OnlyExisting") {
  PointsFixture f;
  REQUIRE(save_heap_index(f.snap.path(), *f.rec, f.gc).is_ok());
  auto objects = f.rec->read_objects(f.gc);
  REQUIRE(objects);
  REQUIRE(objects->size() > 1);
  const uint64_t address = objects->addresses[1];
  // A bit flipped in the middle of the addresses (the first array, after the 384-byte header
  // and the 17 coded lengths: format-spec.md §12.3), which every lookup reads.
  std::vector<char> bytes;
  {
    std::ifstream in(f.index_path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  REQUIRE(bytes.size() > 520);
  uint64_t length = 0;
  std::memcpy(&length, bytes.data() + 384, sizeof(length));
  REQUIRE(length > 2);
  bytes[520 + length / 2] ^= 0x40;
  {
    std::ofstream out(f.index_path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  auto only = f.open(IndexUse::OnlyExisting);
  REQUIRE(only != nullptr);  // the header and directory are whole
  CHECK(!only->find_object(address));
  auto existing = f.open(IndexUse::Existing);
  REQUIRE(existing->has_index());
  auto found = existing->find_object(address);
  REQUIRE(found);
  REQUIRE(*found);
  CHECK((*found)->address == address);
  CHECK((*found)->node == 1);
  CHECK(!existing->has_index());  // the recording answers from here on
  CHECK(!existing->type_ids());
}
