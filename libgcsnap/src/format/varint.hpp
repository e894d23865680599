#pragma once
// LEB128 unsigned varints and zigzag (format-spec.md §2.2).

#include <cstddef>
#include <cstdint>

namespace gcsnap::format {

inline constexpr size_t kMaxVarintBytes = 10;

inline uint64_t zigzag_encode(uint64_t wrapped_signed) noexcept {
  return (wrapped_signed << 1) ^ (0 - (wrapped_signed >> 63));
}
inline uint64_t zigzag_decode(uint64_t z) noexcept { return (z >> 1) ^ (0 - (z & 1)); }

/// Write v at p (which must have kMaxVarintBytes of room); return bytes written.
inline size_t put_varint(uint8_t* p, uint64_t v) noexcept {
  size_t n = 0;
  while (v >= 0x80) {
    p[n++] = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  p[n++] = static_cast<uint8_t>(v);
  return n;
}

/// Decode one varint from [p, end). Return bytes consumed, or 0 when it is cut, longer
/// than 10 bytes, or has bits above 64 (format-spec.md §2.2: a reader must reject these).
inline size_t get_varint(const uint8_t* p, const uint8_t* end, uint64_t& out) noexcept {
  if (p < end && *p < 0x80) {
    out = *p;
    return 1;
  }
  uint64_t v = 0;
  for (size_t i = 0; i < kMaxVarintBytes; ++i) {
    if (p + i >= end) return 0;
    uint8_t b = p[i];
    if (i == 9 && b > 1) return 0;
    v |= static_cast<uint64_t>(b & 0x7F) << (7 * i);
    if (b < 0x80) {
      out = v;
      return i + 1;
    }
  }
  return 0;
}

}  // namespace gcsnap::format
