#pragma once
/// Object-level diff of two heap walks of one recording: which objects are new, which died,
/// which survived (matched through the moved/surviving ranges of every GC in between, see
/// object_identity.hpp), grouped by type. Retention paths for groups: group_paths.hpp.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gcsnap/reader.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap {

inline constexpr size_t kNoObject = SIZE_MAX;

struct ObjectDiff {
  std::vector<size_t> new_objects;   ///< indices into B's table: not the image of any A object
  std::vector<size_t> dead_objects;  ///< indices into A's table: died at a GC in (A, B]
  /// Per A object: index into B's table of the same object, or kNoObject (dead or missing).
  std::vector<size_t> b_index_of_a;
  uint64_t surviving_count = 0;
  uint64_t surviving_bytes_a = 0, surviving_bytes_b = 0;
  uint64_t new_bytes = 0, dead_bytes = 0;
  /// A objects that the ranges say survived, but B's walk has no object at their address
  /// (the walk dropped objects, or the data is inconsistent). Counted neither new nor dead.
  std::vector<size_t> missing_in_b;
  /// With B's columns read in blocks (the ColumnBlocks form below): the size at B of each new
  /// object, parallel to new_objects; empty otherwise.
  std::vector<uint64_t> new_sizes;
};

/// A GC's addresses and sizes read a block at a time in address order (an analysis index's
/// pieces), for a diff that streams the later GC's columns instead of holding them whole.
class ColumnBlocks {
 public:
  virtual ~ColumnBlocks() = default;
  /// Return the number of objects.
  virtual size_t size() const noexcept = 0;
  /// Set ADDRESSES and SIZES (of one length) to the next objects' columns, both empty after the
  /// last object; they stay valid until the next call. The addresses rise over all blocks.
  /// Errors: the source's (a damaged index: ChecksumMismatch, CorruptSection, ...).
  [[nodiscard]] virtual Status next(std::span<const uint64_t>& addresses, std::span<const uint64_t>& sizes) = 0;
};

/// The sizes and type ids of the earlier GC's objects read where they are kept (an analysis
/// index's pieces) instead of held in its view: a diff reads them at a few rows only (the
/// roots' objects, the dead and the missing objects).
class ColumnLookup {
 public:
  virtual ~ColumnLookup() = default;
  /// Set SIZES[k] to the size of object ROWS[k] (ROWS ascending, each below the object count),
  /// from the pieces that hold them, unchecked: a later gather() checks the whole column.
  /// Errors: the source's, CorruptSection (a row out of range).
  [[nodiscard]] virtual Status find_sizes(std::span<const size_t> rows, std::span<uint64_t> sizes) = 0;
  /// Set SIZES[k] and TYPE_IDS[k] to object ROWS[k]'s (ROWS ascending) in one pass over both
  /// whole columns, which checks them as it goes (their checksums); called at most once.
  /// Errors: the source's (a damaged index), CorruptSection (a column of another length).
  [[nodiscard]] virtual Status gather(std::span<const size_t> rows, std::span<uint64_t> sizes,
                                      std::span<uint32_t> type_ids) = 0;
};

/// The earlier GC's four columns read a block at a time in address order (an analysis index's
/// pieces), for a diff that follows each object through the one GC to the later walk as it
/// comes, instead of holding the columns whole (21 B per object).
class ObjectBlocks {
 public:
  /// One block's columns, all of one length.
  struct Block {
    std::span<const uint64_t> addresses, sizes;
    std::span<const uint32_t> type_ids;
    std::span<const Generation> generations;
  };
  virtual ~ObjectBlocks() = default;
  /// Return the number of objects.
  virtual size_t size() const noexcept = 0;
  /// Set BLOCK to the next objects' columns, all empty after the last object; they stay valid
  /// until the next call. The addresses rise over all blocks.
  /// Errors: the source's (a damaged index: ChecksumMismatch, CorruptSection, ...).
  [[nodiscard]] virtual Status next(Block& block) = 0;
};

/// Which of A's objects are alive at B, a bit each: bit i % 64 of word i / 64 for object i, as
/// BulkMapper::alive_bits() gives them after applying every GC in (A, B] (at least as many
/// words as A has objects need; bits past the last object are not read).
struct AliveBits {
  std::span<const uint64_t> words;
};

