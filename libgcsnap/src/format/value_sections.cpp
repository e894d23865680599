#include "format/value_sections.hpp"

#include "format/byte_io.hpp"
#include "format/column_codec.hpp"
#include "format/format_constants.hpp"

namespace gcsnap::format {
namespace {

constexpr uint64_t kMaxStringLength = 0x7FFFFFFF;  // §6.23 column 2

template <typename Row, typename Get>
std::vector<uint64_t> column_of(std::span<const Row> rows, Get get) {
  std::vector<uint64_t> out;
  out.reserve(rows.size());
  for (const Row& r : rows) out.push_back(get(r));
  return out;
}

}  // namespace

void encode_string_values(std::span<const StringValue> rows, std::vector<uint8_t>& out) {
  encode_delta_column(column_of(rows, [](const StringValue& r) { return r.address; }), out);
  encode_varint_column(column_of(rows, [](const StringValue& r) -> uint64_t { return r.length; }), out);
  std::vector<uint8_t> hashes(rows.size() * 8);
  for (size_t i = 0; i < rows.size(); ++i) store_le64(hashes.data() + 8 * i, rows[i].hash);
  encode_bytes_column(hashes, out);
}

void encode_string_contents(std::span<const StringContent> rows, std::vector<uint8_t>& out) {
  encode_delta_column(column_of(rows, [](const StringContent& r) { return r.address; }), out);
  encode_varint_column(column_of(rows, [](const StringContent& r) -> uint64_t { return r.chars; }), out);
  encode_varint_column(column_of(rows, [](const StringContent& r) -> uint64_t { return r.text.size(); }), out);
  std::vector<uint8_t> text;
  for (const StringContent& r : rows) text.insert(text.end(), r.text.begin(), r.text.end());
  encode_bytes_column(text, out);
}

void encode_collection_values(std::span<const CollectionValue> rows, std::vector<uint8_t>& out) {
  encode_delta_column(column_of(rows, [](const CollectionValue& r) { return r.address; }), out);
  std::vector<uint8_t> kinds;
  for (const CollectionValue& r : rows) kinds.push_back(static_cast<uint8_t>(r.kind));
  encode_bytes_column(kinds, out);
  encode_varint_column(column_of(rows, [](const CollectionValue& r) { return r.count; }), out);
  encode_varint_column(column_of(rows, [](const CollectionValue& r) { return r.capacity; }), out);
  encode_varint_column(column_of(rows, [](const CollectionValue& r) { return r.limit; }), out);
}

void encode_value_capture(const ValueCapture& capture, std::vector<uint8_t>& out) {
  out.assign(kValueCaptureSize, 0);
  out[0] = capture.hash_kind;
  out[1] = capture.flags;
  store_le32(out.data() + 4, capture.capture_chars);
}

Status decode_string_values(const DecodeContext& ctx, std::vector<StringValue>& out) {
  ColumnCursor c(ctx.payload, ctx.offset);
  std::vector<uint64_t> addresses, lengths;
  std::vector<uint8_t> hashes;
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, addresses));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, lengths, kMaxStringLength));
  if (ctx.items > ctx.payload.size() / 8) return corrupt(ctx, "more string hashes than the section holds");
  GCSNAP_RETURN_IF_ERROR(c.read_bytes(ctx.items * 8, hashes));
  GCSNAP_RETURN_IF_ERROR(c.finish());
  out.reserve(out.size() + addresses.size());
  for (size_t i = 0; i < addresses.size(); ++i)
    out.push_back(StringValue{addresses[i], static_cast<uint32_t>(lengths[i]), load_le64(hashes.data() + 8 * i)});
  return {};
}

Status decode_string_contents(const DecodeContext& ctx, std::vector<StringContent>& out,
                              std::vector<uint64_t>& text_lengths, std::string& storage) {
  ColumnCursor c(ctx.payload, ctx.offset);
  std::vector<uint64_t> addresses, chars, lengths;
  std::vector<uint8_t> text;
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, addresses));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, chars, kMaxStringLength));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, lengths, ctx.max_name_bytes));
  uint64_t total = 0;
  for (uint64_t n : lengths) total += n;  // each ≤ 2^16, so no overflow below 2^47 rows
  GCSNAP_RETURN_IF_ERROR(c.read_bytes(total, text));
  GCSNAP_RETURN_IF_ERROR(c.finish());
  for (size_t i = 0; i < addresses.size(); ++i)
    out.push_back(StringContent{addresses[i], static_cast<uint32_t>(chars[i]), {}});
  text_lengths.insert(text_lengths.end(), lengths.begin(), lengths.end());
  storage.append(reinterpret_cast<const char*>(text.data()), text.size());
  return {};
}

Status decode_collection_values(const DecodeContext& ctx, std::vector<CollectionValue>& out) {
  ColumnCursor c(ctx.payload, ctx.offset);
  std::vector<uint64_t> addresses, counts, capacities, limits;
  std::vector<uint8_t> kinds;
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, addresses));
  GCSNAP_RETURN_IF_ERROR(c.read_bytes(ctx.items, kinds));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, counts));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, capacities));
  GCSNAP_RETURN_IF_ERROR(c.read_u64(ctx.items, limits));
  GCSNAP_RETURN_IF_ERROR(c.finish());
  for (size_t i = 0; i < addresses.size(); ++i) {
    if (kinds[i] == 0 || kinds[i] > kMaxCollectionKind) return corrupt(ctx, "collection kind out of range");
    out.push_back(CollectionValue{addresses[i], static_cast<CollectionKind>(kinds[i]), counts[i], capacities[i],
                                  limits[i]});
  }
  return {};
}

Status decode_value_capture(const DecodeContext& ctx, ValueCapture& out) {
  if (ctx.payload.size() < kValueCaptureSize) return corrupt(ctx, "value capture record shorter than 16 bytes");
  const uint8_t* p = ctx.payload.data();
  if (p[1] & ~value_flags::kAll) return corrupt(ctx, "unknown value capture flag");
  out = ValueCapture{p[0], p[1], load_le32(p + 4)};
  return {};
}

}  // namespace gcsnap::format
