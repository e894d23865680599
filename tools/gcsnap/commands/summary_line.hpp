#pragma once
// The one line `gcsnap record` and an attached `gcsnap snapshot` print about the file they
// made: GCs, snapshots, size, path, what was dropped, how the file ends.

#include <cstdint>
#include <string>

namespace gcsnap::cli {

/// Return "12.5x the recording": how an analysis index's size compares with its recording's.
std::string size_ratio(uint64_t index_bytes, uint64_t file_bytes);

/// Print "gcsnap: recorded N GCs, M snapshots, SIZE of PROCESS in PATH; ..." on stderr (or
/// the error that the file cannot be read). PROCESS names what the file holds, as
/// "process 12345 (app)"; "" leaves it out. With BUILD_INDEX (record --index) the analysis
/// index of every snapshot is built first (progress on a terminal) and the line says so, with
/// the indexes' size. Return the number of heap walks in the file, counting those a size cap
/// dropped (so that no "no heap walk" hint follows; 0 also when unreadable).
uint64_t print_summary(const std::string& path, const std::string& process = "", bool build_index = false);

/// Print on stderr that PATH has no heap walk (no GC that POLICY walks happened while PID was
/// recorded) and which option gives walks.
void print_no_walk_hint(const std::string& path, const std::string& policy, long pid);

}  // namespace gcsnap::cli
