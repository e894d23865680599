// The dependent-handles section (format-spec.md §6.11, since 1.1) under hostile input: each
// lie gives a clear error or the right answer, and the rest of the GC still reads.
#include <catch2/catch.hpp>

#include <functional>

#include "gcsnap/enum_names.hpp"
#include "craft.hpp"

using namespace gcsnap;
using craft::File;
using craft::Obj;
using format::SectionType;

namespace {

std::vector<uint8_t> handles_payload(const std::vector<uint64_t>& primaries, const std::vector<uint64_t>& secondaries) {
  std::vector<uint8_t> out;
  format::encode_delta_column(primaries, out);
  format::encode_delta_column(secondaries, out);
  return out;
}

format::SectionHeader raw_header(uint64_t items, size_t size) {
  format::SectionHeader h;
  h.type = static_cast<uint16_t>(SectionType::DependentHandles);
  h.item_count = items;
  h.stored_size = h.decoded_size = size;
  return h;
}

// A snapshot GC with three objects and the given dependent-handles section(s).
File block_with(const std::function<void(File&)>& add) {
  File f;
  f.begin_block(1);
  std::vector<Obj> objs = {{0x1000, 0, 24, 0, {}}, {0x1020, 0, 24, 0, {}}, {0x1040, 0, 24, 0, {}}};
  f.section(SectionType::Objects, objs.size(), craft::objects_payload(objs));
  f.section(SectionType::Roots, 1, craft::roots_payload({0x1000}));
  add(f);
  f.end_block();
  f.finish();
  return f;
}

std::unique_ptr<Recording> open_ok(const File& f) {
  auto r = Recording::from_bytes(f.view());
  if (!r) FAIL("open: " << error_code_name(r.error().code) << " " << r.error().detail);
  return std::move(*r);
}

ErrorCode handles_error(const Recording& r) {
  auto h = r.read_dependent_handles(0);
  return h ? ErrorCode::Ok : h.error().code;
}

}  // namespace

TEST_CASE("dependent handles over several chunks read back in file order", "[hostile][dependent-handles]") {
  File f = block_with([](File& b) {
    b.section(SectionType::DependentHandles, 2, handles_payload({0x1000, 0x1020}, {0x1020, 0x1040}), true);
    b.section(SectionType::DependentHandles, 1, handles_payload({0x1040}, {0x9999}));  // not an object: kept
  });
  auto rec = open_ok(f);
  auto h = rec->read_dependent_handles(0);
  REQUIRE(h);
  CHECK(h->primaries == std::vector<uint64_t>{0x1000, 0x1020, 0x1040});
  CHECK(h->secondaries == std::vector<uint64_t>{0x1020, 0x1040, 0x9999});
  CHECK(*rec->has_dependent_handle_section(0));
  CHECK(rec->verify_gc(0).is_ok());
}

TEST_CASE("an empty dependent-handles section means captured, none", "[hostile][dependent-handles]") {
  File with = block_with([](File& b) { b.section(SectionType::DependentHandles, 0, handles_payload({}, {})); });
  auto rec = open_ok(with);
  CHECK(rec->read_dependent_handles(0)->size() == 0);
  CHECK(*rec->has_dependent_handle_section(0));
  File without = block_with([](File&) {});
  auto rec2 = open_ok(without);
  CHECK(rec2->read_dependent_handles(0)->size() == 0);
  CHECK_FALSE(*rec2->has_dependent_handle_section(0));
}

