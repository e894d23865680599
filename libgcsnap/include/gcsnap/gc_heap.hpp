#pragma once
/// One snapshot GC's heap: its graph, names, roots and generations, with the dominator tree,
/// the type histogram and the shortest-path tree on demand, from the GC's analysis index
/// (format-spec.md §12) or decoded from the recording. This is the one place that decides
/// whether an index is read, built or ignored, which parts of it are mapped, and when an index
/// that passed its own checks is still not trusted for the recording at hand.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gcsnap/analysis_index.hpp"
#include "gcsnap/dominators.hpp"
#include "gcsnap/edge_names.hpp"
#include "gcsnap/field_layout.hpp"
#include "gcsnap/heap_graph.hpp"
#include "gcsnap/index_columns.hpp"
#include "gcsnap/index_path_tree.hpp"
#include "gcsnap/index_stream.hpp"
#include "gcsnap/model.hpp"
#include "gcsnap/reader.hpp"
#include "gcsnap/retention.hpp"
#include "gcsnap/status.hpp"
#include "gcsnap/type_histogram.hpp"

namespace gcsnap {

/// What GcHeap::open does with the GC's analysis index (the sidecar `RECORDING.N.gcidx`).
enum class IndexUse : uint8_t {
  Ignore = 0,    ///< decode the recording; read and write no index
  Existing = 1,  ///< map a valid index when there is one, else decode; never build one
  Build = 2,     ///< map a valid index, else compute it, save it when the directory allows, and use it
  /// Map a valid index when there is one, else give no heap (GcHeap::open returns null): for
  /// callers that read the recording in a lighter way of their own without one.
  OnlyExisting = 3,
};

/// What a caller asks of a GC's heap (GcHeapOptions::needs). GcHeap turns them into the parts
/// of the analysis index it checks and maps, or into what it decodes: a caller says what it
/// uses, never which arrays of the index hold it.
enum HeapNeed : uint32_t {
  kNeedObjects = 1,        ///< the graph's nodes (addresses, sizes, type ids, generations) and roots
  kNeedTypeIds = 2,        ///< of the nodes only their type ids (and the roots): type_id() and roots()
  kNeedSuccessors = 4,     ///< graph.successors(), dependent-handle edges included
  kNeedPredecessors = 8,   ///< the reverse CSR: a one-path search then goes backward from its target
  kNeedEdgeSlots = 16,     ///< the slot of each edge (edge_slots: the names of references' fields)
  kNeedStatics = 32,       ///< the GC's statics and delegate targets (statics, delegates)
  kNeedDominators = 64,    ///< find_dominators(false) without computing it
  kNeedHistogram = 128,    ///< find_type_histogram(false) and type_ids() without the graph
  kNeedPathTree = 256,     ///< find_path_tree() without computing it
  /// The analyses over every root (include_weak): computed from the graph both ways.
  kNeedWeakRoots = 512,
  /// The index's table of the largest types' holders (HeapPoints::type_holders reads it) is
  /// checked with the rest, so that an open that builds (IndexUse::Build) rebuilds a damaged one.
  kNeedTypeHolders = 1024,
  kNeedGraph = kNeedObjects | kNeedSuccessors,      ///< the graph one way
  kNeedFieldNames = kNeedEdgeSlots | kNeedStatics,  ///< everything edge_namer() names with
  kNeedAll = 2047,
};
using HeapNeeds = uint32_t;

/// How to open a GC's heap.
struct GcHeapOptions {
  IndexUse index = IndexUse::Ignore;
  /// What the caller uses: from an index only those parts are checked and mapped; a decoded
  /// heap has its graph's edges unless only kNeedObjects and kNeedTypeIds are asked for (its
  /// successors are then empty and its trees InvalidState), and the reverse CSR and field
  /// names only when asked for.
  HeapNeeds needs = kNeedGraph | kNeedDominators | kNeedHistogram | kNeedPathTree;
  /// Stages reported while an index is built (IndexUse::Build).
  IndexProgress progress;
};

/// One snapshot GC's heap. Not movable: the graph points into `objects` or into the mapped
/// index, and the statics into `static_names`.
class GcHeap {
 public:
  GcHeap() = default;
  GcHeap(const GcHeap&) = delete;
  GcHeap& operator=(const GcHeap&) = delete;
  virtual ~GcHeap() = default;

  /// Open GC GC_INDEX of REC, opened from RECORDING_PATH, as OPTIONS say. With an index in
  /// use the graph, generations, dominator tree, histogram and shortest-path tree come from it
  /// (a missing, stale or damaged index is rebuilt with IndexUse::Build; a directory that cannot
  /// be written to only means it is not saved). An index whose roots or shortest-path tree do
  /// not match the recording (forged) is not used: the GC is decoded instead (with
  /// IndexUse::OnlyExisting the result is then null, as when there is no valid index).
  /// Errors: NoHeapWalk, those of the reader, of HeapGraph::build and of the index build
  /// (OutOfMemory ...).
  [[nodiscard]] static Result<std::unique_ptr<GcHeap>> open(const std::string& recording_path, const Recording& rec,
                                                            size_t gc_pos, const GcHeapOptions& options = {});

