#pragma once
// The header and the directory of an analysis index (format-spec.md §12.2-12.3, §12.4 items
// 1-3), checked in one place for every reader: the whole read (index_read.cpp), the point
// lookups (index_pieces.cpp) and the pass piece by piece (index_stream.cpp), which reads the
// file with positioned reads and so has only the first kFirstArray bytes in memory.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "analysis_index/index_layout.hpp"
#include "gcsnap/analysis_index.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap::detail {

/// What a checked header and directory say.
struct IndexHead {
  index_layout::Counts counts;
  index_layout::Placement place;                              ///< each array's decoded length
  std::array<uint64_t, index_layout::kArrayCount> begin{};    ///< each array's coded bytes: offset
  std::array<uint64_t, index_layout::kArrayCount> length{};   ///< ... and length in the file
  std::array<uint64_t, index_layout::kArrayCount> hashes{};   ///< each array's XXH3-64 (§12.2)
  bool wide_offsets = false;
  uint16_t minor = 0;
  /// The holder table (array 18) is present (minor 1, flag bit 3).
  bool has_holders() const noexcept { return (counts.flags & index_layout::kFlagHolders) != 0; }
};

/// The identity of the recording an index was built from, as its header (HEAD, at least
/// index_layout::kHeaderSize bytes) states it; unchecked.
[[nodiscard]] IndexIdentity identity_in_header(const std::byte* head) noexcept;

/// Check the header and directory in HEAD (the file's first bytes: all of them, or at least
/// index_layout::kFirstArray) of an index file of FILE_SIZE bytes, against EXPECTED (null: no
/// identity check). Errors: Truncated, NotAGcsnapFile, ChecksumMismatch, UnsupportedVersion
/// (another major version, or a big-endian host), InconsistentData (stale), CorruptSection.
[[nodiscard]] Result<IndexHead> check_index_head(std::span<const std::byte> head, uint64_t file_size,
                                                 const IndexIdentity* expected);

}  // namespace gcsnap::detail
