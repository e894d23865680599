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

Result<IndexedTreePaths> PointIndex::nearest_tree_paths(std::span<const NodeIndex> targets, size_t n) try {
  detail::IndexPieces& ix = *pieces_;
  const uint64_t nodes = ix.nodes();
  constexpr NodeIndex kRootMark = ShortestPathTree::kRootMark;
  // Many targets would touch most pieces of the parents, over and over: decode them once.
  std::vector<unsigned char> whole;
  const bool use_whole = targets.size() > kChaseThroughPieces;
  if (use_whole) {
    auto parents = ix.whole_array(L::kPathParents);
    if (!parents) return parents.error();
    whole = std::move(parents).value();
  }
  auto parent = [&](NodeIndex v) -> Result<NodeIndex> {
    NodeIndex p = 0;
    if (use_whole) {
      p = L::load<uint32_t>(whole.data() + size_t{v} * 4);
    } else {
      auto e = ix.element(L::kPathParents, v);
      if (!e) return e.error();
      p = static_cast<NodeIndex>(*e);
    }
    if (p >= nodes && p != kRootMark && p != kNoNode)  // §12.3: a node or a mark
      return make_error(ErrorCode::CorruptSection, "analysis index shortest-path parent out of range");
    return p;
  };
  // V's hops to its root's object (ShortestPathTree::hops_to), or SIZE_MAX when it has none or
  // more than LIMIT (at most n: a forged cycle ends there).
  auto hops_to = [&](NodeIndex v, size_t limit) -> Result<size_t> {
    for (size_t hops = 0;; ++hops) {
      auto p = parent(v);
      if (!p) return p.error();
      if (*p == kRootMark) return hops;
      if (*p == kNoNode || hops >= limit) return SIZE_MAX;
      v = *p;
    }
  };
  IndexedTreePaths out;
  std::vector<std::pair<size_t, NodeIndex>> best;  // (hops, node); a max-heap of N when N > 0
  for (NodeIndex t : targets) {
    if (t >= nodes) return make_error(ErrorCode::InvalidArgument, "node index out of range");
    auto p = parent(t);
    if (!p) return p.error();
    if (*p == kNoNode) continue;
    ++out.reached;
    // Full: only fewer hops than the farthest kept displaces it (targets come in order).
    size_t limit = static_cast<size_t>(nodes);
    if (n != 0 && best.size() == n) {
      if (best.front().first == 0) continue;
      limit = best.front().first - 1;
    }
    auto hops = hops_to(t, limit);
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
  auto all_roots = ix.roots();
  if (!all_roots) return all_roots.error();
  const std::vector<GraphRoot>& roots = all_roots->first;
  for (const auto& [hops, t] : best) {
    RetentionPath path;
    path.nodes.resize(hops + 1);
    NodeIndex v = t;
    for (size_t i = hops; i > 0; --i) {
      path.nodes[i] = v;
      auto p = parent(v);
      if (!p) return p.error();
      v = *p;
    }
    path.nodes[0] = v;
    // The first strong root in priority order (then root table order) whose object it is.
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
    out.paths.push_back(std::move(path));
  }
  return out;
} catch (const std::bad_alloc&) {
  return out_of_memory();
}

Result<PathSubgraph> PointIndex::path_subgraph(const std::vector<RetentionPath>& paths) try {
  detail::IndexPieces& ix = *pieces_;
  auto all_roots = ix.roots();
  if (!all_roots) return all_roots.error();
  const std::vector<GraphRoot>& roots = all_roots->first;
  PathSubgraph out;
  std::vector<NodeIndex> nodes;  // subgraph node -> node of the whole graph
  std::unordered_map<NodeIndex, NodeIndex> local;
  auto local_of = [&](NodeIndex v) {
    auto [it, added] = local.try_emplace(v, static_cast<NodeIndex>(nodes.size()));
    if (added) nodes.push_back(v);
    return it->second;
  };
  std::unordered_map<uint32_t, uint32_t> local_root;
  std::vector<GraphRoot> sub_roots;
  struct Hop {
    NodeIndex from, to;
    HopFacts facts;
  };
  std::vector<Hop> hops;
  for (const RetentionPath& path : paths) {
    if (path.root >= roots.size()) return make_error(ErrorCode::InvalidArgument, "path root out of range");
    RetentionPath sub;
    for (NodeIndex v : path.nodes) {
      if (v >= ix.nodes()) return make_error(ErrorCode::InvalidArgument, "path node out of range");
      sub.nodes.push_back(local_of(v));
    }
    auto [it, added] = local_root.try_emplace(path.root, static_cast<uint32_t>(sub_roots.size()));
    if (added) {
      GraphRoot r = roots[path.root];
      r.node = local_of(r.node);
      sub_roots.push_back(r);
    }
    sub.root = it->second;
    sub.edges = path.edges;
    for (size_t i = 0; i + 1 < path.nodes.size(); ++i) {
      const NodeIndex a = sub.nodes[i], b = sub.nodes[i + 1];
      if (std::any_of(hops.begin(), hops.end(), [&](const Hop& h) { return h.from == a && h.to == b; })) continue;
      auto facts = hop_facts(ix, path.nodes[i], path.nodes[i + 1]);
      if (!facts) return facts.error();
      hops.push_back({a, b, *facts});
    }
    out.paths.push_back(std::move(sub));
  }
  // The forward CSR of the hops: each node's references, then its dependent edges (§12.3).
  std::stable_sort(hops.begin(), hops.end(), [](const Hop& x, const Hop& y) {
    return std::pair{x.from, x.facts.kind == EdgeKind::DependentHandle} <
           std::pair{y.from, y.facts.kind == EdgeKind::DependentHandle};
  });
  auto arrays = std::make_shared<SubgraphArrays>();
  detail::AnalysisIndexAccess::GraphParts parts;
  arrays->offsets.assign(nodes.size() + 1, 0);
  for (const Hop& h : hops) {
    ++arrays->offsets[h.from + 1];
    arrays->targets.push_back(h.to);
    arrays->slots.push_back(h.facts.slot);
    if (h.facts.kind == EdgeKind::DependentHandle) parts.dependent_edges.emplace_back(h.from, h.to);
  }
  std::sort(parts.dependent_edges.begin(), parts.dependent_edges.end());
  for (size_t v = 0; v < nodes.size(); ++v) arrays->offsets[v + 1] += arrays->offsets[v];
  for (NodeIndex v : nodes) {
    auto o = ix.object(v);
    if (!o) return o.error();
    arrays->addresses.push_back(o->address);
    arrays->sizes.push_back(o->size);
    arrays->type_ids.push_back(o->type_id);
    out.generations.push_back(o->generation);
  }
  parts.nodes = nodes.size();
  parts.edges = hops.size();
  parts.addresses = arrays->addresses.data();
  parts.sizes = arrays->sizes.data();
  parts.type_ids = arrays->type_ids.data();
  parts.forward.narrow = arrays->offsets;
  parts.forward.items = arrays->targets;
  parts.roots = std::move(sub_roots);
  parts.has_dependent = ix.facts().has_dependent_handles;
  parts.stats = ix.facts().stats;
  if (ix.facts().counts.flags & L::kFlagSlots)
    out.slots = detail::AnalysisIndexAccess::make_slots(arrays->slots, arrays);
  out.graph = detail::AnalysisIndexAccess::make_graph(std::move(parts), arrays);
  return out;
} catch (const std::bad_alloc&) {
  return out_of_memory();
}

}  // namespace gcsnap
