#pragma once
/// Whole diffs of two heap walks, as `gcsnap diff` (and any report) tells them: one GC's walk
/// read in one call, roots of two recordings matched by what they hold, and the object-level
/// diff of two GCs of one recording (new / dead / surviving objects, the largest groups, one
/// retention path per group of new objects). The parts are in heap_diff.hpp, object_diff.hpp,
/// object_identity.hpp and group_paths.hpp; this header puts them together once.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "gcsnap/group_paths.hpp"
#include "gcsnap/heap_diff.hpp"
#include "gcsnap/heap_graph.hpp"
#include "gcsnap/object_diff.hpp"
#include "gcsnap/reader.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap {

/// One GC's heap walk: what the analyses of a whole walk read.
struct HeapWalk {
  size_t gc_pos = 0;   ///< position in Recording::gcs()
  uint64_t gc_number = 0;
  ObjectTable objects;
  RootTable roots;
  NameTable names;
  DependentHandleTable dependent;  ///< empty, and has_dependent false, for 1.0 recordings
  bool has_dependent = false;      ///< the GC's block has a dependent-handles section (§6.11)

  /// Return the sum of the objects' sizes.
  uint64_t total_bytes() const noexcept;
};

/// One side of an object-level diff as the diff reads it: the object columns in address order
/// and the GC's roots and names, from a decoded HeapWalk (HeapWalk::view) or from a GC's mapped
/// analysis index (analysis_index.hpp), so that a diff of indexed GCs decodes no objects.
/// Every pointer and span must outlive the diff.
struct WalkView {
  size_t gc_pos = 0;  ///< position in Recording::gcs()
  uint64_t gc_number = 0;
  std::span<const uint64_t> addresses;  ///< sorted, one per object
  std::span<const uint64_t> sizes;
  std::span<const uint32_t> type_ids;
  std::span<const Generation> generations;
  const RootTable* roots = nullptr;
  const NameTable* names = nullptr;
  /// The GC's graph when one exists already (an index's, with its forward CSR); null: built
  /// from `walk` when the diff needs it (for the paths of the later GC's new objects).
  std::shared_ptr<const HeapGraph> graph;
  const HeapWalk* walk = nullptr;
  /// Optional, with `graph`: its full shortest-path tree over strong roots (an index's), so the
  /// diff runs no search for the paths of the new objects.
  std::shared_ptr<const ShortestPathTree> paths;
  /// Optional, with `paths` over a graph read without its forward CSR (IndexedPathTree): tells
  /// how each hop FROM -> TO of the new objects' paths holds its object, in place of the graph.
  std::function<Result<EdgeKind>(NodeIndex from, NodeIndex to)> hop_kind;
  /// Optional, on the earlier GC of a diff: the vectors `addresses` and `generations` view. The
  /// diff moves them into its object mapper instead of copying them (9 B per object) and frees
  /// them with it: after the diff the view's addresses and generations must not be read.
  std::vector<uint64_t>* movable_addresses = nullptr;
  std::vector<Generation>* movable_generations = nullptr;
  /// Optional, on B when it is the later GC, with `addresses` and `sizes` empty (`type_ids`
  /// whole): its addresses and sizes, which the diff reads once, a block at a time (an
  /// analysis index's pieces), instead of holding them (16 B per object).
  ColumnBlocks* blocks = nullptr;
  /// Optional, on A when it is the earlier GC, with `sizes` and `type_ids` empty: where the
  /// diff reads them at the few rows it needs (12 B per object not held).
  ColumnLookup* lookup = nullptr;
  /// Optional, on A when B is the GC right after it, with `addresses`, `sizes`, `type_ids` and
  /// `generations` empty: all four, which the diff reads once, a block at a time, following
  /// each object through that GC as it comes (21 B per object not held).
  ObjectBlocks* objects = nullptr;

  /// Return the number of objects (of the columns, of `blocks` or of `objects`).
  size_t object_count() const noexcept {
    return blocks ? blocks->size() : objects ? objects->size() : addresses.size();
  }
};

/// Return WALK's view (no graph: the diff builds one from WALK if it needs it).
WalkView view_of(const HeapWalk& walk) noexcept;

