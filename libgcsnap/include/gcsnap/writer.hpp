#pragma once
/// The streaming writer: one file per recording, one block per GC, appended as the app runs.
///
/// Call order per GC: begin_gc, then any number of add_* batches in any interleaving, then
/// end_gc. Columns are buffered up to WriterOptions::chunk_items and flushed as chunks
/// (format-spec.md §6), so memory stays bounded whatever the heap size. close() writes the
/// index and trailer; a writer that dies before close() leaves a file the reader recovers.
/// No method throws; after any I/O error the writer is failed and every call returns it.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gcsnap/field_layout.hpp"
#include "gcsnap/model.hpp"
#include "gcsnap/status.hpp"
#include "gcsnap/values.hpp"

namespace gcsnap {

struct WriterOptions {
  int compression_level = 1;          ///< zstd level; 1 is the measured sweet spot
  bool background_compression = true;///< compress and write on a thread of the writer's own
  uint64_t chunk_items = 1u << 20;    ///< values per column chunk before it is flushed
  uint64_t max_queued_bytes = 256ull << 20;  ///< raw bytes waiting for the background thread
  bool sync_each_gc = false;          ///< fdatasync after every GC block
  /// Write back what was written and give its page-cache pages back once it is 16 MiB behind
  /// (sync_file_range + POSIX_FADV_DONTNEED), so that the file's next bytes reuse them. Why:
  /// copying into fresh page-cache pages was ~20 % of the writer's CPU on the test VM, and a
  /// recording's pages would otherwise stay charged to the app's memory. Ignored on what is
  /// not a regular file. Errors of the write-back: IoError.
  bool recycle_written_pages = true;
  /// Keep the file's disk usage (POSIX st_blocks) under this many bytes by dropping the oldest
  /// heap walks' sections (format-spec.md §6.17): room for a walk is made before it is written,
  /// as large as the last walk, and after each GC. 0: no cap. Needs a file system that can punch
  /// holes (Linux fallocate; NTFS sparse files); elsewhere nothing is dropped
  /// (WriterStats::drop_unsupported).
  uint64_t max_file_bytes = 0;
  /// The file header's required feature bits (format-spec.md §3), e.g. kFeatureEventsSource.
  uint64_t required_features = 0;
};

/// Counters the writer keeps, for summaries.
struct WriterStats {
  uint64_t gcs_written = 0;    ///< GC blocks ended so far
  uint64_t bytes_written = 0;  ///< bytes in the file so far
  uint64_t raw_bytes = 0;      ///< uncompressed column bytes
  /// With WriterOptions::max_file_bytes (format-spec.md §6.17), as of the last GC the file holds:
  uint64_t disk_bytes = 0;       ///< the file's disk usage
  uint64_t droppable_bytes = 0;  ///< bytes of walks that could still be dropped
  uint64_t last_walk_bytes = 0;  ///< bytes of the last walk's droppable sections
  uint64_t walks_dropped = 0;    ///< walks given back so far
  uint64_t bytes_dropped = 0;    ///< their bytes
  bool drop_unsupported = false; ///< the file system cannot punch holes: nothing is dropped
};

class Writer {
 public:
  /// Create (truncate) FILE and write its header. Errors: IoError.
  static Result<std::unique_ptr<Writer>> create(const std::string& path, const WriterOptions& options = {});
  /// Take ownership of an open, writable file descriptor. Errors: IoError.
  static Result<std::unique_ptr<Writer>> from_fd(int fd, const WriterOptions& options = {});
  /// Take ownership of an open, writable file of the operating system: a descriptor on POSIX,
  /// a HANDLE on Windows. Errors: IoError.
  static Result<std::unique_ptr<Writer>> from_handle(intptr_t handle, const WriterOptions& options = {});

  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  /// Start a GC block. info.compacted and end_time_ns may be completed in end_gc.
  Status begin_gc(const GcInfo& info);
  Status add_generation_bounds(std::span<const GenerationRange> ranges);
  /// Append a batch of roots: four parallel columns of equal length. Errors: InvalidArgument.
  Status add_roots(std::span<const uint64_t> object_ids, std::span<const uint8_t> kinds,
                   std::span<const uint8_t> flags, std::span<const uint64_t> root_ids);
  Status add_surviving_ranges(std::span<const uint64_t> starts, std::span<const uint64_t> lengths);
  Status add_moved_ranges(std::span<const uint64_t> old_starts, std::span<const uint64_t> new_starts,
                          std::span<const uint64_t> lengths);
  /// Append objects in any order; reference_counts[i] targets of object i follow, in order,
  /// in references (whose length must equal the sum of reference_counts).
  Status add_objects(std::span<const uint64_t> addresses, std::span<const uint32_t> type_ids,
                     std::span<const uint64_t> sizes, std::span<const uint8_t> generations,
                     std::span<const uint32_t> reference_counts, std::span<const uint64_t> references);
  /// Same, with each reference's slot: its byte offset inside its object (kUnknownSlot when
  /// not known), parallel to references. A GC whose objects carry slots gets a reference-slots
  /// section per objects chunk (format-spec.md §6.13). Within one GC, either every add_objects
  /// call passes slots or none does. Errors: InvalidArgument (lengths, mixing, a slot past its
  /// object's size).
  Status add_objects(std::span<const uint64_t> addresses, std::span<const uint32_t> type_ids,
                     std::span<const uint64_t> sizes, std::span<const uint8_t> generations,
                     std::span<const uint32_t> reference_counts, std::span<const uint64_t> references,
                     std::span<const uint32_t> reference_slots);
  /// Declare types first seen in this GC. Ids must not repeat across the recording.
  Status add_types(std::span<const TypeRecord> types);
  Status add_methods(std::span<const MethodRecord> methods);
  /// Append dependent-handle pairs (format-spec.md §6.11, since 1.1): primaries[i] keeps
  /// secondaries[i] alive. Two parallel columns of equal length. Errors: InvalidArgument.
  Status add_dependent_handles(std::span<const uint64_t> primaries, std::span<const uint64_t> secondaries);
  /// Declare field layouts (format-spec.md §6.15): once per type id in a recording, for a type
  /// declared in this or an earlier GC. Errors: InvalidArgument.
  Status add_type_layouts(std::span<const TypeLayout> layouts);
  /// Record where the statics' references are stored at this GC (format-spec.md §6.14).
  Status add_static_slots(std::span<const StaticSlot> statics);
  /// Add the methods delegate objects of this GC's heap walk call (format-spec.md §6.22); their
  /// names go in through add_methods. Errors: as add_static_slots.
  Status add_delegate_targets(std::span<const DelegateTarget> delegates);
  /// Record strings as length and keyed hash (format-spec.md §6.23). Errors: InvalidArgument.
  Status add_string_values(std::span<const StringValue> strings);
  /// Record captured string contents (§6.24); only for recordings asked to capture them.
  /// Errors: InvalidArgument (a text longer than kMaxNameBytes).
  Status add_string_contents(std::span<const StringContent> contents);
  /// Record collections' count, capacity and limit (§6.25). Errors: InvalidArgument (kind).
  Status add_collection_values(std::span<const CollectionValue> collections);
  /// Say how this GC's values were recorded (§6.26). At most once per GC.
  Status add_value_capture(const ValueCapture& capture);
  /// Say that the snapshot policy skipped this GC's heap walk, and why (§6.15). At most once per GC.
  Status add_walk_skip(const WalkSkip& skip);
  /// Record what the process's memory was made of after this GC (§6.16). At most once per GC.
  Status add_memory_accounting(const MemoryAccounting& memory);
  /// Append one data section whose payload a section encoder of this library built (the
  /// allocation-sample sections, gcsnap/alloc_samples.hpp): TYPE must be a data section type
  /// of format-spec.md §4.2, ITEM_COUNT at most the payload's size. Errors: InvalidArgument.
  Status add_encoded_section(uint16_t type, uint64_t item_count, std::vector<uint8_t>&& payload);
  /// Record data the caller dropped at this GC (added to the block's drop section).
  Status add_drops(const DropCounts& drops);
  /// Finish the GC block: final info (compacted, end time) replaces begin_gc's.
  Status end_gc(const GcInfo& info);
  /// Abandon an open GC block: nothing of it becomes readable.
  Status abort_gc();

  /// Wait until everything queued so far is in the file.
  Status flush();
  /// Flush, write the index and trailer, close the file. Idempotent.
  Status close();

  WriterStats stats() const;
  bool is_failed() const noexcept;

  struct Impl;

 private:
  explicit Writer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace gcsnap
