#include "format/gc_summary.hpp"

#include "format/byte_io.hpp"
#include "format/format_constants.hpp"

namespace gcsnap::format {

bool is_valid_gc_info(const GcInfo& info) noexcept {
  return (info.generations_collected & ~0x1Fu) == 0 && static_cast<uint8_t>(info.reason) <= 1 &&
         static_cast<uint8_t>(info.trigger) <= 3;
}

void encode_gc_info(const GcInfo& info, uint8_t* out) noexcept {
  store_le64(out, info.gc_number);
  store_le64(out + 8, info.start_time_ns);
  store_le64(out + 16, info.end_time_ns);
  store_le32(out + 24, info.runtime_gc_count);
  out[28] = info.generations_collected;
  out[29] = static_cast<uint8_t>(info.reason);
  out[30] = info.compacted ? 1 : 0;
  out[31] = static_cast<uint8_t>(info.trigger);
}

void encode_gc_summary(const GcSummary& s, uint8_t* out) noexcept {
  const GcEntry& e = s.entry;
  encode_gc_info(e.info, out);
  const uint64_t counts[] = {e.root_count,      e.surviving_range_count, e.moved_range_count,
                             e.object_count,    e.reference_count,       e.new_type_count,
                             e.new_method_count, e.generation_range_count, e.drops.roots,
                             e.drops.ranges,    e.drops.objects,         e.drops.references};
  for (size_t i = 0; i < 12; ++i) store_le64(out + 32 + 8 * i, counts[i]);
  store_le32(out + 128, e.drops.reasons);
  store_le32(out + 132, s.section_count);
  store_le64(out + 136, e.block_offset);
  store_le64(out + 144, e.block_size);
}

Result<GcInfo> decode_gc_info(std::span<const uint8_t> b, uint64_t file_offset) noexcept {
  if (b.size() < kBlockStartSize) return make_error(ErrorCode::CorruptSection, "GC info too short", file_offset);
  const uint8_t* p = b.data();
  if ((p[28] & ~kGenerationsCollectedMask) != 0 || p[29] > kMaxGcReason || p[30] > 1 || p[31] > kMaxSnapshotTrigger)
    return make_error(ErrorCode::CorruptSection, "GC info field out of range", file_offset);
  GcInfo info;
  info.gc_number = load_le64(p);
  info.start_time_ns = load_le64(p + 8);
  info.end_time_ns = load_le64(p + 16);
  info.runtime_gc_count = load_le32(p + 24);
  info.generations_collected = p[28];
  info.reason = static_cast<GcReason>(p[29]);
  info.compacted = p[30] != 0;
  info.trigger = static_cast<SnapshotTrigger>(p[31]);
  return info;
}

Result<GcSummary> decode_gc_summary(std::span<const uint8_t> b, uint64_t file_offset) noexcept {
  if (b.size() != kGcSummarySize) return make_error(ErrorCode::CorruptSection, "GC summary size", file_offset);
  auto info = decode_gc_info(b, file_offset);
  if (!info) return info.error();
  GcSummary s;
  GcEntry& e = s.entry;
  e.info = *info;
  const uint8_t* p = b.data() + 32;
  uint64_t* counts[] = {&e.root_count,      &e.surviving_range_count, &e.moved_range_count,
                        &e.object_count,    &e.reference_count,       &e.new_type_count,
                        &e.new_method_count, &e.generation_range_count, &e.drops.roots,
                        &e.drops.ranges,    &e.drops.objects,         &e.drops.references};
  for (size_t i = 0; i < 12; ++i) *counts[i] = load_le64(p + 8 * i);
  e.drops.reasons = load_le32(b.data() + 128);
  s.section_count = load_le32(b.data() + 132);
  e.block_offset = load_le64(b.data() + 136);
  e.block_size = load_le64(b.data() + 144);
  return s;
}

}  // namespace gcsnap::format
