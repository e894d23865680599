#include "format/block_walk.hpp"

#include <algorithm>
#include <cstring>
#include <memory>

#include "format/xxh3_wide.hpp"

#include "format/format_constants.hpp"
#include "format/section_table.hpp"
#include "platform/memory_map.hpp"
#include "format/walk_dropper.hpp"

namespace gcsnap::format {
namespace {

constexpr uint8_t kFlagMustUnderstand = 0x01;  // §4: unknown type with this flag cannot be skipped

}  // namespace

namespace {

Status check_section_header(const SectionRef& ref, const ReaderLimits& limits) {
  const SectionHeader& h = ref.header;
  if (h.type == static_cast<uint16_t>(SectionType::Dropped))  // §6.17: its payload means nothing
    return make_error(ErrorCode::WalkDropped, "the section was dropped", ref.offset);
  if (h.decoded_size > limits.max_section_decoded_bytes)
    return make_error(ErrorCode::LimitExceeded, "section larger than the section limit", ref.offset);
  // Every item takes at least one byte, so a count above the decoded size is a lie.
  if (h.item_count > h.decoded_size)
    return make_error(ErrorCode::CorruptSection, "section count larger than its data", ref.offset);
  return {};
}

std::span<const uint8_t> stored_payload(std::span<const uint8_t> file, const SectionRef& ref) {
  return file.subspan(static_cast<size_t>(ref.offset + kSectionHeaderSize), static_cast<size_t>(ref.header.stored_size));
}

}  // namespace

Status load_section(std::span<const uint8_t> file, const SectionRef& ref, const ReaderLimits& limits,
                    std::vector<uint8_t>& out) {
  GCSNAP_RETURN_IF_ERROR(check_section_header(ref, limits));
  return decode_payload(ref.header, stored_payload(file, ref), ref.offset, out);
}

Status check_section(std::span<const uint8_t> file, const SectionRef& ref, const ReaderLimits& limits) {
  GCSNAP_RETURN_IF_ERROR(check_section_header(ref, limits));
  return check_payload_frame(ref.header, stored_payload(file, ref), ref.offset);
}

Result<std::vector<SectionRef>> walk_block(std::span<const uint8_t> file, const GcSummary& summary,
                                           const ReaderLimits& limits) {
  const GcEntry& e = summary.entry;
  if (e.block_offset > file.size() || e.block_size > file.size() - e.block_offset)
    return make_error(ErrorCode::Truncated, "block extends past the end of the file", e.block_offset);
  const uint64_t end = e.block_offset + e.block_size;
  std::vector<SectionRef> out;
  uint64_t pos = e.block_offset;
  uint64_t decoded_total = 0;
  uint32_t count = 0;
  std::vector<uint8_t> record;
  bool ended = false;
  while (pos < end && !ended) {
    auto header = decode_section_header(file.subspan(static_cast<size_t>(pos), static_cast<size_t>(end - pos)), pos);
    if (!header) return header.error();
    const SectionHeader& h = *header;
    if (h.stored_size > end - pos - kSectionHeaderSize)
      return make_error(ErrorCode::CorruptSection, "section extends past its block", pos);
    SectionRef ref{h, pos};
    ++count;
    const bool first = pos == e.block_offset;
    if (first != (h.type == static_cast<uint16_t>(SectionType::BlockStart)))
      return make_error(ErrorCode::CorruptSection, "block does not start with a block start", pos);
    if (first || h.type == static_cast<uint16_t>(SectionType::BlockEnd)) {
      GCSNAP_RETURN_IF_ERROR(load_section(file, ref, limits, record));
      if (first) {
        auto info = decode_gc_info(record, pos);
        if (!info) return info.error();
        if (record.size() != kBlockStartSize || info->gc_number != e.info.gc_number)
          return make_error(ErrorCode::InconsistentData, "block start names another GC", pos);
      } else {
        uint8_t expected[kGcSummarySize];
        encode_gc_summary(summary, expected);
        if (record.size() != kGcSummarySize || std::memcmp(record.data(), expected, kGcSummarySize) != 0)
          return make_error(ErrorCode::InconsistentData, "block end disagrees with the index", pos);
        ended = true;
      }
    } else if (h.type == static_cast<uint16_t>(SectionType::Dropped)) {
      // §6.17: never decoded, so it counts against no decoded-size limit.
      if (h.codec != Codec::Raw || h.flags != 0 || !is_droppable_section(h.item_count))
        return make_error(ErrorCode::CorruptSection, "dropped section with a codec, flags or an original type it cannot have", pos);
      out.push_back(ref);
    } else if (is_known_data_section(h.type)) {
      decoded_total += h.decoded_size;
      if (h.decoded_size > limits.max_gc_decoded_bytes || decoded_total > limits.max_gc_decoded_bytes)
        return make_error(ErrorCode::LimitExceeded, "GC larger than the per-GC limit", pos);
      out.push_back(ref);
    } else if (h.flags & kFlagMustUnderstand) {
      return make_error(ErrorCode::UnknownRequiredFeature, "section type this reader does not know", pos);
    }
    pos += kSectionHeaderSize + h.stored_size;
  }
  if (!ended || pos != end || count != summary.section_count)
    return make_error(ErrorCode::CorruptSection, "block does not end where its summary says", pos);
  return out;
}

namespace {

using HashState = std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)>;

HashState new_hash_state() {
  HashState state(XXH3_createState(), &XXH3_freeState);
  if (state && XXH3_64bits_reset(state.get()) != XXH_OK) state.reset();
  return state;
}

// The whole pages of FILE's bytes [FROM, TO) given back.
void release_range(std::span<const uint8_t> file, uint64_t from, uint64_t to) noexcept {
  const uintptr_t page = platform::page_size();
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(file.data() + from) + page - 1) & ~(page - 1);
  const uintptr_t end = reinterpret_cast<uintptr_t>(file.data() + to) & ~(page - 1);
  if (begin < end) platform::release_file_pages(reinterpret_cast<void*>(begin), end - begin);
}

