#pragma once
/// The analysis index of a snapshot GC (format-spec.md §12): the graph both ways, the
/// dominator tree over strong roots with retained sizes, the shortest-path tree from strong
/// roots, and the type histogram, computed once
/// and kept in a sidecar file `RECORDING.N.gcidx` that later commands read instead of decoding
/// the recording again. The index is a cache: it is checked against the recording and its own
/// checksums before use, and a missing, stale or damaged one is simply rebuilt.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gcsnap/dominators.hpp"
#include "gcsnap/edge_names.hpp"
#include "gcsnap/heap_graph.hpp"
#include "gcsnap/model.hpp"
#include "gcsnap/reader.hpp"
#include "gcsnap/retention.hpp"
#include "gcsnap/status.hpp"
#include "gcsnap/type_histogram.hpp"
#include "gcsnap/type_holder_cells.hpp"

namespace gcsnap {

/// What ties an index to one GC of one recording as it is now (format-spec.md §12.2).
struct IndexIdentity {
  uint64_t file_size = 0;
  uint64_t mtime_ns = 0;
  uint64_t gc_number = 0;
  uint64_t block_offset = 0;
  uint64_t block_size = 0;
  uint64_t block_sample_hash = 0;
  bool operator==(const IndexIdentity&) const = default;
};

/// The parts of an index a reader decodes and checks (format-spec.md §12.4): a command names the
/// ones it uses; the others are neither read nor trusted and stay empty in the AnalysisIndex.
enum IndexPart : uint32_t {
  kIndexObjects = 1,      ///< node columns: addresses, sizes, type ids, generations
  kIndexForward = 2,      ///< forward CSR and dependent edges (the graph's successors)
  kIndexReverse = 4,      ///< reverse CSR (predecessors)
  kIndexSlots = 8,        ///< edge slots (field names)
  kIndexDominators = 16,  ///< preorder, immediate dominators, retained sizes
  kIndexTypes = 32,       ///< type histogram
  /// The type ids alone (part of kIndexObjects): the graph then has its nodes' type ids and
  /// roots, and no addresses, sizes or generations (only type_id() and roots() may be used).
  kIndexTypeIds = 64,
  /// The shortest-path tree from strong roots (AnalysisIndex::path_parents); brings kIndexForward
  /// (a path's hops are told from the forward graph).
  kIndexPathTree = 128,
  /// The holder table and nearest instances (array 18, minor 1 and 2: AnalysisIndex::type_holders,
  /// nearest_instances); brings kIndexTypes, which they are checked against.
  kIndexHolders = 256,
  kIndexAll = 511,
};
using IndexParts = uint32_t;

/// One of a type's instances nearest to a strong root: its node and its hops in the
/// shortest-path tree over strong roots (ShortestPathTree::hops_to).
struct NearestInstance {
  uint32_t type_id = 0;
  NodeIndex node = 0;
  uint32_t hops = 0;
  bool operator==(const NearestInstance&) const = default;
};

/// Every type's min(reached, PER_TYPE) instances with the fewest hops, ordered by type id, hops,
/// node (format-spec.md §12.3 array 18, minor 2): the N <= PER_TYPE nearest instances of any
/// set of types are the first N of their rows merged by (hops, node).
struct NearestInstances {
  uint32_t per_type = 0;
  std::vector<NearestInstance> rows;
  bool operator==(const NearestInstances&) const = default;
};

/// One of the dominator tree's largest heads (format-spec.md §12.3 array 18, minor 3): a
/// reachable node that does not fold into its immediate dominator (top_retainer_chains), with
/// what `dominators --top` shows of it.
struct LargestHead {
  NodeIndex node = 0;
  uint32_t type_id = 0;
  uint64_t retained = 0;    ///< DominatorTree::retained_size
  uint64_t chain = 1;       ///< RetainerChain::length
  NodeIndex dominator = 0;  ///< DominatorTree::immediate_dominator (kVirtualRoot under the roots)
  uint32_t depth = 0;       ///< DominatorTree::depth
  bool operator==(const LargestHead&) const = default;
};

/// The heavy analyses of one snapshot GC. Movable; the spans and the graph stay valid while
/// any part of it lives (they share one storage: owned arrays, or the arrays decoded from the index file).
/// A AnalysisIndex read with fewer parts than kIndexAll has only those: without kIndexObjects the
/// graph has no nodes (its stats are kept); without kIndexForward it must not be asked for
/// successors, without kIndexReverse it has no reverse CSR (build_reverse needs the forward).
struct AnalysisIndex {
  HeapGraph graph;             ///< with the reverse CSR
  DominatorTree dominators;    ///< strong roots only (DominatorOptions{})
  EdgeSlots edge_slots;        ///< empty when the recording has no reference slots
  std::span<const Generation> generations;  ///< per node
  /// Per node: its parent in the breadth-first shortest-path tree from strong roots
  /// (ShortestPathTree::compute with RetentionOptions{}: ShortestPathTree::from_parents takes
  /// it back), kRootMark for a root's object, kNoNode when no strong root reaches it.
  std::span<const NodeIndex> path_parents;
  std::vector<TypeStats> type_stats;        ///< per type, sorted by type id, with retained sizes
  /// With kIndexHolders: the HELD BY cells of the histogram's first types by retained bytes
  /// (format-spec.md §12.3 array 18); nullopt when the index has none (minor 0).
  std::optional<std::vector<IndexedTypeHolder>> type_holders;
  /// With kIndexHolders: each type's instances nearest to a strong root (minor 2); nullopt when
  /// the index has none (minor 0 or 1).
  std::optional<NearestInstances> nearest_instances;
  /// With kIndexHolders: the min(1024, heads) largest heads, largest first (minor 3); nullopt
  /// when the index has none (minor 0-2).
  std::optional<std::vector<LargestHead>> largest_heads;
  bool has_dependent_handles = false;       ///< the GC's block has a dependent-handle section
  IndexParts parts = kIndexAll;             ///< what this AnalysisIndex holds
  uint64_t root_entries = 0;                ///< resolved + unresolved roots (the GC's root table size)
  uint64_t unreachable_objects = 0;         ///< not reachable from strong roots (with or without kIndexDominators)
  uint64_t unreachable_bytes = 0;           ///< their bytes
  /// XXH3-64 of the GC's whole block that this index was built from (Recording::block_hash);
  /// 0 when the index does not say (minor version 0). Equal to the block's hash now, it
  /// vouches that the block's objects decoded and passed the reader's checks.
  uint64_t block_hash = 0;
  std::shared_ptr<const void> storage;      ///< keeps `generations` and the graph's columns alive
};

/// The shortest-path tree INDEX keeps (read with kIndexPathTree), over GRAPH: INDEX's graph, or
/// the graph it was moved into. It keeps INDEX's storage alive. Errors: those of
/// ShortestPathTree::from_parents (a tree that does not match the roots: forged).
[[nodiscard]] Result<ShortestPathTree> kept_path_tree(const AnalysisIndex& index, const HeapGraph& graph);

/// Stages reported while computing (decode, graph, reverse, dominators, histogram, write).
using IndexProgress = std::function<void(std::string_view stage)>;

/// Return the index file of GC number GC_NUMBER of RECORDING_PATH: "RECORDING_PATH.N.gcidx".
std::string analysis_index_path(const std::string& recording_path, uint64_t gc_number);

/// Return the identity of GC_INDEX of REC, opened from RECORDING_PATH (stat + a hash of the
/// block's first and last 64 KiB). Errors: IoError, NotFound (no such GC).
[[nodiscard]] Result<IndexIdentity> identify_gc(const std::string& recording_path, const Recording& rec,
                                                size_t gc_pos);

/// Decode GC_INDEX of REC and compute everything an index holds, in memory: the one build
/// (ensure_analysis_index's), its bytes kept in memory and read back whole.
/// Errors: those of the reader (NoHeapWalk ...), of HeapGraph::build and DominatorTree, OutOfMemory.
[[nodiscard]] Result<AnalysisIndex> compute_analysis_index(const Recording& rec, size_t gc_pos,
                                               const IndexProgress& progress = {});

/// Write INDEX for ID to PATH (a temporary file in the same directory, then renamed).
/// Errors: IoError (directory not writable, disk full ...), the temporary file removed.
[[nodiscard]] Status write_analysis_index(const AnalysisIndex& index, const IndexIdentity& id, const std::string& path);

/// Map the index at PATH after the checks of format-spec.md §12.4 against EXPECTED: the header's
/// always, each array's checksum and rules only for the PARTS asked for (widened to what they
/// need: every part but kIndexTypes needs kIndexObjects, kIndexSlots needs kIndexForward).
/// Errors: NotFound (no file), UnsupportedVersion, InconsistentData (stale: another
/// recording, GC or modification time), Truncated / ChecksumMismatch / CorruptSection
/// (damaged), IoError, OutOfMemory.
[[nodiscard]] Result<AnalysisIndex> read_analysis_index(const std::string& path, const IndexIdentity& expected,
                                            IndexParts parts = kIndexAll);

/// The same checks on index file bytes (tests, fuzzing), at any alignment; EXPECTED may be null
/// to skip the identity check. The result owns the arrays it decoded from BYTES.
[[nodiscard]] Result<AnalysisIndex> analysis_index_from_bytes(std::span<const std::byte> bytes, const IndexIdentity* expected,
                                                  IndexParts parts = kIndexAll);

/// One object as its GC's analysis index tells it (find_object_in_analysis_index).
struct IndexedObject {
  NodeIndex node = kNoNode;
  uint64_t address = 0;  ///< the object's start
  uint64_t size = 0;
  uint32_t type_id = 0;
  Generation generation = Generation::Unknown;
  bool reachable = false;  ///< from strong roots (its immediate dominator is set)
};

namespace detail {
class IndexPieces;
}

/// One row of `dominators --by object` from an index read a piece at a time
/// (PointIndex::top_retainers).
struct IndexedRetainer {
  IndexedObject object;
  uint64_t chain = 1;     ///< RetainerChain::length
  uint64_t retained = 0;  ///< DominatorTree::retained_size
  uint32_t depth = 0;     ///< DominatorTree::depth
  std::optional<IndexedObject> dominator;  ///< the immediate dominator; none under the roots
};

/// The paths of the shortest-path tree to the nearest of some objects
/// (PointIndex::nearest_tree_paths).
struct IndexedTreePaths {
  std::vector<RetentionPath> paths;  ///< fewest hops first, in the whole graph's nodes and roots
  uint64_t reached = 0;              ///< how many of the objects the tree reaches
};

/// The objects of a few retention paths as a graph of their own (PointIndex::path_subgraph):
/// node i is the i-th distinct node of the paths, its edges are the paths' hops as the whole
/// graph holds them (reference or dependent handle, with the edge's slot), its roots the paths'
/// roots. Names, kinds, sizes and generations read from it as from the whole graph.
struct PathSubgraph {
  HeapGraph graph;
  EdgeSlots slots;                     ///< empty when the index has no edge slots
  std::vector<Generation> generations;  ///< per node of graph
  std::vector<RetentionPath> paths;     ///< the paths given, in graph's nodes and roots
};

/// An analysis index opened for point queries (format-spec.md §12.4 item 7): the header and
/// directory are checked at open, and each query then decodes and checks only the 1 MiB pieces
/// it reads (a few are cached), so that its cost follows the answer, not the heap. Move-only;
/// not thread-safe. A query's error (a damaged piece) means the index must not be used.
class PointIndex {
 public:
  /// Open the index at PATH, checked against EXPECTED. Errors: those of read_analysis_index
  /// for the header and directory.
  [[nodiscard]] static Result<PointIndex> open(const std::string& path, const IndexIdentity& expected);
  /// The same on index file BYTES kept alive by KEEP; EXPECTED may be null (tests, fuzzing).
  [[nodiscard]] static Result<PointIndex> from_bytes(std::span<const std::byte> bytes, const IndexIdentity* expected,
                                                     std::shared_ptr<const void> keep);
  PointIndex(PointIndex&&) noexcept;
  PointIndex& operator=(PointIndex&&) noexcept;
  ~PointIndex();