  /// Empty when the heap came from the analysis index: use graph, generation() and
  /// graph.find_containing() instead, which work both ways.
  ObjectTable objects;
  RootTable roots;
  NameTable names;
  DependentHandleTable dependent;  ///< decoded only; empty for 1.0 recordings
  bool has_dependent = false;      ///< the GC's block has a dependent-handles section (§6.11)
  HeapGraph graph;
  /// With kNeedEdgeSlots and kNeedStatics: the slot of each edge and the GC's statics.
  EdgeSlots edge_slots;
  std::vector<StaticSlot> statics;
  std::string static_names;  ///< storage of statics' names
  /// With kNeedStatics: the methods the GC's delegates call (format-spec.md §6.22),
  /// sorted by address; empty when the recorder wrote none.
  std::vector<DelegateTarget> delegates;
  std::span<const Generation> generations;  ///< per node, either way
  /// From the index: the strong-roots dominator tree (with kNeedDominators).
  std::optional<DominatorTree> indexed_dominators;
  /// From the index: the BFS tree over strong roots (with kNeedPathTree).
  std::optional<ShortestPathTree> indexed_paths;
  /// From the index: the type histogram, sorted by type id (with kNeedHistogram).
  std::optional<std::vector<TypeStats>> indexed_types;
  /// From the index: objects and bytes not reachable from strong roots (its header's counts,
  /// known even when its dominator tree was not mapped).
  std::optional<std::pair<uint64_t, uint64_t>> indexed_unreachable;
  /// Whether the graph, dominators and histogram came from the analysis index.
  bool is_from_index() const noexcept { return from_index_; }
  /// Whether this open built the index and saved it beside the recording (IndexUse::Build).
  bool saved_index() const noexcept { return saved_index_; }
  std::string_view type_name(NodeIndex node) const { return names.type_name(graph.type_id(node)); }
  Generation generation(NodeIndex node) const { return generations[node]; }
  /// Name the edges of this heap (field names need kNeedFieldNames).
  EdgeNamer edge_namer() const { return EdgeNamer(graph, names, edge_slots, statics); }

  /// Return the dominator tree over strong roots (or every root with INCLUDE_WEAK): the
  /// index's when there is one, else computed once and kept. Errors: those of
  /// DominatorTree::compute, InvalidState (an index read without its graph).
  [[nodiscard]] Result<const DominatorTree*> find_dominators(bool include_weak);
  /// Return the type histogram as build_type_histogram(graph, dominators, OPTIONS) would (from
  /// the index's when it has one). Errors: those of find_dominators and build_type_histogram.
  [[nodiscard]] Result<std::vector<TypeStats>> find_type_histogram(bool include_weak,
                                                                   const TypeHistogramOptions& options);
  /// Return the objects, bytes and generation bytes per type, sorted as OPTIONS say (whose order
  /// must not be by retained bytes), without a dominator tree: the index's histogram when it has
  /// one (its retained sizes are then the index's), else counted from the graph (retained sizes
  /// 0). Errors: those of build_type_histogram.
  [[nodiscard]] Result<std::vector<TypeStats>> find_type_counts(const TypeHistogramOptions& options) const;
  /// Return the shortest-path tree over strong roots (ShortestPathTree::compute with
  /// RetentionOptions{}): the index's when there is one, else computed once and kept.
  [[nodiscard]] Result<const ShortestPathTree*> find_path_tree();
  /// Return the objects and bytes not reachable from strong roots (or any root with INCLUDE_WEAK).
  [[nodiscard]] Result<std::pair<uint64_t, uint64_t>> find_unreachable(bool include_weak);
  /// Return the ids of the types in this heap, sorted (from the index's histogram when it has one).
  std::vector<uint32_t> type_ids() const;
  /// Open the analysis index this heap came from for a pass a piece at a time (IndexStream):
  /// for readers that hold less than the arrays mapped (the Parquet export, diff's earlier GC),
  /// so that they need not know where the index lives. Errors: InvalidState (the heap was
  /// decoded), those of identify_gc and IndexStream::open.
  [[nodiscard]] Result<std::unique_ptr<IndexStream>> open_index_stream() const;
  /// Read the addresses, sizes (unless not WITH_SIZES) and generations of the index this heap
  /// came from into vectors the caller owns and may hand on (read_index_columns), and keep the
  /// index open for read_address. Errors: those of open_index_stream and read_index_columns.
  [[nodiscard]] Result<IndexColumns> read_object_columns(bool with_sizes = true);
  /// Open the sizes and type ids of the index this heap came from as a ColumnLookup
  /// (look_up_index_columns), for the earlier GC of a diff. Errors: those of open_index_stream
  /// and look_up_index_columns.
  [[nodiscard]] Result<std::unique_ptr<ColumnLookup>> look_up_object_columns() const;
  /// Open the addresses and sizes of the index this heap came from as blocks read once in order
  /// (stream_index_columns), for a diff that streams them. Errors: those of open_index_stream
  /// and stream_index_columns.
  [[nodiscard]] Result<std::unique_ptr<ColumnBlocks>> stream_object_columns() const;
  /// Open the addresses, sizes, type ids and generations of the index this heap came from as
  /// blocks read once in order (stream_index_objects), for the earlier GC of a diff that
  /// follows its objects as they come. Errors: those of open_index_stream and
  /// stream_index_objects.
  [[nodiscard]] Result<std::unique_ptr<ObjectBlocks>> stream_object_blocks() const;
  /// Return object NODE's address from the index's pieces (read_index_address), for a caller
  /// that handed on or streamed the columns (the index is opened on first use when
  /// read_object_columns did not). Errors: those of open_index_stream and read_index_address.
  [[nodiscard]] Result<uint64_t> read_address(uint64_t node);
  /// Read the shortest-path tree of the index this heap came from without its forward graph
  /// (IndexedPathTree::read over this heap's graph, which must outlive the tree). Errors: those
  /// of open_index_stream, InvalidState (the index gave no count of unreachable objects), those
  /// of IndexedPathTree::read.
  [[nodiscard]] Result<IndexedPathTree> read_indexed_path_tree() const;

