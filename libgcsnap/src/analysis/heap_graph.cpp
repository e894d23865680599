#include "gcsnap/heap_graph.hpp"

#include <algorithm>
#include <new>

#include "analysis/address_resolver.hpp"
#include "analysis/heap_graph_storage.hpp"
#include "huge_pages.hpp"

namespace gcsnap {

using detail::CsrOffsets;

HeapGraph::~HeapGraph() = default;
HeapGraph::HeapGraph(HeapGraph&&) noexcept = default;
HeapGraph& HeapGraph::operator=(HeapGraph&&) noexcept = default;

namespace {

Status validate(const ObjectTable& objects) noexcept {
  const size_t n = objects.addresses.size();
  if (objects.sizes.size() != n || objects.type_ids.size() != n)
    return make_error(ErrorCode::InvalidArgument, "object columns have different lengths");
  if (n > kMaxNodes) return make_error(ErrorCode::LimitExceeded, "more objects than a heap graph can index");
  const auto& offsets = objects.reference_offsets;
  if (offsets.empty() && n == 0 && objects.reference_targets.empty()) return Status::ok();
  if (offsets.size() != n + 1 || offsets.front() != 0 || offsets.back() != objects.reference_targets.size())
    return make_error(ErrorCode::InvalidArgument, "reference offsets do not match the reference targets");
  for (size_t i = 0; i < n; ++i) {
    if (offsets[i] > offsets[i + 1])
      return make_error(ErrorCode::InvalidArgument, "reference offsets are not monotonic");
    if (i > 0 && objects.addresses[i - 1] >= objects.addresses[i])
      return make_error(ErrorCode::InvalidArgument, "object addresses are not strictly increasing");
  }
  return Status::ok();
}

// Most references point near their source (objects are allocated next to what they
// reference), so each target is first looked up among the 64 objects on either side of its
// source, which are in cache anyway; only the far ones go through the bulk sort + merge, in
// batches of a fixed size so that their scratch (~36 MB) does not grow with the heap: at 10 M
// objects, collecting them all cost ~15 B per object of peak memory.
// OUT grows an edge at a time (its pages are first touched as it fills); with DISCARD, the
// pages of the table's targets already read are given back every 2 MiB, so that the 8-byte
// targets and the 4-byte edges are not both whole in memory.
uint64_t resolve_edges(const ObjectTable& objects, std::vector<NodeIndex>& out, bool discard) {
  constexpr size_t kWindow = 64;
  constexpr size_t kFarBatch = size_t{1} << 20;
  const std::span<const uint64_t> addresses = objects.addresses;
  const size_t n = addresses.size();
  std::vector<uint64_t> far_targets;
  std::vector<uint64_t> far_positions;
  std::vector<NodeIndex> far_nodes;
  uint64_t unresolved = 0;
  constexpr uint64_t kDiscardStep = (size_t{2} << 20) / sizeof(uint64_t);
  uint64_t discarded = 0;  // targets before this one were given back
  auto resolve_far = [&] {
    far_nodes.resize(far_targets.size());
    unresolved += detail::resolve_addresses(addresses, far_targets, far_nodes);
    for (size_t k = 0; k < far_positions.size(); ++k) out[far_positions[k]] = far_nodes[k];
    far_targets.clear();
    far_positions.clear();
  };
  for (size_t i = 0; i < n; ++i) {
    const size_t lo = i >= kWindow ? i - kWindow : 0;
    const size_t hi = std::min(n, i + kWindow + 1);
    const auto first = addresses.begin() + static_cast<std::ptrdiff_t>(lo);
    for (uint64_t e = objects.reference_offsets[i]; e < objects.reference_offsets[i + 1]; ++e) {
      const uint64_t t = objects.reference_targets[e];
      if (t < *first || t > addresses[hi - 1]) {
        far_targets.push_back(t);
        far_positions.push_back(e);
        out.push_back(kNoNode);
        if (far_targets.size() == kFarBatch) resolve_far();
        continue;
      }
      // Branchless lower bound: the comparisons are unpredictable, a conditional move is not.
      const uint64_t* base = &*first;
      for (size_t len = hi - lo; len > 1;) {
        const size_t half = len / 2;
        base += base[half] <= t ? half : 0;
        len -= half;
      }
      const bool hit = *base == t;
      out.push_back(hit ? static_cast<NodeIndex>(base - addresses.data()) : kNoNode);
      unresolved += hit ? 0 : 1;
    }
    const uint64_t done = objects.reference_offsets[i + 1];
    if (discard && done - discarded >= kDiscardStep) {
      detail::discard_whole_pages(objects.reference_targets.data() + discarded, (done - discarded) * sizeof(uint64_t));
      discarded = done;
    }
  }
  resolve_far();
  return unresolved;
}

// Append the dependent-handle edges to the forward CSR: each primary's secondaries follow its
// own references. Pairs whose primary or secondary is not a walked object are skipped.
void add_dependent_edges(const ObjectTable& objects, const DependentHandleTable& dependent, CsrOffsets& offsets,
                         std::vector<NodeIndex>& targets, std::vector<std::pair<NodeIndex, NodeIndex>>& edges,
                         size_t n) {
  const size_t d = std::min(dependent.primaries.size(), dependent.secondaries.size());
  if (d == 0) return;
  std::vector<NodeIndex> primary(d), secondary(d);
  detail::resolve_addresses(objects.addresses, std::span(dependent.primaries).first(d), primary);
  detail::resolve_addresses(objects.addresses, std::span(dependent.secondaries).first(d), secondary);
  edges.reserve(d);
  for (size_t k = 0; k < d; ++k)
    if (primary[k] != kNoNode && secondary[k] != kNoNode) edges.emplace_back(primary[k], secondary[k]);
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  if (edges.empty()) return;
  std::vector<NodeIndex> merged;
  detail::reserve_huge(merged, targets.size() + edges.size());
  CsrOffsets merged_offsets;
  merged_offsets.reset(n + 1, targets.size() + edges.size());
  size_t next = 0;
  for (size_t i = 0; i < n; ++i) {
    for (uint64_t e = offsets[i]; e < offsets[i + 1]; ++e) merged.push_back(targets[e]);
    for (; next < edges.size() && edges[next].first == i; ++next) merged.push_back(edges[next].second);
    merged_offsets.set(i + 1, merged.size());
  }
  targets = std::move(merged);
  offsets = std::move(merged_offsets);
}

}  // namespace

Result<HeapGraph> HeapGraph::build(const ObjectTable& objects, const RootTable& roots,
                                   const DependentHandleTable* dependent) {
  return build_discarding(objects, roots, dependent, false);
}

Result<HeapGraph> HeapGraph::build_discarding(const ObjectTable& objects, const RootTable& roots,
                                              const DependentHandleTable* dependent, bool discard_targets) {
  GCSNAP_RETURN_IF_ERROR(validate(objects));
  if (roots.kinds.size() != roots.size() || roots.flags.size() != roots.size() ||
      roots.root_ids.size() != roots.size())
    return make_error(ErrorCode::InvalidArgument, "root columns have different lengths");
  if (roots.size() > 0xFFFFFFFFu) return make_error(ErrorCode::LimitExceeded, "too many roots");
  try {
    HeapGraph g;
    auto storage = std::make_shared<Storage>();
    Storage& st = *storage;
    const size_t n = objects.size();
    g.node_count_ = n;
    g.addresses_ = objects.addresses.data();
    g.sizes_ = objects.sizes.data();
    g.type_ids_ = objects.type_ids.data();
    g.stats_.references = objects.reference_targets.size();

    // Resolve in place, then squeeze out the unresolved edges while writing the offsets.
    detail::reserve_huge(st.forward_targets, objects.reference_targets.size());
    g.stats_.unresolved_references = resolve_edges(objects, st.forward_targets, discard_targets);
    st.forward_offsets.reset(n + 1, objects.reference_targets.size());
    uint64_t kept = 0;
    for (size_t i = 0; i < n; ++i) {
      for (uint64_t e = objects.reference_offsets[i]; e < objects.reference_offsets[i + 1]; ++e) {
        const NodeIndex t = st.forward_targets[e];
        if (t != kNoNode) st.forward_targets[kept++] = t;
      }
      st.forward_offsets.set(i + 1, kept);
    }
    st.forward_targets.resize(kept);
    if (kept + kept / 8 < objects.reference_targets.size()) st.forward_targets.shrink_to_fit();
    if (dependent) {
      g.has_dependent_ = true;
      g.stats_.dependent_handles = dependent->size();
      add_dependent_edges(objects, *dependent, st.forward_offsets, st.forward_targets, st.dependent_edges, n);
      g.stats_.dependent_edges = st.dependent_edges.size();
    }

    // Roots: a handful compared to objects, so one search each is fine.
    const std::span<const uint64_t> addresses = objects.addresses;
    for (size_t r = 0; r < roots.size(); ++r) {
      const uint64_t id = roots.object_ids[r];
      NodeIndex node = kNoNode;
      if (id != 0) {
        auto it = std::lower_bound(addresses.begin(), addresses.end(), id);
        if (it != addresses.end() && *it == id) {
          node = static_cast<NodeIndex>(it - addresses.begin());
        } else if (roots.flags[r] & root_flags::kInterior) {
          // The exact match failed, so a zero-size object cannot be the one found here.
          if (auto row = objects.find_containing(id)) {
            node = static_cast<NodeIndex>(*row);
            ++g.stats_.interior_roots;
          }
        }
      }
      if (node == kNoNode) {
        if (id == 0) ++g.stats_.null_roots;
        else ++g.stats_.unresolved_roots;
        st.unresolved_roots.push_back(static_cast<uint32_t>(r));
        continue;
      }
      st.roots.push_back(GraphRoot{node, roots.kinds[r], roots.flags[r], roots.root_ids[r], static_cast<uint32_t>(r)});
    }
    g.adopt(std::move(storage));
    return g;
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "out of memory building the heap graph");
  }
}

