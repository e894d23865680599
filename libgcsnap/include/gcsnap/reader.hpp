#pragma once
/// The reader: maps a recording, lists its GCs without decompressing anything, and decodes a
/// GC's sections only when asked. Every failure is a Status with a pinned code and an offset.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gcsnap/field_layout.hpp"
#include "gcsnap/model.hpp"
#include "gcsnap/status.hpp"
#include "gcsnap/values.hpp"

namespace gcsnap {

/// Caps a reader enforces before it allocates (format-spec.md §8).
struct ReaderLimits {
  uint64_t max_section_decoded_bytes = 1ull << 30;  ///< one chunk, decoded
  uint64_t max_gc_decoded_bytes = 16ull << 30;      ///< all sections of one GC, decoded
  uint64_t max_blocks = 1u << 24;
  uint64_t max_name_bytes = kMaxNameBytes;          ///< one type or method name
};

/// How a reader works, as opposed to what it accepts (ReaderLimits).
struct ReaderOptions {
  /// Threads that decode one GC's objects sections at once in read_objects (0: one per
  /// core, at most 4; 1: on the calling thread only).
  unsigned object_decode_threads = 0;
};

/// How the file ends, as found when it was opened.
enum class FileEnd : uint8_t {
  Complete = 0,    ///< index and trailer present and valid
  NoIndex = 1,     ///< all blocks complete, but the writer never wrote the index
  Truncated = 2,   ///< the last block is partial (the writer died mid-GC); it was ignored
  Corrupt = 3,     ///< a block header is damaged; reading stopped there
};
/// Return "complete", "no-index", "truncated" or "corrupt" ("unknown" outside the enumeration).
std::string_view file_end_name(FileEnd end) noexcept;

/// One GC as listed by the block header scan or the index: no decompression needed.
struct GcEntry {
  GcInfo info;
  uint64_t block_offset = 0;     ///< file offset of the block
  uint64_t block_size = 0;       ///< bytes on disk
  uint64_t root_count = 0;
  uint64_t surviving_range_count = 0;
  uint64_t moved_range_count = 0;
  uint64_t object_count = 0;
  uint64_t reference_count = 0;
  uint64_t new_type_count = 0;
  uint64_t new_method_count = 0;
  uint64_t generation_range_count = 0;
  DropCounts drops;
  /// Sections of this GC's heap walk given back to keep the recording under its size cap
  /// (format-spec.md §6.17, since 1.3), and the payload bytes they held.
  uint32_t dropped_sections = 0;
  uint64_t dropped_bytes = 0;
  /// The GC was walked and its walk is still in the file.
  bool has_heap_walk() const noexcept { return info.trigger != SnapshotTrigger::None && dropped_sections == 0; }
  /// The GC was walked, but its walk was dropped (record --max-size).
  bool walk_dropped() const noexcept { return dropped_sections != 0; }
};

struct RootTable {
  std::vector<uint64_t> object_ids;
  std::vector<RootKind> kinds;
  std::vector<uint8_t> flags;
  std::vector<uint64_t> root_ids;
  size_t size() const noexcept { return object_ids.size(); }
};

struct RangeTable {
  std::vector<uint64_t> surviving_starts, surviving_lengths;
  std::vector<uint64_t> moved_old_starts, moved_new_starts, moved_lengths;
};

/// Dependent handles of one GC (format-spec.md §6.11), in report order: primaries[i] keeps
/// secondaries[i] alive as long as it is alive itself (ConditionalWeakTable key -> value).
struct DependentHandleTable {
  std::vector<uint64_t> primaries;
  std::vector<uint64_t> secondaries;
  size_t size() const noexcept { return primaries.size(); }
};

/// Objects of one heap walk, in address order, with their references in CSR form:
/// targets of object i are reference_targets[reference_offsets[i] .. reference_offsets[i+1]).
/// Return the row of the object that contains ADDRESS among objects sorted by address, with
/// the one meaning of ObjectTable::find_containing (below); SIZES parallels ADDRESSES.
std::optional<size_t> find_containing(std::span<const uint64_t> addresses, std::span<const uint64_t> sizes,
                                      uint64_t address) noexcept;
/// find_containing for each of QUERIES (any order), in one pass over ADDRESSES when QUERIES
/// ascend: a list of roots or objects resolves without one binary search over the heap each.
std::vector<std::optional<size_t>> find_containing_each(std::span<const uint64_t> addresses,
                                                        std::span<const uint64_t> sizes,
                                                        std::span<const uint64_t> queries);

struct ObjectTable {
  std::vector<uint64_t> addresses;
  std::vector<uint32_t> type_ids;
  std::vector<uint64_t> sizes;
  std::vector<Generation> generations;
  std::vector<uint64_t> reference_offsets;  ///< size() + 1 entries
  std::vector<uint64_t> reference_targets;  ///< addresses, as the runtime reported them
  /// Byte offset of each reference inside its source object (kUnknownSlot: not recorded),
  /// parallel to reference_targets; empty unless read with ObjectReadOptions::reference_slots
  /// from a GC that recorded them (format-spec.md §6.13).
  std::vector<uint32_t> reference_slots;
  size_t size() const noexcept { return addresses.size(); }
  /// Return the row of the object that contains ADDRESS (its start or a byte inside it), or
  /// nullopt. An object covers [start, start + size); a zero-size object covers its own
  /// start only, so that every recorded object can be found by its address. This is the one
  /// meaning of "contains" for every analysis and command (interior roots, `where`, `roots`,
  /// `diff`).
  std::optional<size_t> find_containing(uint64_t address) const noexcept;
  /// Give the reference columns' memory back (16 B per object and 8 B per reference), e.g.
  /// once a HeapGraph holds the edges in index form.
  void release_references() noexcept {
    // Not `= {}`: that picks operator=(initializer_list), which keeps the capacity.
    std::vector<uint64_t>().swap(reference_offsets);
    std::vector<uint64_t>().swap(reference_targets);
    std::vector<uint32_t>().swap(reference_slots);
  }
};

/// What read_objects decodes besides the objects and their references.
struct ObjectReadOptions {
  /// Also decode the reference slots (format-spec.md §6.13) into ObjectTable::reference_slots
  /// (4 bytes per reference), when the GC has them.
  bool reference_slots = false;
};

namespace format {
struct NameTableFill;
}

/// Types, methods and type layouts defined by the blocks up to a GC. Views point into owned storage.
class NameTable {
 public:
  NameTable() = default;
  /// Build a table from records the caller made (tests, tools), sorted and checked as the
  /// reader does. The records' views (names, fields) are not copied: keep what they point to
  /// alive as long as the table. Errors: InconsistentData (an id given twice, a layout of a
  /// type not given).
  [[nodiscard]] static Result<NameTable> from_records(std::vector<TypeRecord> types,
                                                      std::vector<MethodRecord> methods = {},
                                                      std::vector<TypeLayout> layouts = {});
  /// Return the type with this id, or nullptr.
  const TypeRecord* find_type(uint32_t id) const noexcept;
  /// Return the method with this FunctionID, or nullptr.
  const MethodRecord* find_method(uint64_t function_id) const noexcept;
  std::span<const TypeRecord> types() const noexcept { return types_; }
  std::span<const MethodRecord> methods() const noexcept { return methods_; }
  /// Return the type's name; for an id the table does not declare, "<unknown type>" when the
  /// id is 0 (the recorder could not resolve the type) and "<undeclared type>" otherwise.
  std::string_view type_name(uint32_t id) const noexcept;
  /// Return the field layout of the type with this id, or nullptr (format-spec.md §6.15).
  const TypeLayout* find_layout(uint32_t type_id) const noexcept;
  std::span<const TypeLayout> layouts() const noexcept { return layouts_; }

