#pragma once
// Shared by leaks and check: open one or more recordings of one app and find the suspects.

#include <memory>
#include <string>
#include <vector>

#include "gcsnap/leak_suspects.hpp"
#include "gcsnap/reader.hpp"

namespace gcsnap::cli {

struct LoadedLeaks {
  std::vector<std::string> files;  ///< as given
  std::vector<std::unique_ptr<Recording>> recordings;
  LeakReport report;
  /// The file of walk W (the report orders recordings by time).
  const std::string& file_of(const LeakWalk& walk) const { return files[report.recording_order[walk.recording]]; }
};

/// Open FILES, reject recordings of another app than the first (one line naming both
/// files), and find the suspects; with USE_INDEX each walk's graph and dominators come from
/// its GC's analysis index where a valid one exists (none is built). Throws CliError naming
/// the file.
std::unique_ptr<LoadedLeaks> load_leaks(const std::vector<std::string>& files, const LeakOptions& options,
                                        bool use_index = true);

/// A holder as the tables name it: "List<T> (via T[])", "X (owner; entered from N objects)".
std::string describe_point(const AccumulationPoint& point);

/// One suspect's first path shape on one line: "[handle] -> A -> B -> C".
std::string describe_shape(const PathShape& shape);

/// "0 12 24 36": the counts of a series; with more than MAX values the middle is elided.
std::string describe_counts(const LeakSuspect& suspect, size_t max = 8);

}  // namespace gcsnap::cli