TEST_CASE("dependent-handle counts that lie", "[hostile][dependent-handles][counts]") {
  auto payload = handles_payload({0x1000, 0x1020}, {0x1020, 0x1040});
  SECTION("more items than the columns hold") {
    File f = block_with([&](File& b) { b.section_raw(raw_header(3, payload.size()), payload); });
    auto rec = open_ok(f);
    CHECK(handles_error(*rec) == ErrorCode::CorruptSection);
    CHECK(rec->verify_gc(0).code() == ErrorCode::CorruptSection);
    CHECK(rec->read_objects(0));  // the rest of the GC still reads
  }
  SECTION("fewer items than the columns hold") {
    File f = block_with([&](File& b) { b.section_raw(raw_header(1, payload.size()), payload); });
    CHECK(handles_error(*open_ok(f)) == ErrorCode::CorruptSection);
  }
  SECTION("an item count above the section's bytes") {
    File f = block_with([&](File& b) { b.section_raw(raw_header(uint64_t{1} << 40, payload.size()), payload); });
    CHECK(handles_error(*open_ok(f)) == ErrorCode::CorruptSection);
  }
  SECTION("two sections whose counts overflow when summed") {
    File f = block_with([&](File& b) {
      b.section_raw(raw_header(uint64_t{1} << 63, payload.size()), payload);
      b.section_raw(raw_header(uint64_t{1} << 63, payload.size()), payload);
    });
    CHECK(handles_error(*open_ok(f)) == ErrorCode::CorruptSection);
  }
}

TEST_CASE("dependent-handle columns that are damaged", "[hostile][dependent-handles]") {
  SECTION("secondaries missing") {
    std::vector<uint8_t> p;
    format::encode_delta_column(std::vector<uint64_t>{0x1000}, p);
    File f = block_with([&](File& b) { b.section_raw(raw_header(1, p.size()), p); });
    CHECK(handles_error(*open_ok(f)) == ErrorCode::CorruptSection);
  }
  SECTION("a bytes column where addresses belong") {
    std::vector<uint8_t> p;
    format::encode_bytes_column(std::vector<uint8_t>{1}, p);
    format::encode_delta_column(std::vector<uint64_t>{0x1000}, p);
    File f = block_with([&](File& b) { b.section_raw(raw_header(1, p.size()), p); });
    CHECK(handles_error(*open_ok(f)) == ErrorCode::CorruptSection);
  }
  SECTION("bytes after the last column") {
    auto p = handles_payload({0x1000}, {0x1020});
    p.push_back(0);
    File f = block_with([&](File& b) { b.section_raw(raw_header(1, p.size()), p); });
    CHECK(handles_error(*open_ok(f)) == ErrorCode::CorruptSection);
  }
  SECTION("a varint cut by the end of its column") {
    auto p = handles_payload({0x1000}, {0x1020});
    p.pop_back();
    File f = block_with([&](File& b) { b.section_raw(raw_header(1, p.size()), p); });
    CHECK(handles_error(*open_ok(f)) == ErrorCode::CorruptSection);
  }
  SECTION("a payload whose checksum does not match") {
    auto p = handles_payload({0x1000}, {0x1020});
    File f = block_with([&](File& b) {
      format::SectionHeader h = raw_header(1, p.size());
      h.payload_checksum = 12345;
      b.section_raw(h, p, false);
    });
    auto rec = open_ok(f);
    CHECK(handles_error(*rec) == ErrorCode::ChecksumMismatch);
    CHECK(rec->verify_gc(0).code() == ErrorCode::ChecksumMismatch);
  }
}

TEST_CASE("a recording cut inside a dependent-handles section keeps the GCs before it", "[hostile][dependent-handles]") {
  File f;
  f.begin_block(1);
  f.section(SectionType::Roots, 1, craft::roots_payload({0x1000}));
  f.end_block();
  f.begin_block(2);
  f.section(SectionType::DependentHandles, 2, handles_payload({0x1000, 0x1020}, {0x1020, 0x1040}));
  const size_t cut = f.bytes.size() - 5;
  f.end_block();
  std::vector<uint8_t> cut_bytes(f.bytes.begin(), f.bytes.begin() + static_cast<ptrdiff_t>(cut));
  auto rec = Recording::from_bytes({reinterpret_cast<const std::byte*>(cut_bytes.data()), cut_bytes.size()});
  REQUIRE(rec);
  CHECK((*rec)->end() == FileEnd::Truncated);
  CHECK((*rec)->gcs().size() == 1);
  CHECK((*rec)->read_dependent_handles(0)->size() == 0);
}
