// The recorder driven by synthetic callbacks, as the runtime would call it, and checked
// through the reader: what the shim writes is what a user will read.
#include <unistd.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "gcsnap/edge_names.hpp"
#include "gcsnap/reader.hpp"
#include "recorder.hpp"
#include "temp_path.hpp"
#include "writer_thread.hpp"

using namespace gcsnap;
using namespace gcsnap::shim;

namespace {

constexpr uint8_t kGen0 = 0x1;
constexpr uint8_t kFull = 0x1F;

class FakeQueries final : public RuntimeQueries {
 public:
  TypeName type_name(uint64_t class_id) override {
    ++type_lookups;
    if (class_id == 0xBAD) return {};
    return {"Type" + std::to_string(class_id), "app.dll", true};
  }
  uint64_t object_size(uint64_t object_id) override { return object_id >= 0x9000 ? 40 : 24; }
  uint64_t class_of(uint64_t object_id) override { return object_id >= 0x9000 ? 0xF0 : 0; }
  uint32_t component_count(uint64_t object_id) override {
    ++count_reads;
    auto found = counts.find(object_id);
    return found == counts.end() ? 0 : found->second;
  }
  std::string method_name(uint64_t function_id) override { return "Ns.T.M" + std::to_string(function_id); }
  bool type_layout(uint64_t class_id, uint64_t object_id, OwnedLayout& out) override {
    ++layout_lookups;
    if (class_id != 0xA || object_id == 0) return false;
    out.fields = {{8, field_flags::kReference, "Next"}, {16, field_flags::kReference, "Label"}};
    return true;
  }
  const uint64_t* object_words(uint64_t object_id) override {
    auto it = memory.find(object_id);
    return it == memory.end() ? nullptr : it->second.data();
  }
  int type_lookups = 0;
  int count_reads = 0;
  int layout_lookups = 0;
  std::map<uint64_t, std::vector<uint64_t>> memory;  ///< object memory for the slot search
  std::map<uint64_t, uint32_t> counts;  ///< component counts of fake objects (default 0)
};

struct Harness {
  explicit Harness(RecorderOptions options)
      : path(gcsnap::test::temp_path("shim-recorder")) {
    auto writer = Writer::create(path);
    REQUIRE(writer.is_ok());
    sink = std::make_unique<WriterThread>(std::move(writer).value(), [this](const char* message) { failed = true; failure = message; });
    recorder = std::make_unique<Recorder>(options, queries, *sink);
  }
  ~Harness() { ::unlink(path.c_str()); }
  std::unique_ptr<Recording> finish() {
    INFO(failure);
    REQUIRE(sink->finish());
    auto opened = Recording::open(path);
    REQUIRE(opened.is_ok());
    return std::move(opened).value();
  }
  void roots(std::vector<uint64_t> objects, std::vector<uint32_t> kinds, std::vector<uint64_t> ids) {
    std::vector<uint32_t> flags(objects.size(), 0);
    recorder->on_root_references(objects, kinds, flags, ids);
  }
  void finish_gc() {
    std::vector<GenerationRange> bounds = {{Generation::Gen2, 0x1000, 0x800, 0x1000},
                                           {Generation::Gen0, 0x4000, 0x100, 0x1000}};
    recorder->on_gc_finished(bounds, 2000);
  }

  std::string path;
  FakeQueries queries;
  std::unique_ptr<WriterThread> sink;
  std::unique_ptr<Recorder> recorder;
  bool failed = false;
  std::string failure;
};

RecorderOptions with_policy(SnapshotPolicy policy) {
  RecorderOptions options;
  options.policy = policy;
  return options;
}

}  // namespace

TEST_CASE("recorder: a walked GC lands in the file with roots, ranges, objects, types, methods", "[shim][recorder]") {
  Harness h(with_policy(SnapshotPolicy::Default));
  REQUIRE(h.recorder->on_gc_started(kFull, true, 1000));
  std::vector<AddressRange> frozen = {{0x9000, 0x1000}};
  h.recorder->set_non_gc_ranges(frozen);
  h.roots({0x1000, 0x4010}, {1, 3}, {0x77, 0x5555});  // two batches are concatenated
  h.roots({0}, {2}, {0});
  std::vector<uint64_t> starts = {0x1000}, lengths = {0x800};
  h.recorder->on_surviving_references(starts, lengths);
  std::vector<uint64_t> refs = {0x1100, 0x9010};
  CHECK(h.recorder->on_object_references(0x1000, 0xA, refs));
  CHECK(h.recorder->on_object_references(0x1100, 0xB, {}));
  CHECK(h.recorder->on_object_references(0x4010, 0xA, {}));
  h.finish_gc();
  auto rec = h.finish();

  REQUIRE(rec->gcs().size() == 1);
  const GcEntry& gc = rec->gcs()[0];
  CHECK(gc.info.gc_number == 1);
  CHECK(gc.info.trigger == SnapshotTrigger::Policy);
  CHECK(gc.info.reason == GcReason::Induced);
  CHECK(gc.info.generations_collected == kFull);
  CHECK_FALSE(gc.info.compacted);
  CHECK(gc.info.start_time_ns == 1000);
  CHECK(gc.info.end_time_ns == 2000);

  auto roots = rec->read_roots(0);
  REQUIRE(roots.is_ok());
  CHECK(roots->object_ids == std::vector<uint64_t>{0x1000, 0x4010, 0});
  CHECK(roots->kinds == std::vector<RootKind>{RootKind::Stack, RootKind::Handle, RootKind::Finalizer});
  CHECK(roots->root_ids == std::vector<uint64_t>{0x77, 0x5555, 0});

  auto ranges = rec->read_ranges(0);
  REQUIRE(ranges.is_ok());
  CHECK(ranges->surviving_starts == std::vector<uint64_t>{0x1000});
  CHECK(ranges->moved_old_starts.empty());
  auto bounds = rec->read_generation_bounds(0);
  REQUIRE(bounds.is_ok());
  CHECK(bounds->size() == 2);

  auto objects = rec->read_objects(0);
  REQUIRE(objects.is_ok());
  REQUIRE(objects->size() == 4);  // three walked + the frozen reference target
  std::map<uint64_t, Generation> generation;
  std::map<uint64_t, uint64_t> size;
  for (size_t i = 0; i < objects->size(); ++i) {
    generation[objects->addresses[i]] = objects->generations[i];
    size[objects->addresses[i]] = objects->sizes[i];
  }
  CHECK(generation[0x1000] == Generation::Gen2);
  CHECK(generation[0x1100] == Generation::Gen2);
  CHECK(generation[0x4010] == Generation::Gen0);
  CHECK(generation[0x9010] == Generation::NonGcHeap);
  CHECK(size[0x9010] == 40);

  auto names = rec->read_names(0);
  REQUIRE(names.is_ok());
  CHECK(names->types().size() == 3);  // 0xA, 0xB and the frozen object's 0xF0
  const MethodRecord* method = names->find_method(0x77);
  REQUIRE(method);
  CHECK(method->name == "Ns.T.M119");
  CHECK(names->find_method(0x5555) == nullptr);  // handle roots carry no FunctionID
  CHECK(h.queries.type_lookups == 3);  // each ClassID resolved once
}

