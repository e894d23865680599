#pragma once
// How `info` names a walk that was not taken, or abandoned (format-spec.md §6.15): the
// SNAPSHOT cell people read, the key and figures scripts read, and the note under the table.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gcsnap/model.hpp"

namespace gcsnap::cli {

/// "budget", "cgroup_headroom", "memory_cap", or "unknown" for a reason this version does not know.
const char* walk_skip_key(uint8_t reason) noexcept;
/// The SNAPSHOT cell: "skipped: budget, est. 12 ms", "skipped: cgroup headroom 3 MiB < 40 MiB",
/// "abandoned: memory cap 768 MiB".
std::string walk_skip_cell(const WalkSkip& skip);
/// For scripts: what the walk needed and what was available, in bytes (0, 0 for the budget,
/// whose figures are times: walk_estimate_ns carries them).
std::pair<uint64_t, uint64_t> walk_skip_bytes(const WalkSkip& skip) noexcept;
/// The notes under the GC table for the guard's skips and the cap's abandoned walks ("" none).
std::vector<std::string> walk_skip_notes(const std::vector<WalkSkip>& skips);

}  // namespace gcsnap::cli
