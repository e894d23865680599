#pragma once
// Turns chunks into sections and appends them to the file, keeping the block bookkeeping
// (offsets, section counts) and the index entries (format-spec.md §6, §7).
// Used by one thread at a time: the writer's own, or its background thread.

#include <atomic>
#include <cstdint>
#include <vector>

#include "format/chunk_data.hpp"
#include "format/gc_summary.hpp"
#include "format/walk_dropper.hpp"
#include "gcsnap/status.hpp"
#include "platform/file_io.hpp"

namespace gcsnap::format {

class SectionSink {
 public:
  SectionSink(platform::FileHandle fd, int level, bool sync_each_gc, bool recycle_pages = false,
              uint64_t max_file_bytes = 0)
      : fd_(fd), level_(level), sync_each_gc_(sync_each_gc), recycle_pages_(recycle_pages), dropper_(max_file_bytes) {}
  ~SectionSink();
  SectionSink(const SectionSink&) = delete;
  SectionSink& operator=(const SectionSink&) = delete;

  Status write_file_header(uint64_t required_features = 0);
  /// Go on after OFFSET bytes already in the file (its fd positioned there), whose complete
  /// blocks are INDEX: finish() then appends their index and trailer (finish_recording).
  void resume(uint64_t offset, std::vector<GcSummary> index);
  /// Encode and append one chunk. A BlockEnd record carries a GcSummary whose offsets and
  /// section count the sink fills in.
  Status consume(ChunkData& chunk);
  /// Push buffered bytes to the file.
  Status flush();
  /// Write the index and trailer, then close the file.
  Status finish();
  uint64_t bytes_written() const noexcept { return offset_.load(std::memory_order_relaxed); }
  /// The size cap's bookkeeping (format-spec.md §6.17); its figures may be read from any thread.
  const WalkDropper& dropper() const noexcept { return dropper_; }

 private:
  Status write_out(const uint8_t* p, size_t n);
  Status recycle_pages(uint64_t from);
  Status fail(Error e) noexcept;
  void note_sections(uint64_t start, size_t from);

  platform::FileHandle fd_;
  int level_;
  bool sync_each_gc_;
  bool recycle_pages_;
  uint64_t recycled_ = 0;             // file bytes before this were written back and dropped
  ByteBuffer buffer_;
  std::atomic<uint64_t> offset_{0};   // file offset of buffer_[0] + buffer_.size()
  uint64_t flushed_ = 0;              // bytes already in the file
  uint64_t block_offset_ = 0;
  uint32_t block_sections_ = 0;
  bool in_block_ = false;
  std::vector<GcSummary> index_;
  WalkDropper dropper_;
  Error error_{};
};

}  // namespace gcsnap::format