/// Match A's objects to B's. `a_at_b` and `a_died_at` are parallel to A's table: each
/// object's address at B's GC and the GC number it died at (0 = alive), as BulkMapper
/// returns them after applying every GC in (A, B]. B's addresses must be sorted.
/// Errors: InvalidArgument (columns of different lengths), OutOfMemory.
Result<ObjectDiff> diff_objects(const ObjectTable& a, const ObjectTable& b, std::span<const uint64_t> a_at_b,
                                std::span<const uint64_t> a_died_at);

/// The same on columns: A's sizes; B's addresses (sorted) and sizes (from a decoded table or a
/// mapped analysis index). Without MATCH_INDEX, b_index_of_a is left empty (8 B per object of
/// A that a caller counting and grouping does not need). A_SIZES empty: dead_bytes and
/// surviving_bytes_a are left 0 (for a caller that reads A's sizes apart). Errors: as above.
Result<ObjectDiff> diff_objects(std::span<const uint64_t> a_sizes, std::span<const uint64_t> b_addresses,
                                std::span<const uint64_t> b_sizes, std::span<const uint64_t> a_at_b,
                                std::span<const uint64_t> a_died_at, bool match_index = true);

/// The same with B's columns read from B_BLOCKS a block at a time, to their end (so that their
/// source checks them whole), each new object's size kept in ObjectDiff::new_sizes and
/// b_index_of_a left empty. Errors: as above, those of B_BLOCKS, CorruptSection (a block of
/// two lengths, more or fewer objects than B_BLOCKS.size()).
Result<ObjectDiff> diff_objects(std::span<const uint64_t> a_sizes, ColumnBlocks& b_blocks,
                                std::span<const uint64_t> a_at_b, std::span<const uint64_t> a_died_at);

/// The three forms above with A's alive objects as bits (BulkMapper's) rather than a GC number
/// each. Errors: as above, InvalidArgument also for fewer words than A's objects need.
Result<ObjectDiff> diff_objects(const ObjectTable& a, const ObjectTable& b, std::span<const uint64_t> a_at_b,
                                AliveBits a_alive);
Result<ObjectDiff> diff_objects(std::span<const uint64_t> a_sizes, std::span<const uint64_t> b_addresses,
                                std::span<const uint64_t> b_sizes, std::span<const uint64_t> a_at_b,
                                AliveBits a_alive, bool match_index = true);
Result<ObjectDiff> diff_objects(std::span<const uint64_t> a_sizes, ColumnBlocks& b_blocks,
                                std::span<const uint64_t> a_at_b, AliveBits a_alive);

/// Objects of one type within a set (new objects, dead objects, ...).
struct TypeGroup {
  std::string name;
  uint64_t count = 0;
  uint64_t bytes = 0;
  std::vector<size_t> members;  ///< indices into the table, in address order
};

/// Group table rows `indices` by type name; largest bytes first, then count, then name.
/// Errors: OutOfMemory.
Result<std::vector<TypeGroup>> group_by_type(const ObjectTable& objects, const NameTable& names,
                                             std::span<const size_t> indices);

/// Which groups group_by_type keeps (in its order): those whose type name KEEP_TYPE accepts
/// (all when empty), then the first TOP (all for 0). Only the kept groups list their members.
struct GroupSelection {
  size_t top = 0;
  std::function<bool(std::string_view type_name)> keep_type;
};

/// group_by_type on columns (parallel type ids and sizes), keeping only the groups SELECTION
/// names: the same groups as group_by_type followed by that selection. Errors: OutOfMemory.
Result<std::vector<TypeGroup>> group_by_type(std::span<const uint32_t> type_ids, std::span<const uint64_t> sizes,
                                             const NameTable& names, std::span<const size_t> indices,
                                             const GroupSelection& selection = {});

/// group_by_type with each member's type id and size given beside it (TYPE_IDS and SIZES
/// parallel to INDICES), for columns not held whole: the same groups.
/// Errors: InvalidArgument (lengths differ), OutOfMemory.
Result<std::vector<TypeGroup>> group_listed_by_type(std::span<const uint32_t> type_ids, std::span<const uint64_t> sizes,
                                                    const NameTable& names, std::span<const size_t> indices,
                                                    const GroupSelection& selection = {});

}  // namespace gcsnap