// A root whose target is a frozen object (a string literal in a stack slot) at a walked GC: the
// frozen object is stored from inside the roots callback, before the heap walk opened any
// chunk. This once self-deadlocked on the recorder's mutex (the demo's app hung).
TEST_CASE("recorder: a frozen root target before the heap walk is stored without deadlock", "[shim][recorder]") {
  Harness h(with_policy(SnapshotPolicy::Default));
  REQUIRE(h.recorder->on_gc_started(kFull, true, 1000));
  std::vector<AddressRange> frozen = {{0x9000, 0x1000}};
  h.recorder->set_non_gc_ranges(frozen);
  h.roots({0x9020, 0x1000}, {0, 2}, {0x77, 0x5555});
  CHECK(h.recorder->on_object_references(0x1000, 0xA, {}));
  h.finish_gc();
  auto rec = h.finish();
  auto objects = rec->read_objects(0);
  REQUIRE(objects.is_ok());
  REQUIRE(objects->size() == 2);
  CHECK(objects->addresses == std::vector<uint64_t>{0x1000, 0x9020});
  CHECK(objects->generations[1] == Generation::NonGcHeap);
}

TEST_CASE("recorder: a gen0 GC under the default policy stops the walk but keeps ranges and roots",
          "[shim][recorder]") {
  Harness h(with_policy(SnapshotPolicy::Default));
  CHECK_FALSE(h.recorder->on_gc_started(kGen0, false, 1));
  h.roots({0x4000}, {1}, {0});
  std::vector<uint64_t> old_starts = {0x4000}, new_starts = {0x1000}, lengths = {0x40};
  h.recorder->on_moved_references(old_starts, new_starts, lengths);
  CHECK_FALSE(h.recorder->on_object_references(0x1000, 0xA, {}));
  h.finish_gc();
  auto rec = h.finish();
  REQUIRE(rec->gcs().size() == 1);
  const GcEntry& gc = rec->gcs()[0];
  CHECK(gc.info.trigger == SnapshotTrigger::None);
  CHECK(gc.info.compacted);
  CHECK(gc.root_count == 1);
  CHECK(gc.moved_range_count == 1);
  CHECK(gc.object_count == 0);
  CHECK(rec->read_objects(0).error().code == ErrorCode::NoHeapWalk);
}

