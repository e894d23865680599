#pragma once
// `gcsnap report`: the allocation view's data (issue 43): the recording's sampled allocations
// as a tree of stack frames, outermost first, with the estimated bytes allocated under each
// frame and those still alive at the last heap walk (docs/cli.md "report").

#include <cstddef>
#include <string>

#include "gcsnap/reader.hpp"

namespace gcsnap::cli {

/// ",\"allocations\":{...}" for the samples of FILE's blocks 0..WALK_POS followed to WALK_POS,
/// or "" when the recording has none (the page then shows no allocation view). At most
/// MAX_NODES frames are carried, the largest first. Throws CliError naming FILE.
std::string report_alloc_json(const std::string& file, const Recording& recording, size_t walk_pos,
                              size_t max_nodes = 2000);

}  // namespace gcsnap::cli
