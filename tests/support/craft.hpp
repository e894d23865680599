#pragma once
// A small file crafter for hostile-input tests: builds recordings section by section with
// any header values (checksums recomputed, per format-spec.md §3, §4, §6, §7), so a test can
// say exactly which lie the file tells.
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "format/byte_io.hpp"
#include "format/column_codec.hpp"
#include "format/format_constants.hpp"
#include "format/gc_summary.hpp"
#include "format/section.hpp"
#include "gcsnap/reader.hpp"

namespace gcsnap::craft {

using format::SectionHeader;
using format::SectionType;

class File {
 public:
  File() {
    bytes.resize(format::kFileHeaderSize);
    std::memcpy(bytes.data(), format::kFileMagic, 8);
    format::store_le16(&bytes[8], format::kMajorVersion);
    format::store_le16(&bytes[10], 0);
    format::store_le32(&bytes[12], format::kFileHeaderSize);
    format::store_le64(&bytes[32], format::checksum64({bytes.data(), 32}));
  }

  /// Append a section with every header field given (checksums computed unless told).
  void section_raw(SectionHeader h, std::span<const uint8_t> stored, bool fix_payload_checksum = true) {
    if (fix_payload_checksum) h.payload_checksum = format::checksum64(stored);
    uint8_t head[format::kSectionHeaderSize];
    format::encode_section_header(h, head);
    bytes.insert(bytes.end(), head, head + sizeof head);
    bytes.insert(bytes.end(), stored.begin(), stored.end());
    ++block_sections_;
    count(h.type, h.item_count);
  }
  /// Append a well-formed section (raw, or zstd when compress is set and it helps).
  void section(SectionType type, uint64_t items, std::span<const uint8_t> payload, bool compress = false) {
    std::vector<uint8_t> out;
    format::build_section(static_cast<uint16_t>(type), items, payload, compress ? 1 : format::kNoCompression, out);
    bytes.insert(bytes.end(), out.begin(), out.end());
    ++block_sections_;
    count(static_cast<uint16_t>(type), items);
  }

  void begin_block(uint64_t gc_number, SnapshotTrigger trigger = SnapshotTrigger::Always) {
    summary_ = {};
    summary_.entry.info.gc_number = gc_number;
    summary_.entry.info.trigger = trigger;
    summary_.entry.info.generations_collected = 1;
    summary_.entry.block_offset = bytes.size();
    block_sections_ = 0;
    uint8_t info[format::kBlockStartSize];
    format::encode_gc_info(summary_.entry.info, info);
    section(SectionType::BlockStart, 1, info);
  }
  /// The summary the block end will carry; counts are summed from the sections so far and
  /// may be changed before end_block.
  format::GcSummary& summary() { return summary_; }
  void end_block(std::optional<format::GcSummary> override_summary = std::nullopt) {
    format::GcSummary s = override_summary ? *override_summary : summary_;
    s.section_count = block_sections_ + 1;
    s.entry.block_size = bytes.size() + format::kSectionHeaderSize + format::kGcSummarySize - s.entry.block_offset;
    if (override_summary) {  // keep the caller's lies but the block's real position
      s.entry.block_offset = summary_.entry.block_offset;
      s.entry.block_size = bytes.size() + format::kSectionHeaderSize + format::kGcSummarySize - s.entry.block_offset;
    }
    uint8_t rec[format::kGcSummarySize];
    format::encode_gc_summary(s, rec);
    section(SectionType::BlockEnd, 1, rec);
    blocks.push_back(s);
  }

  /// Append the index (of `entries`, default: every block ended) and the trailer.
  void finish(std::optional<std::vector<format::GcSummary>> entries = std::nullopt,
              std::optional<uint64_t> index_item_count = std::nullopt) {
    const auto& list = entries ? *entries : blocks;
    std::vector<uint8_t> payload(list.size() * format::kGcSummarySize);
    for (size_t i = 0; i < list.size(); ++i) format::encode_gc_summary(list[i], &payload[i * format::kGcSummarySize]);
    const uint64_t at = bytes.size();
    SectionHeader h;
    h.type = static_cast<uint16_t>(SectionType::Index);
    h.item_count = index_item_count ? *index_item_count : list.size();
    h.stored_size = h.decoded_size = payload.size();
    section_raw(h, payload);
    uint8_t tr[format::kTrailerSize];
    format::store_le64(tr, at);
    format::store_le64(tr + 8, format::kSectionHeaderSize + payload.size());
    format::store_le64(tr + 16, format::checksum64({tr, 16}));
    std::memcpy(tr + 24, format::kTrailerMagic, 8);
    bytes.insert(bytes.end(), tr, tr + sizeof tr);
  }

  std::span<const std::byte> view() const { return {reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()}; }