TEST_CASE("recorder: policies, max snapshots and on-demand requests", "[shim][recorder]") {
  SECTION("all, capped at two") {
    RecorderOptions options = with_policy(SnapshotPolicy::All);
    options.max_snapshots = 2;
    Harness h(options);
    std::vector<bool> walked;
    for (int i = 0; i < 3; ++i) {
      walked.push_back(h.recorder->on_gc_started(kGen0, false, 1));
      h.finish_gc();
    }
    CHECK(walked == std::vector<bool>{true, true, false});
    auto rec = h.finish();
    CHECK(rec->gcs()[0].info.trigger == SnapshotTrigger::Always);
    CHECK(rec->gcs()[2].info.trigger == SnapshotTrigger::None);
  }
  SECTION("none, with one on-demand request") {
    Harness h(with_policy(SnapshotPolicy::None));
    CHECK_FALSE(h.recorder->on_gc_started(kFull, true, 1));
    h.finish_gc();
    h.recorder->request_on_demand();
    CHECK_FALSE(h.recorder->on_gc_started(kGen0, false, 1));  // not the forced GC: still pending
    h.finish_gc();
    CHECK(h.recorder->on_gc_started(kFull, true, 1));
    h.finish_gc();
    CHECK(h.recorder->last_on_demand_gc() == 3);
    CHECK_FALSE(h.recorder->on_gc_started(kFull, true, 1));
    h.finish_gc();
    auto rec = h.finish();
    REQUIRE(rec->gcs().size() == 4);
    CHECK(rec->gcs()[2].info.trigger == SnapshotTrigger::OnDemand);
    CHECK(rec->gcs()[3].info.trigger == SnapshotTrigger::None);
  }
  SECTION("none, with a request withdrawn") {
    Harness h(with_policy(SnapshotPolicy::None));
    h.recorder->request_on_demand();
    CHECK_FALSE(h.recorder->on_gc_started(kFull, false, 1));  // the runtime's own full GC: still pending
    h.finish_gc();
    h.recorder->withdraw_on_demand();
    CHECK_FALSE(h.recorder->on_gc_started(kFull, true, 1));  // the app's GC.Collect later: not walked
    h.finish_gc();
    CHECK(h.recorder->last_on_demand_gc() == 0);
  }
  SECTION("gen2 and induced") {
    Harness gen2(with_policy(SnapshotPolicy::Gen2));
    CHECK(gen2.recorder->on_gc_started(kFull, false, 1));
    gen2.finish_gc();
    CHECK_FALSE(gen2.recorder->on_gc_started(0x3, true, 1));
    gen2.finish_gc();
    Harness induced(with_policy(SnapshotPolicy::Induced));
    CHECK(induced.recorder->on_gc_started(0x1, true, 1));
    induced.finish_gc();
    CHECK_FALSE(induced.recorder->on_gc_started(kFull, false, 1));
    induced.finish_gc();
  }
}

TEST_CASE("recorder: a walk over the memory cap is abandoned whole and the file says so", "[shim][recorder]") {
  RecorderOptions options = with_policy(SnapshotPolicy::All);
  options.memory_budget_bytes = 16 * 1024;
  Harness h(options);
  REQUIRE(h.recorder->on_gc_started(kFull, true, 1));
  h.roots({0x1000}, {1}, {0});
  std::vector<uint64_t> refs(8, 0x1000);
  uint64_t stored = 0;
  for (uint64_t i = 0; i < 2000; ++i) {
    if (!h.recorder->on_object_references(0x1000 + i * 24, 0xA, refs)) break;  // the runtime stops its walk
    ++stored;
  }
  CHECK(stored > 0);
  CHECK(stored < 2000);
  CHECK_FALSE(h.recorder->on_object_references(0x9000 - 24, 0xA, {}));  // no more once abandoned
  h.finish_gc();
  // The next GC walks again from an empty batch.
  REQUIRE(h.recorder->on_gc_started(kFull, true, 3000));
  CHECK(h.recorder->on_object_references(0x1000, 0xA, {}));
  h.finish_gc();
  auto rec = h.finish();
  REQUIRE(rec->gcs().size() == 2);
  const GcEntry& gc = rec->gcs()[0];
  CHECK(gc.info.trigger == SnapshotTrigger::None);
  CHECK(gc.object_count == 0);
  CHECK(gc.root_count == 1);  // the GC's roots and ranges stay
  auto skip = rec->read_walk_skip(0);
  REQUIRE(skip.is_ok());
  REQUIRE(skip->has_value());
  CHECK((*skip)->reason == walk_skip_reason::kMemoryCap);
  CHECK((*skip)->last_walk_ns == 16 * 1024);       // cap_bytes
  CHECK((*skip)->since_last_walk_ns > 16 * 1024);  // held_bytes, with the part that did not fit
  CHECK((*skip)->estimated_walk_ns == stored);     // objects_stored
  CHECK(rec->gcs()[1].info.trigger == SnapshotTrigger::Always);
  CHECK(rec->gcs()[1].object_count == 1);
  CHECK(h.recorder->stats().walks_abandoned == 1);
  CHECK(h.recorder->last_refused_gc() == 1);
  for (size_t i = 0; i < 2; ++i) CHECK(rec->verify_gc(i).is_ok());
}

TEST_CASE("recorder: the OOM guard skips a walk the cgroup's headroom cannot hold", "[shim][recorder]") {
  RecorderOptions options = with_policy(SnapshotPolicy::All);
  uint64_t usage = 1000, limit = 1ull << 40;
  bool has_limit = true;
  options.read_cgroup = [&](uint64_t& u, uint64_t& l) {
    u = usage, l = limit;
    return has_limit;
  };
  Harness h(options);
  // GC 1: room enough: walked.
  REQUIRE(h.recorder->on_gc_started(kFull, true, 1));
  CHECK(h.recorder->on_object_references(0x1000, 0xA, {}));
  h.finish_gc();
  // GC 2: headroom 0x900 is below the estimate (at least one chunk): skipped.
  limit = 1000 + 0x900;
  CHECK_FALSE(h.recorder->on_gc_started(kFull, true, 3000));
  CHECK_FALSE(h.recorder->on_object_references(0x1000, 0xA, {}));
  h.finish_gc();
  // GC 3: no limit any more: walked.
  has_limit = false;
  REQUIRE(h.recorder->on_gc_started(kFull, true, 5000));
  h.finish_gc();
  auto rec = h.finish();
  REQUIRE(rec->gcs().size() == 3);
  CHECK(rec->gcs()[0].info.trigger == SnapshotTrigger::Always);
  CHECK(rec->gcs()[1].info.trigger == SnapshotTrigger::None);
  CHECK(rec->gcs()[2].info.trigger == SnapshotTrigger::Always);
  auto skip = rec->read_walk_skip(1);
  REQUIRE(skip.is_ok());
  REQUIRE(skip->has_value());
  CHECK((*skip)->reason == walk_skip_reason::kCgroupHeadroom);
  CHECK((*skip)->budget_per_mille == 0);
  CHECK((*skip)->last_walk_ns == usage);
  CHECK((*skip)->since_last_walk_ns == limit);
  // The headroom the walk needed: four times its buffers (a walk takes at most a quarter of the
  // headroom): the one object stored (24 bytes), scaled by the heap, and a chunk, plus what the
  // writer thread had not written yet (GC 1's chunk, if still queued).
  const uint64_t chunk = ObjectChunk::bytes_for(ObjectChunk::kObjects, 2 * ObjectChunk::kObjects);
  CHECK((*skip)->estimated_walk_ns >= 4 * (24 + chunk));
  CHECK((*skip)->estimated_walk_ns <= 4 * (24 + 2 * chunk + 64 * 1024));
  CHECK(h.recorder->stats().guard_skips == 1);
  CHECK(h.recorder->last_refused_gc() == 2);
}

