#pragma once
// The text form of `gcsnap leaks`: one block per suspect that fits the terminal (or 120
// columns on a pipe), instead of a table whose rows hold paths (docs/cli.md "leaks").

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "loading/leak_load.hpp"
#include "commands/leaks_holders.hpp"

namespace gcsnap::cli {

/// Return the report as text: a title, a block per suspect (PATHS: one per suspect, or none),
/// then NOTES, every line at most WIDTH columns (0: no limit, full names). Type names are
/// shortened by the short-names rules; paths wrap between hops.
std::string render_leaks_text(const LoadedLeaks& leaks, const std::vector<SuspectPath>& paths,
                              const std::vector<std::string>& notes, size_t width);

/// "Ns.Holder 0x7f... (via Ns.Item[])": a holder as the text's `held by` shows it, type names
/// abbreviated to LEVEL (0: full, 1 and 2: abbreviate_type_name's).
std::string accumulation_text(const AccumulationPoint& p, int level);

}  // namespace gcsnap::cli
