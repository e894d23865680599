#pragma once
// Column encodings inside a section payload (format-spec.md §5).
// A column is: kind byte, LEB128 byte length, that many bytes of data.

#include <cstdint>
#include <span>
#include <vector>

#include "format/byte_buffer.hpp"
#include "format/format_constants.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap::format {

/// Whether this CPU runs BMI2's pdep fast; the integer column encoders then use
/// put_varint_pdep (same bytes, fewer instructions).
bool has_fast_pdep() noexcept;

/// Raw bytes (enums, flags, name text).
void encode_bytes_column(std::span<const uint8_t> values, ByteBuffer& out);
/// LEB128 of each value, divided by 8 when all are multiples of 8.
void encode_varint_column(std::span<const uint64_t> values, ByteBuffer& out);
void encode_varint_column(std::span<const uint32_t> values, ByteBuffer& out);
/// Deltas from the previous value (unsigned when non-decreasing, else zigzag), /8 when aligned.
void encode_delta_column(std::span<const uint64_t> values, ByteBuffer& out);
/// zigzag(target - source) per edge; source i owns counts[i] consecutive targets.
void encode_edge_column(std::span<const uint64_t> sources, std::span<const uint32_t> counts,
                        std::span<const uint64_t> targets, ByteBuffer& out);

/// The same, appended to a std::vector (through a staging copy: for tests and crafted files).
void encode_bytes_column(std::span<const uint8_t> values, std::vector<uint8_t>& out);
void encode_varint_column(std::span<const uint64_t> values, std::vector<uint8_t>& out);
void encode_varint_column(std::span<const uint32_t> values, std::vector<uint8_t>& out);
void encode_delta_column(std::span<const uint64_t> values, std::vector<uint8_t>& out);
void encode_edge_column(std::span<const uint64_t> sources, std::span<const uint32_t> counts,
                        std::span<const uint64_t> targets, std::vector<uint8_t>& out);

/// Walks the columns of one decoded payload.
class ColumnCursor {
 public:
  ColumnCursor(std::span<const uint8_t> payload, uint64_t file_offset) noexcept
      : payload_(payload), offset_(file_offset) {}
  /// Decode the next column as exactly n raw bytes.
  Status read_bytes(uint64_t n, std::vector<uint8_t>& out);
  /// Decode the next column (Varint, Delta or DeltaZigzag) as exactly n values <= max_value.
  Status read_u64(uint64_t n, std::vector<uint64_t>& out, uint64_t max_value = UINT64_MAX);
  /// Same as read_u64, into dst[0..n), which the caller has sized.
  Status read_u64_into(uint64_t n, uint64_t* dst, uint64_t max_value = UINT64_MAX);
  /// Decode the next column as an Edge column into dst[0..total): source i owns counts[i]
  /// consecutive targets; the counts must add up to total.
  Status read_edges(const uint64_t* sources, const uint64_t* counts, size_t n, uint64_t total, uint64_t* dst);
  /// Skip the next column (any kind), checking only that its length fits the payload.
  Status skip() {
    uint8_t kind = 0;
    std::span<const uint8_t> data;
    return next(kind, data);
  }
  /// Errors with CorruptSection unless every byte of the payload was used.
  Status finish() const;

 private:
  Status next(uint8_t& kind, std::span<const uint8_t>& data);
  Status decode_column(uint8_t kind, std::span<const uint8_t> data, uint64_t n, uint64_t* dst, uint64_t max_value);
  Error corrupt(const char* what) const noexcept { return make_error(ErrorCode::CorruptSection, what, offset_); }
  std::span<const uint8_t> payload_;
  size_t pos_ = 0;
  uint64_t offset_;
};

}  // namespace gcsnap::format
