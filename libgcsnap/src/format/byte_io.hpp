#pragma once
// Little-endian loads and stores (format-spec.md §2). Loads are bounds-checked by the caller
// through ByteReader; nothing here casts file bytes to structs.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace gcsnap::format {

inline uint16_t load_le16(const uint8_t* p) noexcept {
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}
inline uint32_t load_le32(const uint8_t* p) noexcept {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}
inline uint64_t load_le64(const uint8_t* p) noexcept {
  return static_cast<uint64_t>(load_le32(p)) | (static_cast<uint64_t>(load_le32(p + 4)) << 32);
}
inline void store_le16(uint8_t* p, uint16_t v) noexcept {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}
inline void store_le32(uint8_t* p, uint32_t v) noexcept {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline void store_le64(uint8_t* p, uint64_t v) noexcept {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

/// Appends little-endian values to a growing byte vector.
class ByteSink {
 public:
  explicit ByteSink(std::vector<uint8_t>& out) : out_(out) {}
  void u8(uint8_t v) { out_.push_back(v); }
  void u16(uint16_t v) { uint8_t b[2]; store_le16(b, v); out_.insert(out_.end(), b, b + 2); }
  void u32(uint32_t v) { uint8_t b[4]; store_le32(b, v); out_.insert(out_.end(), b, b + 4); }
  void u64(uint64_t v) { uint8_t b[8]; store_le64(b, v); out_.insert(out_.end(), b, b + 8); }
  void bytes(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    out_.insert(out_.end(), b, b + n);
  }

 private:
  std::vector<uint8_t>& out_;
};

/// Reads little-endian values from a span; every read checks the remaining length first.
/// After a failed read ok() is false and all further reads return 0.
class ByteReader {
 public:
  explicit ByteReader(std::span<const uint8_t> bytes) noexcept : data_(bytes) {}
  bool ok() const noexcept { return ok_; }
  size_t position() const noexcept { return pos_; }
  size_t remaining() const noexcept { return data_.size() - pos_; }
  bool at_end() const noexcept { return pos_ == data_.size(); }
  uint8_t u8() noexcept { return take(1) ? data_[pos_ - 1] : 0; }
  uint16_t u16() noexcept { return take(2) ? load_le16(&data_[pos_ - 2]) : 0; }
  uint32_t u32() noexcept { return take(4) ? load_le32(&data_[pos_ - 4]) : 0; }
  uint64_t u64() noexcept { return take(8) ? load_le64(&data_[pos_ - 8]) : 0; }
  /// Return the next n bytes, or an empty span (and ok() false) when fewer remain.
  std::span<const uint8_t> bytes(uint64_t n) noexcept {
    if (!take(n)) return {};
    return data_.subspan(pos_ - static_cast<size_t>(n), static_cast<size_t>(n));
  }

 private:
  bool take(uint64_t n) noexcept {
    if (!ok_ || n > data_.size() - pos_) {
      ok_ = false;
      return false;
    }
    pos_ += static_cast<size_t>(n);
    return true;
  }
  std::span<const uint8_t> data_;
  size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace gcsnap::format
