#pragma once
// The analysis index files an earlier recording at the same path left behind (docs/cli.md
// "gcsnap index"): removed whenever an index of the recording is built.

#include <cstddef>
#include <string>

#include "gcsnap/reader.hpp"

namespace gcsnap::cli {

/// Remove the files `FILE.N.gcidx` beside FILE whose N is not the number of a GC of REC with a
/// heap walk (an earlier recording written to FILE had more, or other, GCs); such an index can
/// never be used again. Returns how many were removed; a file that cannot be removed, or a
/// directory that cannot be listed, is left as it is (never an error).
size_t remove_orphan_indexes(const std::string& file, const Recording& rec) noexcept;

}  // namespace gcsnap::cli