 private:
  friend struct format::NameTableFill;  // the reader's decoders append to the columns
  std::vector<TypeRecord> types_;          ///< sorted by id
  std::vector<MethodRecord> methods_;      ///< sorted by function_id
  std::vector<TypeLayout> layouts_;        ///< sorted by type_id
  std::vector<std::unique_ptr<char[]>> storage_;
  std::vector<std::unique_ptr<FieldRecord[]>> field_storage_;
};

class Recording {
 public:
  /// Map FILE and scan it. A truncated or index-less file opens; end() says how it ends.
  /// Errors: IoError, NotAGcsnapFile, UnsupportedVersion, UnknownRequiredFeature, Truncated
  /// (shorter than the header), LimitExceeded.
  static Result<std::unique_ptr<Recording>> open(const std::string& path, const ReaderLimits& limits = {},
                                                 const ReaderOptions& options = {});
  /// Read from memory the caller keeps alive (tests, fuzzing). Same errors as open().
  static Result<std::unique_ptr<Recording>> from_bytes(std::span<const std::byte> bytes,
                                                       const ReaderLimits& limits = {},
                                                       const ReaderOptions& options = {});
  ~Recording();
  Recording(const Recording&) = delete;
  Recording& operator=(const Recording&) = delete;

  std::span<const GcEntry> gcs() const noexcept;
  FileEnd end() const noexcept;
  /// Offset of the first byte not part of a complete block (== file size when Complete).
  uint64_t end_offset() const noexcept;
  /// Error that stopped the scan, when end() is Truncated or Corrupt.
  const Error& end_error() const noexcept;
  uint64_t file_size() const noexcept;
  /// The file's major format version (format-spec.md §3); a file of another major does not open.
  uint16_t major_version() const noexcept;
  uint16_t minor_version() const noexcept;
  /// The file header's required feature bits (format-spec.md §3): kFeatureEventsSource.
  uint64_t required_features() const noexcept;

