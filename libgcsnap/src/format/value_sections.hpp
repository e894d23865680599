#pragma once
// Columns of the value sections (format-spec.md §6.23-§6.26): encoding for the writer,
// bounds-checked decoding for the reader.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "format/chunk_decoder.hpp"
#include "gcsnap/status.hpp"
#include "gcsnap/values.hpp"

namespace gcsnap::format {

void encode_string_values(std::span<const StringValue> rows, std::vector<uint8_t>& out);
void encode_string_contents(std::span<const StringContent> rows, std::vector<uint8_t>& out);
void encode_collection_values(std::span<const CollectionValue> rows, std::vector<uint8_t>& out);
void encode_value_capture(const ValueCapture& capture, std::vector<uint8_t>& out);

Status decode_string_values(const DecodeContext& ctx, std::vector<StringValue>& out);
/// Texts are appended to STORAGE; each row's text is at its offset there, set by the caller.
Status decode_string_contents(const DecodeContext& ctx, std::vector<StringContent>& out,
                              std::vector<uint64_t>& text_lengths, std::string& storage);
Status decode_collection_values(const DecodeContext& ctx, std::vector<CollectionValue>& out);
Status decode_value_capture(const DecodeContext& ctx, ValueCapture& out);

}  // namespace gcsnap::format
