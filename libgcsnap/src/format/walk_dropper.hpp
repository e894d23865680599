#pragma once
// Keeps a recording under its size cap by giving back the oldest heap walks' sections
// (format-spec.md §6.17). Used by the SectionSink's thread only; its figures are read by others.

#include <atomic>
#include <cstdint>
#include <deque>
#include <vector>

#include "format/section.hpp"
#include "format/section_table.hpp"  // is_droppable_section
#include "gcsnap/status.hpp"
#include "platform/file_io.hpp"

namespace gcsnap::format {

class WalkDropper {
 public:
  /// MAX_BYTES: the cap on the file's disk usage; 0 turns dropping off.
  explicit WalkDropper(uint64_t max_bytes) : max_bytes_(max_bytes), enabled_(max_bytes != 0) {}

  bool enabled() const noexcept { return enabled_; }
  void begin_block() { pending_.clear(); }
  /// A section written at OFFSET in the open block; kept when it is a walk's.
  void note_section(uint64_t offset, const SectionHeader& header);
  /// The open block ended complete: its walk's sections (if any) may now be dropped.
  void end_block();
  /// Drop the oldest walks until the disk usage plus UNFLUSHED bytes not yet written plus
  /// AHEAD (what is about to be written) fits under the cap, or no walk is left. Errors: IoError.
  Status make_room(platform::FileHandle fd, uint64_t unflushed, uint64_t ahead);

  uint64_t last_walk_bytes() const noexcept { return last_walk_bytes_.load(std::memory_order_relaxed); }
  uint64_t droppable_bytes() const noexcept { return droppable_bytes_.load(std::memory_order_relaxed); }
  uint64_t disk_bytes() const noexcept { return disk_bytes_.load(std::memory_order_relaxed); }
  uint64_t walks_dropped() const noexcept { return walks_dropped_.load(std::memory_order_relaxed); }
  uint64_t bytes_dropped() const noexcept { return bytes_dropped_.load(std::memory_order_relaxed); }
  /// The file system cannot free a range (no hole punching): nothing is dropped any more.
  bool unsupported() const noexcept { return unsupported_.load(std::memory_order_relaxed); }

 private:
  struct Kept {
    uint64_t offset = 0;
    SectionHeader header;
  };
  struct Walk {
    std::vector<Kept> sections;
    uint64_t bytes = 0;  ///< header and payload bytes of its sections
  };
  /// Errors: IoError. Sets unsupported_ (and returns ok) when holes cannot be punched.
  Status drop_walk(platform::FileHandle fd, const Walk& walk);

  uint64_t max_bytes_;
  bool enabled_;
  std::vector<Kept> pending_;
  std::deque<Walk> walks_;  ///< complete walks still in the file, oldest first
  std::atomic<uint64_t> last_walk_bytes_{0};
  std::atomic<uint64_t> droppable_bytes_{0};
  std::atomic<uint64_t> disk_bytes_{0};
  std::atomic<uint64_t> walks_dropped_{0};
  std::atomic<uint64_t> bytes_dropped_{0};
  std::atomic<bool> unsupported_{false};
};

}  // namespace gcsnap::format
