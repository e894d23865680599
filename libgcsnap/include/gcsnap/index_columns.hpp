#pragma once
/// A GC's object columns read from its analysis index into vectors the caller owns and may hand
/// on (format-spec.md §12.3 arrays 1, 2 and 4), for a caller that gives them to an object mapper
/// instead of copying them (BulkMapper::create's moving form), and single addresses read back
/// through the index's pieces.

#include <cstdint>
#include <memory>
#include <vector>

#include "gcsnap/index_stream.hpp"
#include "gcsnap/model.hpp"
#include "gcsnap/object_diff.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap {

/// One GC's addresses, sizes and generations, one per object in address order.
struct IndexColumns {
  std::vector<uint64_t> addresses;
  std::vector<uint64_t> sizes;
  std::vector<Generation> generations;
};

/// Read the addresses, sizes (unless not WITH_SIZES: left empty) and generations through
/// STREAM, checked as format-spec.md §12.4 item 4 says (each array's checksum, addresses
/// strictly increasing, generations in range).
/// Errors: those of IndexStream::next_piece, CorruptSection (a rule broken), OutOfMemory.
[[nodiscard]] Result<IndexColumns> read_index_columns(IndexStream& stream, bool with_sizes = true);

/// Return the sizes and type ids STREAM reads as a ColumnLookup (a diff's earlier GC): single
/// sizes from their pieces (IndexStream::read_piece), and one pass over both whole arrays that
/// checks their checksums as read_index_columns does. Errors: OutOfMemory.
[[nodiscard]] Result<std::unique_ptr<ColumnLookup>> look_up_index_columns(std::unique_ptr<IndexStream> stream);

/// Return the addresses and sizes STREAM reads as blocks (one piece each), for a diff that
/// reads them once in order (diff_objects' ColumnBlocks form), checked as read_index_columns
/// checks them as they come: each array's checksum with its last piece (so a block may be
/// handed out before a damaged array is told), the addresses strictly increasing, each array as
/// long as the node count (CorruptSection). Errors: OutOfMemory.
[[nodiscard]] Result<std::unique_ptr<ColumnBlocks>> stream_index_columns(std::unique_ptr<IndexStream> stream);

/// Return the addresses, sizes, type ids and generations STREAM reads as blocks (one piece of
/// the addresses each), for a diff that follows the earlier GC's objects as they come
/// (diff_walks with WalkView::objects), checked as read_index_columns checks them as they come:
/// each array's checksum with its last piece, the addresses strictly increasing, the
/// generations in range, each array as long as the node count (CorruptSection). Errors:
/// OutOfMemory.
[[nodiscard]] Result<std::unique_ptr<ObjectBlocks>> stream_index_objects(std::unique_ptr<IndexStream> stream);

/// Return the address of object NODE (< the index's node count) from its piece of the
/// addresses. Errors: those of IndexStream::read_piece, CorruptSection (NODE out of range).
[[nodiscard]] Result<uint64_t> read_index_address(IndexStream& stream, uint64_t node);

}  // namespace gcsnap
