#pragma once
// `gcsnap export --to heapsnapshot`: one GC's heap as a V8 heap snapshot (the JSON that Chrome
// DevTools' Memory panel and memlab read). docs/cli.md "export" describes the mapping.

#include <cstdint>

#include "loading/heap_load.hpp"
#include "output/output_file.hpp"

namespace gcsnap::cli {

/// What was written, for the summary line.
struct HeapSnapshotCounts {
  uint64_t nodes = 0;            ///< objects + synthetic nodes
  uint64_t synthetic_nodes = 0;  ///< "(GC roots)" and one per root kind present
  uint64_t edges = 0;            ///< references + dependent-handle edges + root edges
  uint64_t root_edges = 0;       ///< edges from the synthetic nodes
  uint64_t named_edges = 0;      ///< object edges named by a field, element or static
};

/// Write HEAP (loaded with fields) to OUT, streaming: memory beyond the loaded graph is the
/// strings table (type and field names) and OUT's buffer, whatever the object count.
/// Node ids: the node at position p of the nodes array has id 2p+1 (synthetic nodes first,
/// then the objects in address order).
HeapSnapshotCounts write_heapsnapshot(const LoadedHeap& heap, OutputFile& out);

}  // namespace gcsnap::cli