TEST_CASE("recorder: a walk takes at most a quarter of the cgroup's headroom", "[shim][recorder]") {
  RecorderOptions options = with_policy(SnapshotPolicy::All);
  const uint64_t chunk = ObjectChunk::bytes_for(ObjectChunk::kObjects, 2 * ObjectChunk::kObjects);
  const uint64_t usage = 1ull << 30;
  uint64_t headroom = 2 * chunk;
  options.read_cgroup = [&](uint64_t& u, uint64_t& l) {
    u = usage, l = usage + headroom;
    return true;
  };
  Harness h(options);
  // GC 1: the walk's estimate (a chunk) fits the headroom but not a quarter of it: skipped.
  CHECK_FALSE(h.recorder->on_gc_started(kFull, true, 1));
  h.finish_gc();
  // GC 2: a quarter of the headroom holds a chunk and a little more: walked, and held to that
  // share while it runs, so a walk that outgrows it is abandoned with the share as its cap.
  headroom = 4 * chunk + 4 * 64 * 1024;
  REQUIRE(h.recorder->on_gc_started(kFull, true, 3000));
  uint64_t stored = 0;
  for (uint64_t i = 0; i < 4 * ObjectChunk::kObjects; ++i) {
    if (!h.recorder->on_object_references(0x100000 + i * 24, 0xA, {})) break;
    ++stored;
  }
  CHECK(stored >= ObjectChunk::kObjects);
  CHECK(stored < 2 * ObjectChunk::kObjects);
  h.finish_gc();
  auto rec = h.finish();
  REQUIRE(rec->gcs().size() == 2);
  auto first = rec->read_walk_skip(0);
  REQUIRE(first.is_ok());
  REQUIRE(first->has_value());
  CHECK((*first)->reason == walk_skip_reason::kCgroupHeadroom);
  CHECK((*first)->estimated_walk_ns > 2 * chunk);  // the headroom needed: four times the buffers
  auto second = rec->read_walk_skip(1);
  REQUIRE(second.is_ok());
  REQUIRE(second->has_value());
  CHECK((*second)->reason == walk_skip_reason::kMemoryCap);
  CHECK((*second)->last_walk_ns == headroom / 4);  // cap_bytes: the walk's share
  CHECK((*second)->estimated_walk_ns == stored);
}

TEST_CASE("recorder: the OOM guard's skip does not count against --max-snapshots", "[shim][recorder]") {
  RecorderOptions options = with_policy(SnapshotPolicy::All);
  options.max_snapshots = 2;
  bool tight = false;
  options.read_cgroup = [&](uint64_t& u, uint64_t& l) {
    u = 100, l = tight ? 100 : 1ull << 40;
    return true;
  };
  Harness h(options);
  REQUIRE(h.recorder->on_gc_started(kFull, true, 1));
  h.finish_gc();
  tight = true;
  CHECK_FALSE(h.recorder->on_gc_started(kFull, true, 3000));  // no headroom at all
  h.finish_gc();
  tight = false;
  CHECK(h.recorder->on_gc_started(kFull, true, 5000));  // the second snapshot
  h.finish_gc();
  CHECK_FALSE(h.recorder->on_gc_started(kFull, true, 7000));  // two taken
  h.finish_gc();
  auto rec = h.finish();
  REQUIRE(rec->gcs().size() == 4);
  CHECK(rec->read_walk_skip(1)->has_value());
  CHECK_FALSE(rec->read_walk_skip(3)->has_value());
}

TEST_CASE("recorder: unresolved types are named and flagged; stop keeps completed GCs", "[shim][recorder]") {
  Harness h(with_policy(SnapshotPolicy::All));
  REQUIRE(h.recorder->on_gc_started(kFull, true, 1));
  CHECK(h.recorder->on_object_references(0x1000, 0xBAD, {}));
  h.finish_gc();
  REQUIRE(h.recorder->on_gc_started(kFull, true, 1));
  h.recorder->stop();  // e.g. the guard caught something mid-GC
  CHECK_FALSE(h.recorder->on_object_references(0x1000, 0xA, {}));
  h.finish_gc();
  CHECK_FALSE(h.recorder->on_gc_started(kFull, true, 1));
  auto rec = h.finish();
  REQUIRE(rec->gcs().size() == 1);
  CHECK((rec->gcs()[0].drops.reasons & drop_reason::kTypeUnresolved) != 0);
  auto names = rec->read_names(0);
  REQUIRE(names.is_ok());
  REQUIRE(names->types().size() == 1);
  CHECK(names->types()[0].name == "<unresolved type 0xbad>");
}

