#pragma once
// Decoding one section payload into the reader's tables (format-spec.md §6). Each function
// appends ITEMS entries and errors with CorruptSection when the columns disagree.

#include <cstdint>
#include <span>
#include <vector>

#include "gcsnap/reader.hpp"

namespace gcsnap::format {

struct DecodeContext {
  std::span<const uint8_t> payload;
  uint64_t items = 0;
  uint64_t offset = 0;  ///< file offset of the section, for errors
  uint64_t max_name_bytes = 1u << 16;
};

Status decode_generation_bounds(const DecodeContext& ctx, std::vector<GenerationRange>& out);
Status decode_roots(const DecodeContext& ctx, RootTable& out);
Status decode_surviving(const DecodeContext& ctx, RangeTable& out);
Status decode_moved(const DecodeContext& ctx, RangeTable& out);
/// Appends objects and their references; out.reference_offsets must hold at least {0}.
Status decode_objects(const DecodeContext& ctx, ObjectTable& out);
Status decode_types(const DecodeContext& ctx, NameTable& out);
Status decode_methods(const DecodeContext& ctx, NameTable& out);

}  // namespace gcsnap::format
