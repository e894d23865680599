// Writer call order, argument checks, abort_gc and a writer that dies (format-spec.md §6.10, §8.2).
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <gcsnap/gcsnap.hpp>

#include "random_recording.hpp"
#include "temp_path.hpp"

using namespace gcsnap;

namespace {

GcInfo gc(uint64_t n) {
  GcInfo info;
  info.gc_number = n;
  info.trigger = SnapshotTrigger::Policy;
  return info;
}

Status add_one_object(Writer& w, uint64_t address, uint32_t type) {
  uint64_t a[] = {address}, s[] = {24}, r[] = {address};
  uint32_t t[] = {type}, c[] = {1};
  uint8_t g[] = {0};
  return w.add_objects(a, t, s, g, c, r);
}

}  // namespace

TEST_CASE("writer rejects calls out of order and bad arguments") {
  const std::string path = gcsnap::test::temp_path("writer-api");
  auto w = Writer::create(path);
  REQUIRE(w);
  Writer& wr = **w;
  CHECK(wr.end_gc(gc(1)).code() == ErrorCode::InvalidState);
  CHECK(add_one_object(wr, 0x1000, 0).code() == ErrorCode::InvalidState);
  REQUIRE(wr.begin_gc(gc(5)).is_ok());
  CHECK(wr.begin_gc(gc(6)).code() == ErrorCode::InvalidState);
  uint64_t ids[] = {1, 2};
  uint8_t kinds[] = {1, 9}, flags[] = {0, 0};
  CHECK(wr.add_roots(ids, kinds, flags, ids).code() == ErrorCode::InvalidArgument);  // kind 9
  CHECK(wr.add_roots(ids, std::span(kinds, 1), flags, ids).code() == ErrorCode::InvalidArgument);
  uint64_t starts[] = {UINT64_MAX}, lengths[] = {2};
  CHECK(wr.add_surviving_ranges(starts, lengths).code() == ErrorCode::InvalidArgument);
  TypeRecord dup[] = {{7, 0, "A", ""}, {7, 0, "B", ""}};
  CHECK(wr.add_types(dup).code() == ErrorCode::InvalidArgument);
  TypeRecord ok_type[] = {{7, 0, "A", ""}};
  CHECK(wr.add_types(ok_type).is_ok());  // the failed batch left nothing behind
  CHECK(wr.add_types(ok_type).code() == ErrorCode::InvalidArgument);
  GcInfo other = gc(6);
  CHECK(wr.end_gc(other).code() == ErrorCode::InvalidArgument);
  REQUIRE(wr.end_gc(gc(5)).is_ok());
  CHECK(wr.begin_gc(gc(5)).code() == ErrorCode::InvalidArgument);  // GC numbers increase
  CHECK_FALSE(wr.is_failed());
  REQUIRE(wr.close().is_ok());
  CHECK(wr.close().is_ok());
  CHECK(wr.begin_gc(gc(9)).code() == ErrorCode::InvalidState);
  auto rec = Recording::open(path);
  REQUIRE(rec);
  REQUIRE((*rec)->gcs().size() == 1);
  CHECK((*rec)->gcs()[0].new_type_count == 1);
  std::remove(path.c_str());
}

TEST_CASE("an aborted GC is not readable and its types can be declared again") {
  for (bool background : {false, true}) {
    const std::string path = gcsnap::test::temp_path("writer-abort");
    WriterOptions options;
    options.background_compression = background;
    options.chunk_items = 1;  // the aborted GC's chunks reach the file before the abort
    auto w = Writer::create(path, options);
    REQUIRE(w);
    Writer& wr = **w;
    TypeRecord t[] = {{1, 0, "T", "m.dll"}};
    REQUIRE(wr.begin_gc(gc(1)).is_ok());
    REQUIRE(wr.add_types(t).is_ok());
    REQUIRE(add_one_object(wr, 0x1000, 1).is_ok());
    REQUIRE(add_one_object(wr, 0x2000, 1).is_ok());
    REQUIRE(wr.abort_gc().is_ok());
    REQUIRE(wr.begin_gc(gc(2)).is_ok());
    REQUIRE(wr.add_types(t).is_ok());
    REQUIRE(add_one_object(wr, 0x3000, 1).is_ok());
    REQUIRE(wr.end_gc(gc(2)).is_ok());
    REQUIRE(wr.flush().is_ok());
    // A reader of the unfinished file (no index yet) already sees GC 2 only.
    auto partial = Recording::from_bytes(gcsnap::test::read_file_bytes(path));
    REQUIRE(partial);
    CHECK((*partial)->end() == FileEnd::NoIndex);
    REQUIRE(wr.close().is_ok());
    auto rec = Recording::open(path);
    REQUIRE(rec);
    REQUIRE((*rec)->gcs().size() == 1);
    CHECK((*rec)->gcs()[0].info.gc_number == 2);
    auto objects = (*rec)->read_objects(0);
    REQUIRE(objects);
    CHECK(objects->addresses == std::vector<uint64_t>{0x3000});
    CHECK((*rec)->verify_gc(0).is_ok());
    std::remove(path.c_str());
  }
}

TEST_CASE("a writer that never closes leaves a file whose complete GCs read back") {
  const std::string path = gcsnap::test::temp_path("writer-died");
  auto model = gcsnap::test::make_random_gcs(77, 5);
  WriterOptions options;
  options.chunk_items = 3;
  // Write, flush, and copy the bytes before close() writes the index: what a crash leaves.
  std::vector<std::byte> bytes;
  std::unique_ptr<Writer> open_writer;
  REQUIRE(gcsnap::test::write_model(path, model, options, &open_writer).is_ok());
  bytes = gcsnap::test::read_file_bytes(path);
  REQUIRE(open_writer->close().is_ok());
  auto rec = Recording::from_bytes(bytes);
  REQUIRE(rec);
  CHECK((*rec)->end() == FileEnd::NoIndex);
  CHECK(gcsnap::test::compare_with_model(**rec, model, 5) == "");
  std::remove(path.c_str());
}
