#pragma once
/// Leak suspects across every heap walk of one recording (or of several recordings of one
/// app): groups of objects, by type and retention-path shape, that keep accumulating.
/// How the groups and the criteria are defined: docs/design.md "Leak suspects".

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gcsnap/model.hpp"
#include "gcsnap/reader.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap {

/// Thresholds of the suspect criteria (docs/design.md "Leak suspects").
struct LeakOptions {
  /// Fewer heap walks than this: no suspect is judged (filling and leaking look alike).
  size_t min_walks = 3;
  /// The group's count must rise in at least this share of the intervals between walks.
  double min_growth_share = 0.6;
  /// Members born after the first walk and alive at the last: at least this many, and at
  /// least one per interval (0: one per interval only).
  uint64_t min_accumulated = 0;
  /// Path shapes kept per suspect (the most common first).
  size_t max_shapes = 3;
  /// Keep the first `top` suspects after ranking; 0 keeps all.
  size_t top = 0;
  /// Let weak roots retain objects (off: weakly held objects belong to no group).
  bool include_weak = false;
  /// A suspect whose new and alive members number less than this share of the largest
  /// suspect's must keep growing (keeps_growing), else it moves to LeakReport::bounded.
  double small_growth_share = 0.05;
  /// Groups kept in LeakReport::bounded, the largest growth first (each costs a holder search).
  size_t max_bounded = 10;
};

/// One heap walk of the series.
struct LeakWalk {
  size_t recording = 0;      ///< position in the recordings given, after ordering by time
  size_t gc_pos = 0;       ///< position in that recording's gcs()
  uint64_t gc_number = 0;
  uint64_t time_ns = 0;      ///< GcInfo::start_time_ns
  uint64_t objects = 0, bytes = 0;
  /// Objects of this walk were matched to the walk before through the moved/surviving
  /// ranges of every GC in between (false for the first walk, the first walk of a
  /// recording, and after a gap in the recorded ranges).
  bool identity_from_previous = false;
};

/// A retention-path shape: the root's kind and flags, then the type of every object from the
/// root's object to the member, with repeated hops collapsed (collapse_repeats).
struct PathShape {
  RootKind root_kind = RootKind::Other;
  uint8_t root_flags = 0;
  std::vector<std::string> types;  ///< the last one is the members' type
  uint64_t count = 0;              ///< members with this shape at the last walk
  uint64_t min_hops = 0, max_hops = 0;  ///< lengths of the uncollapsed paths of those members
};

/// A group's size at one walk.
struct LeakPoint {
  /// The group's members at this walk by path shape, and with object identity at least its
  /// members of the last walk alive at this one, whichever root their path started from then.
  uint64_t count = 0, bytes = 0;
  /// Bytes freed if every member went away: the union of their dominator subtrees.
  uint64_t retained_bytes = 0;
  /// Members at the last walk born in the interval that ends at this walk (0 for the first
  /// walk and where identity does not reach).
  uint64_t born_here = 0;
};

/// What holds a suspect's accumulated members, at the last walk: the object that dominates
/// most of them or, when none does (a structure entered from several places, such as a
/// doubly linked list held at its head and at its tail), the owner of the structure
/// (docs/design.md "The holder of a leak").
struct AccumulationPoint {
  bool found = false;            ///< false when neither a dominator nor an owner was found
  /// True when no object dominates more than half of the members and the point is the owner:
  /// the object outside the group with an edge into it that most members reference back.
  bool is_owner = false;
  uint64_t entries = 0;          ///< is_owner: objects outside the group with an edge into it
  uint64_t address = 0;
  std::string type;
  uint64_t retained_bytes = 0;
  uint64_t members_dominated = 0;  ///< accumulated members below it (0 for an owner)
  /// The array between the point and the members when the point owns one (a Dictionary's
  /// entries, a List's items, a delegate's invocation list); empty otherwise.
  std::string via_array;
  uint64_t via_array_address = 0;
};

/// A group that accumulates only because a suspect does: its members are each held by a
/// member of that suspect (a session's name and payload array).
struct HeldGroup {
  std::string type;
  uint64_t accumulated_count = 0, accumulated_bytes = 0;
  PathShape shape;  ///< its most common shape
};

/// A group that accumulates: one or more groups of one type whose members reference each
/// other (one structure reached by several shapes) or share their holder.
struct LeakSuspect {
  std::string type;
  std::vector<PathShape> shapes;  ///< up to LeakOptions::max_shapes, most common first
  std::vector<LeakPoint> series;  ///< one per walk of LeakReport::walks
  /// Members alive at the last walk and born after the first walk of the last recording
  /// (object identity); without identity the growth of the count instead.
  uint64_t accumulated_count = 0, accumulated_bytes = 0;
  bool by_identity = true;        ///< accumulated_* come from object identity
  int64_t retained_growth = 0;    ///< retained bytes, last walk minus first
  int64_t bytes_growth = 0;
  int64_t count_growth = 0;
  uint64_t growth_intervals = 0;  ///< intervals in which the count rose
  uint64_t birth_intervals = 0;   ///< intervals in which accumulated members were born
  AccumulationPoint accumulation;
  uint64_t example_address = 0;   ///< the newest accumulated member, at the last walk
  /// Suspect groups folded into this one (each member held by one of its members).
  std::vector<HeldGroup> holds;
};

