#pragma once
/// The object graph of one heap walk, in index form: node i is the i-th object in address
/// order; edges are resolved from addresses to node indices once, at build time.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <utility>

#include "gcsnap/model.hpp"
#include "gcsnap/reader.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap {

/// Index of an object in ObjectTable order (address order).
using NodeIndex = uint32_t;
/// "No such node": unresolved, unreachable, or no parent.
inline constexpr NodeIndex kNoNode = 0xFFFFFFFFu;
/// Largest node count a HeapGraph accepts (indices are 32-bit).
inline constexpr size_t kMaxNodes = 0xFFFFFFF0u;

/// A root that resolved to an object of the walk.
struct GraphRoot {
  NodeIndex node = kNoNode;
  RootKind kind = RootKind::Other;
  uint8_t flags = 0;         ///< root_flags bits
  uint64_t root_id = 0;      ///< as recorded (FunctionID for stack roots, handle id, ...)
  uint32_t root_index = 0;   ///< position in the RootTable
  bool is_weak() const noexcept { return (flags & root_flags::kWeakRef) != 0; }
};

/// How an edge of the graph holds its target.
enum class EdgeKind : uint8_t {
  Reference = 0,        ///< a reference the object holds (a field or an array element)
  DependentHandle = 1,  ///< a dependent handle: the primary (a ConditionalWeakTable key)
                        ///< keeps the secondary (its value) alive (format-spec.md §6.11)
};

/// What could not be resolved while building, so that reports can say so.
struct GraphBuildStats {
  uint64_t references = 0;             ///< edges in the ObjectTable
  uint64_t unresolved_references = 0;  ///< targets that are not the address of a walked object
  uint64_t null_roots = 0;             ///< roots whose object id is 0
  uint64_t unresolved_roots = 0;       ///< roots pointing at no walked object
  uint64_t interior_roots = 0;         ///< interior roots resolved to their containing object
  uint64_t dependent_handles = 0;      ///< dependent-handle pairs given to build()
  uint64_t dependent_edges = 0;        ///< of those, pairs whose two objects were walked (edges added)
};

class HeapGraph;
namespace detail {
struct AnalysisIndexAccess;
struct ReverseCsr;
Result<ReverseCsr> make_reverse_csr(const HeapGraph& graph, bool discard_forward);
}

/// The heap graph: forward CSR always, reverse CSR on demand.
/// How the adjacency is stored (32- or 64-bit offsets, owned arrays or a mapped analysis
/// index) is private; the API gives spans.
/// A graph built here keeps a pointer to the ObjectTable's address, size and type columns, so the table must
/// outlive the graph; the table's reference columns are not used after build() and may be
/// released by the caller to save memory.
class HeapGraph {
 public:
  /// Build the forward graph and map the roots to nodes.
  /// Reference targets are resolved by a radix sort of the targets and one merge with the
  /// (sorted) address column, not by a search per edge.
  /// Errors: InvalidArgument (columns of different lengths, offsets not monotonic or past
  /// the targets, addresses not strictly increasing), LimitExceeded (more than kMaxNodes
  /// objects), OutOfMemory.
  /// DEPENDENT (optional) adds one edge primary -> secondary per dependent handle whose two
  /// objects were walked, after the primary's own references: every analysis then treats a
  /// ConditionalWeakTable value as referenced by its key, as the GC does.
  [[nodiscard]] static Result<HeapGraph> build(const ObjectTable& objects, const RootTable& roots,
                                               const DependentHandleTable* dependent = nullptr);

  HeapGraph() = default;
  ~HeapGraph();
  HeapGraph(HeapGraph&&) noexcept;
  HeapGraph& operator=(HeapGraph&&) noexcept;
  HeapGraph(const HeapGraph&) = delete;
  HeapGraph& operator=(const HeapGraph&) = delete;

  size_t node_count() const noexcept { return node_count_; }
  uint64_t edge_count() const noexcept { return edge_count_; }

  /// Return the nodes that node references (resolved edges only, in recorded order).
  std::span<const NodeIndex> successors(NodeIndex node) const noexcept {
    const uint64_t begin = forward_.at(node);
    return {forward_.items + begin, static_cast<size_t>(forward_.at(node + 1) - begin)};
  }