  /// Return the index in gcs() of the GC with this number.
  std::optional<size_t> find_gc(uint64_t gc_number) const noexcept;
  /// Return the index of the last GC that has a heap walk.
  std::optional<size_t> last_snapshot() const noexcept;

  Result<std::vector<GenerationRange>> read_generation_bounds(size_t gc_pos) const;
  Result<RootTable> read_roots(size_t gc_pos) const;
  Result<RangeTable> read_ranges(size_t gc_pos) const;
  /// Errors: NoHeapWalk when the GC has none.
  Result<ObjectTable> read_objects(size_t gc_pos) const;
  /// Dependent-handle pairs of a GC; empty when the block has no such section (every file
  /// of a 1.0 writer, GCs without a heap walk). has_dependent_handle_section tells them apart.
  Result<DependentHandleTable> read_dependent_handles(size_t gc_pos) const;
  /// Whether the GC's block holds a dependent-handles section (a 1.1 writer at a heap walk
  /// writes one even when the runtime reported no pair). Errors: as reading the block.
  Result<bool> has_dependent_handle_section(size_t gc_pos) const;
  /// The number of dependent-handle pairs the GC's block declares (the item counts of its
  /// sections' headers, nothing decoded); nullopt when it has no such section.
  Result<std::optional<uint64_t>> dependent_handle_count(size_t gc_pos) const;
  /// Same, with the extras OPTIONS asks for. A GC whose slots sections do not pair with its
  /// objects sections is InconsistentData; a GC without them gives empty reference_slots.
  Result<ObjectTable> read_objects(size_t gc_pos, const ObjectReadOptions& options) const;
  /// Where the statics' references were stored at this GC, sorted by address (format-spec.md
  /// §6.14); empty when the block has none. Views point into STORAGE.
  Result<std::vector<StaticSlot>> read_static_slots(size_t gc_pos, std::string& storage) const;
  /// The methods this GC's delegate objects call, sorted by address (format-spec.md §6.22,
  /// since 1.5); empty when the block has none. Errors: those of the sections' decoding,
  /// InconsistentData (two rows for one address).
  Result<std::vector<DelegateTarget>> read_delegate_targets(size_t gc_pos) const;
  /// The strings of this GC's walk as length and keyed hash (§6.23, since 1.5), sorted by
  /// address; empty when not recorded. Errors: CorruptSection, InconsistentData.
  Result<std::vector<StringValue>> read_string_values(size_t gc_pos) const;
  /// Captured string contents (§6.24), sorted by address; views point into STORAGE.
  Result<std::vector<StringContent>> read_string_contents(size_t gc_pos, std::string& storage) const;
  /// Collections' count, capacity and limit (§6.25), sorted by address.
  Result<std::vector<CollectionValue>> read_collection_values(size_t gc_pos) const;
  /// How this GC's values were recorded (§6.26), or nullopt when it has no values.
  Result<std::optional<ValueCapture>> read_value_capture(size_t gc_pos) const;
  /// The snapshot policy's note that it skipped this GC's heap walk (§6.15, since 1.1), or
  /// nullopt when the block has none. Errors: CorruptSection for a malformed note.
  Result<std::optional<WalkSkip>> read_walk_skip(size_t gc_pos) const;
  /// What the process's memory was made of after this GC (§6.16, since 1.2), or nullopt when
  /// the block has no such record. Errors: CorruptSection for a malformed record.
  Result<std::optional<MemoryAccounting>> read_memory_accounting(size_t gc_pos) const;
  /// The payloads of GC_POS's sections of section type TYPE (format-spec.md §4.2), in file
  /// order, each checked (checksum, limits) and decompressed; empty when the block has none. The
  /// general read beneath the typed ones above: a section the library knows (a row of its
  /// section table) can be read this way before, or instead of, a read_* of its own. A type the
  /// library does not know is skipped by the block walk and gives none. Errors: as reading the
  /// block; WalkDropped for a section the size cap dropped.
  Result<std::vector<std::vector<uint8_t>>> read_section_payloads(size_t gc_pos, uint16_t type) const;
  /// One section as read_sections gives it: where it is, its item_count, its decoded payload.
  struct SectionPayload {
    uint64_t offset = 0;      ///< file offset of the section header, for errors
    uint64_t item_count = 0;  ///< checked to be at most payload.size() (§4.1)
    std::vector<uint8_t> payload;
  };
  /// The same as read_section_payloads, with each section's offset and item_count, for
  /// decoders outside the reader (gcsnap/alloc_samples.hpp). Errors: as read_section_payloads.
  Result<std::vector<SectionPayload>> read_sections(size_t gc_pos, uint16_t type) const;
  /// Types and methods declared by blocks 0..gc_pos (inclusive).
  Result<NameTable> read_names(size_t gc_pos) const;
  /// Types and methods declared by block gc_pos alone (the types new in that GC).
  Result<NameTable> read_block_names(size_t gc_pos) const;
  /// Decode and check every section of one GC (checksums, counts, invariants). With
  /// ATTESTED_TYPE_IDS (one per object, in address order) the caller vouches that this GC's
  /// objects were decoded and checked before from exactly these bytes (an analysis index whose
  /// block hash matches block_hash()): the object sections are then not decoded again, and the
  /// given type ids are checked against the declared types instead.
  Status verify_gc(size_t gc_pos, const std::span<const uint32_t>* attested_type_ids = nullptr) const;
  /// The attested type ids of verify_gc handed over a piece at a time: each call returns the
  /// next piece (in address order), an empty span after the last, or an error (told as is).
  using TypeIdPieces = std::function<Result<std::span<const uint32_t>>()>;
  /// Same as verify_gc with attested type ids, read from NEXT_PIECE a piece at a time, so that
  /// the check holds one piece, not one id per object (an empty NEXT_PIECE: nothing attested,
  /// the objects decoded). Errors: as verify_gc, InvalidArgument when the pieces hold another
  /// count than the GC's objects, and NEXT_PIECE's.
  Status verify_gc_attested(size_t gc_pos, const TypeIdPieces& next_piece) const;
  /// An attested type's count of objects (an analysis index's type histogram, format-spec.md §12.3).
  struct AttestedTypeCount {
    uint32_t type_id = 0;
    uint64_t count = 0;
  };
  /// Same as verify_gc, the GC's objects attested by an analysis index built from a block that
  /// hashed to BLOCK_HASH, by their counts per type (TYPES): the block is hashed in the pass that
  /// checks its object sections' checksums and frames (its bytes read once, not twice), the
  /// objects are not decoded, and each type with objects must be declared. Errors: as
  /// verify_gc; InvalidArgument when the block hashes otherwise or the counts add up to another
  /// count than the GC's objects.
  Status verify_gc_counted(size_t gc_pos, uint64_t block_hash, std::span<const AttestedTypeCount> types) const;
  /// Give back the memory of GC_POS's block in the mapped file (a hint: the pages are read
  /// from the file again if used), so that a pass over every GC does not hold the whole file.
  /// Does nothing for a recording opened from bytes.
  void release_block_pages(size_t gc_pos) const noexcept;
  /// XXH3-64 of the GC's whole block as it is in the file. Errors: NotFound (no such GC), Truncated.
  Result<uint64_t> block_hash(size_t gc_pos) const;

  struct Impl;

 private:
  explicit Recording(std::unique_ptr<Impl> impl);
  Result<NameTable> read_names_range(size_t first, size_t last) const;
  struct Attestation;
  Status verify_gc_with(size_t gc_pos, const Attestation* attested) const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gcsnap
