#pragma once
/// How old the objects of a heap walk are, in GCs: each object's address is followed backward
/// through the moved and surviving ranges of the GCs before, until a GC it did not live
/// through (it was allocated after that GC) or the start of what was recorded.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "gcsnap/model.hpp"
#include "gcsnap/reader.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap {

/// The age of one object of a heap walk.
struct ObjectAge {
  /// Earlier GCs it lived through: 0 when it was allocated after the GC before the walk's.
  uint64_t gcs = 0;
  /// The count stopped at the first recorded GC, or at a GC whose ranges are missing: the
  /// object is at least this old.
  bool at_least = false;
};

/// Return the age of each object of GC gc_pos's heap walk (addresses as the walk records
/// them, i.e. after that GC, in any order; generations parallel to them or empty). Going back
/// one GC g: an address in a moved range's destination came from its source; one in a
/// surviving range, or in a generation g did not condemn (by the bounds recorded at g), was
/// there before g; anything else was allocated after the GC before g. Frozen (NonGcHeap)
/// objects are as old as the recording. Reads the ranges and bounds of each earlier GC once,
/// stopping when every object's age is known.
/// Errors: NotFound (gc_pos past the recording); those of Recording::read_ranges and read_generation_bounds;
/// InconsistentData (overlapping ranges); OutOfMemory.
Result<std::vector<ObjectAge>> trace_object_ages(const Recording& recording, size_t gc_pos,
                                                 std::span<const uint64_t> addresses,
                                                 std::span<const Generation> generations = {});

}  // namespace gcsnap
