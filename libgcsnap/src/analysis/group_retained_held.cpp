// group_retained_bytes without the whole graph's dominator tree (group_retained.hpp): a tree
// over the part of the graph that the members hold alone is enough.
//
// Let F be the objects reachable from the roots without passing through a member, and H the
// other reachable ones (the members among them). Whatever a member dominates is in H (every
// path to it passes a member). A path from a root to an object of H leaves F for the last
// time at an edge into H, and an edge out of F into H ends at a member (any other object
// would be in F): call those members, and the members that are roots, the entries. So the
// paths that matter are the paths inside H from an entry, and for objects d and v of H, d
// dominates v in the graph exactly when it does in H with a virtual root above the entries:
// the same subtrees, the same retained sizes, the same members above each member.
#include "analysis/group_retained.hpp"

#include <new>

#include "analysis/bfs_prefetch.hpp"
#include "analysis_index/index_access.hpp"
#include "huge_pages.hpp"

namespace gcsnap::detail {
namespace {

constexpr uint32_t kUnseen = 0xFFFFFFFFu;
constexpr uint32_t kFree = 0xFFFFFFFEu;  // in F; below it: an object of H, by its number there

// H's objects, numbered: the entries first, then in the order their paths from them find them.
struct HeldPart {
  std::vector<NodeIndex> nodes;
  size_t entries = 0;
  std::vector<uint32_t> number;  // per node: kUnseen, kFree or its number in H
};

HeldPart find_held_part(const HeapGraph& graph, bool include_weak, std::span<const uint32_t> group_of_node) {
  HeldPart h;
  assign_huge(h.number, graph.node_count(), kUnseen);
  std::vector<NodeIndex> queue;
  auto reach = [&](NodeIndex w) {
    if (h.number[w] != kUnseen) return;
    if (group_of_node[w] == kNoGroup) {
      h.number[w] = kFree;
      queue.push_back(w);
      return;
    }
    h.number[w] = static_cast<uint32_t>(h.nodes.size());
    h.nodes.push_back(w);
  };
  for (const GraphRoot& root : graph.roots())
    if (include_weak || !root.is_weak()) reach(root.node);
  // Both searches wait on a cache miss for most edges without their loads started ahead.
  const BfsPrefetch prefetch(graph);
  const uint32_t* number = h.number.data();
  auto touch = [&](NodeIndex w) {
    prefetch_line(number + w);
    prefetch_line(group_of_node.data() + w);
  };
  for (size_t head = 0; head < queue.size(); ++head) {
    prefetch.ahead(queue, head, touch);
    for (const NodeIndex w : graph.successors(queue[head])) reach(w);
  }
  std::vector<NodeIndex>().swap(queue);
  h.entries = h.nodes.size();
  for (size_t i = 0; i < h.nodes.size(); ++i) {
    prefetch.ahead(h.nodes, i, [&](NodeIndex w) { prefetch_line(number + w); });
    for (const NodeIndex w : graph.successors(h.nodes[i]))
      if (h.number[w] == kUnseen) {
        h.number[w] = static_cast<uint32_t>(h.nodes.size());
        h.nodes.push_back(w);
      }
  }
  return h;
}

// H as a graph of its own (both ways, each entry a root) with the objects' sizes.
struct HeldGraph {
  std::vector<uint64_t> forward_offsets, reverse_offsets, sizes;
  std::vector<NodeIndex> forward, reverse;
  HeapGraph graph;
};

void build_held_graph(const HeapGraph& graph, const HeldPart& h, HeldGraph& out) {
  const size_t m = h.nodes.size();
  out.forward_offsets.assign(m + 1, 0);
  out.reverse_offsets.assign(m + 1, 0);
  out.sizes.resize(m);
  for (size_t i = 0; i < m; ++i) {
    out.sizes[i] = graph.object_size(h.nodes[i]);
    for (const NodeIndex w : graph.successors(h.nodes[i])) {
      if (h.number[w] >= kFree) continue;  // F: no path that matters goes on from there
      out.forward.push_back(h.number[w]);
      ++out.reverse_offsets[h.number[w] + 1];
    }
    out.forward_offsets[i + 1] = out.forward.size();
  }
  for (size_t i = 0; i < m; ++i) out.reverse_offsets[i + 1] += out.reverse_offsets[i];
  out.reverse.resize(out.forward.size());
  std::vector<uint64_t> next(out.reverse_offsets.begin(), out.reverse_offsets.end() - 1);
  for (size_t i = 0; i < m; ++i)
    for (uint64_t e = out.forward_offsets[i]; e < out.forward_offsets[i + 1]; ++e)
      out.reverse[next[out.forward[e]]++] = static_cast<NodeIndex>(i);
  AnalysisIndexAccess::GraphParts parts;
  parts.nodes = m;
  parts.edges = out.forward.size();
  parts.sizes = out.sizes.data();
  parts.forward = CsrArrays{{}, out.forward_offsets, out.forward};
  parts.reverse = CsrArrays{{}, out.reverse_offsets, out.reverse};
  for (uint32_t i = 0; i < h.entries; ++i) parts.roots.push_back(GraphRoot{i, RootKind::Other, 0, i, i});
  out.graph = AnalysisIndexAccess::make_graph(std::move(parts), nullptr);
}

}  // namespace

std::vector<uint64_t> group_retained_bytes(const HeapGraph& graph, bool include_weak,
                                           std::span<const uint32_t> group_of_node, size_t group_count) {
  HeldPart held = find_held_part(graph, include_weak, group_of_node);
  HeldGraph g;
  build_held_graph(graph, held, g);
  std::vector<uint32_t>().swap(held.number);
  auto dom = DominatorTree::compute(g.graph);
  if (!dom) throw std::bad_alloc();  // the graph has its reverse CSR: only OutOfMemory is left
  std::vector<uint32_t> group_of_held(held.nodes.size());
  for (size_t i = 0; i < held.nodes.size(); ++i) group_of_held[i] = group_of_node[held.nodes[i]];
  return group_retained_bytes(*dom, group_of_held, group_count);
}

}  // namespace gcsnap::detail
