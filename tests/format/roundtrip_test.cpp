// Round trips of random recordings through Writer and Recording (format-spec.md §6).
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "gcsnap/enum_names.hpp"
#include "random_recording.hpp"
#include "temp_path.hpp"

using namespace gcsnap;
using namespace gcsnap::test;

namespace {

void check_round_trip(uint64_t seed, size_t gcs, const ModelOptions& mo, const WriterOptions& wo) {
  auto model = make_random_gcs(seed, gcs, mo);
  std::string path = temp_path("roundtrip-" + std::to_string(seed));
  Status s = write_model(path, model, wo);
  INFO("seed " << seed << " error " << error_code_name(s.code()) << " " << s.error().detail);
  REQUIRE(s.is_ok());
  auto rec = Recording::open(path);
  REQUIRE(rec);
  CHECK((*rec)->end() == FileEnd::Complete);
  CHECK(compare_with_model(**rec, model, model.size()) == "");
  for (size_t i = 0; i < model.size(); ++i) {
    Status v = (*rec)->verify_gc(i);
    INFO("gc " << i << ": " << error_code_name(v.code()) << " " << v.error().detail);
    CHECK(v.is_ok());
  }
  std::remove(path.c_str());
}

}  // namespace

TEST_CASE("random recordings round trip over many seeds") {
  for (uint64_t seed = 1; seed <= 240; ++seed) {
    ModelOptions mo;
    mo.unaligned = seed % 3 == 0;
    mo.extreme = seed % 5 == 0;
    mo.max_objects = seed % 7 == 0 ? 0 : 300;
    mo.max_roots = seed % 11 == 0 ? 0 : 30;
    mo.region_runs = seed % 6 == 1;
    WriterOptions wo;
    wo.background_compression = seed % 2 == 0;
    wo.chunk_items = seed % 4 == 0 ? 1 + seed % 5 : (seed % 4 == 1 ? 64 : 1u << 20);
    wo.compression_level = seed % 8 == 0 ? 3 : 1;
    check_round_trip(seed, 1 + seed % 9, mo, wo);
  }
}

TEST_CASE("many GCs and a growing type table") {
  WriterOptions wo;
  wo.chunk_items = 7;
  ModelOptions mo;
  mo.max_objects = 20;
  check_round_trip(1001, 300, mo, wo);
}

TEST_CASE("an empty GC and an empty recording") {
  const std::string path = temp_path("roundtrip-empty");
  {
    auto w = Writer::create(path);
    REQUIRE(w);
    REQUIRE((*w)->close().is_ok());
    auto rec = Recording::open(path);
    REQUIRE(rec);
    CHECK((*rec)->gcs().empty());
    CHECK((*rec)->end() == FileEnd::Complete);
  }
  {
    auto w = Writer::create(path);
    REQUIRE(w);
    GcInfo info;
    info.gc_number = 1;
    REQUIRE((*w)->begin_gc(info).is_ok());
    REQUIRE((*w)->end_gc(info).is_ok());
    REQUIRE((*w)->close().is_ok());
    auto rec = Recording::open(path);
    REQUIRE(rec);
    REQUIRE((*rec)->gcs().size() == 1);
    CHECK((*rec)->read_roots(0)->size() == 0);
    CHECK((*rec)->read_objects(0).error().code == ErrorCode::NoHeapWalk);
    CHECK((*rec)->verify_gc(0).is_ok());
  }
  std::remove(path.c_str());
}

TEST_CASE("memory accounting round trips, with and without the Windows fields") {
  // §6.16: a Windows writer sets kPssSwapUnread and appends private_bytes (kPrivate); a Linux
  // writer does neither and its record stays 128 bytes.
  const std::string path = temp_path("roundtrip-memory");
  MemoryAccounting linux_figures;
  linux_figures.present = memory_present::kProcess | memory_present::kGcMappings;
  linux_figures.rss_bytes = 40 << 20, linux_figures.pss_bytes = 38 << 20, linux_figures.stack_bytes = 1 << 20;
  MemoryAccounting windows_figures = linux_figures;
  windows_figures.present |= memory_present::kPssSwapUnread | memory_present::kPrivate;
  windows_figures.pss_bytes = 0;
  windows_figures.private_bytes = 0x123456789;
  {
    auto w = Writer::create(path);
    REQUIRE(w);
    for (uint64_t n : {1, 2}) {
      GcInfo info;
      info.gc_number = n;
      REQUIRE((*w)->begin_gc(info).is_ok());
      REQUIRE((*w)->add_memory_accounting(n == 1 ? linux_figures : windows_figures).is_ok());
      REQUIRE((*w)->end_gc(info).is_ok());
    }
    REQUIRE((*w)->close().is_ok());
  }
  {
    auto rec = Recording::open(path);
    REQUIRE(rec);
    auto first = (*rec)->read_memory_accounting(0), second = (*rec)->read_memory_accounting(1);
    REQUIRE(first);
    REQUIRE(second);
    REQUIRE(first->has_value());
    REQUIRE(second->has_value());
    CHECK((*first)->has_pss_swap());
    CHECK((*first)->pss_bytes == 38 << 20);
    CHECK_FALSE((*first)->has(memory_present::kPrivate));
    CHECK((*first)->private_bytes == 0);
    CHECK_FALSE((*second)->has_pss_swap());
    CHECK((*second)->has(memory_present::kProcess));
    CHECK((*second)->private_bytes == 0x123456789);
    CHECK((*second)->stack_bytes == 1 << 20);
    CHECK((*rec)->verify_gc(1).is_ok());
  }
  std::remove(path.c_str());
}