TEST_CASE("classify_address uses the post-GC bounds, then the frozen ranges", "[shim][recorder]") {
  std::vector<GenerationRange> bounds = {{Generation::Gen1, 0x1000, 0x100, 0x1000},
                                         {Generation::LargeObjectHeap, 0x8000, 0x10, 0x100}};
  std::vector<AddressRange> frozen = {{0x20000, 0x100}};
  CHECK(classify_address(0x1000, bounds, frozen) == Generation::Gen1);
  CHECK(classify_address(0x10FF, bounds, frozen) == Generation::Gen1);
  CHECK(classify_address(0x1100, bounds, frozen) == Generation::Unknown);  // reserved, not in use
  CHECK(classify_address(0x8008, bounds, frozen) == Generation::LargeObjectHeap);
  CHECK(classify_address(0x20010, bounds, frozen) == Generation::NonGcHeap);
  CHECK(classify_address(0x10, bounds, frozen) == Generation::Unknown);
}

TEST_CASE("recorder: dependent handles are kept at heap-walk GCs only", "[shim][recorder]") {
  Harness h(with_policy(SnapshotPolicy::Default));
  std::vector<uint64_t> keys = {0x1000, 0x1100}, values = {0x1100, 0x4010};
  // GC 1: gen0, no walk: the pairs are ignored and no section is written.
  CHECK_FALSE(h.recorder->on_gc_started(kGen0, false, 1));
  h.recorder->on_dependent_handles(keys, values);
  h.finish_gc();
  // GC 2: full, walked: two batches are concatenated.
  REQUIRE(h.recorder->on_gc_started(kFull, true, 2));
  h.recorder->on_dependent_handles(std::span(keys).first(1), std::span(values).first(1));
  h.recorder->on_dependent_handles(std::span(keys).last(1), std::span(values).last(1));
  CHECK(h.recorder->on_object_references(0x1000, 0xA, {}));
  h.finish_gc();
  // GC 3: walked, the runtime reports no pair: an empty section says "captured, none".
  REQUIRE(h.recorder->on_gc_started(kFull, true, 3));
  CHECK(h.recorder->on_object_references(0x1000, 0xA, {}));
  h.finish_gc();
  auto rec = h.finish();
  REQUIRE(rec->gcs().size() == 3);
  CHECK_FALSE(*rec->has_dependent_handle_section(0));
  CHECK(rec->read_dependent_handles(0)->size() == 0);
  auto walked = rec->read_dependent_handles(1);
  REQUIRE(walked);
  CHECK(walked->primaries == keys);
  CHECK(walked->secondaries == values);
  CHECK(*rec->has_dependent_handle_section(2));
  CHECK(rec->read_dependent_handles(2)->size() == 0);
  for (size_t i = 0; i < 3; ++i) CHECK(rec->verify_gc(i).is_ok());
}

TEST_CASE("recorder: dependent handles count against the memory budget", "[shim][recorder]") {
  RecorderOptions options = with_policy(SnapshotPolicy::All);
  options.memory_budget_bytes = 16 * 1024;
  Harness h(options);
  REQUIRE(h.recorder->on_gc_started(kFull, true, 1));
  std::vector<uint64_t> keys(4096, 0x1000), values(4096, 0x1100);
  h.recorder->on_dependent_handles(keys, values);
  h.finish_gc();
  auto rec = h.finish();
  const GcEntry& gc = rec->gcs()[0];
  CHECK(rec->read_dependent_handles(0)->size() == 0);
  CHECK(gc.drops.references == 4096);
  CHECK((gc.drops.reasons & drop_reason::kMemoryLimit) != 0);
}

