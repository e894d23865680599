// The committed golden files (tests/golden/): the valid sample reads back exactly; each
// damaged file gives the error it is named for (format-spec.md §9).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include <gcsnap/gcsnap.hpp>

using namespace gcsnap;

namespace {

std::string golden(const char* name) { return std::string(GCSNAP_GOLDEN_DIR) + "/" + name; }

// The first error any read of any GC gives, or Ok.
ErrorCode first_read_error(const Recording& r) {
  for (size_t i = 0; i < r.gcs().size(); ++i) {
    Status s = r.verify_gc(i);
    if (!s.is_ok()) return s.code();
  }
  return ErrorCode::Ok;
}

}  // namespace

// compat/: the same sample as written by earlier writers (1.0 before long-distance matching was
// turned on, 1.0 with it): readers must keep reading every file a released writer produced.
TEST_CASE("golden sample-valid.snap reads back what was written") {
  const char* name =
      GENERATE("sample-valid.snap", "compat/sample-valid-1.0.snap", "compat/sample-valid-no-ldm.snap",
               "compat/sample-valid-1.1.snap", "compat/sample-valid-1.2.snap", "compat/sample-valid-1.3.snap",
               "compat/sample-valid-1.4.snap", "events-source.snap");
  CAPTURE(name);
  auto rec = Recording::open(golden(name));
  REQUIRE(rec);
  const Recording& r = **rec;
  CHECK(r.end() == FileEnd::Complete);
  REQUIRE(r.gcs().size() == 3);
  CHECK(r.gcs()[0].info.gc_number == 1);
  CHECK(r.gcs()[2].info.reason == GcReason::Induced);
  CHECK(r.gcs()[2].info.condemned_generation() == 2);
  CHECK(r.gcs()[1].info.compacted);
  CHECK(r.gcs()[0].root_count == 5);
  CHECK(r.gcs()[0].generation_range_count == 4);
  CHECK(r.gcs()[2].drops.objects == 3);
  CHECK(r.gcs()[2].drops.reasons == drop_reason::kTypeUnresolved);
  for (size_t i = 0; i < 3; ++i) CHECK(r.verify_gc(i).is_ok());
  auto roots = r.read_roots(0);
  REQUIRE(roots);
  CHECK(roots->object_ids[1] == 0);  // null roots are kept
  CHECK(roots->flags[2] == root_flags::kWeakRef);
  CHECK(r.read_objects(0).error().code == ErrorCode::NoHeapWalk);
  auto ranges = r.read_ranges(1);
  REQUIRE(ranges);
  CHECK(ranges->moved_new_starts == std::vector<uint64_t>{0x7f0000800000, 0x7f0000800100});
  auto objects = r.read_objects(2);
  REQUIRE(objects);
  REQUIRE(objects->size() == 56);
  CHECK(objects->addresses.front() == 0x7e0000001000);
  CHECK(objects->generations.front() == Generation::NonGcHeap);
  CHECK(std::is_sorted(objects->addresses.begin(), objects->addresses.end()));
  // Object 0x7f0000c00018 (heap-walk position 2) refers to itself and to the frozen string.
  auto it = std::find(objects->addresses.begin(), objects->addresses.end(), 0x7f0000c00018ull);
  REQUIRE(it != objects->addresses.end());
  size_t k = static_cast<size_t>(it - objects->addresses.begin());
  CHECK(objects->reference_offsets[k + 1] - objects->reference_offsets[k] == 2);
  CHECK(objects->reference_targets[objects->reference_offsets[k]] == 0x7f0000c00018);
  CHECK(objects->reference_targets[objects->reference_offsets[k] + 1] == 0x7e0000001000);
  auto names = r.read_names(2);
  REQUIRE(names);
  CHECK(names->types().size() == 4);
  CHECK(names->type_name(3) == "App.Cache+Entry");
  CHECK(names->find_method(0x7ff000001000)->name == "App.Program.Main");
  auto first_names = r.read_names(0);
  REQUIRE(first_names);
  CHECK(first_names->types().size() == 2);
  // §6.11 (1.1): the 1.0 files have no dependent-handles section, so no pairs.
  auto handles = r.read_dependent_handles(2);
  REQUIRE(handles);
  auto has_section = r.has_dependent_handle_section(2);
  REQUIRE(has_section);
  auto no_walk = r.read_dependent_handles(0);
  REQUIRE(no_walk);
  CHECK(no_walk->size() == 0);
  CHECK_FALSE(*r.has_dependent_handle_section(0));
  // §6.16 (1.2): the sample has no memory accounting, in any version.
  for (size_t i = 0; i < 3; ++i) {
    auto memory = r.read_memory_accounting(i);
    REQUIRE(memory);
    CHECK_FALSE(memory->has_value());
  }
  // §3 (1.4): only the events source's file has the required feature bit, which this reader knows.
  CHECK(r.required_features() == (std::string(name) == "events-source.snap" ? kFeatureEventsSource : 0));
  if (std::string(name) == "sample-valid.snap" || std::string(name) == "events-source.snap" ||
      std::string(name) == "compat/sample-valid-1.1.snap" || std::string(name) == "compat/sample-valid-1.2.snap" ||
      std::string(name) == "compat/sample-valid-1.3.snap" || std::string(name) == "compat/sample-valid-1.4.snap") {
    const std::string n = name;
    const bool current = n == "sample-valid.snap" || n == "events-source.snap";
    CHECK(r.minor_version() == (current ? 5 : n == "compat/sample-valid-1.4.snap" ? 4 : n == "compat/sample-valid-1.3.snap" ? 3
                                              : n == "compat/sample-valid-1.2.snap" ? 2 : 1));
    CHECK(*has_section);
    CHECK(handles->primaries == std::vector<uint64_t>{0x7f0000c00040, 0x7f0000c00018});
    CHECK(handles->secondaries == std::vector<uint64_t>{0x7f0000c000d8, 0x7f0000c01000});
  } else {
    CHECK(r.minor_version() == 0);
    CHECK_FALSE(*has_section);
    CHECK(handles->size() == 0);
  }
}

