#include "format/field_sections.hpp"

#include <cstring>
#include <memory>

#include "format/column_codec.hpp"
#include "format/name_table_fill.hpp"
#include "format/varint.hpp"

namespace gcsnap::format {

void encode_slot_column(std::span<const uint32_t> counts, std::span<const uint32_t> slots, ByteBuffer& out) {
  // §6.13: per object, code 0 = unknown, else 1 + zigzag(slot - prev - 8); prev restarts at 0.
  std::vector<uint64_t> codes;
  codes.reserve(slots.size());
  size_t r = 0;
  for (uint32_t count : counts) {
    uint64_t prev = 0;
    for (uint32_t k = 0; k < count; ++k, ++r) {
      const uint32_t slot = slots[r];
      if (slot == kUnknownSlot) {
        codes.push_back(0);
        continue;
      }
      codes.push_back(1 + zigzag_encode(uint64_t{slot} - prev - 8));
      prev = slot;
    }
  }
  encode_varint_column(std::span<const uint64_t>(codes), out);
}

void encode_layouts(const LayoutsChunk& c, ByteBuffer& out) {
  encode_delta_column(c.type_ids, out);
  encode_bytes_column(c.kinds, out);
  encode_varint_column(std::span<const uint64_t>(c.data_offsets), out);
  encode_varint_column(std::span<const uint64_t>(c.element_sizes), out);
  encode_varint_column(std::span<const uint64_t>(c.field_counts), out);
  encode_varint_column(std::span<const uint64_t>(c.field_offsets), out);
  encode_bytes_column(c.field_flags, out);
  encode_varint_column(std::span<const uint64_t>(c.name_lengths), out);
  encode_bytes_column(c.names, out);
}

void encode_static_slots(const StaticSlotsChunk& c, ByteBuffer& out) {
  encode_delta_column(c.addresses, out);
  encode_varint_column(std::span<const uint64_t>(c.name_lengths), out);
  encode_bytes_column(c.names, out);
}

Status decode_slots_into(const DecodeContext& ctx, std::span<const uint64_t> offsets, std::span<const uint64_t> sizes,
                         uint32_t* dst) {
  ColumnCursor c(ctx.payload, ctx.offset);
  std::vector<uint64_t> codes;
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, codes));
  GCSNAP_RETURN_IF_ERROR(c.finish());
  for (size_t i = 0; i + 1 < offsets.size(); ++i) {
    uint64_t prev = 0;
    for (uint64_t r = offsets[i]; r < offsets[i + 1]; ++r) {
      if (codes[r] == 0) {
        dst[r] = kUnknownSlot;
        continue;
      }
      const uint64_t slot = prev + 8 + zigzag_decode(codes[r] - 1);
      // A reference lies inside its object: 8 bytes at the slot, within the object's size.
      if (slot >= kUnknownSlot || slot > sizes[i] || sizes[i] - slot < 8) return corrupt(ctx, "reference slot outside its object");
      dst[r] = static_cast<uint32_t>(slot);
      prev = slot;
    }
  }
  return {};
}

Status decode_layouts(const DecodeContext& ctx, NameTable& out) {
  ColumnCursor c(ctx.payload, ctx.offset);
  std::vector<uint64_t> ids, data_offsets, element_sizes, counts, offsets, name_lengths;
  std::vector<uint8_t> kinds, flags, names;
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, ids, UINT32_MAX));
  GCSNAP_RETURN_IF_ERROR(c.read_bytes(ctx.items, kinds));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, data_offsets, UINT32_MAX));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, element_sizes, UINT32_MAX));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, counts, UINT32_MAX));
  uint64_t fields = 0;
  // Every field takes at least one byte in each of its columns, so the payload bounds the total.
  if (!sum_checked(counts, UINT32_MAX, fields) || fields > ctx.payload.size())
    return corrupt(ctx, "field counts exceed the section");
  GCSNAP_RETURN_IF_ERROR(c.read_u64(fields, offsets, UINT32_MAX));
  GCSNAP_RETURN_IF_ERROR(c.read_bytes(fields, flags));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(fields, name_lengths));
  GCSNAP_RETURN_IF_ERROR(read_names(c, ctx, name_lengths, "field name longer than the name limit", names));
  GCSNAP_RETURN_IF_ERROR(c.finish());

  auto text = std::make_unique<char[]>(names.size() + 1);
  if (!names.empty()) std::memcpy(text.get(), names.data(), names.size());
  auto records = std::make_unique<FieldRecord[]>(fields + 1);
  size_t f = 0, np = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] == 0) return corrupt(ctx, "layout of type id 0");
    if (kinds[i] > 2) return corrupt(ctx, "layout kind out of range");
    const auto kind = static_cast<LayoutKind>(kinds[i]);
    if (kind != LayoutKind::Object && element_sizes[i] == 0) return corrupt(ctx, "array layout with element size 0");
    TypeLayout layout{static_cast<uint32_t>(ids[i]), kind, static_cast<uint32_t>(data_offsets[i]),
                      static_cast<uint32_t>(element_sizes[i]), {records.get() + f, static_cast<size_t>(counts[i])}};
    for (uint64_t k = 0; k < counts[i]; ++k, ++f) {
      if (k > 0 && offsets[f] < offsets[f - 1]) return corrupt(ctx, "field offsets decrease");
      if (flags[f] & ~field_flags::kAll) return corrupt(ctx, "unknown field flag");
      records[f] = FieldRecord{static_cast<uint32_t>(offsets[f]), flags[f],
                               {text.get() + np, static_cast<size_t>(name_lengths[f])}};
      np += static_cast<size_t>(name_lengths[f]);
    }
    NameTableFill::layouts(out).push_back(layout);
  }
  NameTableFill::keep(out, std::move(text));
  NameTableFill::keep(out, std::move(records));
  return {};
}

Status decode_static_slots(const DecodeContext& ctx, std::vector<uint64_t>& addresses,
                           std::vector<uint64_t>& name_lengths, std::string& storage) {
  ColumnCursor c(ctx.payload, ctx.offset);
  std::vector<uint64_t> ids, lengths;
  std::vector<uint8_t> names;
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, ids));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, lengths));
  GCSNAP_RETURN_IF_ERROR(read_names(c, ctx, lengths, "static name longer than the name limit", names));
  GCSNAP_RETURN_IF_ERROR(c.finish());
  addresses.insert(addresses.end(), ids.begin(), ids.end());
  name_lengths.insert(name_lengths.end(), lengths.begin(), lengths.end());
  storage.append(reinterpret_cast<const char*>(names.data()), names.size());
  return {};
}

}  // namespace gcsnap::format
