#pragma once
// The identity of objects across the walks of one recording, for the objects table: an object
// is named by the first walk that saw it and its address there (first_gc, first_address),
// followed from walk to walk through the moved and surviving ranges of every GC in between
// (object_identity.hpp). Where the ranges have a gap, identity starts over.
//
// What is kept from walk to walk lives in spill files beside the export, not in memory: the
// last walk's objects (address, generation, first walk, first address) in node order, and while
// one walk is matched to the next, the previous walk's survivors followed a chunk at a time and
// written as sorted runs, then merged. Memory stays a chunk and one buffer per run
// (docs/fleet.md "Memory").

#include <cstdint>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gcsnap/model.hpp"
#include "gcsnap/reader.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap::cli {

/// A temporary file in a directory, removed when destroyed. Throws CliError naming it.
class SpillFile {
 public:
  explicit SpillFile(const std::string& dir);
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;
  void write(const void* data, size_t bytes);
  /// Read BYTES at OFFSET (after flush()).
  void read_at(uint64_t offset, void* data, size_t bytes);
  void flush();

 private:
  std::string path_;
  std::fstream f_;
};

class ObjectLineage {
 public:
  /// Keep the spill files in DIR (the export's output directory).
  explicit ObjectLineage(std::string dir);
  ~ObjectLineage();

  /// Pulls the next object of a walk in ascending address order; false after the last.
  using ObjectSource = std::function<bool(uint64_t& address, Generation& generation)>;

  /// Name the objects of walk GC_POS of REC (given by OBJECTS) from the walk given before (if
  /// any); read them back in node order with origins(). Errors of the identity analysis other
  /// than a gap are returned; spill file errors throw CliError.
  [[nodiscard]] Status next_walk(const Recording& rec, size_t gc_pos, const ObjectSource& objects);
  /// Objects of the last walk.
  uint64_t size() const noexcept { return size_; }
  /// Objects of the last walk followed from the walk before (0 when identity started over).
  uint64_t followed() const noexcept { return followed_; }

  struct Origin {
    uint64_t first_gc = 0;       // the GC number of the walk that first saw the object
    uint64_t first_address = 0;  // its address in that walk
  };
  /// Reads the last walk's origins in node order, a buffer at a time.
  class Origins {
   public:
    explicit Origins(const ObjectLineage& l) : l_(l) {}
    Origin next();

   private:
    const ObjectLineage& l_;
    std::vector<std::byte> buffer_;
    size_t pos_ = 0, count_ = 0;
    uint64_t read_ = 0;
  };
  Origins origins() const { return Origins(*this); }

 private:
  struct Kept;
  struct Moved;
  class RunMerge;
  Status follow_previous(const Recording& rec, size_t gc_pos, SpillFile& runs, std::vector<uint64_t>& run_ends,
                         bool& in_order, bool& gap);

  std::string dir_;
  size_t chunk_objects_;  // objects followed per run
  bool has_previous_ = false;
  size_t previous_index_ = 0;
  std::unique_ptr<SpillFile> kept_;  // the last walk's objects, node order
  uint64_t size_ = 0;
  std::vector<uint64_t> walk_gcs_;  // the GC number of each walk given, in order
  uint64_t followed_ = 0;
};

}  // namespace gcsnap::cli
