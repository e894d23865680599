#pragma once
/// Folding repeated hops of a retention path: the one rule that `leaks` uses for its shapes
/// and that every command printing a path uses to show a long chain as one hop with a count
/// (docs/design.md "Folding chains").

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "gcsnap/status.hpp"

namespace gcsnap {

/// A sequence of hop keys with its repeats folded: keys[k] stands for counts[k] hops of the
/// original sequence, the first of them at position first[k].
struct FoldedHops {
  std::vector<uint32_t> keys;
  std::vector<uint64_t> counts;
  std::vector<size_t> first;
  size_t size() const noexcept { return keys.size(); }
};

/// Fold KEYS (one per hop, equal keys for hops to fold together: the same type, or the same
/// type and field): left to right, every block of up to MAX_PERIOD keys that directly repeats
/// the block before it is dropped, and its hops are counted on the block it repeats, position
/// by position. So A B B B gives A B with counts 1 3, and A B C B C B C gives A B C with counts
/// 1 3 3. The keys kept are those of collapse_repeats; the counts add up to KEYS.size().
/// Errors: OutOfMemory.
[[nodiscard]] Result<FoldedHops> fold_repeats(std::span<const uint32_t> keys, size_t max_period = 4);

}  // namespace gcsnap
