// The memory-accounting section (format-spec.md §6.16, since 1.2) under hostile input: a short,
// ragged or repeated record is CorruptSection for that GC alone; a longer one (a later minor's)
// reads its known fields.
#include <catch2/catch.hpp>

#include <functional>

#include "craft.hpp"
#include "gcsnap/enum_names.hpp"

using namespace gcsnap;
using craft::File;
using format::SectionType;

namespace {

// A record of SIZE bytes: present = process figures, rss = 0x1234000, then zeros.
std::vector<uint8_t> memory_payload(size_t size) {
  std::vector<uint8_t> p(size, 0);
  if (size >= 24) {
    format::store_le32(p.data(), memory_present::kProcess);
    format::store_le64(p.data() + 16, 0x1234000);
  }
  return p;
}

// GC 1 carries what ADD writes; GC 2 has no memory record.
File two_blocks(const std::function<void(File&)>& add) {
  File f;
  f.begin_block(1, SnapshotTrigger::None);
  add(f);
  f.end_block();
  f.begin_block(2, SnapshotTrigger::None);
  f.end_block();
  f.finish();
  return f;
}

std::unique_ptr<Recording> open_ok(const File& f) {
  auto r = Recording::from_bytes(f.view());
  if (!r) FAIL("open: " << error_code_name(r.error().code) << " " << r.error().detail);
  return std::move(*r);
}

}  // namespace

TEST_CASE("a memory record reads back; a longer one keeps its known fields", "[hostile][memory]") {
  for (size_t size : {size_t{128}, size_t{136}, size_t{1024}}) {
    CAPTURE(size);
    // The recording reads the file's bytes in place: the File outlives it.
    const File file = two_blocks([&](File& b) { b.section(SectionType::MemoryAccounting, 1, memory_payload(size)); });
    auto rec = open_ok(file);
    auto m = rec->read_memory_accounting(0);
    REQUIRE(m);
    REQUIRE(m->has_value());
    CHECK((*m)->rss_bytes == 0x1234000);
    CHECK((*m)->has(memory_present::kProcess));
    CHECK(rec->verify_gc(0).is_ok());
    auto none = rec->read_memory_accounting(1);
    REQUIRE(none);
    CHECK_FALSE(none->has_value());
  }
}

TEST_CASE("a short, ragged, miscounted or repeated memory record is CorruptSection", "[hostile][memory]") {
  const std::function<void(File&)> lies[] = {
      [](File& b) { b.section(SectionType::MemoryAccounting, 1, memory_payload(120)); },
      [](File& b) { b.section(SectionType::MemoryAccounting, 1, memory_payload(132)); },
      [](File& b) { b.section(SectionType::MemoryAccounting, 2, memory_payload(128)); },
      // Private bytes said present (bit 6) but not there.
      [](File& b) {
        std::vector<uint8_t> p = memory_payload(128);
        format::store_le32(p.data(), memory_present::kProcess | memory_present::kPrivate);
        b.section(SectionType::MemoryAccounting, 1, p);
      },
      [](File& b) {
        b.section(SectionType::MemoryAccounting, 1, memory_payload(128));
        b.section(SectionType::MemoryAccounting, 1, memory_payload(128));
      },
  };
  for (size_t k = 0; k < std::size(lies); ++k) {
    CAPTURE(k);
    const File file = two_blocks(lies[k]);
    auto rec = open_ok(file);
    auto m = rec->read_memory_accounting(0);
    REQUIRE_FALSE(m);
    CHECK(m.error().code == ErrorCode::CorruptSection);
    CHECK(rec->verify_gc(0).code() == ErrorCode::CorruptSection);
    // The other GC is not affected.
    CHECK(rec->verify_gc(1).is_ok());
  }
}

TEST_CASE("a Windows memory record reads its private bytes and no pss or swap", "[hostile][memory]") {
  std::vector<uint8_t> p = memory_payload(136);
  format::store_le32(p.data(), memory_present::kProcess | memory_present::kPssSwapUnread | memory_present::kPrivate);
  format::store_le64(p.data() + 24, 0xdead);  // pss_bytes: present in the bytes, unread by its bit
  format::store_le64(p.data() + 128, 0x7654321);
  const File file = two_blocks([&](File& b) { b.section(SectionType::MemoryAccounting, 1, p); });
  auto rec = open_ok(file);
  auto m = rec->read_memory_accounting(0);
  REQUIRE(m);
  REQUIRE(m->has_value());
  CHECK((*m)->private_bytes == 0x7654321);
  CHECK((*m)->rss_bytes == 0x1234000);
  CHECK_FALSE((*m)->has_pss_swap());
  CHECK(rec->verify_gc(0).is_ok());
}
