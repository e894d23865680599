// GCSNAP_WALK_TIMES's line and the huge-page chunk mapping: the measuring aids of the snapshot
// pause (docs/performance.md, "The snapshot pause").
#include <cstdint>
#include <string>

#include <catch2/catch.hpp>

#include "gc_batch.hpp"
#include "shim_os.hpp"
#include "walk_timer.hpp"

using namespace gcsnap::shim;

TEST_CASE("walk timer: one line per walk that saw objects", "[shim][walk_timer]") {
  WalkTimer timer;
  CHECK(timer.finish(0, 0, 0).empty());  // never armed
  timer.arm();
  CHECK(timer.finish(2, 1, 1000).empty());  // armed, but the GC walked nothing
  timer.on_object();               // not armed any more: not counted as a walk
  CHECK(timer.finish(2, 1, 1000).empty());

  timer.arm();
  for (int i = 0; i < 3; ++i) timer.on_object();
  std::string line = timer.finish(7, 4, 2'501'000);
  CHECK(line.rfind("heap walk 1: 3 objects, ", 0) == 0);
  CHECK(line.find(" ms wall, ") != std::string::npos);
  CHECK(line.find(" ms CPU, ") != std::string::npos);
  CHECK(line.find(" page faults, 5 size queries") != std::string::npos);  // 7 - 2 before the walk
  CHECK(line.find(", 3 types named in 2.5 ms") != std::string::npos);    // 4 - 1, 2.501 - 0.001 ms
  CHECK(timer.finish(7, 4, 2'501'000).empty());  // disarmed by finish

  timer.arm();
  timer.on_object();
  line = timer.finish(7, 4, 2'501'000);
  CHECK(line.rfind("heap walk 2: 1 objects, ", 0) == 0);  // the count starts again
  CHECK(line.find(", 0 size queries, 0 types named in 0.0 ms") != std::string::npos);
}

TEST_CASE("object chunks: full ones are whole 2 MiB pages, small ones plain", "[shim][chunk]") {
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  ObjectChunk full(ObjectChunk::kObjects, ObjectChunk::kObjects * ObjectChunk::kReferencesPerObject);
  CHECK(full.is_full_size());
  const size_t bytes = ObjectChunk::bytes_for(full.object_capacity, full.reference_capacity);
  CHECK(bytes % kHuge == 0);  // no 4 KiB tail
  CHECK(reinterpret_cast<uintptr_t>(full.records) % kHuge == 0);
  // The three parts lie one after the other in the mapping, and every part is writable.
  CHECK(reinterpret_cast<char*>(full.references) ==
        reinterpret_cast<char*>(full.records) + full.object_capacity * sizeof(ObjectRecord));
  CHECK(reinterpret_cast<char*>(full.slots) ==
        reinterpret_cast<char*>(full.references) + full.reference_capacity * sizeof(uint64_t));
  full.populate();
  full.records[full.object_capacity - 1].address = 1;
  full.slots[full.reference_capacity - 1] = 2;
  CHECK(full.slots[full.reference_capacity - 1] == 2);

  ObjectChunk small(256, 512);
  CHECK_FALSE(small.is_full_size());
  small.records[255].size = 24;
  small.slots[511] = 8;
  CHECK(small.slots[511] == 8);
}

TEST_CASE("resident memory: a populated chunk shows in it", "[shim][chunk]") {
  // The first snapshot by attach sizes the chunk pool by it (no GC has told the heap's size).
  const uint64_t before = os::resident_bytes();
  REQUIRE(before > 0);
  ObjectChunk chunk(ObjectChunk::kObjects, ObjectChunk::kObjects * ObjectChunk::kReferencesPerObject);
  chunk.populate();  // every page written
  const uint64_t bytes = ObjectChunk::bytes_for(chunk.object_capacity, chunk.reference_capacity);
  CHECK(os::resident_bytes() >= before + bytes - (size_t{1} << 20));
}
