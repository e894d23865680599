#pragma once
/// A GC's shortest-path tree read from its analysis index without the forward graph
/// (format-spec.md §12.3 array 17): 4 bytes per object instead of the 14 or so the forward
/// graph costs, for a caller that follows a few paths (the new objects of a diff). How each hop
/// holds its object is then told by reading, through the index's pieces, the successors of the
/// few hops' sources that hold dependent handles.

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "gcsnap/field_layout.hpp"
#include "gcsnap/heap_graph.hpp"
#include "gcsnap/index_stream.hpp"
#include "gcsnap/retention.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap {

/// The shortest-path tree of one index over a graph read without its forward CSR. Move-only;
/// keeps its IndexStream open for hop_kind. Not thread-safe.
class IndexedPathTree {
 public:
  /// Read the parents (array 17) and the dependent edges (12) through STREAM, for GRAPH: the
  /// same index's node columns and roots (read with kIndexObjects), which must outlive the
  /// tree; REACHED is the index's count of objects strong roots reach. Checked as format-spec.md
  /// §12.4 item 4 says (each array's checksum; a parent is a node or a mark, as many reached as
  /// REACHED, a root mark exactly on the strong roots' objects; dependent edges sorted, distinct,
  /// in range). Errors: those of IndexStream::next_piece, CorruptSection (a rule broken),
  /// OutOfMemory.
  [[nodiscard]] static Result<IndexedPathTree> read(std::unique_ptr<IndexStream> stream, const HeapGraph& graph,
                                                    uint64_t reached);

  IndexedPathTree(IndexedPathTree&&) noexcept = default;
  IndexedPathTree& operator=(IndexedPathTree&&) noexcept = default;

  /// The tree. Its paths' hops are all told EdgeKind::Reference (the graph has no forward CSR
  /// and no dependent edges): hop_kind tells them.
  const ShortestPathTree& tree() const noexcept { return *tree_; }

  /// Return how the hop FROM -> TO holds TO (HeapGraph::edge_kind's answer on the full graph):
  /// a dependent handle when the pair is a dependent edge and TO is not also one of FROM's
  /// references. Reads one or two pieces of the forward offsets and targets, for dependent
  /// edges only. Errors: those of IndexStream::read_piece, CorruptSection (the dependent edges
  /// are not FROM's last successors, an offset out of range).
  [[nodiscard]] Result<EdgeKind> hop_kind(NodeIndex from, NodeIndex to);

  /// Return the slot of the first reference FROM -> TO (EdgeSlots::slot_of's answer on the full
  /// graph), for its field name: kUnknownSlot when the index has no slots array or FROM has no
  /// such reference (a dependent edge). Reads the pieces of FROM's offsets, targets and slots.
  /// Errors: those of IndexStream::read_piece, CorruptSection (an offset out of range).
  [[nodiscard]] Result<uint32_t> hop_slot(NodeIndex from, NodeIndex to);

 private:
  IndexedPathTree() = default;
  [[nodiscard]] Result<uint64_t> element(IndexArray array, size_t width, uint64_t i);

  std::unique_ptr<IndexStream> stream_;
  std::shared_ptr<std::vector<NodeIndex>> parents_;
  std::unique_ptr<ShortestPathTree> tree_;
  std::vector<std::pair<NodeIndex, NodeIndex>> dependent_;  // sorted
  uint64_t nodes_ = 0;
  struct Piece {
    IndexArray array = IndexArray::Addresses;
    size_t index = SIZE_MAX;
    std::vector<std::byte> bytes;
  };
  Piece pieces_[3];  // the last piece read of the offsets, of the targets and of the slots
};

}  // namespace gcsnap
