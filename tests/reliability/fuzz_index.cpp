// Fuzz target: the analysis index decoder (format-spec.md §12.4). Each input is tried as is
// (the checksums stop almost every mutation) and again with its header and array checksums
// recomputed, so that mutations reach the structural checks. Whatever is accepted is then used
// the way the commands use it: every successor and predecessor, dominator depths, the type
// histogram over the dominator tree, edge kinds, one retention path, and the paths of the kept
// shortest-path tree. None of it may crash,
// hang or read outside the input.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "gcsnap/analysis_index.hpp"
#include "gcsnap/retainer_chains.hpp"
#include "gcsnap/retention.hpp"
#include "analysis_index/index_layout.hpp"

using namespace gcsnap;

namespace {

void use_paths(const AnalysisIndex& ix);

void use(const AnalysisIndex& ix) {
  const HeapGraph& g = ix.graph;
  uint64_t sink = 0;
  for (NodeIndex v = 0; v < g.node_count(); ++v) {
    for (NodeIndex s : g.successors(v)) {
      if (s >= g.node_count()) __builtin_trap();
      sink += static_cast<uint64_t>(g.edge_kind(v, s));
    }
    for (NodeIndex p : g.predecessors(v))
      if (p >= g.node_count()) __builtin_trap();
    sink += ix.dominators.depth(v) + ix.dominators.retained_size(v) + static_cast<uint8_t>(ix.generations[v]);
  }
  (void)ix.dominators.top_retainers(3);
  (void)build_type_histogram(g, &ix.dominators, TypeHistogramOptions{TypeOrder::RetainedBytes, 5});
  if (g.node_count() > 0) {
    (void)find_retention_paths(g, static_cast<NodeIndex>(g.node_count() - 1), RetentionOptions{});
    (void)find_retention_paths(g, 0, RetentionOptions{false, 0});
  }
  use_paths(ix);
  volatile uint64_t keep = sink;
  (void)keep;
}

// What diff uses: the shortest-path tree over the forward graph, every node's path (bounded:
// a forged tree may hold a cycle, which must give an empty path, not a hang).
void use_paths(const AnalysisIndex& ix) {
  auto tree = ShortestPathTree::from_parents(ix.graph, ix.path_parents, ix.graph.node_count(), nullptr);
  if (!tree) return;
  uint64_t sink = 0;
  for (NodeIndex v = 0; v < ix.graph.node_count() && v < 4096; ++v) {
    const RetentionPath path = tree->path_to(v);
    for (NodeIndex n : path.nodes)
      if (n >= ix.graph.node_count()) __builtin_trap();
    sink += path.nodes.size() + path.root;
  }
  volatile uint64_t keep = sink;
  (void)keep;
}

// What dominators --by object and where use: node columns and the dominator tree, no CSR.
void use_partial(const AnalysisIndex& ix) {
  const HeapGraph& g = ix.graph;
  uint64_t sink = 0;
  for (NodeIndex v = 0; v < g.node_count(); ++v)
    sink += g.address(v) + g.object_size(v) + g.type_id(v) + ix.dominators.depth(v) +
            ix.dominators.retained_size(v) + ix.dominators.is_reachable(v) + static_cast<uint8_t>(ix.generations[v]);
  for (NodeIndex v : ix.dominators.top_retainers(3)) sink += ix.dominators.immediate_dominator(v);
  if (g.node_count() > 0) sink += g.find_containing(g.address(0)).value_or(0);
  volatile uint64_t keep = sink;
  (void)keep;
}

// What path ADDR and dominators --top use: the backward search and the top retainers read a
// piece at a time. Hostile pieces give an error or an answer, never a crash or a hang; from an
// index the whole read (every part) accepted, the answers of the graph read whole.
// What dominators --by type, --top and path --type read: the histogram and the holder table,
// largest heads and nearest instances (array 18), which the point reader must give as the whole read does; the
// paths of the nearest instances a piece at a time.
void use_holders(PointIndex& index, const AnalysisIndex* whole) {
  auto stats = index.type_stats();
  if (whole && !stats) __builtin_trap();
  if (!stats) return;
  auto rows = index.type_holders(*stats);
  if (whole && (!rows || *rows != whole->type_holders)) __builtin_trap();
  auto heads = index.largest_heads();
  if (whole && (!heads || *heads != whole->largest_heads)) __builtin_trap();
  auto nearest = index.nearest_instances(*stats);
  if (whole && (!nearest || *nearest != whole->nearest_instances)) __builtin_trap();
  if (!nearest || !*nearest) return;
  const auto& kept = (*nearest)->rows;
  (void)index.tree_paths_of(std::span(kept).first(std::min<size_t>(kept.size(), 8)));
}

void use_point_queries(PointIndex& index, const AnalysisIndex* whole) {
  use_holders(index, whole);
  const uint64_t n = index.node_count();
  // top_retainers passes over every node: a small file may claim millions of nodes in pieces of a few bytes.
  if (!whole && n > 4096) return;
  for (NodeIndex v = 0; v < n && v < 16; ++v) {
    auto found = index.find_retention_path(v, false);
    if (whole && !found) __builtin_trap();
    if (!found) continue;
    if (whole) {
      auto expected = find_retention_paths(whole->graph, v, RetentionOptions{});
      if (!expected || expected->reachability != found->reachability || expected->paths.size() != found->paths.size())
        __builtin_trap();
      for (size_t p = 0; p < found->paths.size(); ++p)
        if (expected->paths[p].nodes != found->paths[p].nodes || expected->paths[p].root != found->paths[p].root)
          __builtin_trap();
    }
    auto sub = index.path_subgraph(found->paths);
    if (whole && !sub) __builtin_trap();
  }
  // What path --type uses: the type ids in one pass, the tree's parents a piece at a time or
  // whole. A tree the whole read accepts may still hold a hop that is no edge (an error here:
  // the CLI then reads the index whole); any path given must be the whole tree's.
  if (auto types = index.type_ids(); types && !types->empty()) {
    auto nodes = index.nodes_of_types(*types);
    if (whole && !nodes) __builtin_trap();
    if (nodes) {
      std::optional<ShortestPathTree> tree;
      if (whole)
        if (auto t = kept_path_tree(*whole, whole->graph)) tree = std::move(t).value();
      for (size_t limit : {size_t{1}, size_t{4}}) {
        auto nearest = index.nearest_tree_paths(*nodes, limit);
        if (!nearest || !tree) continue;
        size_t previous = 0;
        for (const RetentionPath& p : nearest->paths) {
          const RetentionPath expected = tree->path_to(p.nodes.back());
          if (expected.nodes != p.nodes || expected.root != p.root || p.hops() < previous) __builtin_trap();
          previous = p.hops();
        }
      }
    }
  }
  for (bool fold : {true, false}) {
    auto top = index.top_retainers(5, {}, fold);
    if (whole && !top) __builtin_trap();
    if (!whole || !top) continue;
    std::vector<NodeIndex> heads;
    if (fold) {
      auto chains = top_retainer_chains(whole->graph, whole->dominators, 5, {});
      if (!chains) __builtin_trap();
      for (const RetainerChain& c : *chains) heads.push_back(c.head);
    } else {
      heads = whole->dominators.top_retainers(5);
    }
    if (heads.size() != top->size()) __builtin_trap();
    for (size_t i = 0; i < heads.size(); ++i)
      if ((*top)[i].object.node != heads[i] || (*top)[i].depth != whole->dominators.depth(heads[i])) __builtin_trap();
  }
}

// What where uses: a point lookup that decodes only the pieces it reads. It may accept an
// index whose other pieces are damaged; when the whole read accepted it (WHOLE), it must give
// the same answer as the whole read's graph.
void use_lookup(std::span<const std::byte> view, const AnalysisIndex* whole) {
  std::vector<uint64_t> queries = {0, 1, 0x1000, ~uint64_t{0}};
  if (whole)
    for (NodeIndex v = 0; v < whole->graph.node_count() && v < 64; ++v) {
      queries.push_back(whole->graph.address(v));
      queries.push_back(whole->graph.address(v) + 1);
    }
  auto index = PointIndex::from_bytes(view, nullptr, nullptr);
  if (!index) {
    if (whole) __builtin_trap();  // the same header checks
    return;
  }
  if (auto roots = index->roots(); whole && (!roots || roots->first.size() != whole->graph.roots().size()))
    __builtin_trap();
  for (uint64_t q : queries) {
    auto found = index->find_object(q);
    if (!whole) continue;
    if (!found) __builtin_trap();  // every piece passed the whole read's checks
    const auto expected = whole->graph.find_containing(q);
    if (found->has_value() != expected.has_value()) __builtin_trap();
    if (!expected) continue;
    auto type = index->type_id(*expected);
    if ((*found)->node != *expected || (*found)->reachable != whole->dominators.is_reachable(*expected) || !type ||
        *type != whole->graph.type_id(*expected))
      __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace L = index_layout;
  // Aligned copies: the decoder uses the arrays in place, as it does on a mapping.
  std::vector<uint64_t> storage((size + 7) / 8 + 1);
  auto* bytes = reinterpret_cast<unsigned char*>(storage.data());
  if (size) std::memcpy(bytes, data, size);
  const std::span<const std::byte> view(reinterpret_cast<const std::byte*>(bytes), size);
  auto whole = analysis_index_from_bytes(view, nullptr);
  if (whole) use(*whole);
  if (auto index = PointIndex::from_bytes(view, nullptr, nullptr)) use_point_queries(*index, whole ? &*whole : nullptr);
  // Partial reads (what types, dominators and where ask for) check only their arrays.
  if (auto ix = analysis_index_from_bytes(view, nullptr, kIndexTypes)) (void)ix->type_stats.size();
  if (auto ix = analysis_index_from_bytes(view, nullptr, kIndexHolders); ix && ix->type_holders)
    for (const IndexedTypeHolder& h : *ix->type_holders) (void)h.cell.text.size();
  if (auto ix = analysis_index_from_bytes(view, nullptr, kIndexObjects | kIndexDominators)) {
    use_partial(*ix);
    use_lookup(view, &*ix);
  } else {
    use_lookup(view, nullptr);
  }
  if (auto ix = analysis_index_from_bytes(view, nullptr, kIndexObjects | kIndexPathTree)) use_paths(*ix);
  if (size >= L::kHeaderSize) {
    // Every array's checksum as the counts of the (mutated) header place it, then the header's.
    L::Counts c;
    std::memcpy(&c.flags, bytes + L::kOffFlags, 4);
    const size_t count_offsets[] = {L::kOffNodes, L::kOffEdges, L::kOffRoots, L::kOffUnresolved,
                                    L::kOffDependent, L::kOffPreorder, L::kOffTypes};
    uint64_t* counts[] = {&c.nodes, &c.edges, &c.roots, &c.unresolved, &c.dependent, &c.preorder, &c.types};
    for (size_t i = 0; i < 7; ++i) std::memcpy(counts[i], bytes + count_offsets[i], 8);
    uint32_t holder_counts[4];
    std::memcpy(holder_counts, bytes + L::kOffHolderRows, 16);
    c.holder_rows = holder_counts[0];
    c.holder_text = holder_counts[1];
    c.nearest_rows = holder_counts[2];
    c.nearest_per_type = holder_counts[3];
    if (const auto place = L::place(c)) {
      for (size_t a = 0; a < L::kArrayCount; ++a) {
        if (place->offset[a] > size || place->bytes[a] > size - place->offset[a]) continue;
        const uint64_t hash = XXH3_64bits(bytes + place->offset[a], static_cast<size_t>(place->bytes[a]));
        std::memcpy(bytes + L::hash_offset(a), &hash, 8);
      }
    }
    const uint64_t header = XXH3_64bits(bytes, L::kOffHeaderHash);
    std::memcpy(bytes + L::kOffHeaderHash, &header, 8);
    auto all = analysis_index_from_bytes(view, nullptr);
  if (all) use(*all);
  if (auto index = PointIndex::from_bytes(view, nullptr, nullptr)) use_point_queries(*index, all ? &*all : nullptr);
    if (auto ix = analysis_index_from_bytes(view, nullptr, kIndexObjects | kIndexDominators)) use_partial(*ix);
    if (auto ix = analysis_index_from_bytes(view, nullptr, kIndexObjects | kIndexPathTree)) use_paths(*ix);
  }
  return 0;
}
