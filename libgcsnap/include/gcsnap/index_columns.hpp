#pragma once
/// A GC's object columns read from its analysis index into vectors the caller owns and may hand
/// on (format-spec.md §12.3 arrays 1, 2 and 4), for a caller that gives them to an object mapper
/// instead of copying them (BulkMapper::create's moving form), and single addresses read back
/// through the index's pieces.

#include <cstdint>
#include <vector>

#include "gcsnap/index_stream.hpp"
#include "gcsnap/model.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap {

/// One GC's addresses, sizes and generations, one per object in address order.
struct IndexColumns {
  std::vector<uint64_t> addresses;
  std::vector<uint64_t> sizes;
  std::vector<Generation> generations;
};

/// Read the addresses, sizes and generations through STREAM, checked as format-spec.md §12.4
/// item 4 says (each array's checksum, addresses strictly increasing, generations in range).
/// Errors: those of IndexStream::next_piece, CorruptSection (a rule broken), OutOfMemory.
[[nodiscard]] Result<IndexColumns> read_index_columns(IndexStream& stream);

/// Return the address of object NODE (< the index's node count) from its piece of the
/// addresses. Errors: those of IndexStream::read_piece, CorruptSection (NODE out of range).
[[nodiscard]] Result<uint64_t> read_index_address(IndexStream& stream, uint64_t node);

}  // namespace gcsnap