TEST_CASE("class cache: size rules are learned, checked, and dropped when the runtime disagrees", "[shim][recorder]") {
  ClassInfo fixed;
  fixed.kind = SizeKind::Fixed;
  CHECK(ClassCache::learn(fixed, 40, 7));
  CHECK(fixed.rule == SizeRule::Fixed);
  CHECK(ClassCache::predict(fixed, 123) == 40);
  CHECK(fixed.validations_left == ClassCache::kValidations);
  CHECK_FALSE(ClassCache::learn(fixed, 48, 0));  // a fixed class whose size changed: asked from now on
  CHECK(fixed.rule == SizeRule::Ask);
  CHECK(ClassCache::predict(fixed, 0) == 0);

  ClassInfo array;  // unknown kind: learned from two objects with different counts
  CHECK(ClassCache::learn(array, 24 + 3 * 8, 3));
  CHECK(array.rule == SizeRule::Learning);
  CHECK(ClassCache::learn(array, 24 + 3 * 8, 3));  // same count: nothing learned yet
  CHECK(array.rule == SizeRule::Learning);
  CHECK(ClassCache::learn(array, 24 + 10 * 8, 10));
  CHECK(array.rule == SizeRule::Components);
  CHECK(array.base == 24);
  CHECK(array.component == 8);
  CHECK(ClassCache::predict(array, 1000) == 24 + 8000);

  ClassInfo string;  // 22 + 2 * length: a base that is not a multiple of 8
  CHECK(ClassCache::learn(string, 22 + 2 * 5, 5));
  CHECK(ClassCache::learn(string, 22 + 2 * 2, 2));
  CHECK(string.rule == SizeRule::Components);
  CHECK(ClassCache::predict(string, 1) == 24);
  CHECK(ClassCache::predict(string, 0) == 24);  // the runtime reports no object below 24 bytes

  ClassInfo text;  // the empty string comes first: 24 bytes, off the line 22 + 2 * length
  text.kind = SizeKind::Variable;
  CHECK(ClassCache::learn(text, 24, 0));
  CHECK(ClassCache::learn(text, 22 + 2 * 36, 36));  // replaces the clamped point
  CHECK(text.rule == SizeRule::Learning);
  CHECK(ClassCache::learn(text, 24, 1));  // 22 + 2 raised to 24: still no line
  CHECK(text.rule == SizeRule::Learning);
  CHECK(ClassCache::learn(text, 22 + 2 * 10, 10));
  CHECK(text.rule == SizeRule::Components);
  CHECK(text.base == 22);
  CHECK(text.component == 2);
  CHECK(ClassCache::learn(text, 24, 0));  // checked against the clamped prediction
  CHECK(ClassCache::predict(text, 0) == 24);

  ClassInfo same;  // every array of one length (List<T>'s arrays in a cache): one count, one size
  same.kind = SizeKind::Variable;
  for (int i = 0; i <= ClassCache::kValidations; ++i) {
    CHECK(ClassCache::predict_learning(same, 3) == 0);  // not yet: asked, and counted
    CHECK(ClassCache::learn(same, 48, 3));
  }
  CHECK(same.rule == SizeRule::Learning);
  CHECK(ClassCache::predict_learning(same, 3) == 48);
  CHECK(ClassCache::predict_learning(same, 4) == 0);  // another count is asked, and teaches the line
  CHECK(ClassCache::learn(same, 56, 4));
  CHECK(same.rule == SizeRule::Components);
  CHECK(ClassCache::predict(same, 3) == 48);

  ClassInfo contradicted;  // a count seen with two sizes: asked for every object
  contradicted.kind = SizeKind::Variable;
  CHECK(ClassCache::learn(contradicted, 48, 3));
  CHECK(ClassCache::learn(contradicted, 56, 3));
  CHECK(contradicted.rule == SizeRule::Ask);
  CHECK(ClassCache::predict_learning(contradicted, 3) == 0);

  ClassInfo plain;  // unknown kind, the word at +8 differs but the size does not: fixed
  CHECK(ClassCache::learn(plain, 32, 0xDEAD));
  CHECK(ClassCache::learn(plain, 32, 0xBEEF));
  CHECK(plain.rule == SizeRule::Fixed);

  ClassInfo odd;  // no integer component size explains it
  CHECK(ClassCache::learn(odd, 100, 3));
  CHECK(ClassCache::learn(odd, 105, 5));
  CHECK(odd.rule == SizeRule::Ask);

  ClassCache cache;
  for (uint64_t c = 1; c <= 5000; ++c) REQUIRE(cache.insert(c * 8, static_cast<uint32_t>(c), SizeKind::Unknown));
  CHECK(cache.size() == 5000);
  for (uint64_t c = 1; c <= 5000; ++c) {
    ClassInfo* info = cache.find(c * 8);
    REQUIRE(info);
    CHECK(info->type_id == c);
  }
  CHECK(cache.find(5001 * 8) == nullptr);
}

namespace {

/// Sizes as the runtime would give them: arrays of class 0xA0 are 24 + 8 * count, the rest 24,
/// except objects 30..59 of the walk of class 0xC0, which are 64: its learned rule (fixed, 24)
/// breaks while it is still being checked.
class SizedQueries final : public RuntimeQueries {
 public:
  TypeName type_name(uint64_t class_id) override { return {"T" + std::to_string(class_id), "m.dll", true}; }
  uint64_t object_size(uint64_t object_id) override {
    ++size_calls;
    uint32_t count = counts.count(object_id) ? counts[object_id] : 0;
    if (class_of_object[object_id] == 0xA0) return 24 + 8ull * count;
    uint64_t index = (object_id - 0x1000000) / 64;
    if (class_of_object[object_id] == 0xC0 && index >= 30 && index < 60) return 64;
    return 24;
  }
  uint64_t class_of(uint64_t) override { return 0; }
  uint32_t component_count(uint64_t object_id) override { return counts.count(object_id) ? counts[object_id] : 0; }
  std::string method_name(uint64_t) override { return {}; }
  std::map<uint64_t, uint32_t> counts;
  std::map<uint64_t, uint64_t> class_of_object;
  int size_calls = 0;
};

}  // namespace

