// Checks for recordings of the sample app's other modes, selected by tag from ctest:
// [.crash] a recording cut short by Environment.FailFast, [.ondemand] one with a
// `gcsnap snapshot PID` heap walk taken while the app waited.

#include <algorithm>

#include <catch2/catch.hpp>

#include "sample_recording.hpp"

namespace gcsnap::e2e {

TEST_CASE("a recording cut short by a crash keeps every completed GC readable", "[.crash]") {
  const Recording& rec = sample_recording();
  INFO("file ends: " << file_end_name(rec.end()) << " at offset " << rec.end_offset() << " of " << rec.file_size());
  CHECK(rec.end() != FileEnd::Corrupt);
  CHECK(rec.end_offset() <= rec.file_size());
  // The app waits a second after its last induced GC before it crashes, so all are written.
  CHECK(induced_snapshots(rec).size() >= sample_facts().number("induced_gcs"));
  for (size_t i = 0; i < rec.gcs().size(); ++i) {
    INFO("GC #" << rec.gcs()[i].info.gc_number);
    CHECK(rec.verify_gc(i).is_ok());
  }
  auto last = rec.last_snapshot();
  REQUIRE(last.has_value());
  GcView gc = load_gc(rec, *last);
  uint32_t leaky = find_type_id(gc.names, "Gcsnap.Sample.LeakyItem");
  REQUIRE(leaky != 0);
  CHECK(static_cast<uint64_t>(std::count(gc.objects.type_ids.begin(), gc.objects.type_ids.end(), leaky)) ==
        sample_facts().number("leaky_items"));
}

TEST_CASE("an on-demand snapshot walks the heap of the waiting app", "[.ondemand]") {
  const Recording& rec = sample_recording();
  std::vector<size_t> on_demand;
  for (size_t i = 0; i < rec.gcs().size(); ++i) {
    if (rec.gcs()[i].info.trigger == SnapshotTrigger::OnDemand) on_demand.push_back(i);
  }
  REQUIRE(on_demand.size() == 1);
  const GcEntry& entry = rec.gcs()[on_demand[0]];
  CHECK(entry.has_heap_walk());
  CHECK(entry.info.condemned_generation() == 2);
  // It comes after the app's own induced GCs: the app was already waiting.
  CHECK(induced_snapshots(rec).back() == on_demand[0]);
  GcView gc = load_gc(rec, on_demand[0]);
  uint32_t leaky = find_type_id(gc.names, "Gcsnap.Sample.LeakyItem");
  REQUIRE(leaky != 0);
  CHECK(static_cast<uint64_t>(std::count(gc.objects.type_ids.begin(), gc.objects.type_ids.end(), leaky)) ==
        sample_facts().number("leaky_items"));
  CHECK(rec.verify_gc(on_demand[0]).is_ok());
}

}  // namespace gcsnap::e2e
