// The events source's stream (event_gc_stream.hpp) fed synthetic event sequences in the orders
// the runtime delivers them (eventpipe-mode-facts.md): what the sink sees per GC.
#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "event_gc_stream.hpp"
#include "payload_bytes.hpp"

using namespace gcsnap::shim;
using gcsnap::shim::test::Bytes;

namespace {

struct SeenGc {
  uint8_t collected = 0;
  bool induced = false, may_walk = false, finished = false, moved_called = false;
  std::vector<uint64_t> surviving, moved_old, roots, root_kinds, dependent_keys;
  std::vector<std::pair<uint64_t, std::vector<uint64_t>>> objects;
};

class FakeSink final : public GcEventSink {
 public:
  std::vector<SeenGc> gcs;
  bool gc_started(uint8_t collected, bool induced, bool may_walk, uint64_t) override {
    REQUIRE((gcs.empty() || gcs.back().finished));  // one GC at a time, as the recorder wants
    SeenGc gc;
    gc.collected = collected, gc.induced = induced, gc.may_walk = may_walk;
    gcs.push_back(std::move(gc));
    return may_walk;
  }
  void surviving(std::span<const uint64_t> starts, std::span<const uint64_t>) override {
    current().surviving.insert(current().surviving.end(), starts.begin(), starts.end());
  }
  void moved(std::span<const uint64_t> old_starts, std::span<const uint64_t>, std::span<const uint64_t>) override {
    current().moved_old.insert(current().moved_old.end(), old_starts.begin(), old_starts.end());
    current().moved_called = true;
  }
  void roots(std::span<const uint64_t> objects, std::span<const uint32_t> kinds, std::span<const uint32_t>,
             std::span<const uint64_t>) override {
    current().roots.insert(current().roots.end(), objects.begin(), objects.end());
    current().root_kinds.insert(current().root_kinds.end(), kinds.begin(), kinds.end());
  }
  void dependent_handles(std::span<const uint64_t> keys, std::span<const uint64_t>) override {
    current().dependent_keys.insert(current().dependent_keys.end(), keys.begin(), keys.end());
  }
  void object(uint64_t address, uint64_t, std::span<const uint64_t> references) override {
    current().objects.push_back({address, {references.begin(), references.end()}});
  }
  void gc_finished() override { current().finished = true; }

 private:
  SeenGc& current() {
    REQUIRE(!gcs.empty());
    REQUIRE_FALSE(gcs.back().finished);
    return gcs.back();
  }
};

uint64_t fake_clock() { return 1; }

constexpr uint64_t kRuntime = 0x77;

std::vector<uint8_t> start(uint32_t count, uint32_t depth, uint32_t reason, uint32_t type) {
  return Bytes().u32(count).u32(depth).u32(reason).u32(type).u16(0).u64(0).data;
}
std::vector<uint8_t> end(uint32_t count, uint32_t depth) { return Bytes().u32(count).u32(depth).u16(0).data; }
std::vector<uint8_t> surviving(uint64_t at) { return Bytes().u32(0).u32(1).u16(0).u64(at).u64(0x10).data; }
std::vector<uint8_t> moved(uint64_t from) { return Bytes().u32(0).u32(1).u16(0).u64(from).u64(from - 0x100).u64(0x10).data; }

}  // namespace

TEST_CASE("events stream: other providers and duplicate starts and ends are dropped", "[shim][events]") {
  FakeSink sink;
  GcEventStream stream(sink, fake_clock);
  // EventPipe's process-info event (id 1, version 0, another provider) comes first.
  CHECK(stream.on_event(0x99, 1, 0, Bytes().u32(1).u32(1).u32(1).u32(1).u16(0).data));
  CHECK(stream.on_event(kRuntime, 1, 2, start(5, 0, 0, 0)));
  CHECK(stream.on_event(kRuntime, 1, 2, start(5, 0, 0, 0)));  // the walk session's copy
  CHECK(stream.on_event(0x99, 22, 0, moved(0x9000)));          // not the runtime's provider
  CHECK(stream.on_event(kRuntime, 22, 0, moved(0x5000)));
  CHECK(stream.on_event(kRuntime, 2, 1, end(5, 0)));
  CHECK(stream.on_event(kRuntime, 2, 1, end(5, 0)));
  CHECK(stream.on_event(kRuntime, 2, 1, end(4, 0)));  // a GC begun before the stream
  REQUIRE(sink.gcs.size() == 1);
  CHECK(sink.gcs[0].collected == 0x1);
  CHECK(sink.gcs[0].moved_old == std::vector<uint64_t>{0x5000});
  CHECK(sink.gcs[0].finished);
  CHECK(stream.stats().gcs == 1);
}