TEST_CASE("golden memory-valid.snap reads back its memory accounting") {
  auto rec = Recording::open(golden("memory-valid.snap"));
  REQUIRE(rec);
  const Recording& r = **rec;
  REQUIRE(r.gcs().size() == 2);
  CHECK(r.minor_version() == 5);
  constexpr uint64_t kMiB = 1ull << 20;
  auto first = r.read_memory_accounting(0);
  REQUIRE(first);
  REQUIRE(first->has_value());
  CHECK((*first)->present == (memory_present::kProcess | memory_present::kGcMappings));
  CHECK((*first)->rss_bytes == 40 * kMiB);
  CHECK((*first)->sample_delay_ns == 150000);
  CHECK_FALSE((*first)->has(memory_present::kLiveObjects));
  auto second = r.read_memory_accounting(1);
  REQUIRE(second);
  REQUIRE(second->has_value());
  const MemoryAccounting& m = **second;
  CHECK(m.has(memory_present::kCgroupLimit | memory_present::kLiveObjects));
  CHECK(m.live_object_bytes == 3 * kMiB);
  CHECK(m.cgroup_limit_bytes == 256 * kMiB);
  // format §6.16: the recorder's 2 MiB are gcsnap's own, not the app's native memory.
  CHECK(m.gcsnap_bytes() == 2 * kMiB);
  CHECK(m.native_and_other_bytes() == 56 * kMiB);
  CHECK(m.app_anonymous_bytes() == 31 * kMiB);
  CHECK(m.native_and_other_bytes() + m.gcsnap_bytes() + m.gc_resident_bytes == m.rss_bytes);
  CHECK(m.free_or_fragmented_bytes() == 3 * kMiB);
  CHECK(m.code_bytes + m.mapped_file_bytes + m.stack_bytes + m.anonymous_bytes + m.gc_resident_bytes == m.rss_bytes);
  for (size_t i = 0; i < 2; ++i) CHECK(r.verify_gc(i).is_ok());
}

// §6.23-§6.26 (1.5): values-valid.snap (support/values_sample.hpp) reads back its values; the
// files of earlier minors have none.
TEST_CASE("golden values-valid.snap reads back its values") {
  auto rec = Recording::open(golden("values-valid.snap"));
  REQUIRE(rec);
  const Recording& r = **rec;
  REQUIRE(r.gcs().size() == 1);
  CHECK(r.minor_version() == 5);
  CHECK(r.verify_gc(0).is_ok());
  auto strings = r.read_string_values(0);
  REQUIRE(strings);
  REQUIRE(strings->size() == 10);
  CHECK(strings->front().address == 0x2000);
  CHECK(strings->front().length == 7);
  CHECK(strings->front().hash == 0xA1A1A1A1A1A1A1A1ull);
  CHECK(strings->back().hash == 0xB2B2B2B2B2B2B2B2ull);
  std::string storage;
  auto contents = r.read_string_contents(0, storage);
  REQUIRE(contents);
  REQUIRE(contents->size() == 10);
  CHECK(contents->front().text == "Pending");
  CHECK(contents->back().text == "Shipped");
  auto collections = r.read_collection_values(0);
  REQUIRE(collections);
  REQUIRE(collections->size() == 4);
  CHECK(collections->at(2).kind == CollectionKind::MemoryCache);
  CHECK(collections->at(2).limit == 100);
  CHECK(collections->at(1).capacity == 17);
  auto capture = r.read_value_capture(0);
  REQUIRE(capture);
  REQUIRE(capture->has_value());
  CHECK((*capture)->capture_chars == 16);
  CHECK((*capture)->flags == value_flags::kContentsCaptured);
  auto older = Recording::open(golden("compat/sample-valid-1.4.snap"));
  REQUIRE(older);
  auto none = (*older)->read_string_values(2);
  REQUIRE(none);
  CHECK(none->empty());
  auto no_capture = (*older)->read_value_capture(2);
  REQUIRE(no_capture);
  CHECK_FALSE(no_capture->has_value());
}

