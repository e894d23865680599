// The shortest-path tree of an analysis index read without its forward graph
// (gcsnap/index_path_tree.hpp): the parents and the dependent edges are read piece by piece
// through an IndexStream and checked as format-spec.md §12.4 says for them; a hop's kind then
// needs the forward graph only where its source holds dependent handles (§12.3: the dependent
// edges are the last successors of their primary).

#include "gcsnap/index_path_tree.hpp"

#include <algorithm>
#include <new>

#include "analysis_index/index_layout.hpp"
#include "huge_pages.hpp"

namespace gcsnap {

namespace L = index_layout;

namespace {

Error broken(const char* detail) { return make_error(ErrorCode::CorruptSection, detail); }

constexpr const char* kTreeRule = "analysis index shortest-path tree out of range";

}  // namespace

Result<IndexedPathTree> IndexedPathTree::read(std::unique_ptr<IndexStream> stream, const HeapGraph& graph,
                                              uint64_t reached) try {
  IndexedPathTree out;
  const uint64_t n = stream->counts().nodes;
  if (n != graph.node_count() || reached > n) return broken(kTreeRule);
  out.nodes_ = n;
  out.parents_ = std::make_shared<std::vector<NodeIndex>>();
  std::vector<NodeIndex>& parents = *out.parents_;
  detail::reserve_huge(parents, static_cast<size_t>(n));  // 4 B per object, written once in order
  uint64_t marks = 0, seen = 0;
  for (;;) {
    auto piece = stream->next_piece(IndexArray::PathParents);
    if (!piece) return piece.error();
    if (piece->empty()) break;
    const size_t count = piece->size() / 4, at = parents.size();
    if (count > n - at) return broken(kTreeRule);
    parents.resize(at + count);
    NodeIndex* out_parents = parents.data() + at;
    // Branch-free (the compiler vectorizes it): a parent is a node, a mark or none (the two
    // largest values).
    static_assert(kNoNode == ShortestPathTree::kRootMark + 1);
    bool bad = false;
    for (size_t k = 0; k < count; ++k) {
      const uint32_t p = L::load<uint32_t>(piece->data() + k * 4);
      bad |= (p >= n) & (p < ShortestPathTree::kRootMark);
      marks += p == ShortestPathTree::kRootMark;
      seen += p != kNoNode;
      out_parents[k] = p;
    }
    if (bad) return broken(kTreeRule);
  }
  if (parents.size() != n || seen != reached) return broken(kTreeRule);
  // from_parents checks that every strong root's object is a mark; as many marks as such
  // objects then means no mark is elsewhere.
  std::vector<NodeIndex> strong;
  for (const GraphRoot& r : graph.roots())
    if (!r.is_weak()) strong.push_back(r.node);
  std::sort(strong.begin(), strong.end());
  strong.erase(std::unique(strong.begin(), strong.end()), strong.end());
  if (marks != strong.size()) return broken(kTreeRule);
  auto tree = ShortestPathTree::from_parents(graph, parents, static_cast<size_t>(reached), out.parents_);
  if (!tree) return broken(kTreeRule);
  out.tree_ = std::make_unique<ShortestPathTree>(std::move(tree).value());

  out.dependent_.reserve(static_cast<size_t>(stream->counts().dependent_edges));
  for (;;) {
    auto piece = stream->next_piece(IndexArray::DependentEdges);
    if (!piece) return piece.error();
    if (piece->empty()) break;
    for (size_t at = 0; at + L::kDependentRecord <= piece->size(); at += L::kDependentRecord) {
      const std::pair<NodeIndex, NodeIndex> e{L::load<uint32_t>(piece->data() + at + L::kDependentPrimary),
                                              L::load<uint32_t>(piece->data() + at + L::kDependentSecondary)};
      if (e.first >= n || e.second >= n || (!out.dependent_.empty() && !(out.dependent_.back() < e)))
        return broken("analysis index dependent edges out of range or order");
      out.dependent_.push_back(e);
    }
  }
  if (out.dependent_.size() != stream->counts().dependent_edges)
    return broken("analysis index dependent edges out of range or order");
  out.stream_ = std::move(stream);
  return out;
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "reading the shortest-path tree of the analysis index");
}

