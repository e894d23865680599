// Recording: reading the value sections of a GC (format-spec.md §6.23-§6.26).
#include <algorithm>
#include <new>

#include "format/reader_impl.hpp"
#include "format/value_sections.hpp"

namespace gcsnap {

using format::DecodeContext;
using format::SectionType;

namespace {

template <typename T, typename Fn>
Result<T> guarded_values(Fn&& fn) noexcept {
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "decoding values");
  }
}

// Decode every section of TYPE in block I through FN, in file order.
template <typename Fn>
Status decode_each(const Recording::Impl& impl, size_t i, SectionType type, Fn&& fn) {
  GCSNAP_RETURN_IF_ERROR(impl.check_index(i));
  auto refs = impl.sections_of(i, type);
  if (!refs) return refs.error();
  std::vector<uint8_t> payload;
  for (const auto& r : *refs) {
    GCSNAP_RETURN_IF_ERROR(format::load_section(impl.data, r, impl.limits, payload));
    GCSNAP_RETURN_IF_ERROR(fn(DecodeContext{payload, r.header.item_count, r.offset, impl.limits.max_name_bytes}));
  }
  return {};
}

// §6.23-§6.25: one row per address in a block.
template <typename Row>
Status sort_unique(std::vector<Row>& rows, const char* what, uint64_t block_offset) {
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.address < b.address; });
  for (size_t k = 1; k < rows.size(); ++k)
    if (rows[k].address == rows[k - 1].address) return make_error(ErrorCode::InconsistentData, what, block_offset);
  return {};
}

}  // namespace

Result<std::vector<StringValue>> Recording::read_string_values(size_t gc_pos) const {
  return guarded_values<std::vector<StringValue>>([&]() -> Result<std::vector<StringValue>> {
    std::vector<StringValue> out;
    GCSNAP_RETURN_IF_ERROR(decode_each(*impl_, gc_pos, SectionType::StringValues,
                                       [&](const DecodeContext& ctx) { return format::decode_string_values(ctx, out); }));
    GCSNAP_RETURN_IF_ERROR(sort_unique(out, "two string values at one address", impl_->gcs[gc_pos].block_offset));
    return out;
  });
}

Result<std::vector<StringContent>> Recording::read_string_contents(size_t gc_pos, std::string& storage) const {
  return guarded_values<std::vector<StringContent>>([&]() -> Result<std::vector<StringContent>> {
    std::vector<StringContent> out;
    std::vector<uint64_t> lengths;
    storage.clear();
    GCSNAP_RETURN_IF_ERROR(decode_each(*impl_, gc_pos, SectionType::StringContents, [&](const DecodeContext& ctx) {
      return format::decode_string_contents(ctx, out, lengths, storage);
    }));
    size_t pos = 0;
    for (size_t k = 0; k < out.size(); ++k) {
      out[k].text = std::string_view(storage).substr(pos, static_cast<size_t>(lengths[k]));
      pos += static_cast<size_t>(lengths[k]);
    }
    GCSNAP_RETURN_IF_ERROR(sort_unique(out, "two string contents at one address", impl_->gcs[gc_pos].block_offset));
    return out;
  });
}

Result<std::vector<CollectionValue>> Recording::read_collection_values(size_t gc_pos) const {
  return guarded_values<std::vector<CollectionValue>>([&]() -> Result<std::vector<CollectionValue>> {
    std::vector<CollectionValue> out;
    GCSNAP_RETURN_IF_ERROR(decode_each(*impl_, gc_pos, SectionType::CollectionValues, [&](const DecodeContext& ctx) {
      return format::decode_collection_values(ctx, out);
    }));
    GCSNAP_RETURN_IF_ERROR(sort_unique(out, "two collection values at one address", impl_->gcs[gc_pos].block_offset));
    return out;
  });
}

Result<std::optional<ValueCapture>> Recording::read_value_capture(size_t gc_pos) const {
  return guarded_values<std::optional<ValueCapture>>([&]() -> Result<std::optional<ValueCapture>> {
    std::optional<ValueCapture> out;
    auto one = [&](const DecodeContext& ctx) -> Status {
      if (out) return make_error(ErrorCode::InconsistentData, "two value capture records in one block", ctx.offset);
      ValueCapture capture;
      Status decoded = format::decode_value_capture(ctx, capture);
      if (decoded) out = capture;
      return decoded;
    };
    GCSNAP_RETURN_IF_ERROR(decode_each(*impl_, gc_pos, SectionType::ValueCapture, one));
    return out;
  });
}

std::string_view collection_kind_name(CollectionKind kind) noexcept {
  switch (kind) {
    case CollectionKind::List: return "List";
    case CollectionKind::Dictionary: return "Dictionary";
    case CollectionKind::HashSet: return "HashSet";
    case CollectionKind::Queue: return "Queue";
    case CollectionKind::Stack: return "Stack";
    case CollectionKind::ConcurrentDictionary: return "ConcurrentDictionary";
    case CollectionKind::MemoryCache: return "MemoryCache";
    case CollectionKind::EmptyArray: return "array";
  }
  return "?";
}

}  // namespace gcsnap
