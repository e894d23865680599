#pragma once
// The later GC's addresses and sizes as a diff's merge reads them, in rising object order:
// held whole, or a block at a time (ColumnBlocks). Internal to the library.

#include <cstddef>
#include <cstdint>
#include <span>

#include "gcsnap/object_diff.hpp"

namespace gcsnap::detail {

// B's columns held whole.
class WholeColumns {
 public:
  WholeColumns(std::span<const uint64_t> addresses, std::span<const uint64_t> sizes) noexcept
      : addresses_(addresses), sizes_(sizes) {}
  size_t size() const noexcept { return addresses_.size(); }
  bool reach(size_t) noexcept { return true; }
  uint64_t address(size_t j) const noexcept { return addresses_[j]; }
  uint64_t size_at(size_t j) const noexcept { return sizes_[j]; }
  Status finish() noexcept { return Status::ok(); }

 private:
  std::span<const uint64_t> addresses_, sizes_;
};

// B's columns a block at a time: the merge asks for objects in rising order only, so the block
// holding object J is the current one or a later one.
class StreamedColumns {
 public:
  explicit StreamedColumns(ColumnBlocks& blocks) noexcept : blocks_(blocks), n_(blocks.size()) {}
  size_t size() const noexcept { return n_; }
  // Make object J (J < size(), not below the last one asked) readable; false once the source
  // failed or ran short (finish() then says why).
  bool reach(size_t j) {
    while (j - base_ >= addresses_.size()) {
      if (!failed_.is_ok()) return false;
      base_ += addresses_.size();
      failed_ = blocks_.next(addresses_, sizes_);
      if (failed_.is_ok() && (addresses_.empty() || addresses_.size() != sizes_.size()))
        failed_ = make_error(ErrorCode::CorruptSection, "object columns of another length");
      if (!failed_.is_ok()) {
        addresses_ = {};
        return false;
      }
    }
    return true;
  }
  uint64_t address(size_t j) const noexcept { return addresses_[j - base_]; }
  uint64_t size_at(size_t j) const noexcept { return sizes_[j - base_]; }
  // After the last object: the source must be at its end (where it checks its columns whole).
  Status finish() {
    if (!failed_.is_ok()) return failed_;
    std::span<const uint64_t> addresses, sizes;
    GCSNAP_RETURN_IF_ERROR(blocks_.next(addresses, sizes));
    if (base_ + addresses_.size() != n_ || !addresses.empty() || !sizes.empty())
      return make_error(ErrorCode::CorruptSection, "object columns of another length");
    return Status::ok();
  }

 private:
  ColumnBlocks& blocks_;
  size_t n_;
  size_t base_ = 0;  // the index of the block's first object
  std::span<const uint64_t> addresses_, sizes_;
  Status failed_;
};

}  // namespace gcsnap::detail
