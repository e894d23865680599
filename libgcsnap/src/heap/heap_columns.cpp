// The columns of a heap read from its analysis index a piece at a time (heap_columns.hpp).
#include "gcsnap/heap_columns.hpp"

#include <new>

namespace gcsnap {

namespace {

IndexArray array_of(HeapColumn column) {
  switch (column) {
    case HeapColumn::Addresses: return IndexArray::Addresses;
    case HeapColumn::Sizes: return IndexArray::Sizes;
    case HeapColumn::TypeIds: return IndexArray::TypeIds;
    case HeapColumn::Generations: return IndexArray::Generations;
    case HeapColumn::ForwardOffsets: return IndexArray::ForwardOffsets;
    case HeapColumn::ForwardTargets: return IndexArray::ForwardTargets;
    case HeapColumn::Slots: return IndexArray::Slots;
    case HeapColumn::DependentEdges: return IndexArray::DependentEdges;
    case HeapColumn::ImmediateDominators: return IndexArray::ImmediateDominators;
    case HeapColumn::RetainedSizes: return IndexArray::RetainedSizes;
  }
  return IndexArray::Addresses;
}

}  // namespace

Result<std::unique_ptr<HeapColumns>> HeapColumns::open(const GcHeap& heap) try {
  auto stream = heap.open_index_stream();
  if (!stream) return stream.error();
  return std::unique_ptr<HeapColumns>(new HeapColumns(std::move(stream).value()));
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "opening the analysis index");
}

Result<std::span<const std::byte>> HeapColumns::next_piece(HeapColumn column) {
  return stream_->next_piece(array_of(column));
}

// The rows are bucketed by piece (a counting sort, cheaper than sorting them by node), and a
// piece is decoded when its bucket is not empty: each at most once, in order.
Status HeapColumns::find_addresses(std::span<const NodeIndex> nodes, std::vector<uint64_t>& out) try {
  constexpr size_t kPerPiece = kIndexPieceBytes / sizeof(uint64_t);
  const size_t pieces = static_cast<size_t>((counts().nodes + kPerPiece - 1) / kPerPiece);
  start_.assign(pieces + 1, 0);
  for (NodeIndex v : nodes) ++start_[v / kPerPiece + 1];
  for (size_t p = 0; p < pieces; ++p) start_[p + 1] += start_[p];
  rows_.resize(nodes.size());
  fill_ = start_;
  for (size_t i = 0; i < nodes.size(); ++i) rows_[fill_[nodes[i] / kPerPiece]++] = static_cast<uint32_t>(i);
  out.resize(nodes.size());
  for (size_t p = 0; p < pieces; ++p) {
    if (start_[p] == start_[p + 1]) continue;
    if (p != loaded_) {
      auto read = stream_->read_piece(IndexArray::Addresses, p, buffer_);
      if (!read) return read.error();
      loaded_ = p;
    }
    for (size_t k = start_[p]; k < start_[p + 1]; ++k) {
      const uint32_t row = rows_[k];
      const size_t at = (nodes[row] % kPerPiece) * sizeof(uint64_t);
      if (at + sizeof(uint64_t) > buffer_.size()) return Error{ErrorCode::CorruptSection, 0, "a node out of range"};
      std::memcpy(&out[row], buffer_.data() + at, sizeof(uint64_t));
    }
  }
  return {};
} catch (const std::bad_alloc&) {
  return make_error(ErrorCode::OutOfMemory, "reading the analysis index");
}

}  // namespace gcsnap