  uint64_t node_count() const noexcept;
  uint64_t root_entries() const noexcept;  ///< resolved + unresolved roots (the GC's root table size)
  bool has_dependent_handles() const noexcept;
  /// The index's minor version (format-spec.md §12.2): 0 has no holder table.
  uint16_t minor_version() const noexcept;

  /// Return the object containing ADDRESS (ObjectTable::find_containing's meaning): O(log n)
  /// pieces of the addresses, one each of the sizes, type ids, generations and dominators.
  /// Errors: ChecksumMismatch / CorruptSection (a damaged piece), OutOfMemory.
  [[nodiscard]] Result<std::optional<IndexedObject>> find_object(uint64_t address);
  /// Return node V's type id (one piece). Errors: find_object's, CorruptSection (V out of range).
  [[nodiscard]] Result<uint32_t> type_id(NodeIndex v);
  /// Return the resolved roots (GraphRoot, as HeapGraph::roots) and the unresolved roots' positions,
  /// their arrays decoded whole and checked (checksum and rules). Errors: find_object's.
  [[nodiscard]] Result<std::pair<std::vector<GraphRoot>, std::vector<uint32_t>>> roots();

  /// Return node V's columns and reachability, as find_object does. Errors: find_object's,
  /// CorruptSection (V out of range).
  [[nodiscard]] Result<IndexedObject> object(NodeIndex v);
  /// Return what find_retention_paths(graph, TARGET, {INCLUDE_WEAK, 1}) returns for the index's
  /// graph (which has its reverse CSR: the same backward search, reading the pieces of the
  /// reverse graph it visits), in the whole graph's nodes and roots. Errors: find_object's,
  /// InvalidArgument (TARGET out of range).
  [[nodiscard]] Result<RetentionResult> find_retention_path(NodeIndex target, bool include_weak);
  /// Return PATHS (of this index's graph, as find_retention_path gives them) as a graph of their
  /// own nodes (PathSubgraph). Errors: find_object's, InvalidArgument (a node, root or hop that
  /// the graph does not have).
  [[nodiscard]] Result<PathSubgraph> path_subgraph(const std::vector<RetentionPath>& paths);
  /// Return the N (> 0) objects that retain the most among those of TYPES (sorted ids; empty:
  /// every type), largest first: with FOLD as top_retainer_chains gives their heads and chain
  /// lengths, else as DominatorTree::top_retainers. One pass over the retained sizes a piece at
  /// a time; the immediate dominators and type ids a piece at a time too, or with FOLD decoded
  /// whole (8 B per object held) for a second pass that counts the chains of the rows' types.
  /// Errors: find_object's.
  [[nodiscard]] Result<std::vector<IndexedRetainer>> top_retainers(size_t n, std::span<const uint32_t> types, bool fold);
  /// Return the nodes whose type id is one of TYPES (sorted), in node order: one pass over the
  /// type ids a piece at a time. Errors: find_object's.
  [[nodiscard]] Result<std::vector<NodeIndex>> nodes_of_types(std::span<const uint32_t> types);
  /// Return the paths of the index's shortest-path tree (format-spec.md §12.3 array 17; what
  /// ShortestPathTree::path_to gives on the index read whole, edge kinds included) to the N
  /// nearest of TARGETS (node indices, increasing; N 0: all that it reaches), fewest hops first
  /// and in TARGETS' order among equals, and how many of TARGETS it reaches. A few targets read
  /// their parents a piece at a time; more than kChaseThroughPieces decode the parents whole
  /// (4 bytes per object). A target's parent chain is followed only as far as it can still be
  /// among the N. Errors: find_object's, InvalidArgument (a target out of range).
  [[nodiscard]] Result<IndexedTreePaths> nearest_tree_paths(std::span<const NodeIndex> targets, size_t n);
  static constexpr size_t kChaseThroughPieces = 256;
  /// Return the tree's paths to CHOSEN (nearest_instances() rows), as nearest_tree_paths gives
  /// them, reading the parents a piece at a time; reached is left 0. Errors: find_object's,
  /// InvalidArgument (a node out of range), CorruptSection (a path that is not its row's hops
  /// long).
  [[nodiscard]] Result<IndexedTreePaths> tree_paths_of(std::span<const NearestInstance> chosen);
  /// Return the ids of the heap's types, sorted (the type histogram's, decoded whole and
  /// checked). Errors: find_object's.
  [[nodiscard]] Result<std::vector<uint32_t>> type_ids();
  /// Return the type histogram (array 16), decoded whole and checked, sorted by type id.
  /// Errors: find_object's.
  [[nodiscard]] Result<std::vector<TypeStats>> type_stats();
  /// Return the holder table (array 18: the HELD BY cells of the first types of HISTOGRAM, this
  /// index's type_stats(), by retained bytes), decoded whole and checked against HISTOGRAM;
  /// nullopt when the index has none (minor 0). Errors: find_object's.
  [[nodiscard]] Result<std::optional<std::vector<IndexedTypeHolder>>> type_holders(std::span<const TypeStats> histogram);
  /// Return each type's nearest instances (array 18 after the holder table, minor 2), decoded
  /// whole and checked against HISTOGRAM (type_stats()); nullopt when the index has none.
  /// Errors: find_object's.
  [[nodiscard]] Result<std::optional<NearestInstances>> nearest_instances(std::span<const TypeStats> histogram);
  /// Return the largest heads (array 18 after the nearest instances, minor 3), decoded whole and
  /// checked; nullopt when the index has none. Errors: find_object's.
  [[nodiscard]] Result<std::optional<std::vector<LargestHead>>> largest_heads();
  /// Objects reachable from strong roots (the header's p) and their bytes; the bytes not reachable.
  uint64_t reachable_count() const noexcept;
  uint64_t reachable_bytes() const noexcept;
  uint64_t unreachable_bytes() const noexcept;
  /// The graph build's statistics, as HeapGraph::stats of the index's graph.
  GraphBuildStats build_stats() const noexcept;

