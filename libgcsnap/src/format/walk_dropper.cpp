#include "format/walk_dropper.hpp"

#include <cerrno>

namespace gcsnap::format {
namespace {
uint16_t type_of(SectionType t) { return static_cast<uint16_t>(t); }

Error io_error(const char* what, uint64_t at) {
  Error e = make_error(ErrorCode::IoError, what, at);
  e.sys_errno = errno;
  return e;
}
}  // namespace

void WalkDropper::note_section(uint64_t offset, const SectionHeader& header) {
  if (enabled_ && is_droppable_section(header.type)) pending_.push_back({offset, header});
}

void WalkDropper::end_block() {
  if (!enabled_ || pending_.empty()) return;
  Walk walk;
  walk.sections = std::move(pending_);
  pending_.clear();
  for (const Kept& k : walk.sections) walk.bytes += kSectionHeaderSize + k.header.stored_size;
  last_walk_bytes_.store(walk.bytes, std::memory_order_relaxed);
  droppable_bytes_.fetch_add(walk.bytes, std::memory_order_relaxed);
  walks_.push_back(std::move(walk));
}

Status WalkDropper::make_room(platform::FileHandle fd, uint64_t unflushed, uint64_t ahead) {
  // Once dropping is found unsupported the disk usage is still read: the shim's walk_fits
  // skips the walks that would not fit from it.
  if (max_bytes_ == 0) return {};
  for (;;) {
    uint64_t disk = 0;
    if (!platform::allocated_bytes(fd, disk)) return io_error("cannot read the recording's disk usage", 0);
    disk_bytes_.store(disk, std::memory_order_relaxed);
    if (!enabled_ || walks_.empty() || disk + unflushed + ahead <= max_bytes_) return {};
    GCSNAP_RETURN_IF_ERROR(drop_walk(fd, walks_.front()));
    if (!enabled_) return {};
    droppable_bytes_.fetch_sub(walks_.front().bytes, std::memory_order_relaxed);
    walks_.pop_front();
  }
}

// §6.17: first the header becomes a dropped section's (one 40-byte write: a reader sees either
// the old section or the dropped one), then the payload's blocks are given back. A crash in
// between leaves a dropped section whose payload still holds bytes, which readers ignore.
Status WalkDropper::drop_walk(platform::FileHandle fd, const Walk& walk) {
  for (const Kept& k : walk.sections) {
    SectionHeader dropped;
    dropped.type = type_of(SectionType::Dropped);
    dropped.codec = Codec::Raw;
    dropped.item_count = k.header.type;
    dropped.stored_size = k.header.stored_size;
    dropped.decoded_size = k.header.stored_size;
    dropped.payload_checksum = 0;
    uint8_t bytes[kSectionHeaderSize];
    encode_section_header(dropped, bytes);
    if (platform::write_at(fd, bytes, kSectionHeaderSize, k.offset) != kSectionHeaderSize)
      return io_error("cannot rewrite a dropped section's header", k.offset);
    if (k.header.stored_size == 0 || platform::punch_hole(fd, k.offset + kSectionHeaderSize, k.header.stored_size))
      continue;
    const int punch_errno = errno;
    // No holes on this file system: put the section back as it was and stop dropping.
    encode_section_header(k.header, bytes);
    if (platform::write_at(fd, bytes, kSectionHeaderSize, k.offset) != kSectionHeaderSize)
      return io_error("cannot restore a section's header", k.offset);
    if (punch_errno != EOPNOTSUPP && punch_errno != ENOSYS && punch_errno != EINVAL) {
      errno = punch_errno;
      return io_error("cannot free a dropped section's disk blocks", k.offset);
    }
    enabled_ = false;
    unsupported_.store(true, std::memory_order_relaxed);
    return {};
  }
  walks_dropped_.fetch_add(1, std::memory_order_relaxed);
  bytes_dropped_.fetch_add(walk.bytes, std::memory_order_relaxed);
  return {};
}

}  // namespace gcsnap::format