 protected:
  /// Load into this (empty) heap: what open() does, for types that add to GcHeap.
  [[nodiscard]] Status load(const std::string& recording_path, const Recording& rec, size_t gc_pos,
                            const GcHeapOptions& options);

 private:
  [[nodiscard]] Result<bool> load_from_index(const std::string& recording_path, const Recording& rec,
                                             size_t gc_pos, const GcHeapOptions& options);
  [[nodiscard]] Status decode(const Recording& rec, size_t gc_pos, const GcHeapOptions& options);

  // The parts the index gave (kIndexAll when decoded): without kIndexObjects the graph has no
  // nodes, so only the histogram and the counts may be used.
  IndexParts parts_ = kIndexAll;
  bool from_index_ = false;
  bool saved_index_ = false;
  // Where the index came from, for open_index_stream (the recording outlives its heaps).
  std::string recording_path_;
  const Recording* recording_ = nullptr;
  size_t gc_pos_ = 0;
  std::shared_ptr<const void> index_storage_;
  std::unique_ptr<IndexStream> column_stream_;  // read_object_columns's, for read_address
  std::optional<DominatorTree> computed_dominators_;
  bool computed_include_weak_ = false;
  std::optional<ShortestPathTree> computed_paths_;
};

/// Return the valid analysis index of GC_INDEX of REC (opened from RECORDING_PATH) with PARTS
/// checked and mapped, when there is one and it can be trusted for this GC (its root positions
/// refer to the GC's root table); nullopt otherwise (none, stale, damaged, forged, or the GC has
/// no heap walk). Never builds an index: for commands that are cheap without one.
std::optional<AnalysisIndex> find_analysis_index(const std::string& recording_path, const Recording& rec, size_t gc_pos,
                                     IndexParts parts);

/// Make sure GC_POS of REC has an analysis index saved beside RECORDING_PATH, as `gcsnap index`
/// does (ensure_analysis_index: each array is held only while the build reads it), reporting
/// its stages to PROGRESS. Errors: those of ensure_analysis_index, and the write error when the
/// index was built but could not be saved.
[[nodiscard]] Status save_heap_index(const std::string& recording_path, const Recording& rec, size_t gc_pos,
                                     const IndexProgress& progress = {});

/// Return the bytes the analysis index of GC_POS of REC (opened from RECORDING_PATH) takes on
/// disk; 0 when it has none or its size cannot be read.
uint64_t heap_index_bytes(const std::string& recording_path, const Recording& rec, size_t gc_pos);

/// Verify GC GC_POS of REC, opened from RECORDING_PATH, as Recording::verify_gc does. With USE
/// other than IndexUse::Ignore, a valid analysis index of the GC that vouches for its block
/// spares the decode of its objects: the index's type histogram is checked instead
/// (Recording::verify_gc_counted, the block hashed in the pass over its object sections), so
/// that the check decodes no array as long as the heap. An index that fails on the way is not
/// trusted: the GC is then decoded. Never builds an index. Errors: those of Recording::verify_gc.
[[nodiscard]] Status verify_heap_gc(const std::string& recording_path, const Recording& rec, size_t gc_pos,
                                    IndexUse use);

/// Whether INDEX vouches for the block of GC_INDEX of REC: it records the hash of the block
/// it was built from (minor version 1) and that equals the block's hash now, so the block's
/// objects decoded and passed the reader's checks when it was built and need not be decoded
/// again to be verified (format-spec.md §12.2).
bool index_vouches_for_block(const AnalysisIndex& index, const Recording& rec, size_t gc_pos);

}  // namespace gcsnap
