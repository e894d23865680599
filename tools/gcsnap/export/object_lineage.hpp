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
  /// was first seen. Errors of the identity analysis other than a gap are returned.
  [[nodiscard]] Status next_walk(const Recording& rec, size_t gc_pos, std::span<const uint64_t> addresses,
                                 std::span<const Generation> generations);
  std::span<const uint64_t> first_gc() const noexcept { return first_gc_; }
  std::span<const uint64_t> first_address() const noexcept { return first_address_; }
  /// Objects of the last walk followed from the walk before (0 when identity started over).
  uint64_t followed() const noexcept { return followed_; }

 private:
  bool has_previous_ = false;
  size_t previous_index_ = 0;
  std::vector<uint64_t> addresses_;  // the previous walk's, ascending
  std::vector<Generation> generations_;
  std::vector<uint64_t> first_gc_, first_address_;
  uint64_t followed_ = 0;
};

}  // namespace gcsnap::cli
