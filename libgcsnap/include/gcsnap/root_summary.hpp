#pragma once
/// Root summaries: how many roots of each kind and flag combination a GC reported.

#include <cstdint>
#include <string>
#include <vector>

#include "gcsnap/model.hpp"
#include "gcsnap/reader.hpp"
#include "gcsnap/status.hpp"

namespace gcsnap {

/// Return flag names joined by ',' ("pinning,weak"), or "" for no flags. Names: pinning,
/// weak, interior, refcounted; unknown bits as "0x10".
std::string root_flags_text(uint8_t flags);

/// Roots of one (kind, flags) combination.
struct RootGroup {
  RootKind kind = RootKind::Other;
  uint8_t flags = 0;
  uint64_t count = 0;
  uint64_t distinct_objects = 0;  ///< different object ids (0 counts as one when present)
  uint64_t null_objects = 0;      ///< roots whose object id is 0
};

/// Group roots by kind, then flags; sorted by kind (stack, finalizer, handle, other) then flags.
/// Errors: OutOfMemory.
Result<std::vector<RootGroup>> summarize_roots(const RootTable& roots);

/// Return the roots (positions in the table) that match: `kinds` is a bitmask over
/// 1 << RootKind (0 = any kind); every bit of `required_flags` must be set on the root.
/// Errors: OutOfMemory.
Result<std::vector<size_t>> filter_roots(const RootTable& roots, uint8_t kinds, uint8_t required_flags);

}  // namespace gcsnap
