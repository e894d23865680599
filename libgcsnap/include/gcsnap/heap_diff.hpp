#pragma once
/// Heap diffs by type and by root. They compare two GCs of one recording or of two
/// recordings; types are matched by name, since type ids are per recording.
/// Object-level diffs (new, dead, surviving objects) are in object_diff.hpp.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gcsnap/model.hpp"
#include "gcsnap/reader.hpp"
#include "gcsnap/status.hpp"
#include "gcsnap/type_histogram.hpp"

namespace gcsnap {

/// Objects of one type in one heap walk.
struct TypeTotal {
  std::string name;
  uint64_t count = 0;
  uint64_t bytes = 0;
};

/// Count objects and bytes per type name, sorted by name. Objects whose type id has no name
/// are counted under NameTable::type_name's text for that id. Errors: OutOfMemory.
Result<std::vector<TypeTotal>> count_by_type(const ObjectTable& objects, const NameTable& names);

/// The same from a type histogram of the walk (per type id: count and shallow bytes, as an
/// analysis index keeps it). Errors: OutOfMemory.
Result<std::vector<TypeTotal>> count_by_type(std::span<const TypeStats> stats, const NameTable& names);

/// One type's change from A to B.
struct TypeDelta {
  std::string name;
  uint64_t count_a = 0, bytes_a = 0;
  uint64_t count_b = 0, bytes_b = 0;
  int64_t delta_count() const noexcept { return static_cast<int64_t>(count_b) - static_cast<int64_t>(count_a); }
  int64_t delta_bytes() const noexcept { return static_cast<int64_t>(bytes_b) - static_cast<int64_t>(bytes_a); }
};

/// Merge-join two name-sorted totals (as count_by_type returns them). Result: types whose
/// count or bytes changed (all types when include_unchanged), largest change first: |Δbytes|
/// descending (growth before an equal shrinkage), then |Δcount| the same way, then name.
/// Errors: OutOfMemory.
Result<std::vector<TypeDelta>> diff_by_type(std::span<const TypeTotal> a, std::span<const TypeTotal> b,
                                            bool include_unchanged = false);

/// A root as diffs match it: same kind, same root id, same object (after mapping A's object
/// ids to their addresses at B's GC).
struct RootKey {
  RootKind kind = RootKind::Other;
  uint64_t root_id = 0;
  uint64_t object = 0;
  uint8_t flags = 0;  ///< reported, not part of the match
  friend bool operator==(const RootKey& x, const RootKey& y) noexcept {
    return x.kind == y.kind && x.root_id == y.root_id && x.object == y.object;
  }
};

struct RootDiff {
  std::vector<RootKey> added;    ///< in B, not matched in A; sorted by kind, root id, object
  std::vector<RootKey> removed;  ///< in A (object as in A), not matched in B; same order
  uint64_t unchanged = 0;        ///< matched pairs (duplicates match one to one)
};

/// Diff two root tables. `mapped_a_objects` is empty (compare object ids as recorded: two
/// recordings, or the same GC) or parallel to a: the address of each root's object at B's GC,
/// or 0 when it died in between (then the root cannot match and counts as removed).
/// Errors: OutOfMemory.
Result<RootDiff> diff_roots(const RootTable& a, std::span<const uint64_t> mapped_a_objects, const RootTable& b);

/// Roots added and removed per kind.
struct RootKindDelta {
  RootKind kind = RootKind::Other;
  uint64_t count_a = 0, count_b = 0, added = 0, removed = 0;
};

/// Summarize a root diff per kind (stack, finalizer, handle, other; all four always present).
/// Errors: OutOfMemory.
Result<std::vector<RootKindDelta>> summarize_root_diff(const RootTable& a, const RootTable& b, const RootDiff& diff);

}  // namespace gcsnap
