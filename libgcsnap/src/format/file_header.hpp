#pragma once
// File header (format-spec.md §3) and trailer (§7.2) parsing.

#include <cstdint>
#include <span>

#include "gcsnap/status.hpp"

namespace gcsnap::format {

struct FileHeader {
  uint16_t major = 0;
  uint16_t minor = 0;
  uint32_t header_size = 0;
  uint64_t required_features = 0;
  uint64_t optional_features = 0;
};

/// Errors: Truncated, NotAGcsnapFile, UnsupportedVersion, ChecksumMismatch,
/// UnknownRequiredFeature, CorruptSection.
Result<FileHeader> parse_file_header(std::span<const uint8_t> file) noexcept;

struct Trailer {
  uint64_t block_index_offset = 0;
  uint64_t block_index_size = 0;
};

/// Return true when the file ends with the trailer magic.
bool has_trailer_magic(std::span<const uint8_t> file) noexcept;
/// Parse the last 32 bytes. Errors: ChecksumMismatch, CorruptSection (offsets outside the file).
Result<Trailer> parse_trailer(std::span<const uint8_t> file, uint32_t header_size) noexcept;

}  // namespace gcsnap::format
