#pragma once
// The dominator tree's largest heads (format-spec.md §12.3 array 18 after the nearest
// instances, minor 3): how a build finds them, their coding and their rules (§12.4 item 4).
// Internal to the library.

#include <cstdint>
#include <span>
#include <vector>

#include "analysis_index/index_layout.hpp"
#include "gcsnap/analysis_index.hpp"
#include "gcsnap/dominators.hpp"
#include "gcsnap/heap_graph.hpp"

namespace gcsnap::detail {

/// Array 18's decoded bytes after the holder table (split_type_tables' second part) split as
/// counts C say: the nearest instances, then the largest heads (empty without flag bit 5).
std::pair<std::span<const unsigned char>, std::span<const unsigned char>> split_after_holders(
    std::span<const unsigned char> rest, const index_layout::Counts& c) noexcept;

/// The min(kHeadsKept, heads) largest heads of DOM over GRAPH (top_retainer_chains), with their
/// rows' columns. Errors: top_retainer_chains'.
[[nodiscard]] Result<std::vector<LargestHead>> find_largest_heads(const HeapGraph& graph, const DominatorTree& dom);

/// The heads' records, padded to kHeadsKept, appended to OUT.
void encode_largest_heads(std::span<const LargestHead> heads, std::vector<unsigned char>& out);

/// Decode the kHeadsKept records of BYTES (the array's checksum already checked), padding left
/// out, checked against NODES: §12.4 item 4's rules. Errors: CorruptSection.
[[nodiscard]] Result<std::vector<LargestHead>> decode_largest_heads(std::span<const unsigned char> bytes,
                                                                    uint64_t nodes);

}  // namespace gcsnap::detail

namespace gcsnap::detail {

class IndexPieces;

/// The N largest heads of TYPES (sorted ids; empty: every type) as PointIndex::top_retainers
/// gives them folded, from HEADS (the index's) and point reads of the rows' objects; nullopt
/// when HEADS do not hold them all (§12.3). Errors: find_object's, CorruptSection (a row's type
/// id is not its object's).
[[nodiscard]] Result<std::optional<std::vector<IndexedRetainer>>> retainers_from_heads(
    IndexPieces& ix, std::span<const LargestHead> heads, size_t n, std::span<const uint32_t> types);

}  // namespace gcsnap::detail
