#pragma once
// The holder table of an analysis index (format-spec.md §12.3, array 18): its records and
// texts, their rules (§12.4 item 4), and how a build computes it. Internal to the library.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "analysis_index/index_layout.hpp"
#include "analysis_index/index_write.hpp"
#include "gcsnap/analysis_index.hpp"
#include "gcsnap/type_holder_cells.hpp"

namespace gcsnap::detail {

/// Array 18's decoded bytes for ROWS: the records, then the texts.
std::vector<unsigned char> encode_type_holders(std::span<const IndexedTypeHolder> rows);

/// The types array 18 keeps holders for: the first min(t, kHeldByRows) of HISTOGRAM (any order)
/// by retained bytes, largest first, ties by type id (§12.3).
std::vector<uint32_t> holder_table_types(std::span<const TypeStats> histogram);

/// Decode array 18 (BYTES, its checksum already checked) of ROWS records and TEXT bytes of
/// text, checked against HISTOGRAM (the index's, checked): §12.4 item 4's rules.
/// Errors: CorruptSection.
[[nodiscard]] Result<std::vector<IndexedTypeHolder>> decode_type_holders(std::span<const unsigned char> bytes,
                                                                         uint64_t rows, uint64_t text,
                                                                         std::span<const TypeStats> histogram);

/// Load one type histogram record (array 16) at AT into T; false when its zero field is not
/// zero or its bytes by generation do not add up to its shallow bytes (§12.4 item 4). The
/// whole check (index_read_checks.cpp) and decode_type_stats both read records with it.
bool load_type_record(const void* at, TypeStats& t) noexcept;

/// Decode and check the type histogram's records (array 16, checksum already checked),
/// sorted by type id as the index keeps them. Errors: CorruptSection.
[[nodiscard]] Result<std::vector<TypeStats>> decode_type_stats(std::span<const unsigned char> bytes);

/// What the build has when it computes the holder table (after the histogram): the graph
/// without its forward CSR (given back to the reverse CSR's build), the dominator tree, the
/// histogram, and the file the arrays were written to, read back for the forward graph, the
/// addresses and the edge slots; the shortest-path parents still coded in memory.
struct HolderBuildInput {
  const Recording& rec;
  size_t gc_pos;
  const HeapGraph& graph;
  const DominatorTree& tree;
  std::span<const TypeStats> histogram;
  IndexFile& file;
  const index_layout::Placement& place;
  const IndexFile::CodedArray& parents;
  /// Called once the tree has had its last reader (before the slots and parents are read), so
  /// that the build may free it; may be empty.
  std::function<void()> release_tree;
};

/// Compute array 18's rows (describe_type_holders over the graph read back). Errors: those of
/// the reader (names, statics, delegates), of describe_type_holders, InvalidState (an array
/// that does not read back), OutOfMemory.
[[nodiscard]] Result<std::vector<IndexedTypeHolder>> build_type_holders(const HolderBuildInput& in);

}  // namespace gcsnap::detail
