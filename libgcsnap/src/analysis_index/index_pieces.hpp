#pragma once
// Reading an analysis index a piece at a time (format-spec.md §12.3 "Coding", §12.4 item 7):
// the header and directory are checked as for a whole read, and then only the 1 MiB pieces a
// point query touches are decoded, each checked on its own (its zstd frame with its content
// checksum, and the rules of its array that hold within a piece), into a small bounded cache.
// Internal to the library; the public face is PointIndex.

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis_index/index_layout.hpp"
#include "gcsnap/analysis_index.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap::detail {

/// What the header and the directory say (§12.2-12.3), after their checks.
struct IndexHeaderFacts {
  index_layout::Counts counts;
  index_layout::Placement place;  ///< each array's decoded length in place.bytes
  std::array<std::span<const unsigned char>, index_layout::kArrayCount> coded{};  ///< in the file
  std::array<uint64_t, index_layout::kArrayCount> hashes{};  ///< each array's XXH3-64 (§12.2)
  uint64_t root_entries = 0;
  uint16_t minor = 0;             ///< the index's minor version (§12.2)
  bool has_dependent_handles = false;
  GraphBuildStats stats;          ///< the graph build's (§12.2 offset 136)
  uint64_t reachable_bytes = 0;   ///< from strong roots (§12.2 offset 120)
  uint64_t unreachable_bytes = 0;
};

/// Check BYTES' header and directory (format-spec.md §12.4 items 1-3) against EXPECTED (null:
/// no identity check). Errors: those of read_analysis_index for the header.
[[nodiscard]] Result<IndexHeaderFacts> read_index_header(std::span<const std::byte> bytes, const IndexIdentity* expected);

/// An index file mapped read-only; KEEP unmaps it when the last holder goes.
struct MappedIndex {
  std::span<const std::byte> bytes;
  std::shared_ptr<const void> keep;
};

/// Map the index at PATH, telling a stale one from its header before mapping the rest.
/// Errors: NotFound, IoError, Truncated, InconsistentData (stale).
[[nodiscard]] Result<MappedIndex> map_index_file(const std::string& path, const IndexIdentity& expected);

/// The arrays of one index read a piece at a time. Each array's frames are located on first use
/// (reading only their 4-byte lengths and frame headers); a piece is decoded and checked on
/// first touch and kept in a cache of at most kCachedPieces pieces (the least recently used goes).
/// Not thread-safe. An error (a damaged piece) means the whole index must not be used.
class IndexPieces {
 public:
  static constexpr size_t kCachedPieces = 32;

  /// Pieces of the index BYTES (kept alive by KEEP) whose header FACTS were checked.
  IndexPieces(IndexHeaderFacts facts, std::shared_ptr<const void> keep) noexcept
      : facts_(std::move(facts)), keep_(std::move(keep)) {}

  const IndexHeaderFacts& facts() const noexcept { return facts_; }
  uint64_t nodes() const noexcept { return facts_.counts.nodes; }

  /// Return element I (< its count) of array WHICH, widened to 64 bits: a plain-integer array
  /// (addresses, sizes, type ids, generations, immediate dominators, retained sizes, parents...).
  /// Errors: CorruptSection (I out of range, or frames that do not match the array's length),
  /// ChecksumMismatch (a piece that does not decode), OutOfMemory.
  [[nodiscard]] Result<uint64_t> element(size_t which, uint64_t i);

  /// Return the node whose object contains ADDRESS (ObjectTable::find_containing's meaning),
  /// decoding O(log pieces) pieces of the addresses and one of the sizes. Errors: element's.
  [[nodiscard]] Result<std::optional<NodeIndex>> find_containing(uint64_t address);

  /// PointIndex::find_object.
  [[nodiscard]] Result<std::optional<IndexedObject>> find_object(uint64_t address);
  /// PointIndex::object: node V's columns and whether it is reachable. Errors: element's.
  [[nodiscard]] Result<IndexedObject> object(NodeIndex v);

  /// Array WHICH decoded whole, its checksum (§12.2) checked. Errors: element's, ChecksumMismatch.
  [[nodiscard]] Result<std::vector<unsigned char>> whole_array(size_t which);
  /// Decode pieces [FIRST, LAST) of array WHICH into their place in OUT, the whole array's
  /// bytes; not checked (check_whole checks the array once all its pieces are in). Errors:
  /// element's, InvalidArgument (OUT not the array's length, LAST past its pieces).
  [[nodiscard]] Status decode_pieces(size_t which, size_t first, size_t last, std::span<unsigned char> out);
  /// Check OUT, array WHICH decoded whole: its checksum (§12.2) and the rules its pieces are
  /// checked by. Errors: ChecksumMismatch, CorruptSection, InvalidArgument.
  [[nodiscard]] Status check_whole(size_t which, std::span<const unsigned char> out) const;
  /// decode_pieces with each piece checked as it is decoded, by its frame (content size and
  /// checksum) and the rules of its array that hold within a piece: a point lookup's checks
  /// (format-spec.md §12.4 item 7), with no second pass over the array. Errors: decode_pieces'.
  [[nodiscard]] Status decode_checked_pieces(size_t which, size_t first, size_t last, std::span<unsigned char> out);
  /// How many pieces array WHICH has.
  size_t piece_count(size_t which) const noexcept;

  /// Return the first and one-past-last edge of node V (< n) in the forward (FORWARD) or reverse
  /// CSR: one piece of the offsets, checked to be ordered and at most m. Errors: element's.
  [[nodiscard]] Result<std::pair<uint64_t, uint64_t>> edge_range(bool forward, uint64_t v);

  /// The dependent edges (primary, secondary), decoded whole once and checked (sorted, distinct,
  /// nodes < n). Errors: element's, ChecksumMismatch.
  [[nodiscard]] Result<std::span<const std::pair<NodeIndex, NodeIndex>>> dependent_edges();

  /// Decode piece INDEX of array WHICH into OUT, not cached (a pass over an array in order), and
  /// check it as element's pieces are checked. Errors: element's.
  [[nodiscard]] Status read_piece(size_t which, size_t index, std::vector<unsigned char>& out);

  /// PointIndex::roots.
  [[nodiscard]] Result<std::pair<std::vector<GraphRoot>, std::vector<uint32_t>>> roots();

  /// How many pieces were decoded so far (each decode counts, cached or evicted).
  size_t pieces_decoded() const noexcept { return decoded_.load(std::memory_order_relaxed); }

  /// Locate array WHICH's frames, so that read_piece and decode_pieces of it may then run on
  /// several threads at once (each thread its own pieces; nothing else of this object meanwhile).
  /// Errors: CorruptSection.
  [[nodiscard]] Status locate(size_t which);

 private:
  struct Cached {
    size_t which = 0, index = 0;
    uint64_t used = 0;  // the tick of its last use
    std::vector<unsigned char> bytes;
  };
  [[nodiscard]] Result<std::span<const unsigned char>> piece(size_t which, size_t index);
  [[nodiscard]] Status check_piece(size_t which, size_t index, std::span<const unsigned char> bytes) const;
  [[nodiscard]] Result<uint64_t> first_address(size_t piece_index);
  size_t width(size_t which) const noexcept;

  IndexHeaderFacts facts_;
  std::shared_ptr<const void> keep_;
  std::array<std::optional<std::vector<std::span<const unsigned char>>>, index_layout::kArrayCount> frames_{};
  std::vector<Cached> cache_;
  std::optional<std::vector<std::pair<NodeIndex, NodeIndex>>> dependent_;
  uint64_t tick_ = 0;
  std::atomic<size_t> decoded_{0};
};

}  // namespace gcsnap::detail