namespace {

// Counting sort of the forward edges by target into offsets/sources. The offsets double as
// the scatter cursors and are shifted back afterwards, so no extra per-node array is needed.
// With DISCARD, the scatter gives back the targets' pages every 2 MiB it has read.
template <typename Offset>
void reverse_edges(const HeapGraph& graph, std::span<const NodeIndex> targets, std::vector<Offset>& offsets,
                   std::vector<NodeIndex>& sources, bool discard) {
  const size_t node_count = graph.node_count();
  for (NodeIndex t : targets) ++offsets[t];
  Offset sum = 0;
  for (size_t i = 0; i < node_count; ++i) {
    const Offset c = offsets[i];
    offsets[i] = sum;
    sum += c;
  }
  offsets[node_count] = sum;
  constexpr size_t kDiscardStep = (size_t{2} << 20) / sizeof(NodeIndex);
  size_t read = 0, discarded = 0;  // targets before `discarded` were given back
  for (size_t s = 0; s < node_count; ++s) {
    const auto successors = graph.successors(static_cast<NodeIndex>(s));
    for (NodeIndex t : successors) sources[offsets[t]++] = static_cast<NodeIndex>(s);
    read += successors.size();
    if (discard && read - discarded >= kDiscardStep) {
      detail::discard_whole_pages(targets.data() + discarded, (read - discarded) * sizeof(NodeIndex));
      discarded = read;
    }
  }
  for (size_t i = node_count; i > 0; --i) offsets[i] = offsets[i - 1];
  offsets[0] = 0;
}

}  // namespace

