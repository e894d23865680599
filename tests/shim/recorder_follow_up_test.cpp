// The events source's policy walks (docs/shim.md "Snapshot policies"): a GC the policy picks
// asks for a follow-up walk, which a forced GC answers; never the forced GC itself, one at a
// time, within a walk-time budget. Driven as the events stream drives the recorder.
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "gcsnap/reader.hpp"
#include "recorder.hpp"
#include "temp_path.hpp"
#include "writer_thread.hpp"

using namespace gcsnap;
using namespace gcsnap::shim;

namespace {

constexpr uint8_t kGen0 = 0x1;
constexpr uint8_t kFull = 0x1F;
constexpr uint8_t kBackground = 0x1C;  // gen2, LOH, POH: a background GC (format-spec.md §5.2)
constexpr uint64_t kMs = 1000000;

class NoQueries final : public RuntimeQueries {
 public:
  TypeName type_name(uint64_t class_id) override { return {"Type" + std::to_string(class_id), "app.dll", true}; }
  uint64_t object_size(uint64_t) override { return 24; }
  uint64_t class_of(uint64_t) override { return 0; }
  uint32_t component_count(uint64_t) override { return 0; }
  std::string method_name(uint64_t) override { return {}; }
};

struct Events {
  explicit Events(SnapshotPolicy policy) : path(gcsnap::test::temp_path("shim-follow-up")) {
    RecorderOptions options;
    options.policy = policy;
    options.walks_follow_gcs = true;
    options.start_ns = 0;
    auto writer = Writer::create(path);
    REQUIRE(writer.is_ok());
    sink = std::make_unique<WriterThread>(std::move(writer).value(), [](const char*) {});
    recorder = std::make_unique<Recorder>(options, queries, *sink);
  }
  ~Events() { ::unlink(path.c_str()); }
  /// One GC from START_MS to END_MS; MAY_WALK false: a background GC handed over at its end.
  /// Returns whether it was walked (one object stored when it was).
  bool gc(uint8_t mask, bool induced, uint64_t start_ms, uint64_t end_ms, bool may_walk = true) {
    const bool walked = recorder->on_gc_started(mask, induced, start_ms * kMs, may_walk);
    if (walked) {
      std::vector<uint64_t> none;
      recorder->on_object_references(0x1100, 0xA, none);
    }
    std::vector<GenerationRange> bounds = {{Generation::Gen2, 0x1000, 0x10000, 0x20000}};  // 64 KiB
    recorder->on_gc_finished(bounds, end_ms * kMs);
    return walked;
  }
  /// The shim's follow-up walk: the wanted trigger asked for, then the GC it forces.
  bool forced_walk(uint64_t start_ms, uint64_t end_ms) {
    const SnapshotTrigger wanted = recorder->follow_up_wanted();
    REQUIRE(wanted != SnapshotTrigger::None);
    recorder->request_walk(wanted);
    const bool walked = gc(kFull, true, start_ms, end_ms);
    recorder->follow_up_done();
    return walked;
  }
  std::unique_ptr<Recording> finish() {
    REQUIRE(sink->finish());
    auto opened = Recording::open(path);
    REQUIRE(opened.is_ok());
    return std::move(opened).value();
  }

  std::string path;
  NoQueries queries;
  std::unique_ptr<WriterThread> sink;
  std::unique_ptr<Recorder> recorder;
};

}  // namespace

TEST_CASE("events source: a gen2 GC the policy picks is answered by one forced walk, never by itself",
          "[shim][recorder]") {
  Events e(SnapshotPolicy::Gen2);
  CHECK_FALSE(e.gc(kGen0, false, 100, 101));  // GC 1
  CHECK(e.recorder->follow_up_wanted() == SnapshotTrigger::None);
  // GC 2: a background GC picks a walk; the first is taken whatever the heap (no walk measured yet).
  CHECK_FALSE(e.gc(kBackground, false, 1000, 1200, false));
  CHECK(e.recorder->follow_up_wanted() == SnapshotTrigger::Policy);
  CHECK_FALSE(e.gc(kGen0, false, 1210, 1211));  // GC 3: the runtime's own GC does not answer it
  CHECK(e.forced_walk(1220, 1230));             // GC 4: the forced full GC is walked (10 ms)...
  CHECK(e.recorder->follow_up_wanted() == SnapshotTrigger::None);  // ...and asks for no other
  CHECK(e.recorder->last_on_demand_gc() == 4);
  CHECK_FALSE(e.gc(kFull, true, 1240, 1250));  // GC 5: 10 ms after a 10 ms walk: over 10 %, skipped
  CHECK(e.recorder->follow_up_wanted() == SnapshotTrigger::None);
  CHECK_FALSE(e.gc(kFull, false, 1400, 1410));  // GC 6: 170 ms after: within 10 %, asks
  CHECK(e.recorder->follow_up_wanted() == SnapshotTrigger::Policy);
  CHECK_FALSE(e.gc(kFull, false, 1420, 1430));  // GC 7: folded into the wanted walk
  CHECK(e.forced_walk(1440, 1450));             // GC 8
  const RecorderStats stats = e.recorder->stats();
  CHECK(stats.follow_ups == 2);
  CHECK(stats.follow_ups_folded == 1);
  CHECK(stats.walks_skipped == 1);
  CHECK(stats.snapshots == 2);
  auto rec = e.finish();
  REQUIRE(rec->gcs().size() == 8);
  for (size_t i : {0, 1, 2, 4, 5, 6}) CHECK(rec->gcs()[i].info.trigger == SnapshotTrigger::None);
  CHECK(rec->gcs()[3].info.trigger == SnapshotTrigger::Policy);
  CHECK(rec->gcs()[7].info.trigger == SnapshotTrigger::Policy);
  auto skip = *rec->read_walk_skip(4);
  REQUIRE(skip.has_value());
  CHECK(skip->reason == walk_skip_reason::kWalkTimeBudget);
  CHECK(skip->budget_per_mille == 100);
  CHECK(skip->last_walk_ns == 10 * kMs);
  CHECK(skip->since_last_walk_ns == 10 * kMs);
}

