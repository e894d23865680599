// The memory summary and bar (output/memory_text.hpp) with and without what gcsnap's shim held
// (format-spec.md §6.16 "gcsnap"): a record whose recorder_bytes is 0 (nothing said) shows no
// gcsnap part and counts everything outside the heap as native and other.
#include <catch2/catch.hpp>

#include "output/memory_text.hpp"

using namespace gcsnap;

namespace {
constexpr uint64_t kMiB = 1 << 20;

MemoryAccounting record(uint64_t recorder_bytes) {
  MemoryAccounting m;
  m.present = memory_present::kProcess | memory_present::kGcMappings | memory_present::kLiveObjects;
  m.rss_bytes = 400 * kMiB, m.gc_resident_bytes = 48 * kMiB, m.live_object_bytes = 48 * kMiB;
  m.anonymous_bytes = 340 * kMiB, m.code_bytes = 12 * kMiB;
  m.recorder_bytes = recorder_bytes;
  return m;
}
}  // namespace

TEST_CASE("memory text: gcsnap's own bytes are not native and other", "[cli][memory]") {
  const MemoryAccounting m = record(24 * kMiB);
  CHECK(m.gcsnap_bytes() == 24 * kMiB);
  CHECK(m.native_and_other_bytes() == 328 * kMiB);
  CHECK(m.app_anonymous_bytes() == 316 * kMiB);
  const std::string summary = cli::memory_summary(m);
  CHECK(summary.find("; 328.0 MiB native and other; 24.0 MiB held by gcsnap") != std::string::npos);
  const std::string bar = cli::memory_bar(m, 50);
  CHECK(bar.find('~') != std::string::npos);
  CHECK(bar.find("  ~ gcsnap") != std::string::npos);
}

TEST_CASE("memory text: a record that does not say what gcsnap held shows no gcsnap part", "[cli][memory]") {
  const MemoryAccounting m = record(0);
  CHECK(m.gcsnap_bytes() == 0);
  CHECK(m.native_and_other_bytes() == 352 * kMiB);
  CHECK(m.app_anonymous_bytes() == 340 * kMiB);
  const std::string summary = cli::memory_summary(m);
  CHECK(summary.find("gcsnap") == std::string::npos);
  CHECK(summary.find("352.0 MiB native and other") != std::string::npos);
  CHECK(cli::memory_bar(m, 50).find('~') == std::string::npos);
}

TEST_CASE("memory text: gcsnap's figure never exceeds what lies outside the heap", "[cli][memory]") {
  MemoryAccounting m = record(0);
  m.recorder_bytes = 500 * kMiB;  // a figure larger than the resident memory outside the heap
  CHECK(m.gcsnap_bytes() == 352 * kMiB);
  CHECK(m.native_and_other_bytes() == 0);
}
