#pragma once
// The fixed-size GC records: block start payload (§6.1) and GC summary (§6.9), which is
// both the block end payload and one index entry (§7.1).

#include <cstdint>
#include <span>

#include "gcsnap/model.hpp"
#include "gcsnap/reader.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap::format {

struct GcSummary {
  GcEntry entry;
  uint32_t section_count = 0;  ///< sections in the block, block start and end included
};

void encode_gc_info(const GcInfo& info, uint8_t* out) noexcept;  ///< 32 bytes
void encode_gc_summary(const GcSummary& summary, uint8_t* out) noexcept;  ///< 152 bytes

/// Errors: CorruptSection when an enum or bit field is outside its range.
Result<GcInfo> decode_gc_info(std::span<const uint8_t> bytes, uint64_t file_offset) noexcept;
Result<GcSummary> decode_gc_summary(std::span<const uint8_t> bytes, uint64_t file_offset) noexcept;

/// Return false when INFO has a value the format cannot hold (§6.1 ranges).
bool is_valid_gc_info(const GcInfo& info) noexcept;

}  // namespace gcsnap::format
