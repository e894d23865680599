#pragma once
// Recovery scan (format-spec.md §8): walk section headers from the file header on, without
// decompressing anything, and list every complete block.

#include <span>
#include <vector>

#include "format/gc_summary.hpp"
#include "gcsnap/reader.hpp"

namespace gcsnap::format {

struct ScanResult {
  std::vector<GcSummary> blocks;
  FileEnd end = FileEnd::NoIndex;
  uint64_t end_offset = 0;   ///< first byte not part of a complete block (or of the index/trailer)
  Error end_error{};
};

/// Errors: LimitExceeded (more blocks than limits.max_blocks). Damage is reported in the result.
Result<ScanResult> scan_blocks(std::span<const uint8_t> file, uint32_t header_size, const ReaderLimits& limits);

}  // namespace gcsnap::format
