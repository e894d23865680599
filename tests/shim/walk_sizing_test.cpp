// What a snapshot may add to the process (walk_sizing.hpp), driven with numbers: the bound,
// the cgroup's share, and the chunks made ready before an on-demand walk, on heaps whose
// bytes say little of their object count (large arrays) and next to much native memory.
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "recorder.hpp"
#include "walk_sizing.hpp"

using namespace gcsnap;
using namespace gcsnap::shim;

namespace {
constexpr uint64_t kMiB = 1 << 20;
}

TEST_CASE("walk sizing: the heap in use is every generation's in-use length", "[shim][walk_sizing]") {
  std::vector<GenerationRange> bounds = {{Generation::Gen0, 0x1000, 100, 4096},
                                         {Generation::Gen2, 0x9000, 1000, 8192},
                                         {Generation::LargeObjectHeap, 0x20000, 2000, 0},
                                         {Generation::PinnedObjectHeap, 0x40000, 30, 0}};
  CHECK(heap_in_use_bytes(bounds) == 3130);
  CHECK(heap_in_use_bytes({}) == 0);
}

TEST_CASE("walk sizing: the bound is 64 MiB plus half the heap and a cgroup gives a quarter of its headroom",
          "[shim][walk_sizing]") {
  CHECK(walk_bound_bytes(0) == 64 * kMiB);
  CHECK(walk_bound_bytes(48 * kMiB) == 88 * kMiB);
  CHECK(cgroup_walk_share(405 * kMiB, 600 * kMiB) == 195 * kMiB / 4);
  CHECK(cgroup_walk_share(600 * kMiB, 600 * kMiB) == 0);
  CHECK(cgroup_walk_share(700 * kMiB, 600 * kMiB) == 0);  // over the limit already
}

TEST_CASE("walk sizing: a first walk gets a few chunks, however much memory the process has", "[shim][walk_sizing]") {
  WalkSizingInput in;
  in.chunk_bytes = kFullChunkBytes;
  // 48 MiB of large arrays beside 320 MiB of native memory: the heap, not the process, sizes
  // the fill, and an unknown object count gets at most the reserve the pool keeps during a walk.
  in.heap_bytes = 48 * kMiB;
  const size_t first = chunks_to_prepare(in);
  CHECK(first == kChunksAhead);
  CHECK(first * kFullChunkBytes <= walk_bound_bytes(in.heap_bytes) / 2);
  // A tiny heap: one chunk; an unknown heap: none (the pool grows during the walk).
  in.heap_bytes = 500 * 1024;
  CHECK(chunks_to_prepare(in) == 1);
  in.heap_bytes = 0;
  CHECK(chunks_to_prepare(in) == 0);
  // A large heap of small objects: still the reserve only before its first walk.
  in.heap_bytes = 4096 * kMiB;
  CHECK(chunks_to_prepare(in) == kChunksAhead);
}

TEST_CASE("walk sizing: after a walk the fill follows what walks store, within the bound", "[shim][walk_sizing]") {
  WalkSizingInput in;
  in.chunk_bytes = kFullChunkBytes;
  in.heap_bytes = 1024 * kMiB;
  // 6,300 objects of large arrays stored ~150 KiB: one chunk, not the heap's 171 at 6 MiB each.
  in.expected_walk_bytes = 150 * 1024;
  CHECK(chunks_to_prepare(in) == 1);
  // 5 M small objects stored 230 MiB: their chunks, up to half the bound (64 MiB + 512 MiB) / 2.
  in.expected_walk_bytes = 230 * kMiB;
  const size_t chunks = chunks_to_prepare(in);
  CHECK(chunks == (230 * kMiB + kFullChunkBytes - 1) / kFullChunkBytes);
  in.expected_walk_bytes = 2048 * kMiB;
  CHECK(chunks_to_prepare(in) == walk_bound_bytes(in.heap_bytes) / 2 / kFullChunkBytes);
}

TEST_CASE("walk sizing: inside a cgroup the fill and the reserve stay within the walk's share", "[shim][walk_sizing]") {
  WalkSizingInput in;
  in.chunk_bytes = kFullChunkBytes;
  in.heap_bytes = 48 * kMiB;
  in.cgroup_share = cgroup_walk_share(405 * kMiB, 600 * kMiB);  // 48.75 MiB
  const size_t chunks = chunks_to_prepare(in);
  CHECK(chunks * kFullChunkBytes <= in.cgroup_share / 2);
  CHECK(chunks >= 1);
  in.cgroup_share = cgroup_walk_share(599 * kMiB, 600 * kMiB);  // 256 KiB: nothing ahead
  CHECK(chunks_to_prepare(in) == 0);
  CHECK(chunks_ahead_within(UINT64_MAX, kFullChunkBytes) == kChunksAhead);
  CHECK(chunks_ahead_within(5 * kFullChunkBytes, kFullChunkBytes) == 2);
  CHECK(chunks_ahead_within(kFullChunkBytes, kFullChunkBytes) == 0);
}

TEST_CASE("walk sizing: the reserve during a walk follows what it is expected to store", "[shim][walk_sizing]") {
  CHECK(chunks_ahead_for(0, UINT64_MAX, kFullChunkBytes) == 1);
  CHECK(chunks_ahead_for(200 * 1024, UINT64_MAX, kFullChunkBytes) == 1);
  CHECK(chunks_ahead_for(kFullChunkBytes + 1, UINT64_MAX, kFullChunkBytes) == 2);
  CHECK(chunks_ahead_for(1024 * kMiB, UINT64_MAX, kFullChunkBytes) == kChunksAhead);
  CHECK(chunks_ahead_for(1024 * kMiB, 5 * kFullChunkBytes, kFullChunkBytes) == 2);
}

TEST_CASE("walk sizing: the reserve grows to half the bound, and not at all inside a cgroup", "[shim][walk_sizing]") {
  CHECK(reserve_limit(0, UINT64_MAX, kFullChunkBytes) == 32 * kMiB / kFullChunkBytes);
  CHECK(reserve_limit(1024 * kMiB, UINT64_MAX, kFullChunkBytes) == (64 + 512) * kMiB / 2 / kFullChunkBytes);
  CHECK(reserve_limit(1024 * kMiB, 5 * kFullChunkBytes, kFullChunkBytes) == 2);
}
