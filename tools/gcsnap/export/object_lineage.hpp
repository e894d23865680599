#pragma once
// The identity of objects across the walks of one recording, for the objects table: an object
// is named by the first walk that saw it and its address there (first_gc, first_address),
// followed from walk to walk through the moved and surviving ranges of every GC in between
// (object_identity.hpp). Where the ranges have a gap, identity starts over.

#include <cstdint>
#include <span>
#include <vector>

#include "gcsnap/heap_graph.hpp"
#include "gcsnap/model.hpp"
#include "gcsnap/reader.hpp"

namespace gcsnap::cli {

class ObjectLineage {
 public:
  /// Name the objects of walk GC_INDEX of REC (ADDRESSES ascending, GENERATIONS parallel) from
  /// the walk given before (if any): first_gc()/first_address() then hold, per object, where it
  /// was first seen. The vectors are kept for the next walk. Errors of the identity analysis
  /// other than a gap are returned.
  [[nodiscard]] Status next_walk(const Recording& rec, size_t gc_pos, std::vector<uint64_t> addresses,
                                 std::vector<Generation> generations);
  /// Objects of the last walk.
  size_t size() const noexcept { return first_walk_.size(); }
  /// The GC number of the walk that first saw object V of the last walk.
  uint64_t first_gc(size_t v) const noexcept { return walk_gcs_[first_walk_[v]]; }
  /// Its address in that walk.
  uint64_t first_address(size_t v) const noexcept { return first_address_[v]; }
  /// The addresses of the objects of the last walk, ascending.
  std::span<const uint64_t> addresses() const noexcept { return addresses_; }
  /// Objects of the last walk followed from the walk before (0 when identity started over).
  uint64_t followed() const noexcept { return followed_; }

 private:
  bool has_previous_ = false;
  size_t previous_index_ = 0;
  std::vector<uint64_t> addresses_;  // the previous walk's, ascending
  std::vector<Generation> generations_;
  std::vector<uint64_t> walk_gcs_;     // the GC number of each walk given, in order
  std::vector<uint32_t> first_walk_;   // per object: its first walk, in walk_gcs_
  std::vector<uint64_t> first_address_;
  uint64_t followed_ = 0;
};

}  // namespace gcsnap::cli
