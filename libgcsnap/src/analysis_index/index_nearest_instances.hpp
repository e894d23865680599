#pragma once
// Each type's instances nearest to a strong root (format-spec.md §12.3 array 18 after the holder
// table's texts, minor 2): their coding, their rules (§12.4 item 4), and how a build finds them
// from the order of its breadth-first search. Internal to the library.

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "analysis_index/index_layout.hpp"
#include "gcsnap/analysis_index.hpp"

namespace gcsnap::detail {

/// The instances a build keeps per type (k): the most paths `path --type` reads from an index a
/// piece at a time.
inline constexpr uint32_t kNearestPerType = 64;

/// Array 18's decoded bytes split as counts C say: the holder table (records and texts), then
/// the nearest instances (empty without flag bit 4). BYTES must be as long as placed for C.
std::pair<std::span<const unsigned char>, std::span<const unsigned char>> split_type_tables(
    std::span<const unsigned char> bytes, const index_layout::Counts& c) noexcept;

/// The nearest instances' records (12 bytes each), appended to OUT.
void encode_nearest_instances(const NearestInstances& nearest, std::vector<unsigned char>& out);

/// Decode ROWS records of nearest instances (BYTES, the array's checksum already checked), PER_TYPE
/// kept per type, checked against HISTOGRAM (the index's) and NODES: §12.4 item 4's rules.
/// Errors: CorruptSection.
[[nodiscard]] Result<NearestInstances> decode_nearest_instances(std::span<const unsigned char> bytes, uint64_t rows,
                                                                uint64_t per_type, std::span<const TypeStats> histogram,
                                                                uint64_t nodes);

/// Every type's PER_TYPE nearest instances, from ORDER, the nodes of a breadth-first search
/// from the strong roots in the order it reached them (ShortestPathTree::compute_in_order), whose
/// level L ends before LEVEL_ENDS[L], and TYPE_IDS, the graph's per node. Errors: LimitExceeded
/// (a type id too large to index a table by), OutOfMemory.
[[nodiscard]] Result<NearestInstances> find_nearest_instances(std::span<const uint32_t> type_ids,
                                                              std::span<const NodeIndex> order,
                                                              std::span<const size_t> level_ends, uint32_t per_type);

}  // namespace gcsnap::detail
