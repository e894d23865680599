#pragma once
// What a heap walk may add to the process's memory, and how many chunks to make ready for it
// (docs/shim.md "Memory"). A walk adds at most kFixedWalkBytes plus half of the managed heap's
// in-use bytes to the process's peak resident size beyond what its own records take; inside a
// memory cgroup it takes at most a quarter of the headroom. Plain integers: tests drive it
// without a runtime.

#include <cstddef>
#include <cstdint>
#include <span>

#include "gcsnap/model.hpp"

namespace gcsnap::shim {

/// The part of the bound that does not grow with the heap (chunks made ready, the writer's buffers).
inline constexpr uint64_t kFixedWalkBytes = uint64_t{64} << 20;
/// Chunks kept ready ahead of the GC thread during a walk: the pool refills behind it.
inline constexpr size_t kChunksAhead = 4;

/// Bytes in use of every generation in BOUNDS (what GetGenerationBounds reports, LOH and POH too).
uint64_t heap_in_use_bytes(std::span<const GenerationRange> bounds) noexcept;

/// The most a walk over a heap of HEAP_BYTES in use may add beyond its records: 64 MiB + half the heap.
uint64_t walk_bound_bytes(uint64_t heap_bytes) noexcept;

/// What a walk may take inside a memory cgroup with USAGE of LIMIT: a quarter of the headroom.
uint64_t cgroup_walk_share(uint64_t usage, uint64_t limit) noexcept;

struct WalkSizingInput {
  uint64_t heap_bytes = 0;       ///< the heap in use now (generation bounds); 0: unknown
  /// What the walk is expected to store (the last walk's records scaled by the heap), 0 before any walk.
  uint64_t expected_walk_bytes = 0;
  uint64_t chunk_bytes = 0;      ///< bytes of one full chunk
  uint64_t cgroup_share = UINT64_MAX;  ///< cgroup_walk_share, or UINT64_MAX outside a cgroup
};

/// Full chunks to make ready before an on-demand walk. After a walk: enough for what it is
/// expected to store. Before any walk the object count is unknown (a heap of large arrays holds
/// few objects for its bytes): at most kChunksAhead, one per 6 MiB of heap, and the pool grows
/// the rest on demand while the walk takes them. Never more than the bound, nor the cgroup's share.
size_t chunks_to_prepare(const WalkSizingInput& in) noexcept;

/// Chunks the pool keeps ahead of the walk when it may take SHARE bytes (UINT64_MAX: no cgroup):
/// kChunksAhead, fewer when they would use more than half of the share.
size_t chunks_ahead_within(uint64_t share, uint64_t chunk_bytes) noexcept;
/// The most chunks the reserve may grow to during a walk over HEAP_BYTES with SHARE (UINT64_MAX:
/// no cgroup): half the bound; inside a cgroup the reserve does not grow (chunks_ahead_within).
size_t reserve_limit(uint64_t heap_bytes, uint64_t share, uint64_t chunk_bytes) noexcept;
/// Chunks the pool keeps ahead of a walk expected to store EXPECTED bytes: enough for it (at
/// least one), at most chunks_ahead_within(SHARE); the pool refills behind the walk.
size_t chunks_ahead_for(uint64_t expected, uint64_t share, uint64_t chunk_bytes) noexcept;

}  // namespace gcsnap::shim
