#pragma once
/// Object identity across GCs: follow addresses through the moved and surviving ranges the
/// runtime reports at every GC.
///
/// Object ids recorded at GC n are post-GC-n addresses. To follow address x from GC g-1 to
/// GC g: if x is in a moved range [old, old+len) of g, it is now new + (x - old); else if x is
/// in a surviving range of g, it stayed; else if x's generation (from the bounds recorded at
/// GC g-1, or a hint) was not condemned by g, it stayed; frozen (NonGcHeap) objects never move
/// or die; anything else died at g. LOH and POH are condemned only together with gen2.

#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "gcsnap/model.hpp"
#include "gcsnap/reader.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap {

/// What happened to one address at one GC.
enum class Fate : uint8_t {
  Moved = 0,         ///< in a moved range; the new address differs
  Stayed = 1,        ///< in a surviving range, or a moved range with new == old
  NotCondemned = 2,  ///< its generation was not collected by this GC: it survives in place
  NonGcHeap = 3,     ///< a frozen object: never moves, never dies
  Died = 4,          ///< condemned and in no range
  /// In no range, and neither bounds nor hint give its generation, at a GC that did not
  /// condemn the whole heap: it may have survived in place or died. Followers assume it
  /// stayed (a dead object's address is not reused until a later GC reports it).
  Unknown = 5,
};
/// Return "moved", "stayed", "not-condemned", "non-gc-heap", "died" or "unknown".
std::string_view fate_name(Fate fate) noexcept;

inline bool is_alive(Fate fate) noexcept { return fate != Fate::Died; }

/// Generation bounds sorted by start, for lookups.
class GenerationMap {
 public:
  GenerationMap() = default;
  /// Copy and sort the ranges. Ranges of length 0 are ignored. Errors: OutOfMemory.
  static Result<GenerationMap> build(std::span<const GenerationRange> ranges);
  /// Return the generation whose used range [start, start+length) holds address, or Unknown.
  Generation find(uint64_t address) const noexcept;
  bool empty() const noexcept { return starts_.empty(); }

 private:
  std::vector<uint64_t> starts_, ends_;
  std::vector<Generation> generations_;
};

/// Return whether a GC with this info collects objects of generation g.
/// Unknown counts as condemned only by a gen2 GC (which condemns the whole GC heap).
bool is_condemned(const GcInfo& info, Generation g) noexcept;

/// Return the generation an object of generation g most likely has after surviving a GC
/// (promotion by one, capped at gen2), for when no bounds say otherwise.
Generation promoted_generation(const GcInfo& info, Generation g) noexcept;

/// One GC's ranges, sorted for lookups, and the generation bounds recorded at the GC before.
class GcTransition {
 public:
  /// Build from GC g's info and ranges and the generation bounds recorded at GC g-1 (may be
  /// empty: then callers' generation hints decide). Errors: InconsistentData when two moved
  /// ranges overlap in old addresses, two surviving ranges overlap, or a range wraps around;
  /// OutOfMemory.
  static Result<GcTransition> build(const GcInfo& info, const RangeTable& ranges,
                                    std::span<const GenerationRange> bounds_before);

  struct Step {
    Fate fate = Fate::Died;
    uint64_t address = 0;                           ///< after the GC (unchanged if it died)
    Generation generation_before = Generation::Unknown;
  };
  /// Follow one address through this GC (binary search). `hint` is the address's generation
  /// before the GC if known otherwise (object table, previous step); bounds win over it.
  Step follow(uint64_t address, Generation hint = Generation::Unknown) const noexcept;

  /// Follow many addresses, sorted ascending, by one merge pass over the ranges and bounds.
  /// hints may be empty (all Unknown) or parallel to addresses; out has addresses.size().
  void follow_sorted(std::span<const uint64_t> addresses, std::span<const Generation> hints,
                     std::span<Step> out) const noexcept;

  /// A merge cursor: answers follow() for ascending addresses in amortized O(1).
  class Cursor {
   public:
    explicit Cursor(const GcTransition& t) noexcept : t_(&t) {}
    /// Same answer as GcTransition::follow; x must not be smaller than the previous call's.
    Step next(uint64_t x, Generation hint) noexcept;

   private:
    const GcTransition* t_;
    size_t m_ = 0, s_ = 0, b_ = 0;
  };

  const GcInfo& info() const noexcept { return info_; }

 private:
  Step classify(uint64_t address, Generation hint, Generation from_bounds) const noexcept;

  GcInfo info_;
  std::vector<uint64_t> moved_old_, moved_new_, moved_len_;  // sorted by old start
  std::vector<uint64_t> surv_start_, surv_len_;              // sorted by start
  GenerationMap bounds_before_;
  std::vector<uint64_t> bound_starts_, bound_ends_;  // same as bounds_before_, for merging
  std::vector<Generation> bound_gens_;
};

