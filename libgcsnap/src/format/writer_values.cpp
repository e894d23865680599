// Writer: the value sections (format-spec.md §6.23-§6.26). Each add_* call writes its rows as
// whole chunk sections of at most chunk_items rows; the value sections are not buffered
// across calls, the shim hands them over once per walk.
#include <algorithm>
#include <new>

#include "format/format_constants.hpp"
#include "format/value_sections.hpp"
#include "format/writer_impl.hpp"

namespace gcsnap {
namespace {

using format::RawRecord;
using format::SectionType;

template <typename Row, typename Encode>
Status emit_rows(Writer::Impl& w, SectionType type, std::span<const Row> rows, Encode&& encode) {
  try {
    const size_t cap = static_cast<size_t>(std::max<uint64_t>(1, w.chunk_items()));
    for (size_t begin = 0; begin < rows.size(); begin += cap) {
      const auto piece = rows.subspan(begin, std::min(cap, rows.size() - begin));
      RawRecord r;
      r.type = static_cast<uint16_t>(type);
      r.item_count = piece.size();
      r.compress = true;
      encode(piece, r.payload);
      GCSNAP_RETURN_IF_ERROR(w.emit(std::move(r)));
    }
    return {};
  } catch (const std::bad_alloc&) {
    return w.fail(make_error(ErrorCode::OutOfMemory, "encoding values"));
  }
}

}  // namespace

Status Writer::add_string_values(std::span<const StringValue> strings) {
  Impl& w = *impl_;
  GCSNAP_RETURN_IF_ERROR(w.check_in_gc());
  for (const StringValue& s : strings)
    if (s.length > 0x7FFFFFFFu) return make_error(ErrorCode::InvalidArgument, "string length above 2^31 - 1");
  return emit_rows(w, SectionType::StringValues, strings, format::encode_string_values);
}

Status Writer::add_string_contents(std::span<const StringContent> contents) {
  Impl& w = *impl_;
  GCSNAP_RETURN_IF_ERROR(w.check_in_gc());
  for (const StringContent& s : contents)
    if (s.text.size() > kMaxNameBytes || s.chars > 0x7FFFFFFFu)
      return make_error(ErrorCode::InvalidArgument, "captured string text too long");
  return emit_rows(w, SectionType::StringContents, contents, format::encode_string_contents);
}

Status Writer::add_collection_values(std::span<const CollectionValue> collections) {
  Impl& w = *impl_;
  GCSNAP_RETURN_IF_ERROR(w.check_in_gc());
  for (const CollectionValue& c : collections) {
    const auto kind = static_cast<uint8_t>(c.kind);
    if (kind == 0 || kind > kMaxCollectionKind) return make_error(ErrorCode::InvalidArgument, "collection kind out of range");
  }
  return emit_rows(w, SectionType::CollectionValues, collections, format::encode_collection_values);
}

Status Writer::add_value_capture(const ValueCapture& capture) {
  Impl& w = *impl_;
  GCSNAP_RETURN_IF_ERROR(w.check_in_gc());
  if (capture.flags & ~value_flags::kAll) return make_error(ErrorCode::InvalidArgument, "unknown value capture flag");
  try {
    RawRecord r;
    r.type = static_cast<uint16_t>(SectionType::ValueCapture);
    r.item_count = 1;
    format::encode_value_capture(capture, r.payload);
    return w.emit(std::move(r));
  } catch (const std::bad_alloc&) {
    return w.fail(make_error(ErrorCode::OutOfMemory, "add_value_capture"));
  }
}

}  // namespace gcsnap
