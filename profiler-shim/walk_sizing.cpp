#include "walk_sizing.hpp"

#include <algorithm>

namespace gcsnap::shim {

uint64_t heap_in_use_bytes(std::span<const GenerationRange> bounds) noexcept {
  uint64_t bytes = 0;
  for (const GenerationRange& r : bounds) bytes += r.length;
  return bytes;
}

uint64_t walk_bound_bytes(uint64_t heap_bytes) noexcept { return kFixedWalkBytes + heap_bytes / 2; }

uint64_t cgroup_walk_share(uint64_t usage, uint64_t limit) noexcept { return limit > usage ? (limit - usage) / 4 : 0; }

size_t chunks_to_prepare(const WalkSizingInput& in) noexcept {
  if (in.chunk_bytes == 0 || in.heap_bytes == 0) return 0;
  uint64_t want = 0;
  if (in.expected_walk_bytes > 0) {
    want = (in.expected_walk_bytes + in.chunk_bytes - 1) / in.chunk_bytes;
  } else {
    // A full chunk holds 128 Ki objects: 6 MiB of heap at 48 bytes per object, the small end of
    // what heaps average. More would guess high for a heap of large arrays.
    want = std::min<uint64_t>((in.heap_bytes + in.chunk_bytes - 1) / in.chunk_bytes, kChunksAhead);
  }
  // Chunks made ready ahead are what the bound is for: at most half of it, so that the walk's
  // own refills and the writer's buffers have the other half.
  want = std::min(want, walk_bound_bytes(in.heap_bytes) / 2 / in.chunk_bytes);
  want = std::min(want, in.cgroup_share / 2 / in.chunk_bytes);
  return static_cast<size_t>(want);
}

size_t chunks_ahead_within(uint64_t share, uint64_t chunk_bytes) noexcept {
  if (chunk_bytes == 0) return 0;
  return static_cast<size_t>(std::min<uint64_t>(kChunksAhead, share / 2 / chunk_bytes));
}

size_t reserve_limit(uint64_t heap_bytes, uint64_t share, uint64_t chunk_bytes) noexcept {
  if (chunk_bytes == 0) return 0;
  if (share != UINT64_MAX) return chunks_ahead_within(share, chunk_bytes);
  return static_cast<size_t>(walk_bound_bytes(heap_bytes) / 2 / chunk_bytes);
}

size_t chunks_ahead_for(uint64_t expected, uint64_t share, uint64_t chunk_bytes) noexcept {
  if (chunk_bytes == 0) return 0;
  const uint64_t wanted = std::max<uint64_t>(1, expected / chunk_bytes + (expected % chunk_bytes != 0));
  return static_cast<size_t>(std::min<uint64_t>(wanted, chunks_ahead_within(share, chunk_bytes)));
}

}  // namespace gcsnap::shim
