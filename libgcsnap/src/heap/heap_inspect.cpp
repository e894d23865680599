#include "gcsnap/heap_inspect.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace gcsnap {
namespace {

// The objects the finalizer queue holds: sorted and unique, as InspectInput wants them.
std::vector<NodeIndex> finalizer_roots(const HeapGraph& graph) {
  std::vector<NodeIndex> out;
  for (const GraphRoot& r : graph.roots())
    if (r.kind == RootKind::Finalizer) out.push_back(r.node);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

Result<InspectReport> inspect_gc(const Recording& rec, size_t gc_pos, const GcHeap& heap,
                                 const DominatorTree& dominators) {
  auto strings = rec.read_string_values(gc_pos);
  if (!strings) return strings.error();
  std::string content_text;  // the contents' characters: must outlive inspect_heap
  auto contents = rec.read_string_contents(gc_pos, content_text);
  if (!contents) return contents.error();
  auto collections = rec.read_collection_values(gc_pos);
  if (!collections) return collections.error();
  const std::vector<NodeIndex> finalizers = finalizer_roots(heap.graph);
  const EdgeNamer namer = heap.edge_namer();
  const InspectInput input{heap.graph, heap.names, namer,       dominators,    *strings,
                           *contents,  *collections, finalizers, heap.delegates};
  return inspect_heap(input);
}

}  // namespace gcsnap
