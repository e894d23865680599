#include "format/block_scan.hpp"

#include "format/byte_io.hpp"
#include "format/file_header.hpp"
#include "format/format_constants.hpp"
#include "format/block_index.hpp"
#include "format/section.hpp"

namespace gcsnap::format {
namespace {

bool is_type(const SectionHeader& h, SectionType t) { return h.type == static_cast<uint16_t>(t); }

struct OpenBlock {
  bool open = false;
  uint64_t offset = 0;
  uint32_t sections = 0;
  uint64_t gc_number = 0;
};

// Read a small raw record's payload (block start or end), checking its checksum.
Result<std::vector<uint8_t>> read_record(std::span<const uint8_t> file, const SectionHeader& h, uint64_t at,
                                         uint64_t expected_size) {
  if (h.codec != Codec::Raw || h.stored_size != expected_size)
    return make_error(ErrorCode::CorruptSection, "block record has the wrong size", at);
  std::vector<uint8_t> payload;
  auto stored = file.subspan(static_cast<size_t>(at + kSectionHeaderSize), static_cast<size_t>(h.stored_size));
  GCSNAP_RETURN_IF_ERROR(decode_payload(h, stored, at, payload));
  return payload;
}

ScanResult& stop(ScanResult& r, FileEnd end, const OpenBlock& block, uint64_t pos, Error e) {
  r.end = end;
  r.end_offset = block.open ? block.offset : pos;
  r.end_error = e;
  return r;
}

}  // namespace

Result<ScanResult> scan_blocks(std::span<const uint8_t> file, uint32_t header_size, const ReaderLimits& limits) {
  ScanResult r;
  OpenBlock block;
  const uint64_t size = file.size();
  uint64_t pos = header_size;
  while (pos < size) {
    const uint64_t left = size - pos;
    // A trailer after the (damaged or skipped) index ends the scan.
    if (!block.open && left == kTrailerSize && has_trailer_magic(file)) break;
    auto header = decode_section_header(file.subspan(static_cast<size_t>(pos)), pos);
    if (!header) {
      FileEnd end = header.error().code == ErrorCode::Truncated ? FileEnd::Truncated : FileEnd::Corrupt;
      return std::move(stop(r, end, block, pos, header.error()));
    }
    const SectionHeader& h = *header;
    if (h.stored_size > left - kSectionHeaderSize)  // left >= 40: the header decoded
      return std::move(stop(r, FileEnd::Truncated, block, pos,
                            make_error(ErrorCode::Truncated, "section extends past the end of the file", pos)));
    const uint64_t next = pos + kSectionHeaderSize + h.stored_size;
    if (is_type(h, SectionType::BlockStart)) {
      auto payload = read_record(file, h, pos, kBlockStartSize);
      if (!payload) return std::move(stop(r, FileEnd::Corrupt, block, pos, payload.error()));
      auto info = decode_gc_info(*payload, pos);
      if (!info) return std::move(stop(r, FileEnd::Corrupt, block, pos, info.error()));
      // A block start inside a block: the earlier block was abandoned (§8).
      block = {true, pos, 1, info->gc_number};
    } else if (is_type(h, SectionType::BlockEnd)) {
      if (!block.open)
        return std::move(stop(r, FileEnd::Corrupt, block, pos,
                              make_error(ErrorCode::CorruptSection, "block end without a block start", pos)));
      auto payload = read_record(file, h, pos, kGcSummarySize);
      if (!payload) return std::move(stop(r, FileEnd::Corrupt, block, pos, payload.error()));
      auto s = decode_gc_summary(*payload, pos);
      if (!s) return std::move(stop(r, FileEnd::Corrupt, block, pos, s.error()));
      const GcEntry& e = s->entry;
      Status order = check_summary_order(*s, r.blocks.empty() ? nullptr : &r.blocks.back(), header_size, size, pos);
      if (e.block_offset != block.offset || e.block_size != next - block.offset ||
          s->section_count != block.sections + 1 || e.info.gc_number != block.gc_number || !order.is_ok())
        return std::move(stop(r, FileEnd::Corrupt, block, pos,
                              make_error(ErrorCode::CorruptSection, "block end disagrees with its block", pos)));
      if (r.blocks.size() >= limits.max_blocks) return make_error(ErrorCode::LimitExceeded, "too many GC blocks", pos);
      r.blocks.push_back(*s);
      block = {};
    } else if (is_type(h, SectionType::BlockAbort)) {
      block = {};
    } else if (block.open) {
      ++block.sections;
    }
    // Anything else outside a block (an index, an unknown section) is skipped by its length.
    pos = next;
  }
  if (block.open)
    return std::move(stop(r, FileEnd::Truncated, block, pos,
                          make_error(ErrorCode::Truncated, "the last GC block has no block end", block.offset)));
  r.end = FileEnd::NoIndex;
  r.end_offset = pos;
  return r;
}

}  // namespace gcsnap::format