// FILE's bytes [FROM, TO) into BLOCK and, given, SECTION: a stretch at a time, hashed into both
// while it is in cache; with RELEASE, what lies between sections given back a slice at a time.
void hash_range(std::span<const uint8_t> file, uint64_t from, uint64_t to, XXH3_state_t* block, XXH3_state_t* section,
                bool release) noexcept {
  constexpr uint64_t kStretch = uint64_t{256} << 10, kSlice = uint64_t{8} << 20;
  for (uint64_t slice = from; slice < to; slice += kSlice) {
    const uint64_t slice_end = std::min(to, slice + kSlice);
    for (uint64_t at = slice; at < slice_end; at += kStretch) {
      const size_t n = static_cast<size_t>(std::min(slice_end, at + kStretch) - at);
      xxh3_update(block, file.data() + at, n);
      if (section) xxh3_update(section, file.data() + at, n);
    }
    if (release && !section) release_range(file, slice, slice_end);
  }
}

}  // namespace

Status hash_block_checking(std::span<const uint8_t> file, const GcEntry& e, std::span<const SectionRef> walked,
                           uint16_t type, const ReaderLimits& limits, bool release, uint64_t& block_hash) {
  if (e.block_offset > file.size() || e.block_size > file.size() - e.block_offset)
    return make_error(ErrorCode::Truncated, "block extends past the end of the file", e.block_offset);
  HashState block = new_hash_state(), section = new_hash_state();
  if (!block || !section) return make_error(ErrorCode::OutOfMemory, "hashing a GC's block", e.block_offset);
  uint64_t pos = e.block_offset;
  for (const SectionRef& ref : walked) {
    if (ref.header.type != type) continue;
    // walk_block found each section within the block, in order.
    const uint64_t payload = ref.offset + kSectionHeaderSize, end = payload + ref.header.stored_size;
    hash_range(file, pos, payload, block.get(), nullptr, release);
    (void)XXH3_64bits_reset(section.get());
    hash_range(file, payload, end, block.get(), section.get(), release);
    GCSNAP_RETURN_IF_ERROR(check_section_header(ref, limits));
    GCSNAP_RETURN_IF_ERROR(check_hashed_payload_frame(ref.header, stored_payload(file, ref), ref.offset,
                                                      XXH3_64bits_digest(section.get())));
    if (release) release_section_pages(file, ref);
    pos = end;
  }
  hash_range(file, pos, e.block_offset + e.block_size, block.get(), nullptr, release);
  block_hash = XXH3_64bits_digest(block.get());
  return {};
}

void release_section_pages(std::span<const uint8_t> file, const SectionRef& ref) noexcept {
  release_range(file, ref.offset, ref.offset + kSectionHeaderSize + ref.header.stored_size);
}

}  // namespace gcsnap::format
