#pragma once
// The text form of `gcsnap leaks`' bounded list and of `--series` (docs/cli.md "leaks"):
// the groups that grew but do not accumulate, and the types' counts at every heap walk.

#include <cstddef>
#include <string>

#include "loading/leak_load.hpp"
#include "output/output.hpp"

namespace gcsnap::cli {

/// The bounded section: a title and a short block per group, every line at most WIDTH columns
/// (0: no limit). Empty when the report has no bounded group.
std::string render_bounded_text(const LoadedLeaks& leaks, size_t width);

/// "held flat from walk 3 (GC 12)" or "slowed beside the leaks": why GROUP is bounded.
std::string bounded_reason(const LoadedLeaks& leaks, const BoundedGroup& group);

/// The bounded groups, one row each (JSON key `bounded`); FORMAT Table adds their counts.
Table bounded_table(const LoadedLeaks& leaks, Format format);

/// The bounded groups at every heap walk, one row per group and walk (JSON key `bounded_series`).
Table bounded_series_table(const LoadedLeaks& leaks);

/// `--series`: the types whose count changed, the largest change first (TOP of them; 0: all).
/// As text one row per type with its counts; JSON and CSV one row per type and walk
/// (key `type_series`).
Table type_series_table(const LoadedLeaks& leaks, Format format, size_t top);

}  // namespace gcsnap::cli
