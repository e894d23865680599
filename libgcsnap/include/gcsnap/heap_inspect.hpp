// Inspect one heap walk as `gcsnap inspect` does: the access layer's side of inspect_heap,
// which reads the walk's values and finalizer roots that InspectInput only points at.
#pragma once

#include <cstddef>

#include "gcsnap/gc_heap.hpp"
#include "gcsnap/inspect.hpp"
#include "gcsnap/reader.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap {

/// Run inspect_heap on GC_POS of REC with HEAP (opened with GcHeapOptions::reverse and fields)
/// and its DOMINATORS: the walk's string and collection values and captured contents, the
/// objects the finalizer queue holds (from HEAP's roots) and HEAP's delegate targets.
/// Errors: those of the value sections' readers and of inspect_heap.
[[nodiscard]] Result<InspectReport> inspect_gc(const Recording& rec, size_t gc_pos, const GcHeap& heap,
                                               const DominatorTree& dominators);

}  // namespace gcsnap
