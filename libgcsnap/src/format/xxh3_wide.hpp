// XXH3-64 with the widest vector unit this CPU has. format-spec.md's checksums are XXH3-64 of the
// bytes whatever computes them; xxhash's inline build uses SSE2 only, and the library hashes whole
// GC blocks and index arrays (GBs at 100 M objects), where AVX2 runs ~1.7x faster on cached data.
#pragma once

#include <cstddef>
#include <cstdint>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace gcsnap::format {

// XXH3_64bits(DATA, SIZE), the same value on every CPU.
uint64_t xxh3_64(const void* data, size_t size) noexcept;

// XXH3_64bits_update(STATE, DATA, SIZE): STATE stays an ordinary XXH3 state (reset and digest
// with xxhash's own functions).
void xxh3_update(XXH3_state_t* state, const void* data, size_t size) noexcept;

// Whether the two above use AVX2 on this CPU (for benches and diagnostics).
bool xxh3_uses_avx2() noexcept;

}  // namespace gcsnap::format