TEST_CASE("events stream: a background GC is handed over at its end, after its nested GCs", "[shim][events]") {
  FakeSink sink;
  GcEventStream stream(sink, fake_clock);
  stream.on_event(kRuntime, 1, 2, start(10, 2, 7, 1));   // BGC, induced not forced
  stream.on_event(kRuntime, 1, 2, start(11, 1, 0, 0));   // its gen1 GC
  stream.on_event(kRuntime, 22, 0, moved(0x5000));
  stream.on_event(kRuntime, 2, 1, end(11, 1));
  stream.on_event(kRuntime, 1, 2, start(12, 0, 0, 2));   // a foreground GC during the BGC
  stream.on_event(kRuntime, 22, 0, moved(0x6000));
  stream.on_event(kRuntime, 2, 1, end(12, 0));
  stream.on_event(kRuntime, 21, 0, surviving(0x100000));  // the BGC thread's ranges
  stream.on_event(kRuntime, 21, 0, surviving(0x200000));
  stream.on_event(kRuntime, 2, 1, end(10, 2));
  REQUIRE(sink.gcs.size() == 3);
  CHECK(sink.gcs[0].collected == 0x3);
  CHECK(sink.gcs[0].moved_old == std::vector<uint64_t>{0x5000});
  CHECK(sink.gcs[1].collected == 0x1);
  CHECK(sink.gcs[1].moved_old == std::vector<uint64_t>{0x6000});
  // The BGC condemns gen2, LOH and POH only; it is never walked.
  CHECK(sink.gcs[2].collected == 0x1c);
  CHECK(sink.gcs[2].induced);
  CHECK_FALSE(sink.gcs[2].may_walk);
  CHECK(sink.gcs[2].surviving == std::vector<uint64_t>{0x100000, 0x200000});
  CHECK(sink.gcs[2].moved_old.empty());
  CHECK_FALSE(sink.gcs[2].moved_called);  // a sweeping GC is not reported as compacting
  CHECK(stream.stats().background_gcs == 1);
}

TEST_CASE("events stream: a walk's nodes wait for their edges", "[shim][events]") {
  FakeSink sink;
  GcEventStream stream(sink, fake_clock);
  stream.on_event(kRuntime, 1, 2, start(3, 2, 1, 0));
  CHECK(sink.gcs.at(0).collected == 0x1f);
  // Two nodes: 0xa000 with 2 edges, 0xb000 with 1. One edge arrives before any node.
  stream.on_event(kRuntime, 19, 0, Bytes().u32(0).u32(1).u16(0).u64(0xb000).u32(0).data);
  stream.on_event(kRuntime, 18, 0,
                  Bytes().u32(0).u32(2).u16(0).u64(0xa000).u64(24).u64(0x1).u64(2).u64(0xb000).u64(24).u64(0x1).u64(1).data);
  CHECK(sink.gcs[0].objects.empty());
  stream.on_event(kRuntime, 19, 0, Bytes().u32(0).u32(2).u16(0).u64(0xa000).u32(0).u64(0).u32(0).data);
  stream.on_event(kRuntime, 16, 0, Bytes().u32(0).u32(1).u16(0).u64(0xa000).u8(2).u32(2).u64(0x55).data);
  stream.on_event(kRuntime, 17, 0, Bytes().u32(0).u32(1).u16(0).u64(0xa000).u64(0xb000).u64(0x66).data);
  stream.on_event(kRuntime, 2, 1, end(3, 2));
  REQUIRE(sink.gcs[0].objects.size() == 2);
  CHECK(sink.gcs[0].objects[0].first == 0xa000);
  CHECK(sink.gcs[0].objects[0].second == std::vector<uint64_t>{0xb000, 0xa000});
  CHECK(sink.gcs[0].objects[1].first == 0xb000);
  CHECK(sink.gcs[0].objects[1].second == std::vector<uint64_t>{0});
  CHECK(sink.gcs[0].root_kinds == std::vector<uint64_t>{3});  // a handle, as the profiling API says
  CHECK(sink.gcs[0].dependent_keys == std::vector<uint64_t>{0xa000});
  CHECK(stream.stats().unmatched_edges == 0);
}

TEST_CASE("events stream: an unreadable payload is reported, nothing half-read is stored", "[shim][events]") {
  FakeSink sink;
  GcEventStream stream(sink, fake_clock);
  stream.on_event(kRuntime, 1, 2, start(3, 0, 0, 0));
  CHECK_FALSE(stream.on_event(kRuntime, 22, 0, Bytes().u32(0).u32(5).u16(0).u64(1).data));
  CHECK(stream.problem().find("id 22") != std::string::npos);
  CHECK_FALSE(stream.on_event(kRuntime, 1, 2, Bytes().u32(1).data));
  stream.on_event(kRuntime, 21, 0, surviving(0x100));
  stream.on_event(kRuntime, 2, 1, end(3, 0));
  REQUIRE(sink.gcs.size() == 1);
  CHECK(sink.gcs[0].moved_old.empty());
  CHECK(sink.gcs[0].surviving == std::vector<uint64_t>{0x100});
  CHECK(stream.stats().unreadable == 2);
  // Ranges with no GC open are counted, not stored.
  stream.on_event(kRuntime, 21, 0, surviving(0x200));
  CHECK(stream.stats().stray == 1);
}
