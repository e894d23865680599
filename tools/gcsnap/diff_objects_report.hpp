#pragma once
// The object-level part of `gcsnap diff`: new / dead / surviving objects between two GCs of
// one recording, the largest groups of new objects by type, one retention path each.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gc_select.hpp"
#include "gcsnap/heap_diff.hpp"
#include "gcsnap/reader.hpp"
#include "output.hpp"

namespace gcsnap::cli {

/// One side of a diff: the selected GC and its heap walk.
struct DiffSide {
  SelectedGc selected;  ///< B of a same-recording diff has no recording of its own
  ObjectTable objects;
  RootTable roots;
  NameTable names;
  DependentHandleTable dependent;
  bool has_dependent = false;  ///< the GC's block has a dependent-handles section (§6.11)
  uint64_t gc_number = 0;
};

struct ObjectLevel {
  /// Roots matched through the ranges (A's objects followed to B, or B's to A when A is the
  /// later GC); empty when the object-level diff could not be computed.
  std::optional<RootDiff> roots;
  Table totals = empty_totals();
  Table groups = empty_groups();
  Table dead_groups = empty_dead_groups();
  static Table empty_totals();
  static Table empty_groups();
  static Table empty_dead_groups();
};

/// Compute the object-level diff of a and b (same recording, either order: the earlier GC's
/// objects are followed forward to the later one, and the result is told from A to B).
/// Problems that only limit the answer (a gap in the ranges) become notes; read errors throw.
ObjectLevel diff_object_level(const Recording& recording, const DiffSide& a, const DiffSide& b, size_t top,
                              std::vector<std::string>& notes);

}  // namespace gcsnap::cli
