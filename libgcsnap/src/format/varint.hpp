#pragma once
// LEB128 unsigned varints and zigzag (format-spec.md §2.2).

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

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

/// Store a varint of v (below 2^56) whose 7-bit groups X already holds one per byte: add the
/// continuation bits and write 8 bytes at p; return the varint's length.
inline size_t store_spread_varint(uint8_t* p, uint64_t x, uint64_t v) noexcept {
  // Bytes per bit width 0..56, from a table: the division by 7 was the loop's critical path.
  static constexpr uint8_t kLength[57] = {1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3,
                                          3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 6, 6,
                                          6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8, 8};
  const unsigned len = kLength[std::bit_width(v)];  // 1..8
  x |= 0x8080808080808080ull & ((uint64_t{1} << (8 * (len - 1))) - 1);  // continuation bits
  if constexpr (std::endian::native == std::endian::big) x = __builtin_bswap64(x);
  std::memcpy(p, &x, 8);
  return len;
}

/// put_varint without a branch on the length for values below 2^56 (p must have 8 bytes of
/// room, which kMaxVarintBytes per value gives). Why: varint lengths in the edge column vary
/// from value to value, and the byte loop mispredicted on most of them (docs/performance.md).
inline size_t put_varint_fast(uint8_t* p, uint64_t v) noexcept {
  if (v >> 56) return put_varint(p, v);
  // Values below 2^28 (four bytes) spread their 7-bit groups in half the instructions; the
  // branch is predictable on the writer's columns (type ids, sizes, counts, most deltas), and
  // the varint loop is instruction-bound: 2.9 -> 2.0 ns per value on a chunk's edge deltas.
  uint64_t x = (v & 0x7Full) | ((v << 1) & (0x7Full << 8)) | ((v << 2) & (0x7Full << 16)) |
               ((v << 3) & (0x7Full << 24));
  if (v >> 28)
    x |= ((v << 4) & (0x7Full << 32)) | ((v << 5) & (0x7Full << 40)) | ((v << 6) & (0x7Full << 48)) |
         ((v << 7) & (0x7Full << 56));
  return store_spread_varint(p, x, v);
}

#if defined(__x86_64__) && defined(__GNUC__)
/// put_varint_fast with BMI2's pdep spreading the 7-bit groups in one instruction (1.3 ns per
/// value instead of 2.0 on a chunk's edge deltas). Only for code compiled for BMI2 and run
/// where has_fast_pdep() holds.
__attribute__((target("bmi2"))) inline size_t put_varint_pdep(uint8_t* p, uint64_t v) noexcept {
  if (v >> 56) return put_varint(p, v);
  return store_spread_varint(p, __builtin_ia32_pdep_di(v, 0x7F7F7F7F7F7F7F7Full), v);
}
#endif

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

/// Decode one varint of at most 8 bytes from p, which must have 8 readable bytes. Return
/// the bytes consumed, or 0 when the varint is longer (the caller then uses get_varint).
/// Why: branch-free on the length, this decodes the column loops about twice as fast as the
/// byte-at-a-time loop (docs/performance.md); 8-byte varints cover values below 2^56.
inline size_t get_varint_fast8(const uint8_t* p, uint64_t& out) noexcept {
  uint64_t x = 0;
  std::memcpy(&x, p, 8);
  if constexpr (std::endian::native == std::endian::big) x = __builtin_bswap64(x);
  const uint64_t stops = ~x & 0x8080808080808080ull;  // high bit clear: the last byte
  if (stops == 0) return 0;
  const unsigned bits = static_cast<unsigned>(std::countr_zero(stops)) + 1;  // 8, 16, ..., 64
  if (bits < 64) x &= (uint64_t{1} << bits) - 1;
  x = (x & 0x7Full) | ((x >> 1) & (0x7Full << 7)) | ((x >> 2) & (0x7Full << 14)) | ((x >> 3) & (0x7Full << 21)) |
      ((x >> 4) & (0x7Full << 28)) | ((x >> 5) & (0x7Full << 35)) | ((x >> 6) & (0x7Full << 42)) |
      ((x >> 7) & (0x7Full << 49));
  out = x;
  return bits / 8;
}

/// get_varint with the fast path when at least 8 bytes remain.
inline size_t get_varint_any(const uint8_t* p, const uint8_t* end, uint64_t& out) noexcept {
  if (end - p >= 8) {
    if (size_t used = get_varint_fast8(p, out)) return used;
  }
  return get_varint(p, end, out);
}

}  // namespace gcsnap::format
