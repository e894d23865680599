// Checks a real recording of the sample app (tests/e2e/sample_app) against what its C# code
// declares: root kinds and flags, exact type names and counts, ids within generation bounds,
// well-formed ranges, and the Survivor2 objects that appear between the last two induced GCs.

#include <algorithm>
#include <utility>

#include <catch2/catch.hpp>

#include "sample_recording.hpp"

namespace gcsnap::e2e {
namespace {

// Type names as the shim writes them (profiler-shim: namespaces, '+' nesting, generic args).
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
constexpr std::string_view kStackHeldMethod = "Gcsnap.Sample.Scenario.Run";

/// The last two induced GCs with a heap walk: the app allocates the Survivor2s between them.
std::pair<GcView, GcView> diff_pair() {
  auto induced = induced_snapshots(sample_recording());
  REQUIRE(induced.size() >= 2);
  return {load_gc(sample_recording(), induced[induced.size() - 2]),
          load_gc(sample_recording(), induced.back())};
}

/// Return the indices of the roots of KIND whose object has the type named TYPE.
std::vector<size_t> roots_to(const GcView& gc, RootKind kind, std::string_view type) {
  std::vector<size_t> found;
  for (size_t i = 0; i < gc.roots.size(); ++i) {
    if (gc.roots.kinds[i] == kind && gc.roots.object_ids[i] != 0 &&
        type_name_at(gc, gc.roots.object_ids[i]) == type) {
      found.push_back(i);
    }
  }
  return found;
}

}  // namespace

TEST_CASE("the recording of the sample app is complete and has its induced GCs", "[sample]") {
  const Recording& rec = sample_recording();
  CHECK(rec.end() == FileEnd::Complete);
  CHECK(rec.end_offset() == rec.file_size());
  REQUIRE(!rec.gcs().empty());
  auto induced = induced_snapshots(rec);
  // The default policy walks the heap at every induced GC; the app made induced_gcs of them.
  CHECK(induced.size() == sample_facts().number("induced_gcs"));
  for (size_t i : induced) {
    INFO("GC #" << rec.gcs()[i].info.gc_number);
    CHECK(rec.gcs()[i].info.condemned_generation() == 2);
    CHECK(rec.gcs()[i].info.compacted);
    CHECK(rec.gcs()[i].object_count > 0);
    CHECK(!rec.gcs()[i].drops.any());
    CHECK(rec.verify_gc(i).is_ok());
  }
  for (size_t i = 1; i < rec.gcs().size(); ++i) CHECK(rec.gcs()[i].info.gc_number > rec.gcs()[i - 1].info.gc_number);
}

TEST_CASE("the known types have exactly the known counts", "[sample]") {
  const SampleFacts& facts = sample_facts();
  auto [before, after] = diff_pair();
  for (const GcView* gc : {&before, &after}) {
    INFO("GC #" << gc->entry.info.gc_number);
    CHECK(count_objects(*gc, kLeakyItem) == facts.number("leaky_items"));
    CHECK(count_objects(*gc, kFinalizable) == facts.number("finalizable"));
    CHECK(count_objects(*gc, kWeakTarget) == 1);
    CHECK(count_objects(*gc, kHandleHeld) == 1);
    CHECK(count_objects(*gc, kStackHeld) == 1);
    CHECK(count_objects(*gc, kInner) == 1);
    CHECK(count_objects(*gc, kHolderOfString) == 1);
  }
  // The recorder saw every GC from startup, so its numbers are the runtime's GC counts.
  CHECK(before.entry.info.gc_number == facts.number("diff_from_gc"));
  CHECK(after.entry.info.gc_number == facts.number("diff_to_gc"));
  CHECK(count_objects(before, kSurvivor2) == 0);
  CHECK(count_objects(after, kSurvivor2) == facts.number("survivor2"));
}

TEST_CASE("type names are the ones the C# code declares", "[sample]") {
  auto [before, after] = diff_pair();
  for (std::string_view name : {kLeakyItem, kLeakyItemArray, kSurvivor2, kFinalizable, kWeakTarget, kHandleHeld,
                                kStackHeld, kInner, kHolderOfString, kByteArray}) {
    INFO("type " << name);
    CHECK(find_type_id(after.names, name) != 0);
  }
  // Type ids are dense and 1-based, and each name is given once.
  auto types = after.names.types();
  for (size_t i = 0; i < types.size(); ++i) CHECK(types[i].id == i + 1);
  std::vector<std::string_view> names;
  for (const TypeRecord& t : types) names.push_back(t.name);
  std::sort(names.begin(), names.end());
  CHECK(std::adjacent_find(names.begin(), names.end()) == names.end());
}

TEST_CASE("the List<LeakyItem>'s array references exactly the LeakyItems", "[sample]") {
  auto [before, after] = diff_pair();
  uint32_t array_type = find_type_id(after.names, kLeakyItemArray);
  REQUIRE(array_type != 0);
  const ObjectTable& objects = after.objects;
  size_t arrays = 0;
  for (size_t i = 0; i < objects.size(); ++i) {
    if (objects.type_ids[i] != array_type) continue;
    ++arrays;
    uint64_t begin = objects.reference_offsets[i], end = objects.reference_offsets[i + 1];
    CHECK(end - begin == sample_facts().number("leaky_items"));
    for (uint64_t r = begin; r < end; ++r) CHECK(type_name_at(after, objects.reference_targets[r]) == kLeakyItem);
  }
  CHECK(arrays == 1);
}

TEST_CASE("each root kind appears with the right flags", "[sample]") {
  auto [before, after] = diff_pair();
  for (const GcView* gc : {&before, &after}) {
    INFO("GC #" << gc->entry.info.gc_number);
    auto pinned = roots_to(*gc, RootKind::Handle, kByteArray);
    size_t pinning = std::count_if(pinned.begin(), pinned.end(), [&](size_t i) {
      return (gc->roots.flags[i] & root_flags::kPinning) != 0 &&
             gc->objects.sizes[*find_object(gc->objects, gc->roots.object_ids[i])] >=
                 sample_facts().number("pinned_bytes");
    });
    CHECK(pinning == 1);

    auto weak = roots_to(*gc, RootKind::Handle, kWeakTarget);
    REQUIRE(weak.size() == 1);
    CHECK((gc->roots.flags[weak[0]] & root_flags::kWeakRef) != 0);
    CHECK((gc->roots.flags[weak[0]] & root_flags::kPinning) == 0);
    CHECK(gc->roots.root_ids[weak[0]] != 0);  // the handle slot's address

    auto strong = roots_to(*gc, RootKind::Handle, kHandleHeld);
    REQUIRE(strong.size() == 1);
    CHECK((gc->roots.flags[strong[0]] & (root_flags::kWeakRef | root_flags::kPinning)) == 0);
    CHECK(gc->roots.root_ids[strong[0]] != 0);

    auto stack = roots_to(*gc, RootKind::Stack, kStackHeld);
    REQUIRE(!stack.empty());
    for (size_t i : stack) {
      CHECK(gc->roots.root_ids[i] != 0);  // the FunctionID of Scenario.Run
      const MethodRecord* method = gc->names.find_method(gc->roots.root_ids[i]);
      REQUIRE(method != nullptr);
      CHECK(method->name == kStackHeldMethod);
    }

    // Only the f-reachable queue holds the Finalizables (the finalizer thread is blocked).
    CHECK(roots_to(*gc, RootKind::Finalizer, kFinalizable).size() == sample_facts().number("finalizable"));
    for (std::string_view held_elsewhere : {kLeakyItem, kSurvivor2, kHandleHeld, kWeakTarget}) {
      CHECK(roots_to(*gc, RootKind::Finalizer, held_elsewhere).empty());
      CHECK(roots_to(*gc, RootKind::Stack, held_elsewhere).empty());
    }
    for (size_t i = 0; i < gc->roots.size(); ++i) CHECK((gc->roots.flags[i] & ~root_flags::kAll) == 0);
  }
}

TEST_CASE("stack roots name their method and handle-held objects have no referrers", "[sample]") {
  auto [before, after] = diff_pair();
  for (const GcView* gc : {&before, &after}) {
    INFO("GC #" << gc->entry.info.gc_number);
    size_t stack = 0, unnamed = 0;
    for (size_t i = 0; i < gc->roots.size(); ++i) {
      if (gc->roots.kinds[i] != RootKind::Stack || gc->roots.root_ids[i] == 0) continue;
      ++stack;
      if (!gc->names.find_method(gc->roots.root_ids[i])) ++unnamed;
    }
    CHECK(stack > 0);
    CHECK(unnamed == 0);
    // HandleHeld and the pinned byte[] are reachable only through their handles.
    std::vector<uint64_t> targets = gc->objects.reference_targets;
    std::sort(targets.begin(), targets.end());
    for (std::string_view type : {kHandleHeld, kStackHeld}) {
      uint32_t id = find_type_id(gc->names, type);
      REQUIRE(id != 0);
      for (size_t i = 0; i < gc->objects.size(); ++i) {
        if (gc->objects.type_ids[i] != id) continue;
        INFO(type << " has a referrer");
        CHECK(!std::binary_search(targets.begin(), targets.end(), gc->objects.addresses[i]));
      }
    }
  }
}

}  // namespace gcsnap::e2e
