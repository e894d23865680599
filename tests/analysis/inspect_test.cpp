// inspect_gc (gcsnap/heap_inspect.hpp) on the values sample (support/values_sample.hpp), whose
// findings are known by construction, and union_bytes on hand-made dominator chains; then
// strip_string_contents on the same sample: the content goes, everything else reads the same.
#include <algorithm>
#include <string>

#include <catch2/catch.hpp>

#include "gcsnap/gc_heap.hpp"
#include "gcsnap/heap_inspect.hpp"
#include "gcsnap/strip_strings.hpp"
#include "temp_path.hpp"
#include "values_sample.hpp"

using namespace gcsnap;

namespace {

struct Inspected {
  InspectReport report;
  const Finding* find(std::string_view kind, std::string_view holder) const {
    for (const Finding& f : report.findings)
      if (f.kind == kind && f.holder == holder) return &f;
    return nullptr;
  }
  size_t count(std::string_view kind) const {
    return static_cast<size_t>(std::count_if(report.findings.begin(), report.findings.end(),
                                             [&](const Finding& f) { return f.kind == kind; }));
  }
};

Inspected inspect_file(const std::string& path) {
  auto rec = Recording::open(path);
  REQUIRE(rec);
  GcHeapOptions options;
  options.needs |= kNeedPredecessors | kNeedFieldNames;
  auto heap = GcHeap::open(path, **rec, 0, options);
  REQUIRE(heap);
  auto dominators = (*heap)->find_dominators(false);
  REQUIRE(dominators);
  auto report = inspect_gc(**rec, 0, **heap, **dominators);
  REQUIRE(report);
  return Inspected{std::move(report).value()};
}

}  // namespace

TEST_CASE("inspect finds the sample's wasted values under the fields that hold them") {
  test::TempFile snap("inspect-values");
  REQUIRE(test::write_values_sample(snap.path(), 16));
  const Inspected in = inspect_file(snap.path());
  // 8 copies of one content and 2 of another: 7 + 1 wasted, 40 bytes each, all under Order.Status.
  const Finding* dup = in.find("duplicate-strings", "App.Order.Status");
  REQUIRE(dup);
  CHECK(dup->count == 8);
  CHECK(dup->bytes == 320);
  CHECK(dup->example == "Pending");
  CHECK(in.count("duplicate-strings") == 1);
  // The empty list retains itself and its String[4]: 32 + 56.
  const Finding* empty = in.find("empty-collection", "App.Registry._names");
  REQUIRE(empty);
  CHECK(empty->bytes == 88);
  // 1 entry of 17 in a 432-byte entries array: 16 unused 24-byte entries.
  const Finding* sparse = in.find("sparse-collection", "App.Registry._lookup");
  REQUIRE(sparse);
  CHECK(sparse->bytes == 384);
  // One Int32[0] alone is no waste: one shared instance is what it would be.
  CHECK(in.count("empty-array") == 0);
  const Finding* cache = in.find("cache-at-limit", "App.Registry._cache");
  REQUIRE(cache);
  CHECK(cache->bytes == 64 + 1000);
  const Finding* final = in.find("finalizable", "finalization queue");
  REQUIRE(final);
  CHECK(final->count == 3);
  CHECK(final->bytes == 3 * 32 + 200);
  // Nothing in the sample is counted by two findings: the total is the sum of the findings.
  uint64_t sum = 0;
  for (const Finding& f : in.report.findings) sum += f.bytes;
  CHECK(in.report.bytes == sum);
  CHECK(in.report.bytes == 320 + 88 + 384 + 1064 + 296);
}

TEST_CASE("inspect shows no content from a recording made without --capture-strings") {
  test::TempFile snap("inspect-plain");
  REQUIRE(test::write_values_sample(snap.path(), 0));
  auto rec = Recording::open(snap.path());
  REQUIRE(rec);
  std::string storage;
  auto contents = (*rec)->read_string_contents(0, storage);
  REQUIRE(contents);
  CHECK(contents->empty());
  auto capture = (*rec)->read_value_capture(0);
  REQUIRE(capture);
  REQUIRE(capture->has_value());
  CHECK((*capture)->flags == 0);
  const Inspected in = inspect_file(snap.path());
  const Finding* dup = in.find("duplicate-strings", "App.Order.Status");
  REQUIRE(dup);
  CHECK(dup->count == 8);
  CHECK(dup->example.empty());
}

TEST_CASE("union_bytes counts an object inside a counted object's retained size once") {
  test::TempFile snap("inspect-union");
  REQUIRE(test::write_values_sample(snap.path(), 0));
  auto rec = Recording::open(snap.path());
  REQUIRE(rec);
  GcHeapOptions options;
  options.needs |= kNeedPredecessors;
  auto heap = GcHeap::open(snap.path(), **rec, 0, options);
  REQUIRE(heap);
  auto dominators = (*heap)->find_dominators(false);
  REQUIRE(dominators);
  const HeapGraph& g = (*heap)->graph;
  const NodeIndex cache = *g.find_object(0x6000), bytes = *g.find_object(0x6100), list = *g.find_object(0x4000);
  const uint64_t retained = (*dominators)->retained_size(cache);
  // The cache's byte array is in the cache's retained size: counted once, the larger wins.
  const CountedObject both[] = {{cache, retained, true}, {bytes, 1000, true}, {cache, 10, false}};
  CHECK(union_bytes(**dominators, both) == retained);
  const CountedObject apart[] = {{cache, retained, true}, {list, 32, false}};
  CHECK(union_bytes(**dominators, apart) == retained + 32);
  // A part of an object (not its retained size) does not cover what it dominates.
  const CountedObject part[] = {{cache, 10, false}, {bytes, 1000, true}};
  CHECK(union_bytes(**dominators, part) == 1010);
}

TEST_CASE("strip-strings removes the captured content and keeps the rest readable") {
  test::TempFile captured("strip-in"), stripped("strip-out");
  REQUIRE(test::write_values_sample(captured.path(), 16));
  auto report = strip_string_contents(captured.path(), stripped.path());
  REQUIRE(report);
  CHECK(report->gcs == 1);
  CHECK(report->sections_removed == 1);
  CHECK(report->bytes_removed > 40);
  auto rec = Recording::open(stripped.path());
  REQUIRE(rec);
  CHECK((*rec)->end() == FileEnd::Complete);
  CHECK((*rec)->verify_gc(0).is_ok());
  std::string storage;
  auto contents = (*rec)->read_string_contents(0, storage);
  REQUIRE(contents);
  CHECK(contents->empty());
  auto capture = (*rec)->read_value_capture(0);
  REQUIRE(capture);
  REQUIRE(capture->has_value());
  CHECK((*capture)->flags == value_flags::kContentsStripped);
  auto strings = (*rec)->read_string_values(0);
  REQUIRE(strings);
  CHECK(strings->size() == 10);
  auto objects = (*rec)->read_objects(0);
  REQUIRE(objects);
  CHECK(objects->size() == 33);
  const Inspected in = inspect_file(stripped.path());
  const Finding* dup = in.find("duplicate-strings", "App.Order.Status");
  REQUIRE(dup);
  CHECK(dup->count == 8);
  CHECK(dup->example.empty());
  CHECK(strip_string_contents(captured.path(), captured.path()).error().code == ErrorCode::InvalidArgument);
}
