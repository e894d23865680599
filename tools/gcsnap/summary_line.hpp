#pragma once
// The one line `gcsnap record` and an attached `gcsnap snapshot` print about the file they
// made: GCs, snapshots, size, path, what was dropped, how the file ends.

#include <cstdint>
#include <string>

namespace gcsnap::cli {

/// Print "gcsnap: recorded N GCs, M snapshots, SIZE in PATH; ..." on stderr (or the error
/// that the file cannot be read).
void print_summary(const std::string& path);

}  // namespace gcsnap::cli
