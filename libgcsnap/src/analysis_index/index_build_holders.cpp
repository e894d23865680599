// The holder table of an index build (format-spec.md §12.3, array 18): computed last, when
// the build has given the forward graph and the shortest-path tree back (the reverse graph
// took their room, docs/performance.md "The build's peak"), so they are read back from the
// file being written: the forward graph and the addresses first, for find_type_holders; the
// edge slots and the path parents only when a type is tried against the holder patterns.
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis_index/index_access.hpp"
#include "analysis_index/index_type_holders.hpp"
#include "huge_pages.hpp"

namespace gcsnap::detail {

namespace {

namespace L = index_layout;

Error unreadable() { return make_error(ErrorCode::InvalidState, "an analysis index array did not read back"); }

// Each array read back is a fresh allocation written once: in 2 MiB pages, as the build's
// own arrays, first touch being most of the cost of reading back (docs/performance.md).
template <typename T>
bool read_into(const HolderBuildInput& in, size_t which, std::vector<T>& out) {
  reserve_huge(out, static_cast<size_t>(in.place.bytes[which] / sizeof(T)));
  out.resize(static_cast<size_t>(in.place.bytes[which] / sizeof(T)));
  return in.file.read_back(which, in.place, {reinterpret_cast<unsigned char*>(out.data()), out.size() * sizeof(T)});
}

// The arrays read back, kept alive by what is built over them.
struct ForwardArrays {
  std::vector<uint64_t> addresses, wide_offsets;
  std::vector<uint32_t> narrow_offsets, targets;
};

// IN's graph with its addresses and forward CSR read back.
Result<HeapGraph> forward_graph(const HolderBuildInput& in) {
  auto a = std::make_shared<ForwardArrays>();
  const bool offsets = in.place.wide ? read_into(in, L::kForwardOffsets, a->wide_offsets)
                                     : read_into(in, L::kForwardOffsets, a->narrow_offsets);
  if (!offsets || !read_into(in, L::kAddresses, a->addresses) || !read_into(in, L::kForwardTargets, a->targets))
    return unreadable();
  AnalysisIndexAccess::GraphParts parts;
  parts.nodes = in.graph.node_count();
  parts.edges = in.graph.edge_count();
  parts.addresses = a->addresses.data();
  parts.sizes = nullptr;  // the holder search reads no size: the build gave them back
  parts.type_ids = in.graph.type_ids().data();
  parts.forward = {a->narrow_offsets, a->wide_offsets, a->targets};
  parts.roots.assign(in.graph.roots().begin(), in.graph.roots().end());
  parts.unresolved_roots.assign(in.graph.unresolved_roots().begin(), in.graph.unresolved_roots().end());
  const auto dependent = AnalysisIndexAccess::dependent_edges(in.graph);
  parts.dependent_edges.assign(dependent.begin(), dependent.end());
  parts.has_dependent = in.graph.has_dependent_handles();
  parts.stats = in.graph.stats();
  return AnalysisIndexAccess::make_graph(std::move(parts), std::move(a));
}

// What the holder patterns read, made on first use (HolderPathSources points into it).
struct PathSources {
  std::vector<uint32_t> slots;
  std::vector<NodeIndex> parents;
  std::optional<ShortestPathTree> tree;
  std::optional<EdgeNamer> namer;
  EdgeSlots edge_slots;
  std::vector<StaticSlot> statics;
  std::string static_names;
};

Result<HolderPathSources> read_path_sources(const HolderBuildInput& in, const HeapGraph& graph, const NameTable& names,
                                            PathSources& out) {
  // The dominator tree has had its last reader (describe_type_holders' contract): its room
  // goes to the slots and the parents.
  const size_t reached = in.tree.preorder().size();
  if (in.release_tree) in.release_tree();
  reserve_huge(out.parents, static_cast<size_t>(in.place.bytes[L::kPathParents] / sizeof(NodeIndex)));
  out.parents.resize(static_cast<size_t>(in.place.bytes[L::kPathParents] / sizeof(NodeIndex)));
  if (!IndexFile::decode_coded(L::kPathParents, in.place, in.parents,
                               {reinterpret_cast<unsigned char*>(out.parents.data()), out.parents.size() * 4}))
    return unreadable();
  if (in.place.bytes[L::kSlots] > 0) {
    if (!read_into(in, L::kSlots, out.slots)) return unreadable();
    out.edge_slots = AnalysisIndexAccess::make_slots(out.slots, nullptr);
  }
  auto statics = in.rec.read_static_slots(in.gc_pos, out.static_names);
  if (!statics) return statics.error();
  out.statics = std::move(statics).value();
  auto tree = ShortestPathTree::from_parents(graph, out.parents, reached, nullptr);
  if (!tree) return tree.error();
  out.tree.emplace(std::move(tree).value());
  out.namer.emplace(graph, names, out.edge_slots, out.statics);
  return HolderPathSources{&*out.tree, &*out.namer};
}

}  // namespace

Result<std::vector<IndexedTypeHolder>> build_type_holders(const HolderBuildInput& in) try {
  const std::vector<uint32_t> types = holder_table_types(in.histogram);
  std::vector<IndexedTypeHolder> rows(types.size());
  if (types.empty()) return rows;
  auto names = in.rec.read_names(in.gc_pos);
  if (!names) return names.error();
  auto delegates = in.rec.read_delegate_targets(in.gc_pos);
  if (!delegates) return delegates.error();
  auto graph = forward_graph(in);
  if (!graph) return graph.error();
  PathSources sources;
  const TypeHolderInput input{*graph, in.tree, *names, *delegates,
                              [&] { return read_path_sources(in, *graph, *names, sources); }};
  auto cells = describe_type_holders(input, types);
  if (!cells) return cells.error();
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = IndexedTypeHolder{types[i], std::move((*cells)[i])};
  return rows;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "finding the holders of types for the analysis index");
}

}  // namespace gcsnap::detail
