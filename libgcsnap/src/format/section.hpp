#pragma once
// Section headers, checksums and the zstd step (format-spec.md §4).

#include <cstdint>
#include <span>
#include <vector>

#include "format/byte_buffer.hpp"
#include "format/format_constants.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap::format {

struct SectionHeader {
  uint16_t type = 0;
  Codec codec = Codec::Raw;
  uint8_t flags = 0;
  uint64_t item_count = 0;
  uint64_t stored_size = 0;    ///< payload bytes in the file
  uint64_t decoded_size = 0;   ///< payload bytes after decompression
  uint64_t payload_checksum = 0;  ///< XXH3-64 of the stored payload
};

uint64_t checksum64(std::span<const uint8_t> bytes) noexcept;

/// Serialize HEADER (computing its own checksum) into 40 bytes at out.
void encode_section_header(const SectionHeader& header, uint8_t* out) noexcept;
/// Parse and check a header at bytes[0..40). Errors: Truncated, ChecksumMismatch, CorruptSection.
Result<SectionHeader> decode_section_header(std::span<const uint8_t> bytes, uint64_t file_offset) noexcept;

/// The compression level that stores a section's payload raw (zstd levels are all above it).
inline constexpr int kNoCompression = -100;

/// Build a whole section (header + payload) from a decoded payload; compresses with zstd
/// when level > kNoCompression and that makes it smaller. Appends to out.
void build_section(uint16_t type, uint64_t item_count, std::span<const uint8_t> payload, int level, ByteBuffer& out);
/// The same, appended to a std::vector (tests craft files with it).
void build_section(uint16_t type, uint64_t item_count, std::span<const uint8_t> payload, int level,
                   std::vector<uint8_t>& out);

/// Check the payload checksum and decompress into out (sized decoded_size). The caller has
/// already checked decoded_size against its limits. Errors: ChecksumMismatch,
/// DecompressionFailed, CorruptSection, OutOfMemory.
Status decode_payload(const SectionHeader& header, std::span<const uint8_t> stored, uint64_t file_offset,
                      std::vector<uint8_t>& out) noexcept;

/// Check what decode_payload checks before it decompresses: the payload checksum and, for zstd,
/// that one frame fills the payload and declares decoded_size. Nothing is allocated.
/// Errors: Truncated, ChecksumMismatch, DecompressionFailed.
Status check_payload_frame(const SectionHeader& header, std::span<const uint8_t> stored, uint64_t file_offset) noexcept;
/// The same with the stored payload's XXH3-64 (CHECKSUM) computed by the caller, in a pass that
/// hashed those bytes for another purpose too (Recording::verify_gc_counted).
Status check_hashed_payload_frame(const SectionHeader& header, std::span<const uint8_t> stored, uint64_t file_offset,
                                  uint64_t checksum) noexcept;

}  // namespace gcsnap::format
