// The chunk pool's fill before an on-demand walk: chunks are made ready before the GC, up to
// the fill cap, stay ready afterwards, go back down to the idle cap as written chunks return,
// and the wait ends when the pool stops.
#include "chunk_pool.hpp"

#include <chrono>
#include <thread>

#include <catch2/catch.hpp>

using gcsnap::shim::ChunkPool;
using gcsnap::shim::ObjectChunk;

namespace {

size_t full_chunk_bytes() {
  return ObjectChunk::bytes_for(ObjectChunk::kObjects, ObjectChunk::kObjects * ObjectChunk::kReferencesPerObject);
}

}  // namespace

TEST_CASE("chunk pool: fill_before_walk makes the asked chunks ready, within the idle cap", "[shim][chunks]") {
  ChunkPool pool(3 * full_chunk_bytes());
  CHECK(pool.ready_count() == 0);
  CHECK(pool.fill_before_walk(2, std::chrono::milliseconds(20000)) == 2);
  CHECK(pool.ready_count() == 2);
  // More than the cap: the cap.
  CHECK(pool.fill_before_walk(10, std::chrono::milliseconds(20000)) == 3);
  // The chunks stay ready for the walk, and are full-size and empty.
  auto chunk = pool.take();
  REQUIRE(chunk);
  CHECK(chunk->is_full_size());
  CHECK(chunk->objects == 0);
  CHECK(pool.ready_count() >= 2);
  // Back from the writer: the pool keeps what was taken (one), not what the cap allows.
  pool.give_back(std::move(chunk));
  CHECK(pool.ready_count() == 1);
}

TEST_CASE("chunk pool: fill_before_walk returns at once when enough are ready or the pool stopped", "[shim][chunks]") {
  ChunkPool pool(2 * full_chunk_bytes());
  REQUIRE(pool.fill_before_walk(1, std::chrono::milliseconds(20000)) == 1);
  CHECK(pool.fill_before_walk(1, std::chrono::milliseconds(0)) == 1);
  pool.stop();
  CHECK(pool.fill_before_walk(2, std::chrono::milliseconds(20000)) == 1);  // no thread to fill: no wait
}

TEST_CASE("chunk pool: a fill above the idle cap goes back to the cap as written chunks return", "[shim][chunks]") {
  ChunkPool pool(2 * full_chunk_bytes(), 5 * full_chunk_bytes());
  CHECK(pool.fill_before_walk(4, std::chrono::milliseconds(20000)) == 4);
  CHECK(pool.fill_before_walk(10, std::chrono::milliseconds(20000)) == 5);  // the fill cap
  auto first = pool.take();
  auto second = pool.take();
  REQUIRE(first);
  REQUIRE(second);
  pool.walk_done();
  CHECK(pool.ready_count() == 3);
  pool.give_back(std::move(first));  // over the idle cap: freed, and the ready ones trimmed to it
  CHECK(pool.ready_count() == 2);
  pool.give_back(std::move(second));
  CHECK(pool.ready_count() == 2);
}

TEST_CASE("chunk pool: between walks it keeps what the last walk took, not the idle cap", "[shim][chunks]") {
  ChunkPool pool(8 * full_chunk_bytes());
  // A small walk: one chunk ahead, the pool's thread refills behind what the walk takes.
  pool.prepare(2);
  REQUIRE(pool.fill_before_walk(2, std::chrono::milliseconds(20000)) == 2);
  auto used = pool.take();
  REQUIRE(used);
  for (int i = 0; i < 2000 && pool.ready_count() < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  pool.walk_done();
  pool.give_back(std::move(used));
  CHECK(pool.ready_count() == 1);
  // A larger walk keeps more: three taken, three kept.
  pool.prepare(3);
  REQUIRE(pool.fill_before_walk(3, std::chrono::milliseconds(20000)) == 3);
  auto a = pool.take(), b = pool.take(), c = pool.take();
  REQUIRE((a && b && c));
  pool.walk_done();
  pool.give_back(std::move(a));
  pool.give_back(std::move(b));
  pool.give_back(std::move(c));
  CHECK(pool.ready_count() == 3);
}

TEST_CASE("chunk pool: without a fill cap the idle cap bounds the fill", "[shim][chunks]") {
  ChunkPool pool(2 * full_chunk_bytes());
  CHECK(pool.fill_before_walk(4, std::chrono::milliseconds(20000)) == 2);
}

TEST_CASE("chunk pool: the last large chunk is kept for a walk whose big object fits it", "[shim][chunks]") {
  ChunkPool pool(2 * full_chunk_bytes());
  constexpr size_t kFullRefs = ObjectChunk::kObjects * ObjectChunk::kReferencesPerObject;
  CHECK_FALSE(pool.take_large(kFullRefs + 1));
  auto large = std::make_unique<ObjectChunk>(ObjectChunk::kObjects, 3 * kFullRefs);
  large->objects = 5;
  large->reference_count = 2 * kFullRefs;
  pool.give_back(std::move(large));
  CHECK(pool.ready_count() == 0);  // not one of the full-size chunks
  CHECK_FALSE(pool.take_large(3 * kFullRefs + 1));  // too small
  CHECK_FALSE(pool.take_large(kFullRefs));          // more than twice what is asked: not kept for it
  auto again = pool.take_large(2 * kFullRefs);
  REQUIRE(again);
  CHECK(again->reference_capacity == 3 * kFullRefs);
  CHECK(again->objects == 0);  // cleared
  CHECK(again->reference_count == 0);
  CHECK_FALSE(pool.take_large(2 * kFullRefs));  // taken: there was one
  // A smaller chunk than full size is never kept.
  pool.give_back(std::make_unique<ObjectChunk>(256, 512));
  CHECK(pool.ready_count() == 0);
  CHECK_FALSE(pool.take_large(kFullRefs + 1));
}

namespace {
// Wait up to 20 s for the pool's thread to have COUNT chunks ready.
bool ready_within(const ChunkPool& pool, size_t count) {
  for (int i = 0; i < 2000 && pool.ready_count() < count; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return pool.ready_count() == count;
}
}  // namespace

TEST_CASE("chunk pool: the reserve grows when a walk outruns the pool, up to its limit", "[shim][chunks]") {
  ChunkPool pool(0);
  pool.prepare(2, 3);
  REQUIRE(ready_within(pool, 2));
  // A walk that takes what is ready while it is ready does not deepen the reserve.
  auto a = pool.take();
  REQUIRE(a);
  CHECK(pool.reserve() == 2);
  REQUIRE(ready_within(pool, 2));
  // Without the pool's thread nothing is refilled: the walk runs the reserve down and deepens it.
  pool.stop();
  auto b = pool.take();  // 2 ready of 2: no
  CHECK(pool.reserve() == 2);
  auto c = pool.take();  // 1 ready of 2: the walk is outrunning the pool
  CHECK(pool.reserve() == 3);
  auto d = pool.take();  // none ready: the limit, 3
  CHECK_FALSE(d);
  CHECK(pool.reserve() == 3);
  pool.walk_done();
  CHECK(pool.reserve() == 0);
}