  /// Return how FROM holds TO: Reference when FROM references TO (even if a dependent handle
  /// also links them), DependentHandle when only a dependent handle does. O(degree of FROM).
  EdgeKind edge_kind(NodeIndex from, NodeIndex to) const noexcept;
  /// Whether build() was given a dependent-handle table (even an empty one).
  bool has_dependent_handles() const noexcept { return has_dependent_; }
  /// Return the position of node's first successor among all forward edges (edge arrays that
  /// parallel the successors, such as EdgeSlots, are indexed from it).
  uint64_t first_edge(NodeIndex node) const noexcept { return forward_.at(node); }

  /// Build the reverse CSR (predecessors). Idempotent. Errors: OutOfMemory.
  [[nodiscard]] Status build_reverse();
  bool has_reverse() const noexcept { return reverse_.present(); }
  /// Return the nodes that reference node. Requires build_reverse().
  std::span<const NodeIndex> predecessors(NodeIndex node) const noexcept {
    const uint64_t begin = reverse_.at(node);
    return {reverse_.items + begin, static_cast<size_t>(reverse_.at(node + 1) - begin)};
  }

  /// Return the roots that resolved to a node, in RootTable order (weak ones included).
  std::span<const GraphRoot> roots() const noexcept { return roots_; }
  /// Return the RootTable positions of roots that are null or point at no walked object.
  std::span<const uint32_t> unresolved_roots() const noexcept { return unresolved_roots_; }
  const GraphBuildStats& stats() const noexcept { return stats_; }

  /// Return the node of the object that starts exactly at address.
  /// Errors: NotFound (no object starts there; interior addresses are not accepted).
  [[nodiscard]] Result<NodeIndex> find_object(uint64_t address) const noexcept;

  /// Return the node of the object that contains address (ObjectTable::find_containing's
  /// meaning), or nullopt.
  std::optional<NodeIndex> find_containing(uint64_t address) const noexcept;

  uint64_t address(NodeIndex node) const noexcept { return addresses_[node]; }
  std::span<const uint64_t> addresses() const noexcept { return {addresses_, node_count_}; }
  uint64_t object_size(NodeIndex node) const noexcept { return sizes_[node]; }
  uint32_t type_id(NodeIndex node) const noexcept { return type_ids_[node]; }
  std::span<const uint64_t> sizes() const noexcept { return {sizes_, node_count_}; }
  std::span<const uint32_t> type_ids() const noexcept { return {type_ids_, node_count_}; }

 private:
  // build(), giving back the pages of OBJECTS' reference targets as they are resolved (an
  // analysis index build that releases the references next; the library's own use).
  static Result<HeapGraph> build_discarding(const ObjectTable& objects, const RootTable& roots,
                                            const DependentHandleTable* dependent, bool discard_targets);

  friend struct detail::AnalysisIndexAccess;
  friend Result<detail::ReverseCsr> detail::make_reverse_csr(const HeapGraph& graph, bool discard_forward);
  struct Storage;  // owns the arrays below (heap_graph.cpp), or keeps a mapped index alive

  // One CSR direction: exactly one of narrow/wide is set while it exists (32-bit offsets
  // while the edge count fits, 8 B per object less for both directions).
  struct Csr {
    const uint32_t* narrow = nullptr;
    const uint64_t* wide = nullptr;
    const NodeIndex* items = nullptr;
    bool present() const noexcept { return narrow != nullptr || wide != nullptr; }
    uint64_t at(size_t i) const noexcept { return narrow ? narrow[i] : wide[i]; }
  };

  size_t node_count_ = 0;
  uint64_t edge_count_ = 0;
  const uint64_t* addresses_ = nullptr;
  const uint64_t* sizes_ = nullptr;
  const uint32_t* type_ids_ = nullptr;
  Csr forward_;
  Csr reverse_;  // absent until build_reverse()
  std::span<const GraphRoot> roots_;
  std::span<const uint32_t> unresolved_roots_;
  // Dependent-handle edges (primary, secondary), sorted: they are the last successors of
  // their primary, so edge_kind can tell them from references.
  std::span<const std::pair<NodeIndex, NodeIndex>> dependent_edges_;
  bool has_dependent_ = false;
  GraphBuildStats stats_;
  std::shared_ptr<Storage> storage_;

  // Point the views at STORAGE's arrays (built in memory).
  void adopt(std::shared_ptr<Storage> storage) noexcept;
  // Take REVERSE as this graph's reverse CSR (built by detail::make_reverse_csr).
  void adopt_reverse(detail::ReverseCsr&& reverse);
};

}  // namespace gcsnap
