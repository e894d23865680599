#pragma once
/// One GC's analysis index (format-spec.md §12) read array by array, one 1 MiB piece at a
/// time, for a pass over every object or edge in order (an export) that holds a few pieces in
/// memory whatever the size of the heap. The header, the directory and the identity are
/// checked at open (§12.4 items 1-3); each piece's zstd frame is checked as it is decoded, and
/// an array read through to its end is checked against its checksum there. The rules that
/// tie arrays together (§12.4 item 4) are the caller's to check on the elements it uses.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gcsnap/analysis_index.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap {

/// The arrays an IndexStream reads: their position in format-spec.md §12.3's table, from 0.
enum class IndexArray : uint8_t {
  Addresses = 0,
  Sizes = 1,
  TypeIds = 2,
  Generations = 3,
  ForwardOffsets = 4,
  ForwardTargets = 5,
  Slots = 8,
  DependentEdges = 11,
  ImmediateDominators = 13,
  RetainedSizes = 14,
  PathParents = 16,
};

/// The counts of the index's header (format-spec.md §12.2).
struct IndexCounts {
  uint64_t nodes = 0;
  uint64_t edges = 0;
  uint64_t dependent_edges = 0;
  bool wide_offsets = false;  ///< forward offsets are u64 (else u32)
  bool has_slots = false;     ///< the edge slots array is there
};

/// Reads the arrays of one index file. Move-only; keeps the file open.
class IndexStream {
 public:
  IndexStream(const IndexStream&) = delete;
  IndexStream& operator=(const IndexStream&) = delete;
  ~IndexStream();

  /// Open the index at PATH and check its header, directory and identity against EXPECTED.
  /// Errors: NotFound (no file), IoError, and as read_analysis_index: UnsupportedVersion,
  /// InconsistentData (stale), Truncated / ChecksumMismatch / CorruptSection (damaged).
  [[nodiscard]] static Result<std::unique_ptr<IndexStream>> open(const std::string& path, const IndexIdentity& expected);

  const IndexCounts& counts() const noexcept { return counts_; }

  /// Decode the next piece of ARRAY: its decoded bytes (little-endian elements), empty after
  /// the last. The span stays valid until the next call for the same array. Errors: IoError,
  /// Truncated / CorruptSection (a piece that does not decode), ChecksumMismatch (the array's
  /// checksum, told with its last piece).
  [[nodiscard]] Result<std::span<const std::byte>> next_piece(IndexArray array);

  /// Decode piece K of ARRAY (pieces of kIndexPieceBytes decoded bytes; the last one fewer) into
  /// BUFFER, for lookups out of order. Errors: as next_piece, and InvalidArgument (no piece K).
  [[nodiscard]] Result<std::span<const std::byte>> read_piece(IndexArray array, size_t k,
                                                              std::vector<std::byte>& buffer);

 private:
  struct Cursor;
  IndexStream() = default;
  Status find_pieces(size_t array);

  intptr_t file_ = -1;
  IndexCounts counts_;
  std::vector<Cursor> cursors_;  // one per array of §12.3
};

/// The decoded bytes of one piece of an index array (format-spec.md §12.3).
inline constexpr size_t kIndexPieceBytes = size_t{1} << 20;

}  // namespace gcsnap
