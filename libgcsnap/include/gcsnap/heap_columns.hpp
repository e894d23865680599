#pragma once
/// The columns of a heap that came from its analysis index, read in node (or edge) order a
/// piece at a time, and addresses looked up a batch at a time: for a pass over every object or
/// edge (an export) that holds a batch of rows and a few pieces whatever the size of the heap,
/// without knowing how the index lays them out (gcsnap/index_stream.hpp underneath).

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "gcsnap/gc_heap.hpp"
#include "gcsnap/index_stream.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap {

/// The columns a pass reads.
enum class HeapColumn : uint8_t {
  Addresses,
  Sizes,
  TypeIds,
  Generations,
  ForwardOffsets,  ///< u64 when HeapColumnCounts::wide_offsets, else u32
  ForwardTargets,
  Slots,           ///< with HeapColumnCounts::has_slots
  DependentEdges,  ///< primary then secondary, per dependent edge
  ImmediateDominators,
  RetainedSizes,
};

/// How many elements the columns hold.
using HeapColumnCounts = IndexCounts;

/// The columns of one heap's index. Move-only; keeps the index open.
class HeapColumns {
 public:
  /// Open the columns of the index HEAP came from. Errors: those of GcHeap::open_index_stream.
  [[nodiscard]] static Result<std::unique_ptr<HeapColumns>> open(const GcHeap& heap);

  const HeapColumnCounts& counts() const noexcept { return stream_->counts(); }

  /// Return the next piece of COLUMN: its little-endian elements, empty after the last; valid
  /// until the next call for the same column. Errors: those of IndexStream::next_piece.
  [[nodiscard]] Result<std::span<const std::byte>> next_piece(HeapColumn column);

  /// Set OUT[i] to the address of NODES[i] (each < the node count), decoding each piece of the
  /// addresses at most once per call. Errors: those of IndexStream::read_piece, CorruptSection
  /// (a node out of range).
  [[nodiscard]] Status find_addresses(std::span<const NodeIndex> nodes, std::vector<uint64_t>& out);

 private:
  explicit HeapColumns(std::unique_ptr<IndexStream> stream) : stream_(std::move(stream)) {}

  std::unique_ptr<IndexStream> stream_;
  std::vector<size_t> start_, fill_;  // per piece of the addresses: where its rows begin in rows_
  std::vector<uint32_t> rows_;
  std::vector<std::byte> buffer_;
  size_t loaded_ = SIZE_MAX;
};

/// One column read element by element in node (or edge) order. A failure (a piece that does not
/// decode, a column that ends early: CorruptSection) makes next() return false; error() says why.
template <typename T>
class HeapColumnCursor {
 public:
  HeapColumnCursor(HeapColumns& columns, HeapColumn column) : columns_(columns), column_(column) {}
  /// Read the next element into V; false on a failure (error()).
  bool next(T& v) {
    if (pos_ == count_ && !refill()) return false;
    std::memcpy(&v, data_ + pos_ * sizeof(T), sizeof(T));
    ++pos_;
    return true;
  }
  const Error& error() const noexcept { return error_; }

 private:
  bool refill() {
    auto piece = columns_.next_piece(column_);
    if (!piece) {
      error_ = piece.error();
      return false;
    }
    if (piece->size() < sizeof(T)) {
      error_ = Error{ErrorCode::CorruptSection, 0, "an array ends early"};
      return false;
    }
    data_ = piece->data();
    count_ = piece->size() / sizeof(T);
    pos_ = 0;
    return true;
  }
  HeapColumns& columns_;
  HeapColumn column_;
  const std::byte* data_ = nullptr;
  size_t count_ = 0, pos_ = 0;
  Error error_;
};

}  // namespace gcsnap
