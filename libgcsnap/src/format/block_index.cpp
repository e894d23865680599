#include "format/block_index.hpp"

#include "format/format_constants.hpp"
#include "format/section.hpp"

namespace gcsnap::format {

Status check_summary_order(const GcSummary& s, const GcSummary* previous, uint64_t first, uint64_t limit,
                           uint64_t offset) noexcept {
  const GcEntry& e = s.entry;
  const uint64_t min_block = 2ull * kSectionHeaderSize + kBlockStartSize + kGcSummarySize;
  if (e.block_offset < first || e.block_size < min_block || e.block_offset > limit ||
      e.block_size > limit - e.block_offset || s.section_count < 2)
    return make_error(ErrorCode::CorruptSection, "index entry points outside the blocks", offset);
  if (previous) {
    const GcEntry& p = previous->entry;
    if (e.block_offset < p.block_offset + p.block_size)
      return make_error(ErrorCode::CorruptSection, "index entries overlap", offset);
    if (e.info.gc_number <= p.info.gc_number)
      return make_error(ErrorCode::InconsistentData, "GC numbers do not increase", offset);
  }
  return {};
}

Result<std::vector<GcSummary>> read_block_index(std::span<const uint8_t> file, const Trailer& trailer,
                                          uint32_t header_size, const ReaderLimits& limits) {
  const uint64_t at = trailer.block_index_offset;
  auto header = decode_section_header(file.subspan(static_cast<size_t>(at)), at);
  if (!header) return header.error();
  const SectionHeader& h = *header;
  if (h.type != static_cast<uint16_t>(SectionType::Index))
    return make_error(ErrorCode::CorruptSection, "trailer does not point at an index", at);
  if (h.stored_size != trailer.block_index_size - kSectionHeaderSize)
    return make_error(ErrorCode::CorruptSection, "index size disagrees with the trailer", at);
  if (h.item_count > limits.max_blocks) return make_error(ErrorCode::LimitExceeded, "too many GC blocks", at);
  // The count is checked against the decoded size before anything is allocated.
  // Divide rather than multiply: item_count * 152 wraps for counts above 2^57.
  if (h.decoded_size % kGcSummarySize != 0 || h.decoded_size / kGcSummarySize != h.item_count)
    return make_error(ErrorCode::CorruptSection, "index size disagrees with its count", at);
  if (h.decoded_size > limits.max_section_decoded_bytes)
    return make_error(ErrorCode::LimitExceeded, "index larger than the section limit", at);
  std::vector<uint8_t> payload;
  auto stored = file.subspan(static_cast<size_t>(at + kSectionHeaderSize), static_cast<size_t>(h.stored_size));
  GCSNAP_RETURN_IF_ERROR(decode_payload(h, stored, at, payload));
  std::vector<GcSummary> out;
  out.reserve(static_cast<size_t>(h.item_count));
  for (uint64_t i = 0; i < h.item_count; ++i) {
    auto s = decode_gc_summary({payload.data() + i * kGcSummarySize, kGcSummarySize}, at);
    if (!s) return s.error();
    GCSNAP_RETURN_IF_ERROR(check_summary_order(*s, out.empty() ? nullptr : &out.back(), header_size, at, at));
    out.push_back(*s);
  }
  return out;
}

}  // namespace gcsnap::format
