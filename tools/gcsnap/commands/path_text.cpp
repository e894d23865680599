#include "commands/path_text.hpp"

#include <algorithm>
#include <map>
#include <new>

#include <fmt/format.h>

#include "gcsnap/holder_patterns.hpp"
#include "output/short_names.hpp"

namespace gcsnap::cli {

bool is_dependent(const RetentionPath& path, size_t h) {
  return h > 0 && h - 1 < path.edges.size() && path.edges[h - 1].kind == EdgeKind::DependentHandle;
}

// The edge into hop H as it reads after its source's type: ".Customer -> ", "[17].value -> ",
// " -[ConditionalWeakTable]-> " for a dependent handle, a bare " -> " when unnamed.
std::string edge_text(const RetentionPath& path, const std::vector<HopField>& fields, size_t h) {
  if (is_dependent(path, h)) return " -[ConditionalWeakTable]-> ";
  const HopField& f = fields[h];
  if (f.kind == EdgeNameKind::Unknown) return " -> ";
  if (f.kind == EdgeNameKind::Element) return f.text + " -> ";
  return "." + f.text + " -> ";
}

// Fold PATH's hops (path_fold.hpp): hop H's key is its type and the edge out of it, so a
// chain of the same type through the same field is one run; the target is never folded
// with the hops before it (it has no edge out). FOLD false: one run per hop.
FoldedHops fold_path(const LoadedHeap& heap, const RetentionPath& path, const std::vector<HopField>& fields, bool fold) {
  std::map<std::string, uint32_t> ids;
  std::vector<uint32_t> keys;
  for (size_t h = 0; h < path.nodes.size(); ++h) {
    std::string key(heap.type_name(path.nodes[h]));
    key += '\0';
    if (h + 1 < path.nodes.size()) key += edge_text(path, fields, h + 1);
    keys.push_back(ids.try_emplace(std::move(key), static_cast<uint32_t>(ids.size())).first->second);
  }
  auto folded = fold_repeats(keys, fold ? 4 : 0);
  if (!folded) throw std::bad_alloc();
  return std::move(folded).value();
}

std::string delegate_method(const LoadedHeap& heap, NodeIndex node) {
  if (heap.delegates.empty()) return {};
  const uint64_t address = heap.graph.address(node);
  auto it = std::lower_bound(heap.delegates.begin(), heap.delegates.end(), address,
                             [](const DelegateTarget& d, uint64_t a) { return d.address < a; });
  if (it == heap.delegates.end() || it->address != address || it->function_id == 0) return {};
  const MethodRecord* m = heap.names.find_method(it->function_id);
  return m ? method_display_name(m->name) : std::string();
}

std::vector<ChainHop> chain_hops(const LoadedHeap& heap, const RetentionPath& path, const std::vector<HopField>& fields,
                                 const FoldedHops& folded) {
  std::vector<ChainHop> hops;
  size_t k = 0;
  if (path.nodes.size() > 1 && fields[1].is_static && !is_dependent(path, 1) && folded.counts[0] == 1) {
    hops.push_back({"", fields[1].text + " (static) -> ", ""});
    k = 1;
  }
  for (; k < folded.size(); ++k) {
    const size_t h = folded.first[k];
    ChainHop hop{std::string(heap.type_name(path.nodes[h])), {}, delegate_method(heap, path.nodes[h])};
    if (h + 1 < path.nodes.size()) {
      hop.edge = edge_text(path, fields, h + 1);
      if (folded.counts[k] > 1) {
        const size_t arrow = hop.edge.rfind(" -> ");
        hop.edge.insert(arrow == std::string::npos ? hop.edge.size() : arrow, fmt::format(" ×{}", folded.counts[k]));
      }
    }
    hops.push_back(std::move(hop));
  }
  return hops;
}

std::string join_chain(const std::vector<ChainHop>& hops, int level) {
  std::string text;
  for (const ChainHop& hop : hops) {
    text += level == 0 ? hop.type : abbreviate_type_name(hop.type, level);
    if (!hop.method.empty()) text += " [" + hop.method + "]";
    text += hop.edge;
  }
  return text;
}

// "Zoo.Cache.Orders (static) -> Dictionary<...>._entries -> Entry[][17].value -> Order", the
// statics array a static lives in left out; "Customer -[ConditionalWeakTable]-> CustomerExtras"
// for a dependent handle (docs/cli.md "Field names"). A folded run reads "Node.Next ×4896 -> ";
// a run of several hops "(A.x -> B.y) ×12 -> " is written hop by hop, each with its count.
std::string chain_text(const LoadedHeap& heap, const RetentionPath& path, const std::vector<HopField>& fields,
                       const FoldedHops& folded) {
  return join_chain(chain_hops(heap, path, fields, folded));
}

std::vector<ChainHop> folded_chain_hops(const LoadedHeap& heap, const ShortestPathTree& tree, NodeIndex node,
                                        bool fold) {
  if (!tree.is_reached(node)) return {};
  const RetentionPath path = tree.path_to(node);
  if (path.nodes.empty()) return {};
  const std::vector<HopField> fields = heap.edge_namer().name_path(path.nodes);
  return chain_hops(heap, path, fields, fold_path(heap, path, fields, fold));
}

std::string folded_chain_text(const LoadedHeap& heap, const ShortestPathTree& tree, NodeIndex node) {
  return join_chain(folded_chain_hops(heap, tree, node));
}

}  // namespace gcsnap::cli
