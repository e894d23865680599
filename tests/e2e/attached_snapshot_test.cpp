// Checks the snapshot `gcsnap snapshot PID` took by attaching to the sample app in attach-wait
// mode (started with no profiler variables): one forced GC, and in it the same heap the
// recording checks (sample_recording_test.cpp) find: counts, type names, roots and flags.

#include <algorithm>

#include <catch2/catch.hpp>

#include "sample_recording.hpp"

namespace gcsnap::e2e {
namespace {

constexpr std::string_view kLeakyItem = "Gcsnap.Sample.LeakyItem";
constexpr std::string_view kLeakyItemArray = "Gcsnap.Sample.LeakyItem[]";
constexpr std::string_view kSurvivor2 = "Gcsnap.Sample.Survivor2";
constexpr std::string_view kFinalizable = "Gcsnap.Sample.Finalizable";
constexpr std::string_view kWeakTarget = "Gcsnap.Sample.WeakTarget";
constexpr std::string_view kHandleHeld = "Gcsnap.Sample.HandleHeld";
constexpr std::string_view kStackHeld = "Gcsnap.Sample.StackHeld";
constexpr std::string_view kInner = "Gcsnap.Sample.Outer+Inner";
constexpr std::string_view kHolderOfString = "Gcsnap.Sample.Holder<System.String>";
constexpr std::string_view kByteArray = "System.Byte[]";
// In attach-wait mode the app waits inside AttachWait.Run, whose frame holds a StackHeld.
constexpr std::string_view kStackHeldMethod = "Gcsnap.Sample.AttachWait.Run";

/// The one GC of the attached snapshot.
const GcView& attached_gc() {
  static GcView gc = [] {
    const Recording& rec = sample_recording();
    REQUIRE(rec.gcs().size() == 1);
    return load_gc(rec, 0);
  }();
  return gc;
}

std::vector<size_t> roots_to(const GcView& gc, RootKind kind, std::string_view type) {
  std::vector<size_t> found;
  for (size_t i = 0; i < gc.roots.size(); ++i) {
    if (gc.roots.kinds[i] == kind && gc.roots.object_ids[i] != 0 && type_name_at(gc, gc.roots.object_ids[i]) == type) {
      found.push_back(i);
    }
  }
  return found;
}

}  // namespace

TEST_CASE("the attached snapshot is one complete, forced, full GC with a heap walk", "[attached]") {
  const Recording& rec = sample_recording();
  CHECK(rec.end() == FileEnd::Complete);
  CHECK(rec.end_offset() == rec.file_size());
  const GcView& gc = attached_gc();
  // The session numbers the GCs it sees from 1; the app's own earlier GCs were not seen.
  CHECK(gc.entry.info.gc_number == 1);
  CHECK(gc.entry.info.reason == GcReason::Induced);
  CHECK(gc.entry.info.trigger == SnapshotTrigger::OnDemand);
  CHECK(gc.entry.info.condemned_generation() == 2);
  CHECK(gc.entry.has_heap_walk());
  CHECK(gc.entry.object_count > 0);
  CHECK(!gc.entry.drops.any());
  CHECK(rec.verify_gc(0).is_ok());
}

TEST_CASE("the attached snapshot has exactly the known counts and type names", "[attached]") {
  const SampleFacts& facts = sample_facts();
  const GcView& gc = attached_gc();
  CHECK(count_objects(gc, kLeakyItem) == facts.number("leaky_items"));
  CHECK(count_objects(gc, kFinalizable) == facts.number("finalizable"));
  CHECK(count_objects(gc, kSurvivor2) == facts.number("survivor2"));
  CHECK(count_objects(gc, kWeakTarget) == 1);
  CHECK(count_objects(gc, kHandleHeld) == 1);
  CHECK(count_objects(gc, kStackHeld) == 1);  // Scenario.Run's own is dead by now
  CHECK(count_objects(gc, kInner) == 1);
  CHECK(count_objects(gc, kHolderOfString) == 1);
  for (std::string_view name : {kLeakyItemArray, kByteArray}) {
    INFO("type " << name);
    CHECK(find_type_id(gc.names, name) != 0);
  }
  auto types = gc.names.types();
  for (size_t i = 0; i < types.size(); ++i) CHECK(types[i].id == i + 1);
}

TEST_CASE("in the attached snapshot the List<LeakyItem>'s array references exactly the LeakyItems", "[attached]") {
  const GcView& gc = attached_gc();
  uint32_t array_type = find_type_id(gc.names, kLeakyItemArray);
  REQUIRE(array_type != 0);
  size_t arrays = 0;
  for (size_t i = 0; i < gc.objects.size(); ++i) {
    if (gc.objects.type_ids[i] != array_type) continue;
    ++arrays;
    uint64_t begin = gc.objects.reference_offsets[i], end = gc.objects.reference_offsets[i + 1];
    CHECK(end - begin == sample_facts().number("leaky_items"));
    for (uint64_t r = begin; r < end; ++r) CHECK(type_name_at(gc, gc.objects.reference_targets[r]) == kLeakyItem);
  }
  CHECK(arrays == 1);
}

TEST_CASE("in the attached snapshot each root kind appears with the right flags", "[attached]") {
  const GcView& gc = attached_gc();
  auto pinned = roots_to(gc, RootKind::Handle, kByteArray);
  size_t pinning = std::count_if(pinned.begin(), pinned.end(), [&](size_t i) {
    return (gc.roots.flags[i] & root_flags::kPinning) != 0 &&
           gc.objects.sizes[*find_object(gc.objects, gc.roots.object_ids[i])] >= sample_facts().number("pinned_bytes");
  });
  CHECK(pinning == 1);
  auto weak = roots_to(gc, RootKind::Handle, kWeakTarget);
  REQUIRE(weak.size() == 1);
  CHECK((gc.roots.flags[weak[0]] & root_flags::kWeakRef) != 0);
  auto strong = roots_to(gc, RootKind::Handle, kHandleHeld);
  REQUIRE(strong.size() == 1);
  CHECK((gc.roots.flags[strong[0]] & (root_flags::kWeakRef | root_flags::kPinning)) == 0);
  auto stack = roots_to(gc, RootKind::Stack, kStackHeld);
  REQUIRE(!stack.empty());
  for (size_t i : stack) {
    const MethodRecord* method = gc.names.find_method(gc.roots.root_ids[i]);
    REQUIRE(method != nullptr);
    CHECK(method->name == kStackHeldMethod);
  }
  CHECK(roots_to(gc, RootKind::Finalizer, kFinalizable).size() == sample_facts().number("finalizable"));
  for (std::string_view held_elsewhere : {kLeakyItem, kSurvivor2, kHandleHeld, kWeakTarget}) {
    CHECK(roots_to(gc, RootKind::Finalizer, held_elsewhere).empty());
    CHECK(roots_to(gc, RootKind::Stack, held_elsewhere).empty());
  }
}

}  // namespace gcsnap::e2e
