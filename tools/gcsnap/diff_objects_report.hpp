#pragma once
// The object-level tables of `gcsnap diff`: new / dead / surviving objects between two GCs of
// one recording, the largest groups of new objects by type, one retention path each. The
// diff itself is the library's (gcsnap/walk_diff.hpp); this file only makes rows.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gc_select.hpp"
#include "gcsnap/heap_diff.hpp"
#include "gcsnap/reader.hpp"
#include "gcsnap/walk_diff.hpp"
#include "output.hpp"

namespace gcsnap::cli {

/// One side of a diff: the selected GC and its heap walk.
struct DiffSide {
  SelectedGc selected;  ///< B of a same-recording diff has no recording of its own
  HeapWalk walk;
};

struct ObjectLevel {
  /// Roots matched through the ranges (A's objects followed to B, or B's to A when A is the
  /// later GC); empty when the object-level diff could not be computed.
  std::optional<RootDiff> roots;
  Table totals = empty_totals();
  Table groups = empty_groups();
  Table dead_groups = empty_dead_groups();
  Table more_paths = empty_more_paths();  ///< the 2nd..Nth path shapes of each group
  static Table empty_totals();
  static Table empty_groups();
  static Table empty_dead_groups();
  static Table empty_more_paths();
};

/// The object-level tables of a and b (same recording, either order) from the library's
/// diff_walks (options: top groups, path shapes, type filter). Problems that only limit the
/// answer (a gap in the ranges) become notes; read errors throw.
ObjectLevel diff_object_level(const Recording& recording, const DiffSide& a, const DiffSide& b,
                              const WalkDiffOptions& options, std::vector<std::string>& notes);

}  // namespace gcsnap::cli