/// diff_roots_by_content of two views (decoded or indexed). Errors: InvalidArgument (a view
/// without roots or names, or with `blocks` or `lookup`), OutOfMemory.
Result<RootDiff> diff_roots_by_content(const WalkView& a, const WalkView& b);

/// Read GC gc_pos's objects, roots, names and dependent handles.
/// Errors: those of Recording::read_objects (NoHeapWalk ...), read_roots, read_names,
/// read_dependent_handles and has_dependent_handle_section.
Result<HeapWalk> read_heap_walk(const Recording& recording, size_t gc_pos,
                                const ObjectReadOptions& options = {});

/// Diff the roots of two walks of different recordings (two processes share no addresses or
/// ids): a root matches when its kind, the type name of the object it holds (its containing
/// object, see ObjectTable::find_containing) and, for stack roots, its method name match.
/// RootKey::object and root_id in the result are interned names, not addresses: only the
/// counts per kind are meaningful. Errors: OutOfMemory.
Result<RootDiff> diff_roots_by_content(const HeapWalk& a, const HeapWalk& b);

/// The object-level diff of two walks of one recording, told from A to B.
struct WalkDiff {
  /// A is the later GC: the identity was followed from B forward to A (it only runs forward
  /// in time) and the result turned around.
  bool reversed = false;
  RootDiff roots;  ///< A's roots' objects followed to B, matched by kind, root id and object
  uint64_t new_count = 0, new_bytes = 0;     ///< alive at B, not at A (sizes at B)
  uint64_t dead_count = 0, dead_bytes = 0;   ///< alive at A, not at B (sizes at A)
  uint64_t surviving_count = 0;
  uint64_t surviving_bytes = 0;              ///< sizes at B
  /// Objects of the earlier GC that survived by the ranges but are not in the later walk
  /// (counted neither new nor dead), and their sizes at the earlier GC.
  uint64_t missing_count = 0, missing_bytes = 0;
  std::vector<TypeGroup> new_groups;   ///< rows of B's table, largest first
  std::vector<GroupPath> new_paths;    ///< parallel to new_groups; nodes of `graph_b`
  std::vector<TypeGroup> dead_groups;  ///< rows of A's table, largest first
  /// B's graph when new_groups is not empty (the paths index it): B's view's graph, or one
  /// built from B's walk, which points into B's ObjectTable: keep that walk alive while using it.
  std::shared_ptr<const HeapGraph> graph_b;
};

/// Diff walks A and B of RECORDING (either order) object by object: follow the earlier walk's
/// objects and roots' objects through the ranges of every GC in between, match them with the
/// later walk, group new and dead objects by type (at most TOP groups each, 0 = all) and find
/// one retention path per group of new objects.
/// Errors: InconsistentData "ranges of a GC in between are missing" when the recording has a
/// gap between them (no object-level answer exists); those of map_objects, diff_objects,
/// HeapGraph::build and find_group_paths; OutOfMemory.
Result<WalkDiff> diff_walks(const Recording& recording, const HeapWalk& a, const HeapWalk& b, size_t top = 0);

/// What diff_walks keeps of its groups.
struct WalkDiffOptions {
  size_t top = 0;         ///< groups of new and of dead objects (0 = all)
  size_t max_shapes = 1;  ///< path shapes per group of new objects (GroupPath::more_shapes)
  /// Only groups whose type name it accepts (empty: all); applied before `top`.
  std::function<bool(std::string_view type_name)> keep_type;
};

/// diff_walks with options. Errors: as above.
Result<WalkDiff> diff_walks(const Recording& recording, const HeapWalk& a, const HeapWalk& b,
                            const WalkDiffOptions& options);

/// diff_walks of two views (decoded or indexed, in any mix); the same answer either way.
/// Errors: as above, and InvalidArgument (a view without roots or names, columns of different
/// lengths, `blocks` on A or on an earlier B, `lookup` on B or on a later A, no graph and no
/// walk for B when its new objects need paths, `objects` on A but for the GC right before B,
/// or with `blocks` or `lookup`), those of B's blocks, A's lookup and A's objects.
Result<WalkDiff> diff_walks(const Recording& recording, const WalkView& a, const WalkView& b,
                            const WalkDiffOptions& options);

}  // namespace gcsnap
