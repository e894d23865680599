#pragma once
// Encoding and decoding of the field-naming sections: type layouts (format-spec.md §6.12),
// reference slots (§6.13) and static slots (§6.14).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "format/chunk_data.hpp"
#include "format/chunk_decoder.hpp"
#include "gcsnap/reader.hpp"

namespace gcsnap::format {

/// §6.13: the slot codes of one objects chunk (object i owns counts[i] consecutive slots).
void encode_slot_column(std::span<const uint32_t> counts, std::span<const uint32_t> slots, ByteBuffer& out);
void encode_layouts(const LayoutsChunk& c, ByteBuffer& out);
void encode_static_slots(const StaticSlotsChunk& c, ByteBuffer& out);

/// Decode one slots section into dst[0..ctx.items): the references of objects whose reference
/// counts are `offsets` deltas (offsets[i+1] - offsets[i] references for object i, offsets
/// relative to the section) and whose sizes are `sizes`. Errors: CorruptSection.
Status decode_slots_into(const DecodeContext& ctx, std::span<const uint64_t> offsets,
                         std::span<const uint64_t> sizes, uint32_t* dst);
/// Append the layouts of one section to OUT (unsorted). Errors: CorruptSection, LimitExceeded.
Status decode_layouts(const DecodeContext& ctx, NameTable& out);
/// Append the statics of one section to out, their names to storage (views fixed up by the caller).
Status decode_static_slots(const DecodeContext& ctx, std::vector<uint64_t>& addresses,
                           std::vector<uint64_t>& name_lengths, std::string& storage);

}  // namespace gcsnap::format
