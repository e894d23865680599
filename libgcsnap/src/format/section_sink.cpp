#include "format/section_sink.hpp"

#include <cerrno>
#include <new>

#include "format/byte_io.hpp"
#include "format/section.hpp"

namespace gcsnap::format {
namespace {
constexpr size_t kFlushThreshold = 4u << 20;
// How far behind the end of the file pages are given back: their write-back, started when they
// were written, has had time to finish, so waiting for it rarely waits.
constexpr uint64_t kRecycleLag = 16u << 20;
constexpr uint64_t kPageBytes = 4096;
uint16_t type_of(SectionType t) { return static_cast<uint16_t>(t); }
}  // namespace

SectionSink::~SectionSink() {
  if (fd_ != platform::kNoFile) platform::close_file(fd_);
}

Status SectionSink::fail(Error e) noexcept {
  if (error_.code == ErrorCode::Ok) error_ = e;
  return error_;
}

Status SectionSink::write_out(const uint8_t* p, size_t n) {
  while (n > 0) {
    const int64_t w = platform::write_some(fd_, p, n);
    if (w < 0) {
      Error e = make_error(ErrorCode::IoError, "write failed", flushed_);
      e.sys_errno = errno;
      return fail(e);
    }
    p += w;
    n -= static_cast<size_t>(w);
    flushed_ += static_cast<uint64_t>(w);
  }
  return {};
}

Status SectionSink::flush() {
  if (error_.code != ErrorCode::Ok) return error_;
  const uint64_t from = flushed_;
  Status s = write_out(buffer_.data(), buffer_.size());
  buffer_.clear();
  if (s && recycle_pages_ && flushed_ > from) s = recycle_pages(from);
  return s;
}

// Start the write-back of [from, flushed_), and drop the pages of what lies more than
// kRecycleLag behind once written back: the next writes then reuse recently freed pages
// instead of fresh ones (WriterOptions::recycle_written_pages).
Status SectionSink::recycle_pages(uint64_t from) {
  auto failed = [&](const char* what) -> Status {
    if (errno == ESPIPE || errno == EINVAL || errno == ENOSYS || errno == EBADF) {
      recycle_pages_ = false;  // a pipe, a socket, a file system without it: plain writes only
      return {};
    }
    Error e = make_error(ErrorCode::IoError, what, from);
    e.sys_errno = errno;
    return fail(e);
  };
  if (!platform::start_write_back(fd_, from, flushed_ - from)) return failed("write-back failed");
  if (flushed_ < recycled_ + kRecycleLag + kFlushThreshold) return {};
  const uint64_t end = (flushed_ - kRecycleLag) / kPageBytes * kPageBytes;
  if (!platform::drop_written_pages(fd_, recycled_, end - recycled_)) return failed("write-back failed");
  recycled_ = end;
  return {};
}

Status SectionSink::write_file_header(uint64_t required_features) {
  // §3: magic, major, minor, header size, required and optional feature bits, checksum.
  uint8_t h[kFileHeaderSize] = {};
  for (int i = 0; i < 8; ++i) h[i] = kFileMagic[i];
  store_le16(h + 8, kMajorVersion);
  store_le16(h + 10, kMinorVersion);
  store_le32(h + 12, kFileHeaderSize);
  store_le64(h + 16, required_features);
  store_le64(h + 24, 0);
  store_le64(h + 32, checksum64({h, 32}));
  buffer_.append(h, kFileHeaderSize);
  offset_ = kFileHeaderSize;
  return flush();
}

void SectionSink::resume(uint64_t offset, std::vector<GcSummary> index) {
  buffer_.clear();
  offset_.store(offset, std::memory_order_relaxed);
  flushed_ = offset;
  recycled_ = offset;  // the pages of what was there before are not ours to drop
  in_block_ = false;
  index_ = std::move(index);
}

Status SectionSink::consume(ChunkData& chunk) {
  if (error_.code != ErrorCode::Ok) return error_;
  try {
    auto* raw = std::get_if<RawRecord>(&chunk);
    const uint64_t start = offset_.load(std::memory_order_relaxed);
    if (raw && raw->type == type_of(SectionType::BlockStart)) {
      in_block_ = true;
      block_offset_ = start;
      block_sections_ = 0;
      dropper_.begin_block();
      // §6.17: room for a walk is made before it is written, as large as the last one was.
      auto info = decode_gc_info(raw->payload, 0);
      if (dropper_.enabled() && info && info->trigger != SnapshotTrigger::None) {
        Status room = dropper_.make_room(fd_, buffer_.size(), dropper_.last_walk_bytes());
        if (!room) return fail(room.error());
      }
    }
    bool block_end = raw && raw->type == type_of(SectionType::BlockEnd);
    if (block_end) {
      // §6.9: the block end names its own block: offset, size, section count.
      auto summary = decode_gc_summary(raw->payload, 0);
      if (!summary || !in_block_) return fail(make_error(ErrorCode::InvalidState, "block end outside a block"));
      GcSummary s = *summary;
      s.section_count = block_sections_ + 1;
      s.entry.block_offset = block_offset_;
      s.entry.block_size = start + kSectionHeaderSize + kGcSummarySize - block_offset_;
      encode_gc_summary(s, raw->payload.data());
      index_.push_back(s);
    }
    size_t before = buffer_.size();
    block_sections_ += encode_chunk_section(chunk, level_, buffer_);
    offset_.store(start + (buffer_.size() - before), std::memory_order_relaxed);
    if (dropper_.enabled() && in_block_ && !raw) note_sections(start, before);
    if (raw && (block_end || raw->type == type_of(SectionType::BlockAbort))) {
      in_block_ = false;
      GCSNAP_RETURN_IF_ERROR(flush());
      if (block_end && sync_each_gc_ && !platform::sync_file(fd_)) {
        Error e = make_error(ErrorCode::IoError, "fdatasync failed", flushed_);
        e.sys_errno = errno;
        return fail(e);
      }
      if (block_end) {
        dropper_.end_block();
        Status room = dropper_.make_room(fd_, 0, 0);
        if (!room) return fail(room.error());
      }
    } else if (buffer_.size() >= kFlushThreshold) {
      GCSNAP_RETURN_IF_ERROR(flush());
    }
    return {};
  } catch (const std::bad_alloc&) {
    return fail(make_error(ErrorCode::OutOfMemory, "encoding a section"));
  }
}

// Tell the dropper where the sections just encoded into buffer_[from, end) lie in the file.
void SectionSink::note_sections(uint64_t start, size_t from) {
  for (size_t at = from; at + kSectionHeaderSize <= buffer_.size();) {
    auto h = decode_section_header({buffer_.data() + at, kSectionHeaderSize}, 0);
    if (!h) return;  // cannot happen: the sink just wrote it
    dropper_.note_section(start + (at - from), *h);
    at += kSectionHeaderSize + static_cast<size_t>(h->stored_size);
  }
}

Status SectionSink::finish() {
  if (error_.code != ErrorCode::Ok) return error_;
  try {
    // §7.1: the index is one section of GC summaries; §7.2: the trailer points at it.
    RawRecord index;
    index.type = type_of(SectionType::Index);
    index.item_count = index_.size();
    index.payload.resize(index_.size() * kGcSummarySize);
    for (size_t i = 0; i < index_.size(); ++i) encode_gc_summary(index_[i], index.payload.data() + i * kGcSummarySize);
    const uint64_t block_index_offset = offset_.load(std::memory_order_relaxed);
    ChunkData chunk{std::move(index)};
    size_t before = buffer_.size();
    encode_chunk_section(chunk, level_, buffer_);
    const uint64_t block_index_size = buffer_.size() - before;
    uint8_t t[kTrailerSize] = {};
    store_le64(t, block_index_offset);
    store_le64(t + 8, block_index_size);
    store_le64(t + 16, checksum64({t, 16}));
    for (int i = 0; i < 8; ++i) t[24 + i] = kTrailerMagic[i];
    buffer_.append(t, kTrailerSize);
    offset_.store(block_index_offset + block_index_size + kTrailerSize, std::memory_order_relaxed);
  } catch (const std::bad_alloc&) {
    return fail(make_error(ErrorCode::OutOfMemory, "encoding the index"));
  }
  GCSNAP_RETURN_IF_ERROR(flush());
  if (sync_each_gc_ && !platform::sync_file(fd_)) {
    // The trailer may not be on disk: say so, and still close the descriptor.
    Error e = make_error(ErrorCode::IoError, "fdatasync failed", flushed_);
    e.sys_errno = errno;
    platform::close_file(fd_);
    fd_ = platform::kNoFile;
    return fail(e);
  }
  const platform::FileHandle fd = fd_;
  fd_ = platform::kNoFile;
  if (!platform::close_file(fd)) {
    Error e = make_error(ErrorCode::IoError, "close failed", flushed_);
    e.sys_errno = errno;
    return fail(e);
  }
  return {};
}

}  // namespace gcsnap::format
