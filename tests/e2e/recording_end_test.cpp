// Checks for recordings of the sample app's other modes, selected by tag from ctest:
// [.crash] a recording cut short by Environment.FailFast, [.ondemand] one with a
// `gcsnap snapshot PID` heap walk taken while the app waited, [.exit_writing] an app that
// exited while its last heap walk was still being written.

#include <algorithm>

#include <catch2/catch.hpp>

#include "gcsnap/enum_names.hpp"
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

TEST_CASE("an app that exits while its last GC is being written leaves every GC complete", "[.exit_writing]") {
  const Recording& rec = sample_recording();
  const SampleFacts& facts = sample_facts();
  const uint64_t gc_count = facts.number("gc_count");
  const uint64_t markers = facts.number("markers");
  INFO("file ends: " << file_end_name(rec.end()) << " at offset " << rec.end_offset() << " of " << rec.file_size());
  // Shutdown (or exit()) drained the writer thread and closed the file with its index.
  CHECK(rec.end() == FileEnd::Complete);
  // Every GC of the app is there, numbered 1..gc_count in order (none lost at the end).
  REQUIRE(rec.gcs().size() >= gc_count);
  for (size_t i = 0; i < rec.gcs().size(); ++i) {
    INFO("GC #" << rec.gcs()[i].info.gc_number);
    CHECK(rec.gcs()[i].info.gc_number == i + 1);
    CHECK(rec.verify_gc(i).is_ok());
  }
  const size_t last_index = gc_count - 1;
  const GcEntry& last = rec.gcs()[last_index];
  CHECK(last.info.reason == GcReason::Induced);
  REQUIRE(last.has_heap_walk());
  CHECK(last.drops.objects == 0);
  CHECK(last.drops.references == 0);
  // The app measured its output file right after that GC returned: the block was not yet
  // (completely) on disk, so the exit really raced the writer thread.
  const uint64_t bytes_at_exit = facts.number("file_bytes_at_exit");
  INFO("last block at 0x" << std::hex << last.block_offset << ", " << std::dec << last.block_size
                          << " bytes; the file had " << bytes_at_exit << " bytes when the app began to exit");
  CHECK(last.block_offset + last.block_size > bytes_at_exit);

  GcView gc = load_gc(rec, last_index);
  uint32_t marker = find_type_id(gc.names, "Gcsnap.Sample.ExitMarker");
  REQUIRE(marker != 0);
  // Every ExitMarker but the first holds an earlier one.
  uint64_t count = 0;
  uint64_t chain_links = 0;
  for (size_t i = 0; i < gc.objects.size(); ++i) {
    if (gc.objects.type_ids[i] != marker) continue;
    ++count;
    for (uint64_t r = gc.objects.reference_offsets[i]; r < gc.objects.reference_offsets[i + 1]; ++r) {
      if (type_name_at(gc, gc.objects.reference_targets[r]) == "Gcsnap.Sample.ExitMarker") ++chain_links;
    }
  }
  CHECK(count == markers);
  CHECK(chain_links == markers - 1);
}

}  // namespace gcsnap::e2e
