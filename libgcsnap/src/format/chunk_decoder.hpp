#pragma once
// Decoding one section payload into the reader's tables (format-spec.md §6). Each function
// appends ITEMS entries and errors with CorruptSection when the columns disagree.

#include <cstdint>
#include <span>
#include <vector>

#include "format/column_codec.hpp"
#include "gcsnap/reader.hpp"

namespace gcsnap::format {

struct DecodeContext {
  std::span<const uint8_t> payload;
  uint64_t items = 0;
  uint64_t offset = 0;  ///< file offset of the section, for errors
  uint64_t max_name_bytes = kMaxNameBytes;
};

/// CorruptSection at the section CTX decodes.
inline Error corrupt(const DecodeContext& ctx, const char* what) noexcept {
  return make_error(ErrorCode::CorruptSection, what, ctx.offset);
}

/// Sum VALUES into TOTAL, each at most MAX_EACH; false when one is larger or the sum overflows.
inline bool sum_checked(const std::vector<uint64_t>& values, uint64_t max_each, uint64_t& total) noexcept {
  total = 0;
  for (uint64_t n : values) {
    if (n > max_each || n > UINT64_MAX - total) return false;
    total += n;
  }
  return true;
}

/// Read into NAMES the bytes of the names whose LENGTHS were read before through C, each at most
/// CTX's name limit. Errors: LimitExceeded (TOO_LONG, a longer name), those of read_bytes.
inline Status read_names(ColumnCursor& c, const DecodeContext& ctx, const std::vector<uint64_t>& lengths,
                         const char* too_long, std::vector<uint8_t>& names) {
  uint64_t total = 0;
  if (!sum_checked(lengths, ctx.max_name_bytes, total)) return make_error(ErrorCode::LimitExceeded, too_long, ctx.offset);
  return c.read_bytes(total, names);
}

Status decode_generation_bounds(const DecodeContext& ctx, std::vector<GenerationRange>& out);
Status decode_roots(const DecodeContext& ctx, RootTable& out);
Status decode_surviving(const DecodeContext& ctx, RangeTable& out);
Status decode_moved(const DecodeContext& ctx, RangeTable& out);
/// Appends objects and their references; out.reference_offsets must hold at least {0}.
Status decode_objects(const DecodeContext& ctx, ObjectTable& out);

/// Where one objects section's ctx.items objects go: the fixed-width columns at their final
/// place in the table (so sections can be decoded in parallel), the references appended to
/// `targets`. end_offsets[i] receives the number of references of objects 0..i of this
/// section (section-local; the caller adds the references of earlier sections).
/// `targets` must hold exactly the section's reference count (reference_total tells it).
struct ObjectSlots {
  uint64_t* addresses;
  uint32_t* type_ids;
  uint64_t* sizes;
  Generation* generations;
  uint64_t* end_offsets;
};
Status decode_objects_into(const DecodeContext& ctx, const ObjectSlots& slots, std::span<uint64_t> targets);

/// Return the number of references an objects section holds (the sum of its count column),
/// checked as decode_objects_into checks it, without decoding the other columns.
Result<uint64_t> reference_total(const DecodeContext& ctx);
Status decode_dependent_handles(const DecodeContext& ctx, DependentHandleTable& out);
/// §6.22: append ITEMS (address, FunctionID) rows, in file order.
Status decode_delegate_targets(const DecodeContext& ctx, std::vector<DelegateTarget>& out);
Status decode_types(const DecodeContext& ctx, NameTable& out);
Status decode_methods(const DecodeContext& ctx, NameTable& out);

}  // namespace gcsnap::format