Result<uint64_t> IndexedPathTree::element(IndexArray array, size_t width, uint64_t i) try {
  const uint64_t byte = i * width;
  const size_t index = static_cast<size_t>(byte / kIndexPieceBytes);
  Piece& p = pieces_[array == IndexArray::ForwardOffsets ? 0 : array == IndexArray::ForwardTargets ? 1 : 2];
  if (p.index != index || p.array != array) {
    p.index = SIZE_MAX;
    auto read = stream_->read_piece(array, index, p.bytes);
    if (!read) return read.error();
    p.array = array;
    p.index = index;
  }
  const size_t at = static_cast<size_t>(byte % kIndexPieceBytes);
  if (at + width > p.bytes.size()) return broken("analysis index graph arrays out of range");
  return width == 8 ? L::load<uint64_t>(p.bytes.data() + at) : L::load<uint32_t>(p.bytes.data() + at);
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "reading the analysis index");
}

Result<EdgeKind> IndexedPathTree::hop_kind(NodeIndex from, NodeIndex to) {
  if (from >= nodes_) return EdgeKind::Reference;
  auto range = std::equal_range(dependent_.begin(), dependent_.end(), std::make_pair(from, NodeIndex{0}),
                                [](const auto& a, const auto& b) { return a.first < b.first; });
  if (!std::binary_search(range.first, range.second, std::make_pair(from, to))) return EdgeKind::Reference;
  const uint64_t dependent_count = static_cast<uint64_t>(range.second - range.first);
  const IndexCounts& c = stream_->counts();
  const size_t width = c.wide_offsets ? 8 : 4;
  auto begin = element(IndexArray::ForwardOffsets, width, from);
  if (!begin) return begin.error();
  auto end = element(IndexArray::ForwardOffsets, width, uint64_t{from} + 1);
  if (!end) return end.error();
  if (*begin > *end || *end > c.edges || *end - *begin < dependent_count)
    return broken("analysis index dependent edges do not match the graph");
  // The references first, then the dependent secondaries (checked here, as a whole read does).
  const uint64_t references_end = *end - dependent_count;
  bool reference = false;
  for (uint64_t e = *begin; e < *end; ++e) {
    auto target = element(IndexArray::ForwardTargets, 4, e);
    if (!target) return target.error();
    if (e < references_end) {
      reference = reference || *target == to;
    } else if (*target != range.first[e - references_end].second) {
      return broken("analysis index dependent edges do not match the graph");
    }
  }
  return reference ? EdgeKind::Reference : EdgeKind::DependentHandle;
}

Result<uint32_t> IndexedPathTree::hop_slot(NodeIndex from, NodeIndex to) {
  const IndexCounts& c = stream_->counts();
  if (from >= nodes_ || !c.has_slots) return kUnknownSlot;
  const size_t width = c.wide_offsets ? 8 : 4;
  auto begin = element(IndexArray::ForwardOffsets, width, from);
  if (!begin) return begin.error();
  auto end = element(IndexArray::ForwardOffsets, width, uint64_t{from} + 1);
  if (!end) return end.error();
  if (*begin > *end || *end > c.edges) return broken("analysis index graph arrays out of range");
  for (uint64_t e = *begin; e < *end; ++e) {
    auto target = element(IndexArray::ForwardTargets, 4, e);
    if (!target) return target.error();
    if (*target != to) continue;
    // The dependent secondaries come after the references and have no slot of their own.
    auto slot = element(IndexArray::Slots, 4, e);
    if (!slot) return slot.error();
    return static_cast<uint32_t>(*slot);
  }
  return kUnknownSlot;
}

}  // namespace gcsnap
