#pragma once
/// One snapshot GC asked about a few objects (`where`, `roots`, `path`, `dominators --by
/// object`): from the GC's analysis index a piece at a time (format-spec.md §12.4 item 7) when
/// it has a valid one, so that the cost follows the answer and not the heap, else from the
/// recording. This is the one place that opens an index for point queries and that turns to
/// the recording when a piece of it is damaged.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gcsnap/analysis_index.hpp"
#include "gcsnap/gc_heap.hpp"
#include "gcsnap/model.hpp"
#include "gcsnap/reader.hpp"
#include "gcsnap/retention.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap {

/// Objects reachable from strong roots and their bytes, and the objects and bytes not reachable.
struct ReachableCounts {
  uint64_t objects = 0;
  uint64_t bytes = 0;
  uint64_t unreachable_objects = 0;
  uint64_t unreachable_bytes = 0;
};

/// One snapshot GC opened for point queries. Two kinds of query: those answered either way
/// (from the index, else from the recording, decoded once on first use), and those only an
/// index answers a piece at a time, which give nullopt when the GC has no valid index (or a
/// piece of it is damaged): the caller then opens the whole heap (GcHeap), which decodes the
/// recording or builds the index. Not movable; not thread-safe (the index caches its pieces).
class HeapPoints {
 public:
  /// Open GC GC_POS of REC, opened from RECORDING_PATH: with IndexUse::Existing its valid analysis
  /// index answers when there is one (its header valid for the GC as it is now, and its root
  /// count the GC's), else the recording; with IndexUse::Ignore the recording; with
  /// IndexUse::OnlyExisting the index or no HeapPoints at all (null), and never the recording (a
  /// damaged piece is then an error of every query, InvalidState once the index is dropped).
  /// Never builds an index.
  /// Errors: NotFound (no such GC), InvalidArgument (IndexUse::Build), OutOfMemory.
  [[nodiscard]] static Result<std::unique_ptr<HeapPoints>> open(const std::string& recording_path,
                                                                const Recording& rec, size_t gc_pos, IndexUse use);
  HeapPoints(const HeapPoints&) = delete;
  HeapPoints& operator=(const HeapPoints&) = delete;
  ~HeapPoints();

  /// Whether the index answers (false without one, or once a damaged piece turned to the recording).
  bool has_index() const noexcept;

  /// Return the object containing ADDRESS (ObjectTable::find_containing's meaning), nullopt when
  /// none does. `reachable` is not set: ask is_reachable. Errors: those of Recording::read_objects
  /// (the GC has no heap walk: NoHeapWalk).
  [[nodiscard]] Result<std::optional<IndexedObject>> find_object(uint64_t address);
  /// Whether the GC's block has a dependent-handles section (§6.11). Errors: the reader's.
  [[nodiscard]] Result<bool> has_dependent_handles();
  /// Whether a strong root reaches NODE (of find_object): the index's dominator tree, or a
  /// search of the decoded graph. Errors: the reader's, HeapGraph::build's, InvalidArgument.
  [[nodiscard]] Result<bool> is_reachable(NodeIndex node);
  /// Return, for each of ROWS of ROOTS (the GC's root table), the type id of the object its
  /// address falls in (find_object's meaning; nullopt for a null root or no object; all nullopt
  /// when the GC has no heap walk). Errors: the reader's.
  [[nodiscard]] Result<std::vector<std::optional<uint32_t>>> root_object_types(const RootTable& roots,
                                                                              std::span<const size_t> rows);

  /// From the index only (nullopt: none, or a damaged piece): PointIndex's queries of the same name.
  std::optional<std::vector<uint32_t>> type_ids();
  std::optional<RetentionResult> find_retention_path(NodeIndex target, bool include_weak);
  std::optional<std::vector<NodeIndex>> nodes_of_types(std::span<const uint32_t> types);
  std::optional<IndexedTreePaths> nearest_tree_paths(std::span<const NodeIndex> targets, size_t n);
  std::optional<IndexedTreePaths> tree_paths_of(std::span<const NearestInstance> chosen);
  std::optional<PathSubgraph> path_subgraph(const std::vector<RetentionPath>& paths);
  std::optional<std::vector<IndexedRetainer>> top_retainers(size_t n, std::span<const uint32_t> types, bool fold);
  /// The index's type histogram (sorted by type id), decoded whole.
  std::optional<std::vector<TypeStats>> type_stats();
  /// The index's HELD BY cells of the largest types (format-spec.md §12.3 array 18), checked
  /// against HISTOGRAM (type_stats()); nullopt also when the index keeps none (minor 0).
  std::optional<std::vector<IndexedTypeHolder>> type_holders(std::span<const TypeStats> histogram);
  /// The index's nearest instances of every type (format-spec.md §12.3 array 18, minor 2),
  /// checked against HISTOGRAM (type_stats()); nullopt also when the index keeps none.
  std::optional<NearestInstances> nearest_instances(std::span<const TypeStats> histogram);
  /// What strong roots reach, from the index's header.
  std::optional<ReachableCounts> reachable_counts() const;

  struct State;  ///< what heap_points.cpp keeps

 private:
  explicit HeapPoints(std::unique_ptr<State> state) noexcept;
  std::unique_ptr<State> state_;
};

}  // namespace gcsnap