TEST_CASE("recorder: predicted sizes equal the runtime's, across chunk boundaries, and wrong rules fall back",
          "[shim][recorder]") {
  for (bool verify : {false, true}) {
    SizedQueries queries;
    std::string path = gcsnap::test::temp_path(verify ? "shim-sizes-verify" : "shim-sizes");
    auto writer = Writer::create(path);
    REQUIRE(writer.is_ok());
    WriterThread sink(std::move(writer).value(), [](const char*) {});
    ChunkPool pool(8 << 20);
    sink.set_chunk_pool(&pool);
    RecorderOptions options = with_policy(SnapshotPolicy::All);
    options.verify_sizes = verify;
    Recorder recorder(options, queries, sink, &pool);
    // Two GCs of 150k objects (more than two full chunks each), one reference each, except
    // every 10000th object, which has 200k (a chunk of its own).
    const uint64_t n = 150000;
    std::vector<uint64_t> expected_sizes;
    for (int gc = 0; gc < 2; ++gc) {
      REQUIRE(recorder.on_gc_started(kFull, true, 1));
      std::vector<uint64_t> one = {0x1000}, many(200000, 0x1000);
      for (uint64_t i = 0; i < n; ++i) {
        uint64_t address = 0x1000000 + i * 64;
        uint64_t cls = i % 3 == 0 ? 0xA0 : i % 3 == 1 ? 0xB0 : 0xC0;
        queries.class_of_object[address] = cls;
        queries.counts[address] = static_cast<uint32_t>(i % 17);
        bool big = i % 10000 == 9999;
        CHECK(recorder.on_object_references(address, cls, big ? std::span<const uint64_t>(many) : one));
        if (gc == 1) expected_sizes.push_back(queries.object_size(address));
      }
      std::vector<GenerationRange> bounds = {{Generation::Gen2, 0x1000000, n * 64, n * 64}};
      recorder.on_gc_finished(bounds, 2);
    }
    RecorderStats stats = recorder.stats();
    INFO("queries " << stats.size_queries << " predictions " << stats.size_predictions << " checks " << stats.size_checks
                    << " dropped " << stats.dropped_items);
    CHECK(stats.size_mismatches == 1);  // class 0xC0, then asked for every object
    if (!verify) CHECK(stats.size_predictions > n);  // most sizes were not asked
    REQUIRE(sink.finish());
    auto rec = Recording::open(path);
    REQUIRE(rec.is_ok());
    auto objects = (*rec)->read_objects(1);
    REQUIRE(objects.is_ok());
    REQUIRE(objects->size() == n);
    CHECK(objects->sizes == expected_sizes);
    CHECK(objects->addresses.front() == 0x1000000);
    CHECK(objects->addresses.back() == 0x1000000 + (n - 1) * 64);
    uint64_t refs = 0;
    for (uint64_t i = 0; i < n; ++i) refs += i % 10000 == 9999 ? 200000 : 1;
    CHECK((*rec)->gcs()[1].reference_count == refs);
    CHECK((*rec)->verify_gc(1).is_ok());
    ::unlink(path.c_str());
  }
}

TEST_CASE("recorder: the default policy keeps heap walks within their share of wall time and says what it skipped",
          "[shim][recorder]") {
  RecorderOptions options = with_policy(SnapshotPolicy::Default);
  options.walk_budget_per_mille = 20;  // 2 %
  options.start_ns = 0;
  options.first_walk_ns_per_byte = 10;
  Harness h(options);
  const uint64_t ms = 1000000, mib = 1 << 20;
  auto gc = [&](uint8_t mask, bool induced, uint64_t start_ms, uint64_t end_ms, uint64_t heap = uint64_t{1} << 20) {
    bool walked = h.recorder->on_gc_started(mask, induced, start_ms * ms);
    std::vector<GenerationRange> bounds = {{Generation::Gen2, 0x1000, heap / 2, heap},
                                           {Generation::Gen0, 0x1000 + heap, heap / 2, heap}};
    h.recorder->on_gc_finished(bounds, end_ms * ms);
    return walked;
  };
  CHECK_FALSE(gc(kFull, false, 200, 210));      // GC 1: no GC has finished: the heap's size is unknown
  CHECK_FALSE(gc(kGen0, false, 500, 501));      // GC 2: gen0: never walked, no note; the heap is 1 MiB
  CHECK(gc(kFull, false, 1000, 1100));          // GC 3: estimate 10 ns/B x 1 MiB = 10.5 ms, 1 s since start: walked (100 ms)
  CHECK_FALSE(gc(kFull, false, 2000, 2010));    // GC 4: 0.9 s later: 100 ms would be 10 %: skipped
  CHECK_FALSE(gc(kGen0, false, 3000, 3001));    // GC 5: gen0
  CHECK(gc(kFull, true, 3500, 3600));           // GC 6: induced: always walked (100 ms)
  CHECK_FALSE(gc(kFull, false, 6000, 6010));    // GC 7: 2.4 s after: 100 ms / 2.5 s = 4 %: skipped
  CHECK(gc(kFull, false, 8500, 8520));          // GC 8: 4.9 s after: 100 / 5000 = 2 %: walked (20 ms)
  CHECK_FALSE(gc(kGen0, false, 9000, 9001, 4 * mib));  // GC 9: the heap grew to 4 MiB
  CHECK_FALSE(gc(kFull, false, 9600, 9610));    // GC 10: 20 ms x 4 = 80 ms in 1.08 s: skipped (20 ms would fit)
  h.recorder->request_on_demand();
  CHECK(gc(kFull, true, 9630, 9640));           // GC 11: on demand: always walked
  CHECK(h.recorder->stats().walks_skipped == 4);
  auto rec = h.finish();
  REQUIRE(rec->gcs().size() == 11);
  std::vector<bool> skipped;
  for (size_t i = 0; i < 11; ++i) {
    auto skip = rec->read_walk_skip(i);
    REQUIRE(skip.is_ok());
    skipped.push_back(skip->has_value());
  }
  CHECK(skipped == std::vector<bool>{true, false, false, true, false, false, true, false, false, true, false});
  auto first = *rec->read_walk_skip(0);  // before any walk: no last walk, the time since the start
  CHECK(first->last_walk_ns == 0);
  CHECK(first->since_last_walk_ns == 200 * ms);
  auto note = *rec->read_walk_skip(3);
  CHECK(note->reason == walk_skip_reason::kWalkTimeBudget);
  CHECK(note->budget_per_mille == 20);
  CHECK(note->last_walk_ns == 100 * ms);
  CHECK(note->since_last_walk_ns == 900 * ms);
  CHECK(note->estimated_walk_ns == 100 * ms);
  auto grown = *rec->read_walk_skip(9);
  CHECK(grown->last_walk_ns == 20 * ms);
  CHECK(grown->estimated_walk_ns == 80 * ms);
  CHECK(rec->gcs()[3].info.trigger == SnapshotTrigger::None);
  CHECK(rec->gcs()[5].info.trigger == SnapshotTrigger::Policy);
  CHECK(rec->gcs()[10].info.trigger == SnapshotTrigger::OnDemand);
  CHECK(rec->verify_gc(3).is_ok());

  SECTION("before the first walk a big heap waits: 10 ns per byte of 1 GiB is 10.7 s") {
    Harness big(options);
    CHECK_FALSE(big.recorder->on_gc_started(kGen0, false, 100 * ms));
    std::vector<GenerationRange> bounds = {{Generation::Gen2, 0x1000, 1ull << 30, 1ull << 30}};
    big.recorder->on_gc_finished(bounds, 110 * ms);
    CHECK_FALSE(big.recorder->on_gc_started(kFull, false, 2000 * ms));  // 10.7 s > 2 % of 2 s
    big.recorder->on_gc_finished(bounds, 2100 * ms);
    CHECK(big.recorder->on_gc_started(kFull, false, 600000 * ms));      // 10.7 s <= 2 % of 600 s
    big.recorder->on_gc_finished(bounds, 600100 * ms);
    CHECK(big.recorder->stats().walks_skipped == 1);
    auto r = big.finish();
    auto skip = *r->read_walk_skip(1);
    REQUIRE(skip.has_value());
    CHECK(skip->estimated_walk_ns == 10ull * (1ull << 30));
  }

  SECTION("the gen2 policy walks every gen2 GC") {
    Harness g(with_policy(SnapshotPolicy::Gen2));
    for (int i = 0; i < 3; ++i) {
      CHECK(g.recorder->on_gc_started(kFull, false, (1000 + 10 * i) * ms));
      std::vector<GenerationRange> bounds = {{Generation::Gen2, 0x1000, 0x800, 0x1000}};
      g.recorder->on_gc_finished(bounds, (1005 + 10 * i) * ms);
    }
    CHECK(g.recorder->stats().walks_skipped == 0);
  }
}