/// One type's count and bytes at every walk (for checks such as `gcsnap check --max-count`).
struct TypeSeries {
  std::string type;
  std::vector<uint64_t> counts, bytes;  ///< one per walk
};

/// Why a group that grew is not a suspect (docs/cli.md "leaks", "Bounded").
enum class BoundedKind : uint8_t {
  HeldFlat,  ///< it grew and then held flat (flat_from): a cache at its limit
  Slowed,    ///< its growth is small beside the largest suspect's and does not keep up
};

/// A group that grew but does not accumulate: its fields are a suspect's.
struct BoundedGroup {
  LeakSuspect group;
  BoundedKind kind = BoundedKind::HeldFlat;
  size_t flat_from = 0;  ///< HeldFlat: the first walk of the flat tail (a position in walks)
};

struct LeakReport {
  std::vector<LeakWalk> walks;
  std::vector<size_t> recording_order;  ///< walks' `recording` -> position in the input
  std::vector<LeakSuspect> suspects;    ///< ranked by retained growth, largest first
  /// Groups that grew and held flat, or slowed beside a larger leak; largest growth first.
  std::vector<BoundedGroup> bounded;
  std::vector<TypeSeries> types;        ///< every type seen, by name
  uint64_t groups = 0;                  ///< groups (type + shape) judged
  bool too_few_walks = false;           ///< fewer than LeakOptions::min_walks: nothing judged
};

/// Find the suspects in the heap walks of RECORDINGS (one recording, or several of one app:
/// check it with identify_app/is_same_app first). The recordings are ordered by the time of
/// their first GC; their walks form one series. Object identity is followed inside each
/// recording, not across them.
/// Errors: InvalidArgument (no recording, a null pointer), NotFound (no heap walk at all);
/// those of read_heap_walk, HeapGraph::build, DominatorTree::compute and map_objects
/// (except InconsistentData for a gap in the ranges, which only breaks identity); OutOfMemory.
Result<LeakReport> find_leak_suspects(std::span<const Recording* const> recordings, const LeakOptions& options = {});

/// The same, with PATHS the files RECORDINGS were opened from (one each): a walk whose GC has
/// a valid analysis index (format-spec.md §12) takes its graph and, without include_weak, its
/// dominator tree from it instead of decoding the walk and computing them; the answer is the
/// same. Errors: as above, and InvalidArgument (not one path per recording).
Result<LeakReport> find_leak_suspects(std::span<const Recording* const> recordings, std::span<const std::string> paths,
                                      const LeakOptions& options = {});

/// Collapse repeated hops of a type chain: every block of up to MAX_PERIOD types that
/// directly repeats the block before it is dropped, left to right, so that the 1st and the
/// 1000th node of a linked list (A B B B ... B -> A B), or of a chain of pairs
/// (A B C B C B C -> A B C), have one shape. Errors: OutOfMemory.
Result<std::vector<uint32_t>> collapse_repeats(std::span<const uint32_t> types, size_t max_period = 4);

/// The series-based part of the criteria (docs/design.md "Leak suspects"), for one group:
/// COUNTS has one value per walk. Return whether the counts rise in at least
/// min_growth_share of the intervals, end above where they started, and still rise over
/// the last third of the intervals.
bool is_growing_series(std::span<const uint64_t> counts, double min_growth_share);

/// Where COUNTS (one per walk) grew and then held flat: the first walk of the flat tail, or 0
/// when there is none. The rise R is the largest count minus the smallest; it must be at least
/// one per interval. The tail is the longest run of walks at the end whose counts are all within
/// R/10 of the last; it must span the last third of the intervals at least (one of two) and not
/// start at the first walk, and the first count must lie below the band (the group grew into it
/// rather than shrank into it).
size_t flat_from(std::span<const uint64_t> counts);

/// Whether COUNTS (one per walk) keep growing: the count rose in the last interval, and over the
/// last half of the intervals it rose at least half as fast (per interval) as over the first half.
/// A cache that fills and a lazily filled table slow down; a leak keeps its pace.
bool keeps_growing(std::span<const uint64_t> counts);

/// What tells an app apart: the modules and the namespaces of its own types (the .NET
/// framework's left out: modules System.*, Microsoft.*, mscorlib, netstandard; namespaces
/// under System, Microsoft, Internal, Interop; compiler-generated names). Recorders may leave
/// modules empty (the gcsnap shim does), so namespaces count as much.
struct AppIdentity {
  std::vector<std::string> modules;     ///< file names, sorted
  std::vector<std::string> namespaces;  ///< of the types' own names ("" for the global one), sorted
};

/// Read the names of RECORDING's last GC and return its app identity.
/// Errors: NotFound (no GC); those of Recording::read_names; OutOfMemory.
Result<AppIdentity> identify_app(const Recording& recording);

/// Return whether two recordings are of one app: their app modules or their app namespaces
/// overlap (or neither has any, and so nothing tells them apart).
bool is_same_app(const AppIdentity& a, const AppIdentity& b) noexcept;

}  // namespace gcsnap
