#pragma once
// The leak suspects of `gcsnap report`'s page as JSON: gcsnap leaks' analysis of the recording
// and the folded paths of the suspects' examples at the last snapshot.

#include <cstddef>
#include <cstdint>
#include <string>

#include "export/report_data.hpp"
#include "export/report_strings.hpp"
#include "gcsnap/retention.hpp"
#include "loading/heap_load.hpp"

namespace gcsnap::cli {

/// The folded retention path of ADDRESS in HEAP (fold_repeats over each hop's type and the
/// field out of it): [[type, field out (-1: none), hops], ...], the first hop's root kind in
/// "root"; "null" when the object is not there or not reachable. FOLD false: one entry per hop.
std::string folded_path_json(const LoadedHeap& heap, const ShortestPathTree& bfs, uint64_t address, StringTable& strings,
                             bool fold);

/// The suspects of FILE (WALK_COUNT heap walks) as gcsnap leaks ranks them, with their series,
/// holder, path shapes and, when HEAP (with its shortest-path tree BFS) is the last walk, the
/// folded path of each one's example. Throws CliError naming the file.
std::string suspects_json(const std::string& file, size_t walk_count, StringTable& strings, const ReportLimits& limits,
                          const LoadedHeap& heap, const ShortestPathTree& bfs);

}  // namespace gcsnap::cli
