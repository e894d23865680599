#pragma once
// The analysis index files an earlier recording at the same path left behind (docs/cli.md
// "gcsnap index"): removed whenever an index of the recording is built.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "gcsnap/reader.hpp"

namespace gcsnap::cli {

/// One file `FILE.N.gcidx` beside a recording FILE.
struct IndexFile {
  uint64_t gc_number = 0;
  std::filesystem::path path;
};

/// The files `FILE.N.gcidx` beside FILE (N all digits; other files are never listed), in no
/// order; empty when the directory cannot be listed. Never throws.
std::vector<IndexFile> list_index_files(const std::string& file) noexcept;

/// Remove the files `FILE.N.gcidx` beside FILE whose N is not the number of a GC of REC with a
/// heap walk (an earlier recording written to FILE had more, or other, GCs); such an index can
/// never be used again. Returns how many were removed; a file that cannot be removed, or a
/// directory that cannot be listed, is left as it is (never an error).
size_t remove_orphan_indexes(const std::string& file, const Recording& rec) noexcept;

}  // namespace gcsnap::cli