  std::vector<uint8_t> bytes;
  std::vector<format::GcSummary> blocks;

 private:
  void count(uint16_t type, uint64_t items) {
    GcEntry& e = summary_.entry;
    switch (static_cast<SectionType>(type)) {
      case SectionType::GenerationBounds: e.generation_range_count += items; break;
      case SectionType::Roots: e.root_count += items; break;
      case SectionType::SurvivingRanges: e.surviving_range_count += items; break;
      case SectionType::MovedRanges: e.moved_range_count += items; break;
      case SectionType::Objects: e.object_count += items; break;
      case SectionType::Types: e.new_type_count += items; break;
      case SectionType::Methods: e.new_method_count += items; break;
      default: break;
    }
  }
  format::GcSummary summary_;
  uint32_t block_sections_ = 0;
};

struct Obj {
  uint64_t address;
  uint32_t type_id;
  uint64_t size;
  uint8_t generation;
  std::vector<uint64_t> refs;
};

/// Payload of an objects section (§6.6), in the given order.
inline std::vector<uint8_t> objects_payload(const std::vector<Obj>& objs) {
  std::vector<uint64_t> addr, types, sizes, counts64, targets;
  std::vector<uint32_t> counts;
  std::vector<uint8_t> gens;
  for (const auto& o : objs) {
    addr.push_back(o.address);
    types.push_back(o.type_id);
    sizes.push_back(o.size);
    gens.push_back(o.generation);
    counts.push_back(static_cast<uint32_t>(o.refs.size()));
    counts64.push_back(o.refs.size());
    targets.insert(targets.end(), o.refs.begin(), o.refs.end());
  }
  std::vector<uint8_t> out;
  format::encode_delta_column(addr, out);
  format::encode_varint_column(std::span<const uint64_t>(types), out);
  format::encode_varint_column(std::span<const uint64_t>(sizes), out);
  format::encode_bytes_column(gens, out);
  format::encode_varint_column(std::span<const uint64_t>(counts64), out);
  format::encode_edge_column(addr, counts, targets, out);
  return out;
}

inline uint64_t reference_total(const std::vector<Obj>& objs) {
  uint64_t n = 0;
  for (const auto& o : objs) n += o.refs.size();
  return n;
}

struct Type {
  uint64_t id;
  std::string name;
  std::string module;
};

/// Payload of a types section (§6.7); name_length_override replaces the name length column.
inline std::vector<uint8_t> types_payload(const std::vector<Type>& types,
                                          std::optional<std::vector<uint64_t>> name_lengths = std::nullopt) {
  std::vector<uint64_t> ids, class_ids, nl, ml;
  std::vector<uint8_t> names, modules;
  for (const auto& t : types) {
    ids.push_back(t.id);
    class_ids.push_back(0x1000 + t.id);
    nl.push_back(t.name.size());
    ml.push_back(t.module.size());
    names.insert(names.end(), t.name.begin(), t.name.end());
    modules.insert(modules.end(), t.module.begin(), t.module.end());
  }
  if (name_lengths) nl = *name_lengths;
  std::vector<uint8_t> out;
  format::encode_delta_column(ids, out);
  format::encode_varint_column(std::span<const uint64_t>(class_ids), out);
  format::encode_varint_column(std::span<const uint64_t>(nl), out);
  format::encode_varint_column(std::span<const uint64_t>(ml), out);
  format::encode_bytes_column(names, out);
  format::encode_bytes_column(modules, out);
  return out;
}

inline std::vector<uint8_t> methods_payload(const std::vector<std::pair<uint64_t, std::string>>& methods) {
  std::vector<uint64_t> ids, nl;
  std::vector<uint8_t> names;
  for (const auto& [id, name] : methods) {
    ids.push_back(id);
    nl.push_back(name.size());
    names.insert(names.end(), name.begin(), name.end());
  }
  std::vector<uint8_t> out;
  format::encode_delta_column(ids, out);
  format::encode_varint_column(std::span<const uint64_t>(nl), out);
  format::encode_bytes_column(names, out);
  return out;
}

inline std::vector<uint8_t> roots_payload(const std::vector<uint64_t>& ids) {
  std::vector<uint8_t> kinds(ids.size(), 1), flags(ids.size(), 0);
  std::vector<uint8_t> out;
  format::encode_delta_column(ids, out);
  format::encode_bytes_column(kinds, out);
  format::encode_bytes_column(flags, out);
  format::encode_delta_column(ids, out);
  return out;
}

inline std::vector<uint8_t> ranges_payload(const std::vector<uint64_t>& starts, const std::vector<uint64_t>& lengths) {
  std::vector<uint8_t> out;
  format::encode_delta_column(starts, out);
  format::encode_varint_column(std::span<const uint64_t>(lengths), out);
  return out;
}

}  // namespace gcsnap::craft