TEST_CASE("golden files that must not open") {
  struct Case {
    const char* file;
    ErrorCode code;
  };
  const Case cases[] = {
      {"bad-magic.snap", ErrorCode::NotAGcsnapFile},
      {"empty.snap", ErrorCode::NotAGcsnapFile},
      {"unsupported-version.snap", ErrorCode::UnsupportedVersion},
      {"unknown-required-feature.snap", ErrorCode::UnknownRequiredFeature},
      {"truncated-header.snap", ErrorCode::Truncated},
  };
  for (const auto& c : cases) {
    INFO(c.file);
    auto rec = Recording::open(golden(c.file));
    REQUIRE_FALSE(rec);
    CHECK(rec.error().code == c.code);
  }
  auto missing = Recording::open(golden("does-not-exist.snap"));
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == ErrorCode::IoError);
}

TEST_CASE("golden files that open but hold a damaged GC") {
  struct Case {
    const char* file;
    ErrorCode code;
  };
  const Case cases[] = {
      {"checksum-mismatch.snap", ErrorCode::ChecksumMismatch},
      {"corrupt-section.snap", ErrorCode::CorruptSection},
      {"decompression-failed.snap", ErrorCode::DecompressionFailed},
      {"limit-exceeded.snap", ErrorCode::LimitExceeded},
      {"inconsistent-data.snap", ErrorCode::InconsistentData},
  };
  for (const auto& c : cases) {
    INFO(c.file);
    auto rec = Recording::open(golden(c.file));
    REQUIRE(rec);
    CHECK((*rec)->end() == FileEnd::Complete);
    CHECK((*rec)->gcs().size() == 3);
    CHECK(first_read_error(**rec) == c.code);
  }
}

TEST_CASE("golden files with a damaged end") {
  auto truncated = Recording::open(golden("truncated-block.snap"));
  REQUIRE(truncated);
  CHECK((*truncated)->end() == FileEnd::Truncated);
  CHECK((*truncated)->end_error().code == ErrorCode::Truncated);
  CHECK((*truncated)->gcs().size() == 2);
  CHECK(first_read_error(**truncated) == ErrorCode::Ok);

  auto no_index = Recording::open(golden("no-index.snap"));
  REQUIRE(no_index);
  CHECK((*no_index)->end() == FileEnd::NoIndex);
  CHECK((*no_index)->gcs().size() == 3);
  CHECK(first_read_error(**no_index) == ErrorCode::Ok);

  auto bad_index = Recording::open(golden("corrupt-index.snap"));
  REQUIRE(bad_index);
  CHECK((*bad_index)->end() == FileEnd::Corrupt);
  CHECK((*bad_index)->end_error().code == ErrorCode::ChecksumMismatch);
  CHECK((*bad_index)->gcs().size() == 3);
}

// §6.17 (1.3): the sample with GC 3's walk dropped as a capped writer drops it.
TEST_CASE("golden walk-dropped.snap keeps every GC but the dropped walk") {
  auto rec = Recording::open(golden("walk-dropped.snap"));
  REQUIRE(rec);
  const Recording& r = **rec;
  REQUIRE(r.gcs().size() == 3);
  CHECK(r.end() == FileEnd::Complete);
  CHECK_FALSE(r.gcs()[0].walk_dropped());
  CHECK(r.gcs()[2].walk_dropped());
  CHECK_FALSE(r.gcs()[2].has_heap_walk());
  CHECK(r.gcs()[2].dropped_sections >= 2);  // objects, reference slots, dependent handles, statics
  CHECK(r.gcs()[2].dropped_bytes > 0);
  CHECK(r.gcs()[2].object_count == 56);  // the summary still says how large the walk was
  for (size_t i = 0; i < 3; ++i) CHECK(r.verify_gc(i).is_ok());
  CHECK(r.read_objects(2).error().code == ErrorCode::WalkDropped);
  CHECK(r.read_dependent_handles(2).error().code == ErrorCode::WalkDropped);
  CHECK_FALSE(r.last_snapshot().has_value());
  auto roots = r.read_roots(2);
  REQUIRE(roots);
  CHECK(roots->size() == 2);
  auto names = r.read_names(2);
  REQUIRE(names);
  CHECK(names->type_name(3) == "App.Cache+Entry");
}