  /// How many pieces the queries so far decoded.
  size_t pieces_decoded() const noexcept;

 private:
  explicit PointIndex(std::unique_ptr<detail::IndexPieces> pieces) noexcept;
  std::unique_ptr<detail::IndexPieces> pieces_;
};

struct IndexedLookup {
  std::optional<IndexedObject> object;  ///< none when no object of the heap walk contains the address
  bool has_dependent_handles = false;   ///< the GC's block has a dependent-handle section
  uint64_t root_entries = 0;            ///< resolved + unresolved roots (the GC's root table size)
  size_t pieces_decoded = 0;            ///< 1 MiB pieces decoded for the answer (format-spec.md §12.3)
};

/// Find the object containing ADDRESS in the index at PATH (PointIndex::open, then find_object).
/// Errors: those of PointIndex::open and find_object.
[[nodiscard]] Result<IndexedLookup> find_object_in_analysis_index(const std::string& path, const IndexIdentity& expected,
                                                                  uint64_t address);

/// How open_analysis_index got its answer.
enum class IndexSource : uint8_t {
  Read = 0,        ///< a valid index file was read
  BuiltSaved = 1,  ///< none (or a stale/damaged one): computed and written
  BuiltKept = 2,   ///< computed, not written (`write` false, or the write failed)
};

struct OpenedAnalysisIndex {
  AnalysisIndex index;
  IndexSource source = IndexSource::Read;
  Error rejected;      ///< why an existing index was not used (code Ok when there was none)
  Error write_error;   ///< why it could not be saved (BuiltKept with write true)
};

/// Use the index of GC_INDEX if valid (checking PARTS, as read_analysis_index), else build it
/// (ensure_analysis_index's build) and, when WRITE, save it, then read PARTS back from it: from
/// the file, or from memory when it is not saved (a failure to save only leaves write_error
/// set: the answer does not depend on it).
[[nodiscard]] Result<OpenedAnalysisIndex> open_analysis_index(const std::string& recording_path, const Recording& rec,
                                                  size_t gc_pos, bool write, const IndexProgress& progress = {},
                                                  IndexParts parts = kIndexAll);

/// What check_analysis_index found.
struct CheckedAnalysisIndex {
  /// Why the index is not valid (code Ok when it is): NotFound (none), InconsistentData (stale),
  /// UnsupportedVersion, or the damage read_analysis_index reports.
  Error problem;
};

/// Check every byte of the index file of GC_POS of REC, opened from RECORDING_PATH (every
/// array's checksum and rules, the padding: read_analysis_index with kIndexAll), building
/// nothing. Errors: those of identify_gc.
[[nodiscard]] Result<CheckedAnalysisIndex> check_analysis_index(const std::string& recording_path, const Recording& rec,
                                                                size_t gc_pos);

/// What ensure_analysis_index did.
struct EnsuredAnalysisIndex {
  IndexSource source = IndexSource::Read;  ///< Read, BuiltSaved, or BuiltKept when the write failed
  Error rejected;                          ///< as OpenedAnalysisIndex::rejected
  Error write_error;                       ///< why it could not be saved (BuiltKept)
  uint64_t objects = 0;                    ///< the GC's objects (the index's nodes)
};

/// Make the index file of GC_POS valid: use it when its header and directory are valid for the
/// GC (format-spec.md §12.4 items 1-3, as PointIndex::open: no array is decoded, so damage inside
/// an array is left to check_analysis_index and to the first command that decodes it), else
/// compute and write it, holding each array only while the build still reads it
/// (docs/performance.md, "The analysis index"): for callers that want the file, not the arrays.
/// A failure to save only sets write_error. Errors: those of open_analysis_index.
[[nodiscard]] Result<EnsuredAnalysisIndex> ensure_analysis_index(const std::string& recording_path, const Recording& rec,
                                                                 size_t gc_pos, const IndexProgress& progress = {});

}  // namespace gcsnap
