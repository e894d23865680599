#pragma once
// The friend of HeapGraph, DominatorTree and EdgeSlots that lets the analysis index read their
// arrays (to write them) and point them at a mapped file (to read them). Internal.
//
// To read an index's arrays without decoding them whole, use detail::IndexPieces
// (index_pieces.hpp): element(array, i) decodes and checks the 1 MiB piece that holds element
// i on first touch (eight pieces cached), find_containing(address) searches the addresses a
// piece at a time, whole_array(array) decodes one array with its checksum. Its public face is
// PointIndex (analysis_index.hpp).

#include <functional>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "analysis/heap_graph_storage.hpp"
#include "gcsnap/dominators.hpp"
#include "gcsnap/edge_names.hpp"
#include "gcsnap/heap_graph.hpp"

namespace gcsnap::detail {

/// One CSR direction as raw arrays: exactly one of narrow/wide is non-empty.
struct CsrArrays {
  std::span<const uint32_t> narrow;
  std::span<const uint64_t> wide;
  std::span<const NodeIndex> items;
};

struct AnalysisIndexAccess {
  static CsrArrays forward(const HeapGraph& g) noexcept { return csr(g, g.forward_, g.edge_count_); }
  static CsrArrays reverse(const HeapGraph& g) noexcept { return csr(g, g.reverse_, g.edge_count_); }
  static std::span<const std::pair<NodeIndex, NodeIndex>> dependent_edges(const HeapGraph& g) noexcept {
    return g.dependent_edges_;
  }
  static const uint64_t* addresses(const HeapGraph& g) noexcept { return g.addresses_; }
  static std::span<const uint32_t> slots(const EdgeSlots& s) noexcept { return s.slots_; }
  /// Take REVERSE (detail::make_reverse_csr of G, built on another thread) as G's reverse CSR.
  static void adopt_reverse(HeapGraph& g, ReverseCsr&& reverse) { g.adopt_reverse(std::move(reverse)); }
  /// HeapGraph::build that gives back the pages of OBJECTS' reference targets as it reads them:
  /// OBJECTS' references must be released after it, unread.
  static Result<HeapGraph> build_graph_discarding(const ObjectTable& objects, const RootTable& roots,
                                                  const DependentHandleTable* dependent) {
    return HeapGraph::build_discarding(objects, roots, dependent, true);
  }
  /// Free G's forward CSR (a build that has written it and has no reader left); G must not be
  /// asked for successors afterwards. Its counts, roots and dependent edges stay.
  static void release_forward(HeapGraph& g) noexcept {
    if (g.storage_) {
      std::vector<NodeIndex>().swap(g.storage_->forward_targets);
      g.storage_->forward_offsets = CsrOffsets();
    }
    g.forward_ = HeapGraph::Csr{};
  }
  /// Free G's reverse CSR (the same, for predecessors).
  static void release_reverse(HeapGraph& g) noexcept {
    if (g.storage_) {
      std::vector<NodeIndex>().swap(g.storage_->reverse_sources);
      g.storage_->reverse_offsets = CsrOffsets();
    }
    g.reverse_ = HeapGraph::Csr{};
  }
  /// DominatorTree::compute with AFTER_DFS called before the reverse CSR is first used.
  static Result<DominatorTree> compute_dominators(const HeapGraph& g, const std::function<Status()>& after_dfs) {
    return DominatorTree::compute_after(g, DominatorOptions{}, after_dfs);
  }
  /// Make a graph built in memory keep the table its columns point into alive.
  static void keep_alive(HeapGraph& g, std::shared_ptr<const void> keep) {
    if (g.storage_) g.storage_->mapping = std::move(keep);
  }

  /// A graph over arrays someone else keeps alive (KEEP); roots, unresolved roots and
  /// dependent edges are copied in (they are small).
  struct GraphParts {
    size_t nodes = 0;
    uint64_t edges = 0;
    const uint64_t* addresses = nullptr;
    const uint64_t* sizes = nullptr;
    const uint32_t* type_ids = nullptr;
    CsrArrays forward, reverse;
    std::vector<GraphRoot> roots;
    std::vector<uint32_t> unresolved_roots;
    std::vector<std::pair<NodeIndex, NodeIndex>> dependent_edges;
    bool has_dependent = false;
    GraphBuildStats stats;
  };
  static HeapGraph make_graph(GraphParts parts, std::shared_ptr<const void> keep) {
    HeapGraph g;
    auto storage = std::make_shared<HeapGraph::Storage>();
    storage->roots = std::move(parts.roots);
    storage->unresolved_roots = std::move(parts.unresolved_roots);
    storage->dependent_edges = std::move(parts.dependent_edges);
    storage->mapping = std::move(keep);
    g.node_count_ = parts.nodes;
    g.edge_count_ = parts.edges;
    g.addresses_ = parts.addresses;
    g.sizes_ = parts.sizes;
    g.type_ids_ = parts.type_ids;
    g.forward_ = view(parts.forward);
    g.reverse_ = view(parts.reverse);
    g.roots_ = storage->roots;
    g.unresolved_roots_ = storage->unresolved_roots;
    g.dependent_edges_ = storage->dependent_edges;
    g.has_dependent_ = parts.has_dependent;
    g.stats_ = parts.stats;
    g.storage_ = std::move(storage);
    return g;
  }
  static DominatorTree make_dominators(std::span<const NodeIndex> idom, std::span<const uint64_t> retained,
                                       std::span<const NodeIndex> preorder, uint64_t reachable_bytes,
                                       uint64_t unreachable_bytes, std::shared_ptr<const void> keep) {
    DominatorTree t;
    t.idom_ = idom;
    t.retained_ = retained;
    t.preorder_ = preorder;
    t.reachable_bytes_ = reachable_bytes;
    t.unreachable_bytes_ = unreachable_bytes;
    t.storage_ = std::move(keep);
    return t;
  }
  static EdgeSlots make_slots(std::span<const uint32_t> slots, std::shared_ptr<const void> keep) {
    EdgeSlots s;
    s.slots_ = slots;
    s.storage_ = std::move(keep);
    return s;
  }

 private:
  static CsrArrays csr(const HeapGraph& g, const HeapGraph::Csr& c, uint64_t edges) noexcept {
    CsrArrays out;
    if (c.narrow) out.narrow = {c.narrow, g.node_count_ + 1};
    if (c.wide) out.wide = {c.wide, g.node_count_ + 1};
    out.items = {c.items, static_cast<size_t>(edges)};
    return out;
  }
  static HeapGraph::Csr view(const CsrArrays& a) noexcept {
    return HeapGraph::Csr{a.narrow.empty() ? nullptr : a.narrow.data(), a.wide.empty() ? nullptr : a.wide.data(),
                          a.items.data()};
  }
};

}  // namespace gcsnap::detail
