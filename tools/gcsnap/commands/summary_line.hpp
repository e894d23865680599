#pragma once
// The one line `gcsnap record` and an attached `gcsnap snapshot` print about the file they
// made: GCs, snapshots, size, path, what was dropped, how the file ends.

#include <cstdint>
#include <string>

namespace gcsnap::cli {

/// Print "gcsnap: recorded N GCs, M snapshots, SIZE of PROCESS in PATH; ..." on stderr (or
/// the error that the file cannot be read). PROCESS names what the file holds, as
/// "process 12345 (app)"; "" leaves it out. With BUILD_INDEX (record --index) the analysis
/// index of every snapshot is built first (progress on a terminal) and the line says so.
void print_summary(const std::string& path, const std::string& process = "", bool build_index = false);

}  // namespace gcsnap::cli
