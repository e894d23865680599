// Retention paths from an analysis index read a piece at a time (PointIndex, format-spec.md
// §12.4 item 7): the backward search of find_retention_paths over the reverse graph's pieces,
// and the few objects of the paths found as a graph of their own for the printing code.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <unordered_map>

#include "analysis/backward_search.hpp"
#include "analysis_index/index_codec.hpp"
#include "analysis_index/index_access.hpp"
#include "analysis_index/index_array_rules.hpp"
#include "analysis_index/index_pieces.hpp"
#include "gcsnap/analysis_index.hpp"

namespace gcsnap {

namespace L = index_layout;

namespace {

Error out_of_memory() { return make_error(ErrorCode::OutOfMemory, "out of memory reading the analysis index"); }

// How the whole graph holds hop FROM -> TO: HeapGraph::edge_kind and EdgeSlots::slot_of, the
// first of FROM's successors that is TO deciding both.
struct HopFacts {
  EdgeKind kind = EdgeKind::Reference;
  uint32_t slot = kUnknownSlot;
};

Result<HopFacts> hop_facts(detail::IndexPieces& ix, NodeIndex from, NodeIndex to) {
  if (from >= ix.nodes() || to >= ix.nodes()) return make_error(ErrorCode::InvalidArgument, "path hop out of range");
  auto range = ix.edge_range(true, from);
  if (!range) return range.error();
  auto dependent = ix.dependent_edges();
  if (!dependent) return dependent.error();
  const auto same = std::equal_range(dependent->begin(), dependent->end(), std::pair{from, NodeIndex{0}},
                                     [](const auto& a, const auto& b) { return a.first < b.first; });
  const uint64_t dependent_count = static_cast<uint64_t>(same.second - same.first);
  const uint64_t degree = range->second - range->first;
  if (dependent_count > degree)
    return make_error(ErrorCode::CorruptSection, "analysis index dependent edges are not successors");
  for (uint64_t e = range->first; e < range->second; ++e) {
    auto target = ix.element(L::kForwardTargets, e);
    if (!target) return target.error();
    if (*target != to) continue;
    HopFacts facts;
    // A dependent edge only when TO is none of the references (they come first, §12.3).
    if (e - range->first >= degree - dependent_count && std::binary_search(same.first, same.second, std::pair{from, to}))
      facts.kind = EdgeKind::DependentHandle;
    if (ix.facts().counts.flags & L::kFlagSlots) {
      auto slot = ix.element(L::kSlots, e);
      if (!slot) return slot.error();
      facts.slot = static_cast<uint32_t>(*slot);
    }
    return facts;
  }
  return make_error(ErrorCode::InvalidArgument, "path hop is no edge of the graph");
}

// The arrays a PathSubgraph's graph and slots point into.
struct SubgraphArrays {
  std::vector<uint64_t> addresses, sizes;
  std::vector<uint32_t> type_ids, offsets, slots;
  std::vector<NodeIndex> targets;
};

}  // namespace

GraphBuildStats PointIndex::build_stats() const noexcept { return pieces_->facts().stats; }

Result<IndexedObject> PointIndex::object(NodeIndex v) try {
  if (v >= pieces_->nodes()) return make_error(ErrorCode::CorruptSection, "analysis index element out of range");
  return pieces_->object(v);
} catch (const std::bad_alloc&) {
  return out_of_memory();
}

Result<RetentionResult> PointIndex::find_retention_path(NodeIndex target, bool include_weak) try {
  detail::IndexPieces& ix = *pieces_;
  if (target >= ix.nodes()) return make_error(ErrorCode::InvalidArgument, "node index out of range");
  auto roots = ix.roots();
  if (!roots) return roots.error();
  auto predecessors = [&ix](NodeIndex v, auto&& visit) -> Status {
    auto range = ix.edge_range(false, v);
    if (!range) return range.error();
    for (uint64_t e = range->first; e < range->second; ++e) {
      auto p = ix.element(L::kReverseSources, e);
      if (!p) return p.error();
      visit(static_cast<NodeIndex>(*p));
    }
    return Status();
  };
  // As find_retention_paths: a target no strong root reaches gets the weak roots' path.
  auto result = detail::search_backward(static_cast<size_t>(ix.nodes()), roots->first, target,
                                        RetentionOptions{include_weak, 1}, predecessors);
  if (result && result->reachability != Reachability::Strong && !include_weak) {
    result = detail::search_backward(static_cast<size_t>(ix.nodes()), roots->first, target,
                                     RetentionOptions{true, 1}, predecessors);
    if (result && result->reachability == Reachability::Strong) result->reachability = Reachability::WeakOnly;
  }
  if (!result) return result;
  for (RetentionPath& path : result->paths) {
    path.edges.assign(path.hops(), PathHop{});
    for (size_t i = 0; i + 1 < path.nodes.size(); ++i) {
      auto hop = hop_facts(ix, path.nodes[i], path.nodes[i + 1]);
      if (!hop) return hop.error();
      path.edges[i].kind = hop->kind;
    }
  }
  return result;
} catch (const std::bad_alloc&) {
  return out_of_memory();
}

Result<std::vector<NodeIndex>> PointIndex::nodes_of_types(std::span<const uint32_t> types) try {
  detail::IndexPieces& ix = *pieces_;
  std::vector<NodeIndex> out;
  if (types.empty()) return out;
  constexpr size_t kPerPiece = detail::kFrameBytes / 4;
  // One byte per id up to the largest asked for when that is small (writers number their types
  // from 1), else a search per object of another type than the one before.
  constexpr uint32_t kTableIds = uint32_t{1} << 22;
  const uint32_t largest = *std::max_element(types.begin(), types.end());
  std::vector<unsigned char> wanted(largest < kTableIds ? size_t{largest} + 1 : 0, 0);
  for (uint32_t t : types)
    if (t < wanted.size()) wanted[t] = 1;
  uint32_t last_id = 0;
  bool last_match = std::binary_search(types.begin(), types.end(), last_id);
  auto is_wanted = [&](uint32_t id) {
    if (id != last_id) {
      last_id = id;
      last_match = std::binary_search(types.begin(), types.end(), id);
    }
    return last_match;
  };
  std::vector<unsigned char> buffer;
  for (size_t k = 0; uint64_t{k} * kPerPiece < ix.nodes(); ++k) {
    if (Status s = ix.read_piece(L::kTypeIds, k, buffer); !s.is_ok()) return s.error();
    const NodeIndex first = static_cast<NodeIndex>(k * kPerPiece);
    const size_t count = buffer.size() / 4;
    const unsigned char* ids = buffer.data();
    if (!wanted.empty()) {  // the common case, branch-light
      const unsigned char* table = wanted.data();
      const uint32_t table_size = static_cast<uint32_t>(wanted.size());
      for (size_t i = 0; i < count; ++i) {
        const uint32_t id = L::load<uint32_t>(ids + 4 * i);
        if (id < table_size && table[id]) out.push_back(first + static_cast<NodeIndex>(i));
      }
      continue;
    }
    for (size_t i = 0; i < count; ++i)
      if (is_wanted(L::load<uint32_t>(ids + 4 * i))) out.push_back(first + static_cast<NodeIndex>(i));
  }
  return out;
} catch (const std::bad_alloc&) {
  return out_of_memory();
}

namespace {

// The parents of the index's shortest-path tree (§12.3 array 17), each checked as it is read:
// a piece at a time, or decoded whole (4 bytes per object) for many targets, which would touch
// most pieces over and over.
class TreeParents {
 public:
  explicit TreeParents(detail::IndexPieces& ix) : ix_(ix), nodes_(ix.nodes()) {}