// §6.18-§6.21 (1.5): samples, stacks, functions and types read back; each sample followed
// through the GCs after it to GC 2's walk, or to its death.
TEST_CASE("golden alloc-samples-valid.snap reads back its allocation samples") {
  auto rec = Recording::open(golden("alloc-samples-valid.snap"));
  REQUIRE(rec);
  const Recording& r = **rec;
  REQUIRE(r.gcs().size() == 2);
  for (size_t i = 0; i < 2; ++i) CHECK(r.verify_gc(i).is_ok());
  auto first = read_alloc_samples(r, 0);
  REQUIRE(first);
  REQUIRE(first->size() == 3);
  CHECK((*first)[1].scale == 3);
  CHECK((*first)[2].heap == AllocHeap::Large);
  CHECK((*first)[2].stack_id == 2);
  auto names = AllocNames::read(r, 1);
  REQUIRE(names);
  const AllocStack* deep = names->find_stack(2);
  REQUIRE(deep);
  REQUIRE(deep->frames.size() == 4);
  CHECK(deep->frames[1].kind == FrameKind::Native);
  CHECK(deep->frames[3].kind == FrameKind::Truncated);
  CHECK(names->frame_name(*names->site_frame(*deep)) == "App.Program.Main");
  CHECK(names->frame_name(*names->site_frame(*names->find_stack(1))) == "App.Orders.Create<System.Int32>");
  CHECK(names->type_name(0x7ff100003000) == "System.Byte[]");
  CHECK(names->type_name(0x1234) == "<type 0x1234>");
  auto followed = follow_alloc_samples(r, 0, 1);
  REQUIRE(followed);
  REQUIRE(followed->size() == 4);
  const auto& f = *followed;
  CHECK((f[0].alive && f[0].address == 0x7f0000800100));
  CHECK((!f[1].alive && f[1].died_gc == 1));
  CHECK((f[2].alive && f[2].address == 0x7f0004000018));
  CHECK((f[3].alive && f[3].sample.kind == AllocSampleKind::Tick));
  auto objects = r.read_objects(1);
  REQUIRE(objects);
  for (const FollowedSample& s : f)
    if (s.alive) CHECK(std::binary_search(objects->addresses.begin(), objects->addresses.end(), s.address));
  // 1 - q^32 = 32/102400 to within 0.02 %: a 32-byte sample stands for about 3,200 objects.
  CHECK(estimated_objects(f[0].sample) == Approx(102400.0 / 32).epsilon(0.001));
  CHECK(estimated_bytes(f[1].sample) == Approx(3 * 102400.0).epsilon(0.001));
  CHECK(estimated_bytes(f[3].sample) == 102400.0);
  CHECK(estimated_objects(f[3].sample) == 3200.0);
}

TEST_CASE("golden files of 1.4 and before have no allocation samples") {
  auto rec = Recording::open(golden("compat/sample-valid-1.4.snap"));
  REQUIRE(rec);
  auto followed = follow_alloc_samples(**rec, 0, (*rec)->gcs().size() - 1);
  REQUIRE(followed);
  CHECK(followed->empty());
}

TEST_CASE("golden sample-valid.snap reads back its delegate targets (1.5)") {
  for (const char* name : {"sample-valid.snap", "compat/sample-valid-1.4.snap"}) {
    CAPTURE(name);
    auto rec = Recording::open(golden(name));
    REQUIRE(rec);
    auto delegates = (*rec)->read_delegate_targets(2);
    REQUIRE(delegates);
    if (std::string(name) != "sample-valid.snap") {
      CHECK(delegates->empty());  // §6.22: older files have none
      continue;
    }
    REQUIRE(delegates->size() == 2);  // sorted by address
    CHECK((*delegates)[0].address == 0x7f0000c00070);
    CHECK((*delegates)[0].function_id == 0x7ff000002000);
    CHECK((*delegates)[1].address == 0x7f0000c000d8);
    CHECK((*delegates)[1].function_id == 0);
    auto names = (*rec)->read_names(2);
    REQUIRE(names);
    REQUIRE(names->find_method(0x7ff000002000));
    CHECK(names->find_method(0x7ff000002000)->name == "App.Cache.OnEvict");
  }
}