Result<detail::ReverseCsr> detail::make_reverse_csr(const HeapGraph& graph, bool discard_forward) {
  try {
    ReverseCsr out;
    out.offsets.reset(graph.node_count() + 1, graph.edge_count());
    detail::reserve_huge(out.sources, graph.edge_count());
    out.sources.resize(graph.edge_count());
    const std::span<const NodeIndex> targets(graph.forward_.items, graph.edge_count_);
    if (!out.offsets.narrow().empty()) reverse_edges(graph, targets, out.offsets.narrow(), out.sources, discard_forward);
    else reverse_edges(graph, targets, out.offsets.wide(), out.sources, discard_forward);
    return out;
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "out of memory building the reverse graph");
  }
}

void HeapGraph::adopt(std::shared_ptr<Storage> storage) noexcept {
  storage_ = std::move(storage);
  Storage& st = *storage_;
  edge_count_ = st.forward_targets.size();
  forward_ = Csr{st.forward_offsets.narrow().empty() ? nullptr : st.forward_offsets.narrow().data(),
                 st.forward_offsets.wide().empty() ? nullptr : st.forward_offsets.wide().data(),
                 st.forward_targets.data()};
  roots_ = st.roots;
  unresolved_roots_ = st.unresolved_roots;
  dependent_edges_ = st.dependent_edges;
}