  Status read_whole() {
    auto parents = ix_.whole_array(L::kPathParents);
    if (!parents) return parents.error();
    whole_ = std::move(parents).value();
    use_whole_ = true;
    return Status::ok();
  }

  uint64_t nodes() const noexcept { return nodes_; }

  Result<NodeIndex> of(NodeIndex v) {
    NodeIndex p = 0;
    if (use_whole_) {
      p = L::load<uint32_t>(whole_.data() + size_t{v} * 4);
    } else {
      auto e = ix_.element(L::kPathParents, v);
      if (!e) return e.error();
      p = static_cast<NodeIndex>(*e);
    }
    if (!index_rules::is_path_parent(p, nodes_))
      return make_error(ErrorCode::CorruptSection, index_rules::kPathParentRule);
    return p;
  }

  // V's hops to its root's object (ShortestPathTree::hops_to), or SIZE_MAX when it has none or
  // more than LIMIT (at most the node count: a forged cycle ends there).
  Result<size_t> hops_to(NodeIndex v, size_t limit) {
    for (size_t hops = 0;; ++hops) {
      auto p = of(v);
      if (!p) return p.error();
      if (*p == ShortestPathTree::kRootMark) return hops;
      if (*p == kNoNode || hops >= limit) return SIZE_MAX;
      v = *p;
    }
  }

