#pragma once
// The earlier GC's objects followed through the one GC after it and matched with the later walk
// as they come, a block of each side at a time (diff_walks, when B is the GC right after A and
// A's columns come in blocks: WalkView::objects): no column of either side is ever whole in
// memory, where following A's objects in bulk (BulkMapper) holds A's addresses and generations
// (9 B per object) and reads its sizes and type ids again at the dead. Internal to the library.

#include <cstdint>
#include <span>
#include <vector>

#include "gcsnap/model.hpp"
#include "gcsnap/object_diff.hpp"
#include "gcsnap/object_identity.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap::detail {

struct FollowedMatch {
  /// As diff_objects' ColumnBlocks form gives it: new_sizes kept, b_index_of_a empty.
  ObjectDiff diff;
  /// A's sizes and type ids at its dead objects (parallel to diff.dead_objects).
  std::vector<uint64_t> dead_sizes;
  std::vector<uint32_t> dead_types;
  /// A's sizes at diff.missing_in_b, summed.
  uint64_t missing_bytes = 0;
  /// Per root address asked about: the generation at A of the object holding it, or Unknown
  /// (the hints BulkMapper::create takes for the roots' objects).
  std::vector<Generation> root_hints;
};

/// Follow A's objects (A_BLOCKS, every block to the end) through GC (the GC right after A) and
/// match them with B's columns (B_BLOCKS, or whole: B_ADDRESSES, B_SIZES), with the answer
/// diff_objects gives on BulkMapper's; find the generation at A of each of ROOT_ADDRESSES on
/// the way. Errors: those of the blocks, CorruptSection (a side of another length than its
/// size()), OutOfMemory.
Result<FollowedMatch> follow_and_match(const GcTransition& gc, ObjectBlocks& a_blocks, ColumnBlocks& b_blocks,
                                       std::span<const uint64_t> root_addresses);
Result<FollowedMatch> follow_and_match(const GcTransition& gc, ObjectBlocks& a_blocks,
                                       std::span<const uint64_t> b_addresses, std::span<const uint64_t> b_sizes,
                                       std::span<const uint64_t> root_addresses);

}  // namespace gcsnap::detail
