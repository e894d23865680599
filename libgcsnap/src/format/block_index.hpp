#pragma once
// The index section (format-spec.md §7.1): one GC summary per complete block.

#include <span>
#include <vector>

#include "format/file_header.hpp"
#include "format/gc_summary.hpp"
#include "gcsnap/reader.hpp"

namespace gcsnap::format {

/// Read and check the index the trailer points at. Errors: any section error, LimitExceeded,
/// CorruptSection (entries out of order or outside the file's blocks).
Result<std::vector<GcSummary>> read_block_index(std::span<const uint8_t> file, const Trailer& trailer,
                                          uint32_t header_size, const ReaderLimits& limits);

/// Check that summary i describes a block that lies in [first, limit) after block i-1.
Status check_summary_order(const GcSummary& s, const GcSummary* previous, uint64_t first, uint64_t limit,
                           uint64_t offset) noexcept;

}  // namespace gcsnap::format