 private:
  detail::IndexPieces& ix_;
  uint64_t nodes_;
  std::vector<unsigned char> whole_;
  bool use_whole_ = false;
};

// The N nearest of TARGETS that the tree reaches (all with N 0) as (hops, node), fewest hops
// first and in TARGETS' order among equals; *REACHED counts the targets it reaches.
Result<std::vector<std::pair<size_t, NodeIndex>>> nearest_targets(TreeParents& parents,
                                                                  std::span<const NodeIndex> targets, size_t n,
                                                                  uint64_t* reached) {
  std::vector<std::pair<size_t, NodeIndex>> best;  // (hops, node); a max-heap of N when N > 0
  for (NodeIndex t : targets) {
    if (t >= parents.nodes()) return make_error(ErrorCode::InvalidArgument, "node index out of range");
    auto p = parents.of(t);
    if (!p) return p.error();
    if (*p == kNoNode) continue;
    ++*reached;
    // Full: only fewer hops than the farthest kept displaces it (targets come in order).
    size_t limit = static_cast<size_t>(parents.nodes());
    if (n != 0 && best.size() == n) {
      if (best.front().first == 0) continue;
      limit = best.front().first - 1;
    }
    auto hops = parents.hops_to(t, limit);
    if (!hops) return hops.error();
    if (*hops == SIZE_MAX) continue;
    best.emplace_back(*hops, t);
    if (n == 0) continue;
    std::push_heap(best.begin(), best.end());
    if (best.size() > n) {
      std::pop_heap(best.begin(), best.end());
      best.pop_back();
    }
  }
  std::sort(best.begin(), best.end());
  return best;
}

// The tree's path of HOPS hops to T, from the first strong root in priority order (then root
// table order) whose object its first node is, with the kinds of its hops.
Result<RetentionPath> tree_path(detail::IndexPieces& ix, TreeParents& parents, const std::vector<GraphRoot>& roots,
                                size_t hops, NodeIndex t) {
  RetentionPath path;
  path.nodes.resize(hops + 1);
  NodeIndex v = t;
  for (size_t i = hops; i > 0; --i) {
    path.nodes[i] = v;
    auto p = parents.of(v);
    if (!p) return p.error();
    if (*p >= parents.nodes()) return make_error(ErrorCode::CorruptSection, index_rules::kPathParentRule);
    v = *p;
  }
  path.nodes[0] = v;
  // HOPS long: its first node is a root's object (a stored hop count is checked here).
  auto top = parents.of(v);
  if (!top) return top.error();
  if (*top != ShortestPathTree::kRootMark) return make_error(ErrorCode::CorruptSection, index_rules::kPathParentRule);
  uint32_t root = 0;
  bool have = false;
  for (uint32_t r = 0; r < roots.size(); ++r) {
    if (roots[r].is_weak() || roots[r].node != v) continue;
    if (!have || root_priority(roots[r]) < root_priority(roots[root])) root = r;
    have = true;
  }
  path.root = root;
  path.edges.assign(path.hops(), PathHop{});
  for (size_t i = 0; i + 1 < path.nodes.size(); ++i) {
    auto hop = hop_facts(ix, path.nodes[i], path.nodes[i + 1]);
    if (!hop) return hop.error();
    path.edges[i].kind = hop->kind;
  }
  return path;
}

}  // namespace

Result<IndexedTreePaths> PointIndex::nearest_tree_paths(std::span<const NodeIndex> targets, size_t n) try {
  detail::IndexPieces& ix = *pieces_;
  TreeParents parents(ix);
  if (targets.size() > kChaseThroughPieces) GCSNAP_RETURN_IF_ERROR(parents.read_whole());
  IndexedTreePaths out;
  auto best = nearest_targets(parents, targets, n, &out.reached);
  if (!best) return best.error();
  auto all_roots = ix.roots();
  if (!all_roots) return all_roots.error();
  for (const auto& [hops, t] : *best) {
    auto path = tree_path(ix, parents, all_roots->first, hops, t);
    if (!path) return path.error();
    out.paths.push_back(std::move(path).value());
  }
  return out;
} catch (const std::bad_alloc&) {
  return out_of_memory();
}

Result<IndexedTreePaths> PointIndex::tree_paths_of(std::span<const NearestInstance> chosen) try {
  detail::IndexPieces& ix = *pieces_;
  TreeParents parents(ix);
  auto all_roots = ix.roots();
  if (!all_roots) return all_roots.error();
  IndexedTreePaths out;
  for (const NearestInstance& c : chosen) {
    if (c.node >= ix.nodes() || c.hops >= ix.nodes())
      return make_error(ErrorCode::InvalidArgument, "node index out of range");
    auto path = tree_path(ix, parents, all_roots->first, c.hops, c.node);
    if (!path) return path.error();
    out.paths.push_back(std::move(path).value());
  }
  return out;
} catch (const std::bad_alloc&) {
  return out_of_memory();
}

namespace {

// A hop of the paths between two subgraph nodes, as the whole graph holds it.
struct SubgraphHop {
  NodeIndex from, to;
  HopFacts facts;
};

// Some paths renumbered into a subgraph's nodes and roots, with their distinct hops.
struct SubgraphPaths {
  std::vector<NodeIndex> nodes;  // subgraph node -> node of the whole graph
  std::vector<GraphRoot> roots;
  std::vector<SubgraphHop> hops;
  std::vector<RetentionPath> paths;
};

// PATHS in nodes and roots of their own, in the order they first appear (ROOTS: the index's).
Result<SubgraphPaths> renumber_paths(detail::IndexPieces& ix, const std::vector<GraphRoot>& roots,
                                     const std::vector<RetentionPath>& paths) {
  SubgraphPaths out;
  std::unordered_map<NodeIndex, NodeIndex> local;
  auto local_of = [&](NodeIndex v) {
    auto [it, added] = local.try_emplace(v, static_cast<NodeIndex>(out.nodes.size()));
    if (added) out.nodes.push_back(v);
    return it->second;
  };
  std::unordered_map<uint32_t, uint32_t> local_root;
  for (const RetentionPath& path : paths) {
    if (path.root >= roots.size()) return make_error(ErrorCode::InvalidArgument, "path root out of range");
    RetentionPath sub;
    for (NodeIndex v : path.nodes) {
      if (v >= ix.nodes()) return make_error(ErrorCode::InvalidArgument, "path node out of range");
      sub.nodes.push_back(local_of(v));
    }
    auto [it, added] = local_root.try_emplace(path.root, static_cast<uint32_t>(out.roots.size()));
    if (added) {
      GraphRoot r = roots[path.root];
      r.node = local_of(r.node);
      out.roots.push_back(r);
    }
    sub.root = it->second;
    sub.edges = path.edges;
    auto& hops = out.hops;
    for (size_t i = 0; i + 1 < path.nodes.size(); ++i) {
      const NodeIndex a = sub.nodes[i], b = sub.nodes[i + 1];
      if (std::any_of(hops.begin(), hops.end(), [&](const SubgraphHop& h) { return h.from == a && h.to == b; }))
        continue;
      auto facts = hop_facts(ix, path.nodes[i], path.nodes[i + 1]);
      if (!facts) return facts.error();
      hops.push_back({a, b, *facts});
    }
    out.paths.push_back(std::move(sub));
  }
  return out;
}

// The graph of SP: the forward CSR of its hops (each node's references, then its dependent
// edges, §12.3), its nodes' columns read from the index, its roots.
Result<PathSubgraph> make_subgraph(detail::IndexPieces& ix, SubgraphPaths& sp) {
  PathSubgraph out;
  out.paths = std::move(sp.paths);
  std::stable_sort(sp.hops.begin(), sp.hops.end(), [](const SubgraphHop& x, const SubgraphHop& y) {
    return std::pair{x.from, x.facts.kind == EdgeKind::DependentHandle} <
           std::pair{y.from, y.facts.kind == EdgeKind::DependentHandle};
  });
  auto arrays = std::make_shared<SubgraphArrays>();
  detail::AnalysisIndexAccess::GraphParts parts;
  arrays->offsets.assign(sp.nodes.size() + 1, 0);
  for (const SubgraphHop& h : sp.hops) {
    ++arrays->offsets[h.from + 1];
    arrays->targets.push_back(h.to);
    arrays->slots.push_back(h.facts.slot);
    if (h.facts.kind == EdgeKind::DependentHandle) parts.dependent_edges.emplace_back(h.from, h.to);
  }
  std::sort(parts.dependent_edges.begin(), parts.dependent_edges.end());
  for (size_t v = 0; v < sp.nodes.size(); ++v) arrays->offsets[v + 1] += arrays->offsets[v];
  for (NodeIndex v : sp.nodes) {
    auto o = ix.object(v);
    if (!o) return o.error();
    arrays->addresses.push_back(o->address);
    arrays->sizes.push_back(o->size);
    arrays->type_ids.push_back(o->type_id);
    out.generations.push_back(o->generation);
  }
  parts.nodes = sp.nodes.size();
  parts.edges = sp.hops.size();
  parts.addresses = arrays->addresses.data();
  parts.sizes = arrays->sizes.data();
  parts.type_ids = arrays->type_ids.data();
  parts.forward.narrow = arrays->offsets;
  parts.forward.items = arrays->targets;
  parts.roots = std::move(sp.roots);
  parts.has_dependent = ix.facts().has_dependent_handles;
  parts.stats = ix.facts().stats;
  if (ix.facts().counts.flags & L::kFlagSlots)
    out.slots = detail::AnalysisIndexAccess::make_slots(arrays->slots, arrays);
  out.graph = detail::AnalysisIndexAccess::make_graph(std::move(parts), arrays);
  return out;
}

}  // namespace

Result<PathSubgraph> PointIndex::path_subgraph(const std::vector<RetentionPath>& paths) try {
  detail::IndexPieces& ix = *pieces_;
  auto all_roots = ix.roots();
  if (!all_roots) return all_roots.error();
  auto sp = renumber_paths(ix, all_roots->first, paths);
  if (!sp) return sp.error();
  return make_subgraph(ix, *sp);
} catch (const std::bad_alloc&) {
  return out_of_memory();
}

}  // namespace gcsnap