TEST_CASE("events source: each policy asks for what it walks, all marked as the profiler source marks them",
          "[shim][recorder]") {
  SECTION("induced: the app's GC.Collect, not a gen2 GC of the runtime's own") {
    Events e(SnapshotPolicy::Induced);
    CHECK_FALSE(e.gc(kFull, false, 100, 101));
    CHECK(e.recorder->follow_up_wanted() == SnapshotTrigger::None);
    CHECK_FALSE(e.gc(kGen0, true, 1000, 1001));
    CHECK(e.recorder->follow_up_wanted() == SnapshotTrigger::Policy);
  }
  SECTION("all: any GC, marked always") {
    Events e(SnapshotPolicy::All);
    CHECK_FALSE(e.gc(kGen0, false, 100, 101));
    CHECK_FALSE(e.gc(kGen0, false, 1000, 1001));
    CHECK(e.recorder->follow_up_wanted() == SnapshotTrigger::Always);
    CHECK(e.forced_walk(1002, 1003));
    auto rec = e.finish();
    CHECK(rec->gcs()[2].info.trigger == SnapshotTrigger::Always);
  }
  SECTION("default: its induced GCs are held to its 1 % budget too") {
    Events e(SnapshotPolicy::Default);
    CHECK_FALSE(e.gc(kGen0, false, 100, 101));
    CHECK_FALSE(e.gc(kFull, true, 500, 510));  // estimate 10 ns/B x 64 KiB = 0.66 ms: fits 1 % of 0.5 s
    CHECK(e.recorder->follow_up_wanted() == SnapshotTrigger::Policy);
    CHECK(e.forced_walk(520, 620));             // a 100 ms walk
    CHECK_FALSE(e.gc(kFull, true, 2000, 2010)); // 1.4 s later: 100 ms would be 6.7 %: skipped
    CHECK(e.recorder->follow_up_wanted() == SnapshotTrigger::None);
    auto rec = e.finish();
    auto skip = *rec->read_walk_skip(3);
    REQUIRE(skip.has_value());
    CHECK(skip->budget_per_mille == 10);
  }
  SECTION("an on-demand walk after the GC the policy picked answers its follow-up too") {
    Events e(SnapshotPolicy::Gen2);
    CHECK_FALSE(e.gc(kGen0, false, 100, 101));
    CHECK_FALSE(e.gc(kFull, false, 1000, 1010));
    CHECK(e.recorder->follow_up_wanted() == SnapshotTrigger::Policy);
    e.recorder->request_on_demand();
    CHECK(e.gc(kFull, true, 1020, 1030));
    CHECK(e.recorder->follow_up_wanted() == SnapshotTrigger::None);
    auto rec = e.finish();
    CHECK(rec->gcs()[2].info.trigger == SnapshotTrigger::OnDemand);
  }
  SECTION("none asks for nothing; on-demand requests are answered as before") {
    Events e(SnapshotPolicy::None);
    CHECK_FALSE(e.gc(kFull, true, 1000, 1001));
    CHECK(e.recorder->follow_up_wanted() == SnapshotTrigger::None);
    e.recorder->request_on_demand();
    CHECK_FALSE(e.gc(kFull, true, 1100, 1200, false));  // a background GC never answers a request
    CHECK(e.gc(kFull, true, 1300, 1301));
    auto rec = e.finish();
    CHECK(rec->gcs()[2].info.trigger == SnapshotTrigger::OnDemand);
  }
}