TEST_CASE("recorder: reference slots found in object memory, layouts resolved once per type", "[shim][recorder]") {
  RecorderOptions options = with_policy(SnapshotPolicy::All);
  options.capture_slots = true;
  Harness h(options);
  h.queries.memory[0x1000] = {0xAAAA, 0x1100, 0x9010};  // MethodTable, Next, Label (24 bytes)
  h.queries.memory[0x1200] = {0xAAAA, 0x0, 0x1000};     // Next null: only Label reported
  REQUIRE(h.recorder->on_gc_started(kFull, true, 1000));
  std::vector<uint64_t> refs = {0x1100, 0x9010}, one = {0x1000}, missing = {0x7777};
  CHECK(h.recorder->on_object_references(0x1000, 0xA, refs));
  CHECK(h.recorder->on_object_references(0x1200, 0xA, one));
  CHECK(h.recorder->on_object_references(0x1100, 0xB, missing));  // no memory given: unknown
  h.finish_gc();
  auto rec = h.finish();
  auto objects = rec->read_objects(0, ObjectReadOptions{true});
  REQUIRE(objects.is_ok());
  REQUIRE(objects->reference_slots.size() == objects->reference_targets.size());
  std::map<std::pair<uint64_t, uint64_t>, uint32_t> slot;
  for (size_t i = 0; i < objects->size(); ++i)
    for (uint64_t e = objects->reference_offsets[i]; e < objects->reference_offsets[i + 1]; ++e)
      slot[{objects->addresses[i], objects->reference_targets[e]}] = objects->reference_slots[e];
  CHECK(slot[{0x1000, 0x1100}] == 8);
  CHECK(slot[{0x1000, 0x9010}] == 16);
  CHECK(slot[{0x1200, 0x1000}] == 16);
  CHECK(slot[{0x1100, 0x7777}] == kUnknownSlot);
  CHECK(h.queries.layout_lookups == 2);  // 0xA and 0xB once each, not per object
  auto names = rec->read_names(0);
  REQUIRE(names.is_ok());
  REQUIRE(names->layouts().size() == 1);
  const TypeLayout& layout = names->layouts()[0];
  CHECK(names->type_name(layout.type_id) == "Type10");
  CHECK(name_slot(&layout, 16).text == "Label");
}

TEST_CASE("recorder: without capture_slots no slots or layouts are written", "[shim][recorder]") {
  Harness h(with_policy(SnapshotPolicy::All));
  h.queries.memory[0x1000] = {0xAAAA, 0x1100, 0x9010};
  REQUIRE(h.recorder->on_gc_started(kFull, true, 1000));
  std::vector<uint64_t> refs = {0x1100, 0x9010};
  CHECK(h.recorder->on_object_references(0x1000, 0xA, refs));
  h.finish_gc();
  auto rec = h.finish();
  auto objects = rec->read_objects(0, ObjectReadOptions{true});
  REQUIRE(objects.is_ok());
  CHECK(objects->reference_slots.empty());
  CHECK(h.queries.layout_lookups == 0);
}