/// Follows a set of objects forward GC by GC, in bulk (sort + merge per GC).
class BulkMapper {
 public:
  /// Start from addresses at the starting GC (any order); generations parallel to them, or
  /// empty. Errors: LimitExceeded (2^32 addresses or more), OutOfMemory.
  static Result<BulkMapper> create(std::span<const uint64_t> addresses, std::span<const Generation> generations);
  /// The same, taking the vectors instead of copying them (9 B per object a caller that holds
  /// them only for the mapper does not pay twice). Errors: as above.
  static Result<BulkMapper> create(std::vector<uint64_t>&& addresses, std::vector<Generation>&& generations);
  /// Apply the next GC. Objects that die keep their last address and record the GC number.
  /// Allocates only the first time a GC reorders objects given in address order (a
  /// permutation, 4 B per alive object). Errors: OutOfMemory (then the mapper is unusable).
  [[nodiscard]] Status apply(const GcTransition& gc);

  /// Current address of object i (its last address if it died).
  std::span<const uint64_t> addresses() const noexcept { return addresses_; }
  /// Which objects are alive: bit i % 64 of word i / 64 is set while object i is (the words'
  /// bits past the last object are clear). diff_objects takes them as AliveBits.
  std::span<const uint64_t> alive_bits() const noexcept { return alive_bits_; }
  /// Return the GC number at which object I died, or 0 while it is alive (a search of the
  /// deaths of each GC applied: for checks, not for every object).
  uint64_t died_at(size_t i) const noexcept;
  /// Generation object i most likely has now (bounds when known, else promotion estimate).
  std::span<const Generation> generations() const noexcept { return generations_; }
  bool is_alive(size_t i) const noexcept { return (alive_bits_[i / 64] >> (i % 64)) & 1; }
  size_t alive_count() const noexcept { return alive_; }

 private:
  std::vector<uint64_t> addresses_;
  // A bit per object rather than a died-at GC number (8 B) per object: most objects survive
  // and are never written, and the bits of 50 M objects (6 MB) stay in the caches as the
  // mapper and the diff pass over them.
  std::vector<uint64_t> alive_bits_;
  // The objects that died, GC after GC, each GC's sorted (a run ending at deaths_[k].first,
  // for died_at); 4 B per dead object.
  std::vector<uint32_t> dead_;
  std::vector<std::pair<size_t, uint64_t>> deaths_;
  std::vector<Generation> generations_;
  // The alive objects, sorted by current address. Empty while that order is the objects' own
  // (sorted input that every GC so far kept in order, the usual case): no permutation is kept.
  std::vector<uint32_t> order_;
  bool in_own_order_ = false;
  size_t alive_ = 0;

  // Visit the alive objects in address order: VISIT(i) -> whether i is still alive.
  template <typename Visit>
  void for_each_alive(Visit&& visit);

  BulkMapper() = default;
};

}  // namespace gcsnap

namespace gcsnap {

/// Return whether identity can be followed from gcs()[gc_pos-1] to gcs()[gc_pos]: the GC
/// numbers are consecutive and the recorder dropped no ranges at gc_pos.
bool has_complete_transition(const Recording& recording, size_t gc_pos) noexcept;

/// Read GC gc_pos's ranges and the generation bounds recorded at the GC before it.
/// Errors: those of Recording::read_ranges and read_generation_bounds, and GcTransition::build's.
/// (OutOfMemory included: no analysis of this header lets std::bad_alloc escape.)
Result<GcTransition> read_transition(const Recording& recording, size_t gc_pos);

/// One GC in the life of an address.
struct AddressStep {
  uint64_t gc_number = 0;
  Fate fate = Fate::Died;
  uint64_t from = 0, to = 0;                    ///< address before and after the GC
  Generation generation_after = Generation::Unknown;  ///< from the GC's bounds, else estimated
  bool generation_estimated = false;            ///< no bounds covered the new address
};

struct AddressHistory {
  uint64_t start_gc = 0;
  uint64_t address = 0;
  Generation generation_at_start = Generation::Unknown;
  std::vector<AddressStep> steps;  ///< one per later GC, up to and including the one it died at
  uint64_t died_at = 0;            ///< GC number at which it died, 0 if alive at the last step
  uint64_t gap_at = 0;             ///< GC number whose ranges are missing; following stopped before it
};

/// Follow one address from gcs()[from_index] to the end of the recording (or its death, or a
/// gap in the recorded ranges). `hint` is its generation at the start if known (object table).
/// Errors: those of read_transition and Recording::read_generation_bounds; OutOfMemory.
Result<AddressHistory> follow_address(const Recording& recording, size_t from_index, uint64_t address,
                                      Generation hint = Generation::Unknown);

/// Follow many objects from gcs()[from_index] to gcs()[to_index] (from_index <= to_index).
/// Errors: InconsistentData "ranges of a GC in between are missing" when the history has a gap
/// (see has_complete_transition); those of read_transition; OutOfMemory.
Result<BulkMapper> map_objects(const Recording& recording, size_t from_index, size_t to_index,
                               std::span<const uint64_t> addresses, std::span<const Generation> generations);

/// Apply every GC after gcs()[from_index] up to gcs()[to_index] to each of MAPPERS (created at
/// from_index): several sets of objects followed with one read of the ranges.
/// Errors: as map_objects.
Status map_objects(const Recording& recording, size_t from_index, size_t to_index, std::span<BulkMapper* const> mappers);

}  // namespace gcsnap