void HeapGraph::adopt_reverse(detail::ReverseCsr&& reverse) {
  if (!storage_) storage_ = std::make_shared<Storage>();  // an empty graph
  Storage& st = *storage_;
  st.reverse_offsets = std::move(reverse.offsets);
  st.reverse_sources = std::move(reverse.sources);
  reverse_ = Csr{st.reverse_offsets.narrow().empty() ? nullptr : st.reverse_offsets.narrow().data(),
                 st.reverse_offsets.wide().empty() ? nullptr : st.reverse_offsets.wide().data(),
                 st.reverse_sources.data()};
}

Status HeapGraph::build_reverse() {
  if (has_reverse()) return Status::ok();
  auto reverse = detail::make_reverse_csr(*this, false);
  if (!reverse) return reverse.error();
  try {
    adopt_reverse(std::move(reverse).value());
    return Status::ok();
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::OutOfMemory, "out of memory building the reverse graph");
  }
}

EdgeKind HeapGraph::edge_kind(NodeIndex from, NodeIndex to) const noexcept {
  if (from >= node_count_) return EdgeKind::Reference;
  auto range = std::equal_range(dependent_edges_.begin(), dependent_edges_.end(), std::make_pair(from, NodeIndex{0}),
                                [](const auto& a, const auto& b) { return a.first < b.first; });
  const size_t dependent_count = static_cast<size_t>(range.second - range.first);
  if (dependent_count == 0) return EdgeKind::Reference;
  const auto all = successors(from);
  for (NodeIndex s : all.first(all.size() - dependent_count))
    if (s == to) return EdgeKind::Reference;
  return std::binary_search(range.first, range.second, std::make_pair(from, to)) ? EdgeKind::DependentHandle
                                                                                 : EdgeKind::Reference;
}

Result<NodeIndex> HeapGraph::find_object(uint64_t address) const noexcept {
  const uint64_t* end = addresses_ + node_count_;
  const uint64_t* it = std::lower_bound(addresses_, end, address);
  if (it == end || *it != address) return make_error(ErrorCode::NotFound, "no object starts at this address");
  return static_cast<NodeIndex>(it - addresses_);
}

}  // namespace gcsnap

namespace gcsnap {

std::optional<NodeIndex> HeapGraph::find_containing(uint64_t address) const noexcept {
  const auto row = gcsnap::find_containing(addresses(), sizes(), address);
  if (!row) return std::nullopt;
  return static_cast<NodeIndex>(*row);
}

}  // namespace gcsnap
